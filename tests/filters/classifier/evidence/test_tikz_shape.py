"""TikZ pictures no package names, read by their shape — the classes of a real physics and
teaching collection that the old rules read as graphs or left to a guessing image classifier.
Each snippet is written here in the style of such figures (not copied from a corpus)."""

from __future__ import annotations

import pytest

from diagramforge.filters.classifier.evidence.tikz import evidence
from tests.filters.classifier.evidence.test_tikz import pic

CASES = [
    # geometry: points as nodes, lines to their centres, a closed face — a solid, no graph
    (r"""\tikzstyle{point}=[circle,fill=black,inner sep=0pt,minimum width=3pt]
\node (a)[point] at (0,0) {}; \node (b)[point] at (3,0) {}; \node (c)[point] at (4,1) {};
\node (d)[point] at (1,1) {}; \node (e)[point] at (2,3) {};
\draw (a.center) -- (b.center) -- (c.center) -- cycle;
\draw[dashed] (a.center) -- (d.center) -- (c.center); \draw (a.center) -- (e.center);
\draw (b.center) -- (e.center); \draw (c.center) -- (e.center);""",
     "geometry", "tikz.drawing", False),
    # a graph: blank vertices joined vertex to vertex
    (r"""\tikzstyle{v}=[draw,circle,fill=blue,minimum size=8pt,inner sep=0pt]
\node (a)[v] at (1,0) {}; \node (b)[v] at (0,1) {}; \node (c)[v] at (1,2) {};
\node (d)[v] at (2,2) {}; \node (e)[v] at (3,1) {};
\draw (a) -- (b) -- (c) -- (d) -- (e) -- (a); \draw (b) -- (d);""",
     "graph", "tikz.nodes_linked", True),
    # a tree drawn node by node, levels placed top-down
    (r"""\node[circle,draw] (r) at (0,0) {8}; \node[circle,draw] (a) at (-2,-1) {3};
\node[circle,draw] (b) at (2,-1) {10}; \node[circle,draw] (c) at (-3,-2) {1};
\node[circle,draw] (d) at (-1,-2) {6}; \node[circle,draw] (e) at (3,-2) {14};
\draw (r) -- (a); \draw (r) -- (b); \draw (a) -- (c); \draw (a) -- (d); \draw (b) -- (e);""",
     "tree", "tikz.acyclic_branching", True),
    # a two-state Markov chain: loops and probabilities on the links
    (r"""\node[circle,draw] (s) at (0,0) {$S$}; \node[circle,draw] (r) at (3,0) {$R$};
\path[->] (s) edge[bend left] node[above] {$0.3$} (r) edge[loop left] node {$0.7$} (s)
          (r) edge[bend left] node[below] {$0.6$} (s) edge[loop right] node {$0.4$} (r);""",
     "automaton", "tikz.labelled_transitions", True),
    # a commutative square drawn with nodes and labelled math arrows
    (r"""\node (A) at (0,2) {$V$}; \node (B) at (2,2) {$W$}; \node (C) at (0,0) {$K^n$};
\node (D) at (2,0) {$K^m$}; \draw[->] (A) -- node[above] {$f$} (B);
\draw[->] (A) -- node[left] {$\phi$} (C); \draw[->] (B) -- node[right] {$\psi$} (D);
\draw[->] (C) -- node[below] {$A$} (D);""",
     "commutative_diagram", "tikz.math_arrows", True),
    # a cipher mode: XOR junctions between blocks
    (r"""\tikzset{XOR/.style={draw,circle,minimum size=4mm}}
\node (m) at (0,0) {$M_1$}; \node[XOR] (x) at (2,0) {}; \node[draw] (e) at (4,0) {$E_K$};
\node (c) at (6,0) {$C_1$}; \node (iv) at (2,1) {$IV$};
\draw[->] (m) -- (x); \draw[->] (x) -- (e); \draw[->] (e) -- (c); \draw[->] (iv) -- (x);""",
     "block_diagram", "tikz.junctions", True),
    # a layered network: three columns, every node joined to the next column's
    (r"""\foreach \i in {1,2,3} \node[circle,draw] (i\i) at (0,\i) {};
\foreach \i in {1,2,3,4} \node[circle,draw] (h\i) at (2,\i-0.5) {};
\node[circle,draw] (o) at (4,2) {};
\foreach \a in {1,2,3} \foreach \b in {1,2,3,4} \draw (i\a) -- (h\b);
\foreach \b in {1,2,3,4} \draw (h\b) -- (o);""",
     "neural_network", "tikz.fully_connected", None),
    # a physical set-up: a mass on a spring against a hatched wall
    (r"""\fill[pattern=north east lines] (-0.2,0) rectangle (0,2);
\draw[decorate,decoration={coil,segment length=4pt}] (0,1) -- (2,1);
\draw (2,0.5) rectangle (3,1.5); \node at (2.5,1) {$m$};""",
     "illustration", "tikz.physical_drawing", False),
    # a function sketched by hand on arrow axes
    (r"""\draw[->] (-0.2,0) -- (5,0) node[below] {$r$}; \draw[->] (0,-2) -- (0,3) node[left]
{$V_\text{eff}$}; \draw[domain=0.3:4.5, samples=100, variable=\r] plot ({\r},{1/(\r*\r)-1/\r});""",
     "function_plot", "tikz.function_plot", False),
    # pgfplots as a canvas: hidden axes, closed regions — a drawing, not a chart
    (r"""\begin{axis}[hide axis] \addplot[fill=red!30] coordinates {(0,0) (2,0) (2,2) (0,2)}
-- cycle; \addplot[fill=blue!30] coordinates {(1,1) (3,1) (3,3)} -- cycle;
\node at (axis cs:1,1) {$A$}; \draw (axis cs:0,0) circle[radius=1]; \end{axis}""",
     "geometry", "tikz.drawing", False),
    # ... but a polar rose without its axis still plots a function
    (r"\begin{polaraxis}[hide axis] \addplot[domain=0:180] {sin(3*x)}; \end{polaraxis}",
     "function_plot", "tikz.pgfplots_expression", False),
    # a Feynman diagram in plain TikZ with the author's particle styles
    (r"""\tikzset{fermion/.style={->}, photon/.style={decorate,decoration={snake}}}
\draw[fermion] (0,0) -- (1,1); \draw[fermion] (1,1) -- (0,2);
\draw[photon] (1,1) -- (3,1);""",
     "feynman_diagram", "tikz.particle_lines", False),
    # Venn regions blended, with words
    (r"""\begin{scope}[blend group=soft light] \fill[red!30] (90:1.2) circle (2);
\fill[green!30] (210:1.2) circle (2); \end{scope} \node at (90:2) {Typography};
\node at (210:2) {Design};""",
     "venn_diagram", "tikz.overlapping_circles", False),
    # a flowchart laid out in a matrix, its decisions in a column style
    (r"""\matrix (m) [matrix of nodes, column 1/.style={nodes={decision}}] {
|[root]| Formula & \\ single-line? & equation \\ };
\draw[->] (m-1-1) -- (m-2-1); \draw[->] (m-2-1) -- (m-2-2);""",
     "flowchart", "tikz.flowchart_styles", None),
]


@pytest.mark.parametrize(("body", "label", "rule", "graph_like"), CASES,
                         ids=[c[2] for c in CASES])
def test_shape(body: str, label: str, rule: str, graph_like: bool | None) -> None:
    ev = evidence(pic(body))
    assert (ev.label, ev.rule, ev.graph_like) == (label, rule, graph_like), ev.line
    assert ev.line is None or len(ev.line) <= 240


@pytest.mark.parametrize("body", [
    r"\timeline{5} \begin{phases}\initialphase{phase color=blue}\end{phases}",
    r"\begin{chronology}[5]{1983}{2010}{\textwidth}\event{1984}{one}\end{chronology}",
])
def test_a_timeline_is_a_diagram_of_no_named_kind(body: str) -> None:
    ev = evidence(pic(body))
    assert (ev.label, ev.rule, ev.family, ev.graph_like) == (None, "tikz.timeline", "diagram",
                                                             False)


def test_orbitals_are_an_illustration() -> None:
    ev = evidence(pic(r"\orbital{dyz} \orbital[pos={(2.4,0)}]{dx2y2}"))
    assert (ev.label, ev.rule) == ("illustration", "tikz.orbitals")


def test_a_few_labels_joined_by_one_line_are_no_graph() -> None:
    """A geometry figure's labelled points with a segment between two of them: the links are
    not most of the picture."""
    ev = evidence(pic(r"""\coordinate (A) at (0,0); \coordinate (B) at (4,0);
\node (p) at (0,0) {$P$}; \node (q) at (4,0) {$Q$}; \node at (2,2) {$C$};
\node at (1,3) {$D$}; \node at (3,3) {$E$}; \draw (p) -- (q);
\draw (A) arc (180:0:2);"""))
    assert ev.label == "geometry" and ev.graph_like is False
