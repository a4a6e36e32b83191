"""LaTeX sources of the embedded arXiv-style corpus (used by make_samples.py).

Each paper exercises something the extractor must handle; the comment on each says what.
"""

from __future__ import annotations

CC_BY = "http://creativecommons.org/licenses/by/4.0/"
CC_BY_SA = "http://creativecommons.org/licenses/by-sa/4.0/"
CC_BY_NC_SA = "http://creativecommons.org/licenses/by-nc-sa/4.0/"
CC0 = "http://creativecommons.org/publicdomain/zero/1.0/"
ARXIV_NONEXCL = "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"

PIPELINE_PREAMBLE = r"""\documentclass{article}
\usepackage{amsmath,amssymb}
\usepackage{tikz}
\usetikzlibrary{arrows.meta,positioning,shapes.geometric}
\definecolor{accent}{RGB}{200,60,40}
\definecolor{unusedgreen}{HTML}{00AA00}
\newcommand{\vect}[1]{\mathbf{#1}}
\newcommand{\R}{\mathbb{R}}
\newcommand{\unusedmacro}{never used in a figure}
\tikzset{
  block/.style={draw, rounded corners, minimum width=2cm, minimum height=8mm, fill=accent!15},
  arrow/.style={-Stealth, thick},
  unusedstyle/.style={dashed}
}
"""

PIPELINE_FIGURE = r"""\begin{figure}[t]
\centering
\begin{tikzpicture}[node distance=1.2cm]
  \node[block] (in) {Input $\vect{x} \in \R^d$};
  \node[block, right=of in] (enc) {Encoder};
  \node[block, right=of enc] (out) {Output};
  \draw[arrow] (in) -- (enc);
  \draw[arrow] (enc) -- (out);
\end{tikzpicture}
\caption{The processing pipeline from input to output.}
\label{fig:pipeline}
\end{figure}
"""

PAPERS: list[dict] = []


def paper(**kw: object) -> None:
    PAPERS.append(kw)


# A: \input of sections and figure files, custom macros, \definecolor, \tikzset, libraries.
paper(
    id="2401.00101", version=1, title="Graph Attention Flows for Structured Prediction",
    authors=[("Lovelace", "Ada"), ("Babbage", "Charles")], categories="cs.LG cs.AI",
    created="2024-01-02", licence=CC_BY, pdf=True,
    files={
        "main.tex": PIPELINE_PREAMBLE + r"""\title{Graph Attention Flows for Structured Prediction}
\author{Ada Lovelace \and Charles Babbage}
\begin{document}
\maketitle
\input{sections/intro}
\input{sections/method.tex}
\end{document}
""",
        "sections/intro.tex": r"""\section{Introduction}
Structured prediction needs models that respect graph structure.

Our pipeline is shown in Figure~\ref{fig:pipeline}. It maps inputs $\vect{x}$ to outputs
through a single encoder.

""" + PIPELINE_FIGURE + r"""
The remainder of the paper is organised as usual.
""",
        "sections/method.tex": r"""\section{Method}
Attention decides which neighbour to follow, as Figure~\ref{fig:attention} illustrates.

\begin{figure}[h]
\centering
\input{figures/attention}
\caption{Attention routing: a decision node selects one of two experts.}
\label{fig:attention}
\end{figure}
""",
        "figures/attention.tex": r"""% attention routing figure
\begin{tikzpicture}[node distance=1.5cm]
  \node[diamond, draw, fill=accent!30, aspect=1.5] (gate) {gate};
  \node[block, above right=0.5cm and 2cm of gate] (e1) {Expert 1};
  \node[block, below right=0.5cm and 2cm of gate] (e2) {Expert 2};
  \draw[arrow] (gate) -- node[above, sloped] {$p$} (e1);
  \draw[arrow] (gate) -- node[below, sloped] {$1-p$} (e2);
\end{tikzpicture}
""",
    },
)

# B: one paper, four figures with captions; \def macro, \foreach, scope, opacity.
paper(
    id="2401.00102", version=2, title="A Visual Survey of Learned Structures",
    authors=[("Noether", "Emmy")], categories="cs.CV", created="2024-01-03",
    licence=CC_BY_SA, pdf=True,
    files={
        "paper.tex": r"""\documentclass[11pt]{article}
\usepackage{tikz}
\usetikzlibrary{positioning,arrows.meta,shapes}
\definecolor{setA}{RGB}{31,119,180}
\definecolor{setB}{RGB}{255,127,14}
\def\nlayers{3}
\newcommand{\neuron}[2]{\node[circle, draw, minimum size=6mm] (#1) at #2 {};}
\tikzstyle{box}=[rectangle, draw, fill=setA!20, text width=2cm, align=center]
\begin{document}
\section{Trees}
A decision tree is drawn in Figure~\ref{fig:tree}.
\begin{figure}[t]
\centering
\begin{tikzpicture}[level distance=12mm, sibling distance=24mm]
  \node[box] {root}
    child { node[box] {left}
      child { node[box] {leaf 1} }
      child { node[box] {leaf 2} } }
    child { node[box] {right} };
\end{tikzpicture}
\caption{A binary decision tree of depth two.}\label{fig:tree}
\end{figure}

\section{Flows}
Figure~\ref{fig:flow} shows the processing flow; see also Figure~\ref{fig:tree}.
\begin{figure}[h]
\centering
\begin{tikzpicture}[node distance=8mm and 14mm, >=Stealth]
  \node[box] (a) {Load};
  \node[box, right=of a] (b) {Clean};
  \node[box, right=of b] (c) {Train};
  \node[box, below=of c] (d) {Evaluate};
  \draw[->] (a) -- (b); \draw[->] (b) -- (c); \draw[->] (c) -- (d);
  \draw[->, dashed] (d.west) -| (b.south);
\end{tikzpicture}
\caption{Training flow with a feedback loop.}\label{fig:flow}
\end{figure}

\section{Networks}
The network in Figure~\ref{fig:net} has \nlayers{} layers.
\begin{figure}[h]
\centering
\begin{tikzpicture}[x=18mm, y=9mm]
  \foreach \i in {1,...,3} { \neuron{a\i}{(0,-\i)} }
  \foreach \i in {1,...,4} { \neuron{b\i}{(1,-\i+0.5)} }
  \foreach \i in {1,2} { \neuron{c\i}{(2,-\i-0.5)} }
  \foreach \i in {1,...,3} \foreach \j in {1,...,4} \draw[->] (a\i) -- (b\j);
  \foreach \j in {1,...,4} \foreach \k in {1,2} \draw[->] (b\j) -- (c\k);
\end{tikzpicture}
\caption{A fully connected network with one hidden layer.}\label{fig:net}
\end{figure}

\section{Sets}
Overlaps are summarised in Figure~\ref{fig:venn}.
\begin{figure}[h]
\centering
\begin{tikzpicture}
  \begin{scope}[fill opacity=0.5]
    \fill[setA] (0,0) circle (1.2);
    \fill[setB] (1.4,0) circle (1.2);
  \end{scope}
  \node at (-0.6,0) {$A$};
  \node at (2.0,0) {$B$};
  \node at (0.7,0) {$A\cap B$};
\end{tikzpicture}
\caption{Venn diagram of the two sets.}\label{fig:venn}
\end{figure}
\end{document}
""",
    },
)

# C: tikz-cd with \DeclareMathOperator.
paper(
    id="2401.00103", version=1, title="Adjunctions in Practice",
    authors=[("Mac Lane", "Saunders")], categories="math.CT", created="2024-01-04",
    licence=CC_BY,
    files={
        "main.tex": r"""\documentclass{amsart}
\usepackage{amsmath}
\usepackage{tikz-cd}
\DeclareMathOperator{\Hom}{Hom}
\DeclareMathOperator{\Ext}{Ext}
\begin{document}
The square in Figure~\ref{fig:square} commutes.
\begin{figure}
\[
\begin{tikzcd}
A \arrow[r, "f"] \arrow[d, "g"'] & B \arrow[d, "h"] \\
C \arrow[r, "k"'] & \Hom(B, C)
\end{tikzcd}
\]
\caption{A commuting square.}\label{fig:square}
\end{figure}
\end{document}
""",
    },
)

# D: circuitikz with package options.
paper(
    id="2401.00104", version=1, title="A Low-Noise Amplifier Stage",
    authors=[("Tesla", "Nikola")], categories="eess.SY", created="2024-01-05", licence=CC0,
    files={
        "main.tex": r"""\documentclass{article}
\usepackage[american]{circuitikz}
\begin{document}
The circuit of Figure~\ref{fig:rc} is a first-order low-pass filter.
\begin{figure}[h]
\centering
\begin{circuitikz}
  \draw (0,0) to[V, v=$V_s$] (0,2)
        to[R, l=$R$] (3,2)
        to[C, l=$C$] (3,0) -- (0,0);
\end{circuitikz}
\caption{RC low-pass filter.}\label{fig:rc}
\end{figure}
\end{document}
""",
        # an SVG shipped in the source (converted to PDF by the authors' build)
        "figures/block.svg": """<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="260" height="90" viewBox="0 0 260 90">
  <!-- exported by a drawing tool -->
  <rect x="5" y="20" width="90" height="50" fill="#eef" stroke="#336"/>
  <text x="50" y="50" font-family="Arial" font-size="14" text-anchor="middle">Source</text>
  <path d="M95 45 H160" stroke="#336" stroke-width="2"/>
  <polygon points="160,38 172,45 160,52" fill="#336"/>
  <rect x="172" y="20" width="80" height="50" fill="#efe" stroke="#363"/>
  <text x="212" y="50" font-family="Arial" font-size="14" text-anchor="middle">Filter</text>
</svg>
""",
    },
)

# E: forest parse tree.
paper(
    id="2401.00105", version=1, title="Parsing with Forests",
    authors=[("Chomsky", "Noam")], categories="cs.CL", created="2024-01-06",
    licence=CC_BY_NC_SA, pdf=True,
    files={
        "main.tex": r"""\documentclass{article}
\usepackage{forest}
\begin{document}
\section{Syntax}
A constituency parse is shown in Figure~\ref{fig:parse}.
\begin{figure}[h]
\centering
\begin{forest}
  [S [NP [Det [the]] [N [cat]]] [VP [V [sat]] [PP [P [on]] [NP [Det [the]] [N [mat]]]]]]
\end{forest}
\caption{Constituency parse of a short sentence.}\label{fig:parse}
\end{figure}
\end{document}
""",
    },
)

# F: arXiv non-exclusive licence: not redistributable, dropped at crawl.
paper(
    id="2401.00106", version=1, title="Closed Figures",
    authors=[("Doe", "Jane")], categories="cs.LG", created="2024-01-07", licence=ARXIV_NONEXCL,
    files={
        "main.tex": r"""\documentclass{article}
\usepackage{tikz}
\begin{document}
\begin{tikzpicture}\draw (0,0) rectangle (2,1) node[midway] {closed};\end{tikzpicture}
\end{document}
""",
    },
)

# G: single-file e-print (gzip of one .tex), \tikzstyle, inline \tikz command.
paper(
    id="2401.00107", version=1, title="Tiny Automata", single_file=True,
    authors=[("Turing", "Alan")], categories="cs.FL", created="2024-01-08", licence=CC_BY,
    files={
        "main.tex": r"""\documentclass{article}
\usepackage{tikz}
\usetikzlibrary{automata,arrows}
\tikzstyle{every state}=[fill=yellow!20, draw, minimum size=8mm]
\begin{document}
An arrow \tikz\draw[->] (0,0) -- (0.5,0); marks transitions. A state machine accepting
strings with an even number of ones is drawn in Figure~\ref{fig:dfa}.
\begin{figure}[h]
\centering
\begin{tikzpicture}[shorten >=1pt, node distance=2.2cm, auto]
  \node[state, initial, accepting] (q0) {$q_0$};
  \node[state, right of=q0] (q1) {$q_1$};
  \path[->] (q0) edge[bend left] node {1} (q1)
            (q1) edge[bend left] node {1} (q0)
            (q0) edge[loop above] node {0} ()
            (q1) edge[loop above] node {0} ();
\end{tikzpicture}
\caption{DFA for an even number of ones.}\label{fig:dfa}
\end{figure}
\end{document}
""",
    },
)

# H: snippets that do not compile standalone (nor in the paper).
paper(
    id="2401.00108", version=1, title="Things That Break",
    authors=[("Murphy", "Edward")], categories="cs.SE", created="2024-01-09", licence=CC_BY,
    files={
        "main.tex": r"""\documentclass{article}
\usepackage{tikz}
\usepackage{nonexistentfancypkg}
\begin{document}
\begin{figure}[h]
\begin{tikzpicture}
  \node[draw] (a) {Good};
  \node[draw, right=2cm] at (a) {Also good};
  \draw (0,0) -- (2,0) -- (2,1) -- cycle;
\end{tikzpicture}
\caption{Compiles only if the missing package is not needed.}\label{fig:ok}
\end{figure}
\begin{figure}[h]
\begin{tikzpicture}
  \node[draw] at (0,0) {\undefinedfancymacro{x}};
  \draw (0,0) circle (1);
\end{tikzpicture}
\caption{Uses a macro nobody defined.}\label{fig:undef}
\end{figure}
\begin{figure}[h]
\begin{tikzpicture}
  \draw (0,0) -- (1,1)
  \draw (1,1) -- (2,0);
  \node at (1,0.3) {missing semicolon};
\end{tikzpicture}
\caption{A path that never ends.}\label{fig:semicolon}
\end{figure}
\end{document}
""",
    },
)

# I: hostile TeX: reads /etc/passwd, shell escape, writes outside, loops forever.
paper(
    id="2401.00109", version=1, title="Adversarial Preambles",
    authors=[("Mallory", "Eve")], categories="cs.CR", created="2024-01-10", licence=CC_BY,
    files={
        "main.tex": r"""\documentclass{article}
\usepackage{tikz}
\begin{document}
\begin{figure}[h]
\begin{tikzpicture}
  \node[draw, text width=6cm] at (0,0) {\input{/etc/passwd}};
  \draw (0,-1) -- (3,-1);
\end{tikzpicture}
\caption{Tries to read a system file.}
\end{figure}
\begin{figure}[h]
\begin{tikzpicture}
  \immediate\write18{touch /tmp/diagramforge-pwned}
  \newwrite\outfile\immediate\openout\outfile=../../diagramforge-escape.tex
  \immediate\write\outfile{escaped}\immediate\closeout\outfile
  \draw[thick] (0,0) rectangle (3,2) node[midway] {harmless box};
\end{tikzpicture}
\caption{Tries to run a shell command and write outside its directory.}
\end{figure}
\begin{figure}[h]
\begin{tikzpicture}
  \def\forever{\forever}
  \draw (0,0) -- (1,1);
  \forever
\end{tikzpicture}
\caption{Never finishes.}
\end{figure}
\end{document}
""",
    },
)

# J: \include, \subfile, \import; pgfplots.
paper(
    id="2401.00110", version=1, title="Scaling Curves Revisited",
    authors=[("Kaplan", "Jared")], categories="cs.LG", created="2024-01-11", licence=CC_BY,
    pdf=True,
    files={
        "main.tex": r"""\documentclass{article}
\usepackage{pgfplots}
\pgfplotsset{compat=1.18}
\usepackage{import}
\usepackage{subfiles}
\newcommand{\lossname}{validation loss}
\begin{document}
\include{chapters/results}
\subfile{sections/appendix}
\end{document}
""",
        "chapters/results.tex": r"""\section{Results}
The curve in Figure~\ref{fig:curve} shows the \lossname{} falling with compute.
\begin{figure}[h]
\centering
\import{chapters/figs/}{curve.tex}
\caption{Loss against compute on a log scale.}\label{fig:curve}
\end{figure}
""",
        "chapters/figs/curve.tex": r"""\begin{tikzpicture}
  \begin{axis}[xmode=log, xlabel={compute}, ylabel={\lossname}, width=7cm, height=5cm]
    \addplot+[mark=*] coordinates {(1,3.2) (10,2.6) (100,2.1) (1000,1.8)};
  \end{axis}
\end{tikzpicture}
""",
        "sections/appendix.tex": r"""\documentclass[../main.tex]{subfiles}
\begin{document}
\section{Appendix}
A bar chart of the budget is in Figure~\ref{fig:bars}.
\begin{figure}[h]
\centering
\begin{tikzpicture}
  \begin{axis}[ybar, symbolic x coords={data,model,eval}, xtick=data, width=7cm, height=5cm]
    \addplot coordinates {(data,40) (model,45) (eval,15)};
  \end{axis}
\end{tikzpicture}
\caption{Budget split across the project.}\label{fig:bars}
\end{figure}
\end{document}
""",
    },
)

# K: the same pipeline figure as paper A (an exact duplicate across papers).
paper(
    id="2401.00111", version=1, title="Encoders Everywhere",
    authors=[("Hopper", "Grace")], categories="cs.LG", created="2024-01-12", licence=CC_BY,
    files={
        "main.tex": PIPELINE_PREAMBLE + r"""\begin{document}
We reuse the pipeline of earlier work (Figure~\ref{fig:pipeline}).

""" + PIPELINE_FIGURE + r"""
\end{document}
""",
    },
)

# L: hostile archive: a member escapes the extraction directory.
paper(
    id="2401.00112", version=1, title="Escaping Archives",
    authors=[("Trojan", "Horse")], categories="cs.CR", created="2024-01-13", licence=CC_BY,
    files={
        "main.tex": r"""\documentclass{article}
\usepackage{tikz}
\begin{document}
\begin{tikzpicture}\draw (0,0) circle (1) node {trap};\end{tikzpicture}
\end{document}
""",
        "../../../../tmp/diagramforge-traversal.tex": "owned\n",
    },
)

# M: no TikZ at all, only an included image.
paper(
    id="2401.00113", version=1, title="Only Pictures",
    authors=[("Daguerre", "Louis")], categories="cs.CV", created="2024-01-14", licence=CC_BY,
    files={
        "main.tex": r"""\documentclass{article}
\usepackage{graphicx}
\begin{document}
\begin{figure}\includegraphics{photo.png}\caption{A photo.}\end{figure}
\end{document}
""",
    },
)

# N: a decompression bomb hidden next to a real figure.
paper(
    id="2401.00114", version=1, title="Heavy Supplementary Data",
    authors=[("Bomber", "Zip")], categories="cs.DB", created="2024-01-15", licence=CC_BY,
    bomb_bytes=30_000_000,
    files={
        "main.tex": r"""\documentclass{article}
\usepackage{tikz}
\begin{document}
\begin{tikzpicture}\draw[fill=blue!20] (0,0) rectangle (2,2) node[midway] {payload};
\end{tikzpicture}
\end{document}
""",
    },
)

# O: real-corpus classes of preamble reconstruction (each once): class colour options that
# must reach xcolor before TikZ, a library before the \tikzset that needs it, a `/.cd` path,
# style names with + and -, a counter, a random list, a radial shading at the picture's
# edge, a fading, body-level setup (tikz-3dplot), \feynmandiagram, the neuralnetwork
# environment, a pgfplots table read from a data file, a caption that starts with \label.
paper(
    id="2401.00115", version=1, title="Preambles From the Wild",
    authors=[("Thoma", "Martin")], categories="cs.GR physics.ed-ph", created="2024-01-16",
    licence=CC_BY,
    files={
        "main.tex": r"""\documentclass[svgnames,dvipsnames]{article}
\usepackage{tikz}
\usetikzlibrary{shadings,fadings,decorations.pathmorphing}
\usepackage{pgfplots}
\pgfplotsset{compat=1.18}
\usepackage{tikz-3dplot}
\usepackage{tikz-feynman}
\usepackage{neuralnetwork}
\tikzset{
  pics/.cd,
  cell/.style={code={\draw[fill=Gold] (0,0) rectangle (1,1);}},
}
\tikzstyle{wire+}=[draw=DarkBlue, very thick]
\tikzstyle{wire-}=[draw=ForestGreen, dashed]
\newcounter{ballcount}
\pgfmathdeclarerandomlist{hues}{{Crimson}{Teal}{Orchid}}
\pgfdeclareradialshading{glow}{\pgfpoint{-0.3cm}{0.3cm}}{color(0cm)=(white);
  color(0.6cm)=(Crimson); color(1cm)=(black)}
\tikzfading[name=fade right, left color=transparent!0, right color=transparent!100]
\begin{document}
\section{Colours}
\begin{figure}[h]
\begin{tikzpicture}
  \draw[wire+] (0,0) -- (3,0);
  \draw[wire-] (0,-0.5) -- (3,-0.5);
  \pic at (0,-2) {cell};
  \pic at (2,-2) {cell};
\end{tikzpicture}
\caption{\label{fig:wires} Wires and cells in named colours.}
\end{figure}
\begin{figure}[h]
\begin{tikzpicture}
  \foreach \i in {1,...,3} {
    \stepcounter{ballcount}
    \pgfmathrandomitem{\hue}{hues}
    \shade[shading=glow] (\i*1.2,0) circle (0.5);
    \node[text=\hue] at (\i*1.2,-0.8) {ball \theballcount};
  }
  \fill[Teal, path fading=fade right] (0,-1.5) rectangle (4,-2);
\end{tikzpicture}
\caption{Shaded balls touch the edge of the picture.}
\end{figure}
\begin{figure}[h]
\tdplotsetmaincoords{70}{110}
\begin{tikzpicture}[tdplot_main_coords, scale=2]
  \draw[->] (0,0,0) -- (1,0,0) node[anchor=north east]{$x$};
  \draw[->] (0,0,0) -- (0,1,0) node[anchor=north west]{$y$};
  \draw[->] (0,0,0) -- (0,0,1) node[anchor=south]{$z$};
\end{tikzpicture}
\caption{Axes seen from a body-level viewpoint.}
\end{figure}
\begin{figure}[h]
\feynmandiagram [horizontal=a to b] {
  i1 -- [fermion] a -- [fermion] i2,
  a -- [photon] b,
  f1 -- [fermion] b -- [fermion] f2,
};
\caption{A tree-level scattering.}
\end{figure}
\begin{figure}[h]
\begin{neuralnetwork}[height=4]
  \inputlayer[count=3, bias=false]
  \hiddenlayer[count=4, bias=false] \linklayers
  \outputlayer[count=2] \linklayers
\end{neuralnetwork}
\caption{A small perceptron.}
\end{figure}
\begin{figure}[h]
\begin{tikzpicture}
\begin{axis}[width=6cm, xlabel={epoch}, ylabel={loss}]
  \addplot table [x=epoch, y=loss, col sep=comma] {loss.csv};
\end{axis}
\end{tikzpicture}
\caption{Training loss read from a data file.}
\end{figure}
\end{document}
""",
        "loss.csv": "epoch,loss\n1,2.31\n2,1.52\n3,1.10\n4,0.84\n5,0.71\n6,0.66\n",
    },
)

# P: a document that is itself a figure, as standalone corpora ship them: one standalone
# page with a table and a TikZ overlay (no picture environment of its own to find).
paper(
    id="2401.00116", version=1, title="A Cache Line, Annotated",
    authors=[("Thoma", "Martin")], categories="cs.AR", created="2024-01-17", licence=CC_BY,
    files={
        "cache.tex": r"""\documentclass[varwidth=true, border=2pt]{standalone}
\usepackage{tikz}
\usetikzlibrary{decorations.pathreplacing}
\newcommand\tikzmark[1]{\tikz[overlay,remember picture,baseline] \coordinate (#1);}
\begin{document}
\begin{tabular}{|l|l|}
\hline
Tag & Data\\ \hline
0 & 12345 \tikzmark{a}\\
1 & 67890\\
2 & 13579 \tikzmark{b}\\ \hline
\end{tabular}
\begin{tikzpicture}[remember picture, overlay]
\draw[decorate, decoration={brace, amplitude=4pt}] ([xshift=4pt]a) -- ([xshift=4pt]b)
  node[midway, right=6pt] {set 0};
\end{tikzpicture}
\end{document}
""",
    },
)
