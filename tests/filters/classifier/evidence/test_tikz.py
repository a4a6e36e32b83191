"""TikZ evidence on small snippets of each kind; the preamble never decides."""

from __future__ import annotations

import pytest

from diagramforge.filters.classifier.evidence import code_evidence
from diagramforge.filters.classifier.evidence.tikz import evidence

PREAMBLE = r"""\documentclass[border=2pt]{standalone}
\usepackage{tikz}\usetikzlibrary{mindmap,automata,circuits.ee.IEC}
\usepackage{pgfplots}\pgfplotsset{compat=1.18}
\usepackage{circuitikz}\usepackage{forest}\usepackage{tikz-cd}\usepackage{tikz-feynman}
"""


def doc(body: str) -> str:
    return PREAMBLE + "\\begin{document}\n" + body + "\n\\end{document}\n"


def pic(body: str, opts: str = "") -> str:
    return doc(f"\\begin{{tikzpicture}}{opts}\n{body}\n\\end{{tikzpicture}}")


CASES = [
    # charts: pgfplots, by plot kind
    (pic(r"\begin{axis}[xlabel=$n$]\addplot coordinates {(1,2) (2,3)};\end{axis}"),
     "line_chart", "tikz.pgfplots_axis"),
    (pic(r"\begin{loglogaxis}\addplot{x^2};\end{loglogaxis}"), "function_plot",
     "tikz.pgfplots_expression"),
    (pic(r"\begin{axis}\addplot[domain=0:1] {exp(-x)}; \addplot table {m.dat};\end{axis}"),
     "line_chart", "tikz.pgfplots_axis"),
    (pic(r"\begin{axis}\addplot3[domain=0:6, samples y=0] ({cos(deg(x))}, {sin(deg(x))}, x);"
         r"\end{axis}"), "function_plot", "tikz.pgfplots_expression"),
    (pic(r"\begin{axis}[ybar]\addplot coordinates {(1,2) (2,3)};\end{axis}"), "bar_chart",
     "tikz.pgfplots_bar"),
    (pic(r"\begin{axis}\addplot[only marks] table {data.csv};\end{axis}"), "scatter_plot",
     "tikz.pgfplots_scatter"),
    (pic(r"\begin{axis}\addplot3[surf] {x*y};\end{axis}"), "surface_plot",
     "tikz.pgfplots_3d"),
    (pic(r"\begin{axis}\addplot+[boxplot prepared={median=1}] coordinates {};\end{axis}"),
     "box_plot", "tikz.pgfplots_boxplot"),
    (pic(r"\begin{axis}\addplot+[hist={bins=5}] table[y index=0] {d.dat};\end{axis}"),
     "histogram", "tikz.pgfplots_hist"),
    (pic(r"\begin{axis}\addplot[matrix plot] coordinates {(0,0) [1]};\end{axis}"), "heatmap",
     "tikz.pgfplots_matrix"),
    (pic(r"\pie{10/A, 20/B, 70/C}"), "pie_chart", "tikz.pie"),
    (pic(r"\draw[->] (0,0) -- (4,0) node[right] {$x$}; \draw[->] (0,0) -- (0,3) node[above]"
         r" {$y$}; \draw[domain=0:3, smooth] plot (\x, {sin(\x r)+1});"),
     "function_plot", "tikz.function_plot"),
    (doc(r"\begin{ganttchart}{1}{12}\gantttitle{2024}{12}\ganttbar{A}{1}{4}\end{ganttchart}"),
     "gantt_chart", "tikz.pgfgantt"),
    # one package or environment says it all
    (doc(r"""\begin{tikzcd} A \arrow[r, "f"] \arrow[d] & B \arrow[d, "g"] \\
C \arrow[r] & D \end{tikzcd}"""), "commutative_diagram", "tikz.tikzcd"),
    (doc(r"\feynmandiagram [horizontal=a to b] { i1 -- [fermion] a -- [photon] b };"),
     "feynman_diagram", "tikz.feynman"),
    (pic(r"\begin{feynman}\vertex (a); \vertex[right=of a] (b);"
         r"\diagram* {(a) -- [gluon] (b)};\end{feynman}"), "feynman_diagram", "tikz.feynman"),
    (doc(r"""\begin{circuitikz}\draw (0,0) to[V, l=$V_s$] (0,2) to[R=$R_1$] (2,2)
to[C] (2,0) -- (0,0);\end{circuitikz}"""), "circuit", "tikz.circuitikz"),
    (pic(r"\draw (0,0) to[R, l=$R$] (2,0);"), "circuit", "tikz.circuitikz"),
    (pic(r"\node[nmos] (m) {}; \draw (m.D) -- ++(0,1);"), "circuit", "tikz.circuitikz"),
    (pic(r"\node[and gate, draw] (g) {}; \draw (g.output) -- ++(1,0);", "[circuit logic US]"),
     "circuit", "tikz.circuit_library"),
    (doc(r"\begin{quantikz} \lstick{$q$} & \gate{H} & \ctrl{1} & \qw \end{quantikz}"),
     "circuit", "tikz.quantum_circuit"),
    (doc(r"\begin{forest} [VP [V] [NP [D] [N]]] \end{forest}"), "tree", "tikz.tree_package"),
    (pic(r"\node {root} child { node {left} child { node {leaf} } } child { node {right} };",
         "[level distance=12mm]"), "tree", "tikz.child"),
    (pic(r"\path[mindmap, concept color=blue!40] node[concept] {Root}"
         r" child { node[concept] {A} } child { node[concept] {B} };"), "mind_map",
     "tikz.mindmap"),
    (doc(r"""\begin{neuralnetwork}[height=4]
  \inputlayer[count=3, bias=false] \hiddenlayer[count=4] \linklayers
  \outputlayer[count=2] \linklayers \end{neuralnetwork}"""), "neural_network",
     "tikz.nn_package"),
    (pic(r"""\foreach \i in {1,...,3} \node[circle, draw] (I-\i) at (0,\i) {};
\foreach \j in {1,...,4} \node[circle, draw] (H-\j) at (2,\j) {};
\foreach \i in {1,...,3} \foreach \j in {1,...,4} \draw[->] (I-\i) -- (H-\j);"""),
     "neural_network", "tikz.fully_connected"),
    (pic(r"""\node[draw] (a) {Conv 3x3}; \node[draw, right=of a] (b) {Max pool};
\node[draw, right=of b] (c) {Softmax}; \draw[->] (a) -- (b); \draw[->] (b) -- (c);"""),
     "neural_network", "tikz.layer_chain"),
    (doc(r"\begin{dependency}\begin{deptext} I \& saw \\ \end{deptext}"
         r"\depedge{2}{1}{nsubj}\end{dependency}"), "nlp_grammar", "tikz.dependency"),
    (pic(r"\begin{class}{Shape}{0,0} \attribute{x : int} \end{class}"), "uml",
     "tikz.uml_package"),
    (doc(r"\begin{sequencediagram}\newthread{a}{A}\newinst{b}{B}"
         r"\begin{call}{a}{m()}{b}{}\end{call}\end{sequencediagram}"), "uml",
     "tikz.uml_package"),
    (pic(r"\node[state, initial] (q0) {$q_0$}; \node[state, accepting, right=of q0] (q1)"
         r" {$q_1$}; \path[->] (q0) edge node {a} (q1);"), "automaton", "tikz.automata"),
    (pic(r"\Vertex{A} \Vertex[x=2]{B} \Edge(A)(B)"), "graph", "tikz.graph_package"),
    (pic(r"\graph { a -> b -> c; a -> c };"), "graph", "tikz.graph_package"),
    (pic(r"\tkzDefPoint(0,0){A} \tkzDefPoint(4,0){B} \tkzDrawSegment(A,B)"), "geometry",
     "tikz.geometry_package"),
    (doc(r"\tdplotsetmaincoords{60}{110}\begin{tikzpicture}[tdplot_main_coords]"
         r"\draw[->] (0,0,0) -- (1,0,0);\end{tikzpicture}"), "geometry",
     "tikz.geometry_package"),
    (doc(r"\chemfig{A-B-C}"), "chemical_structure", "tikz.chemfig"),
    (doc(r"\begin{venndiagram3sets}\fillA\end{venndiagram3sets}"), "venn_diagram",
     "tikz.venndiagram"),
    (pic(r"\fill[red, fill opacity=.5] (0,0) circle (1); \fill[blue, fill opacity=.5] (1,0)"
         r" circle (1); \node at (0.5,0) {$A\cap B$};"), "venn_diagram",
     "tikz.overlapping_circles"),
    (pic(r"\node[draw] (s) {Start}; \node[draw, diamond, below=of s] (d) {ok?};"
         r"\node[draw, below=of d] (e) {End}; \draw[->] (s) -- (d); \draw[->] (d) -- (e);"),
     "flowchart", "tikz.decision_diamonds"),
    # layers named by the styles nodes are drawn in; a summing unit with weighted inputs
    (pic(r"""\tikzstyle{conv-layer}=[draw,minimum width=3cm]
\node (a) at (0,0) [conv-layer] {$k$ @ $3 \times 3$}; \node (b) at (0,-2) [conv-layer] {$k$};
\draw[->] (a) -- (b); \draw[->] (b) -- (0,-4);"""), "neural_network", "tikz.layer_chain"),
    (pic(r"""\node[draw,circle] (s) at (0,0) {$\Sigma$};
\node (x1) at (-2,1) {$x_1$}; \node (x2) at (-2,-1) {$x_2$};
\draw[->] (x1) -- node[above] {$w_1$} (s); \draw[->] (x2) -- node[below] {$w_2$} (s);"""),
     "neural_network", "tikz.summing_unit"),
    # an axis as a canvas: hatched regions and segments; points placed and a triangle drawn
    (pic(r"""\begin{axis}[axis x line=middle, axis y line=middle]
\addplot[pattern=north west lines, draw=none] coordinates {(0.5,0) (0.5,5) (1.5,5) (1.5,0)};
\addplot[red, mark=none] coordinates {(0.5,0) (0.5,5)};
\addplot[mark=x] coordinates {(1,3)};\end{axis}"""), "geometry", "tikz.drawing"),
    (pic(r"""\begin{axis}[axis x line=middle, axis y line=middle]
\node[circle, fill] at (axis cs:1,0) {}; \node[circle, fill] at (axis cs:0,1) {};
\node[circle, fill] at (axis cs:1,1) {}; \end{axis}"""), "scatter_plot",
     "tikz.pgfplots_points"),
    # ... but the filled plots of a histogram or an area chart are its data
    (pic(r"""\begin{axis}[ybar interval]
\addplot[fill=blue] coordinates {(0,2) (1,3) (2,1) (3,4)};\end{axis}"""), "histogram",
     "tikz.pgfplots_hist"),
    # pgfplots' heatmap idioms: a surface seen from straight above, coloured square marks
    (pic(r"\begin{axis}[view={0}{90}]\addplot3[surf, shader=interp] {x*y};\end{axis}"),
     "heatmap", "tikz.pgfplots_matrix"),
    (pic(r"\begin{axis}\addplot[scatter, only marks, mark=square*, point meta=explicit] "
         r"table[meta=z] {grid.dat};\end{axis}"), "heatmap", "tikz.pgfplots_matrix"),
    # circuitikz as a canvas (no component drawn) is no circuit; a full diode is one
    (pic(r"\draw (0,0) .. controls (1,0) and (1,1) .. (0,1); \draw (0,1) -- (2,1);"
         r"\draw (2,0) .. controls (3,0) and (3,1) .. (2,1);").replace(
             "tikzpicture", "circuitikz"), "geometry", "tikz.drawing"),
    (pic(r"\draw (1,0.5) node[left] {A} to[full diode] (3,0.5) node[right] {K};").replace(
        "tikzpicture", "circuitikz"), "circuit", "tikz.circuitikz"),
    # a number line mapped onto a circle (one axis, a bracket plotted) is no function plot;
    # f(\x) plotted over an axis marked with ticks is one
    (pic(r"""\draw[->] (-0.5,0) -- (1.5,0) node[below] {$\mathbb{R}$};
\draw[red] plot [smooth] coordinates {(0.47,0.1) (0.5,0) (0.47,-0.1)};
\draw (4,0) circle (1cm);"""), "geometry", "tikz.drawing"),
    (pic(r"""\draw[axis] (0,0) -- (6,0);
\draw[domain=0:6, samples=50] plot (\x, {cos(deg(\x))});
\draw (0,3pt) -- (0,-3pt) node[below] {$0$}; \draw (3,3pt) -- (3,-3pt) node[below] {$L/2$};
\draw (6,3pt) -- (6,-3pt) node[below] {$L$};"""), "function_plot", "tikz.function_plot"),
    # squared paper under a figure is no grid of cells
    (pic(r"""\draw[fill=orange!20] (-3.5,-0.5) -- (-2.5,2.5) -- (2.5,1) -- (1.5,-2) -- cycle;
\draw[<->] (0,3) -- (0,0) -- (3,0); \node at (-3.5,-0.5) {A}; \node at (2.5,1) {C};
\draw[step=0.5cm, color=gray] (-4,-2.5) grid (3,3);"""), "geometry", "tikz.drawing"),
    # tables: a tabular or a matrix of text, nothing else drawn
    (pic(r"\node {\begin{tabular}{ll} a & b \\ c & d \end{tabular}};"), "table",
     "tikz.tabular"),
    (pic(r"\matrix[matrix of nodes] { 1 & 2 \\ 3 & 4 \\ };"), "table", "tikz.tabular"),
    # grids of squares with arrows and labels (a convolution drawn by hand): no kind stated
    (pic(r"""\draw (0,0) grid (4,4); \draw[step=1, red] (5,1) grid (7,3);
\draw[->, thick] (4.2,2) -- (4.8,2); \node at (2,-0.5) {input}; \node at (6,0.5) {kernel};"""),
     None, "tikz.grid_with_arrows"),
    # structure: text nodes joined by edges
    (pic(r"""\node[draw, rectangle, minimum width=2cm] (a) {Input};
\node[draw, rectangle, minimum width=2cm, right=of a] (b) {Encoder};
\node[draw, rectangle, right=of b] (c) {Output}; \draw (a) -- (b); \draw (b) -- (c);"""),
     "architecture_diagram", "tikz.boxes_with_words"),
    (pic(r"""\node[circle, draw] (a) {1}; \node[circle, draw] (b) at (2,0) {2};
\node[circle, draw] (c) at (1,1) {3}; \draw (a) -- (b); \draw (b) -- (c);"""),
     "graph", "tikz.nodes_linked"),
]


@pytest.mark.parametrize(("code", "label", "rule"), CASES,
                         ids=[f"{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_rule(code: str, label: str, rule: str) -> None:
    ev = evidence(code)
    assert (ev.label, ev.rule) == (label, rule)
    assert ev.drawn


@pytest.mark.parametrize("body", [
    r"\draw (0,0) rectangle (1,1);",
    r"\node {x}; \node at (1,0) {y};",
])
def test_silent_code_says_nothing_but_its_family(body: str) -> None:
    """Nothing a rule reads: no kind — but a TikZ picture without axes or plotted data is
    a diagram of some kind (the family is published where the type is not)."""
    ev = evidence(pic(body))
    assert (ev.label, ev.rule, ev.family, ev.graph_like) == (None, "tikz.silent", "diagram",
                                                             False)


@pytest.mark.parametrize("body", [
    r"\draw (0,0) -- (2,0) -- (1,1.5) -- cycle; \node at (1,-0.3) {$c$};",
    r"\fill[red] (0,0) circle (1); % \begin{axis} \addplot {x}; \end{axis}",
    r"""\coordinate[label=left:$A$] (A) at (0,0); \coordinate[label=right:$B$] (B) at (4,0);
\draw (A) -- (B) arc (0:180:2);""",
])
def test_a_drawing_at_coordinates_is_geometry(body: str) -> None:
    """Lines, arcs and circles at coordinates, labelled with math: a geometric figure (by
    eye, the largest class of a real teaching collection), never a graph."""
    ev = evidence(pic(body))
    assert (ev.label, ev.rule, ev.graph_like) == ("geometry", "tikz.drawing", False)


def test_preamble_packages_do_not_label_the_picture() -> None:
    code = pic(r"\draw (0,0) rectangle (1,1);")
    assert "pgfplots" in code and "circuitikz" in code
    assert evidence(code).label is None


def test_complete_graph_is_not_a_neural_network() -> None:
    """Nested loops joining one set of nodes to itself: K_n, not layers."""
    code = pic(r"\foreach \i in {1,...,5} \node[circle] (n\i) at (\i*72:1) {};"
               r"\foreach \i in {1,...,5} \foreach \j in {1,...,5} \draw (n\i) -- (n\j);")
    assert evidence(code).label != "neural_network"


def test_a_picture_over_an_included_image_may_be_a_photo() -> None:
    ev = evidence(pic(r"\node {\includegraphics{cat.jpg}}; \draw[->] (0,0) -- (1,1);"))
    assert not ev.drawn


def test_dispatch_skips_pdf_cutouts_and_rasters() -> None:
    code = pic(r"\begin{axis}\addplot{x};\end{axis}")
    assert code_evidence({"format": "tikz", "code": code}).label == "function_plot"
    assert code_evidence({"format": "tikz", "code": code, "source": "pdf"}) is None
    assert code_evidence({"format": "raster", "code": None}) is None
    assert code_evidence({"format": "tikz", "code": ""}) is None
