from __future__ import annotations

from diagramforge.formats.tikz.graph import tikz_graph

SRC = r"""
\begin{tikzpicture}
\node[draw] (in) at (0,0) {Input \\ \textbf{image}};
\node[draw, right=of in] (enc) {Encoder};
\node (dec) [draw] at (4,0) {Decoder}; % (in) -- (dec) in a comment
\draw[->] (in) -- (enc) -- node[above] {$z$} (dec.west);
\draw[<-, thick] (in) to (dec);
\draw (enc) edge[->] (dec) edge (in);
\draw (0,0) -- (1,1);
\end{tikzpicture}
"""


def test_named_nodes_and_connections() -> None:
    g = tikz_graph(SRC)
    assert [(n.id, n.text) for n in g.nodes] == [("in", "Input\nimage"), ("enc", "Encoder"),
                                                 ("dec", "Decoder")]
    got = [(e.source, e.target, e.directed, e.label) for e in g.edges]
    assert got == [
        ("in", "enc", True, ""),     # chain: in -> enc
        ("enc", "dec", True, "z"),   # ... -> dec (anchor .west resolves), labelled
        ("dec", "in", True, ""),     # <- reverses
        ("enc", "dec", True, ""),    # edge[->] from enc
        ("enc", "in", False, ""),    # second edge still starts at enc, no arrow
    ]  # the comment and the coordinate-only line add nothing


def test_score_files_reads_tex_and_svg(tmp_path) -> None:  # noqa: ANN001
    from diagramforge.tools.graph_files import score_files

    (tmp_path / "a.tex").write_text(SRC)
    svg = ("<svg xmlns='http://www.w3.org/2000/svg'>"
           "<rect x='0' y='0' width='80' height='40'/><text x='5' y='20'>Encoder</text>"
           "<rect x='200' y='0' width='80' height='40'/><text x='205' y='20'>Decoder</text>"
           "<line x1='80' y1='20' x2='200' y2='20' marker-end='url(#m)'/></svg>")
    (tmp_path / "b.svg").write_text(svg)
    s = score_files(tmp_path / "b.svg", tmp_path / "a.tex")
    # pred: Encoder→Decoder; ref has 3 nodes and 5 edges, two of them enc→dec
    assert (s["node_tp"], s["node_pred"], s["node_ref"]) == (2, 2, 3)
    assert (s["edge_tp"], s["edge_pred"], s["edge_ref"]) == (1, 1, 5)


# -- source: the constructs real pictures use ----------------------------------------------

import pytest  # noqa: E402

from diagramforge.formats.tikz.graph import (  # noqa: E402
    latex_text,
    merge_graphs,
    pdf_graph,
    tikz_graph_report,
    tikz_source_graph,
    tikz_source_graphs,
)
from diagramforge.formats.tikz.graph.options import _tips  # noqa: E402
from tests.conftest import needs_tex  # noqa: E402


def _edges(code: str) -> list[tuple]:
    [g], _ = tikz_source_graphs(code)
    return [(e.source, e.target, e.directed, e.label) for e in g.edges]


@pytest.mark.parametrize(("key", "tips"), [
    ("->", (False, True)), ("<-", (True, False)), ("<->", (True, True)),
    ("-latex", (False, True)), ("stealth-", (True, False)), ("-{Stealth[length=3mm]}",
                                                            (False, True)),
    ("-Latex", (False, True)), ("|-|", (False, False)), ("*-*", (False, False)),
    ("o->", (False, True)), ("-", (False, False)), ("-to", (False, True)),
    (">=stealth", None), ("shorten >=2pt", None), ("thick", None), ("my-style", None),
    ("bend left=-20", None), ("arrows={-latex}", (False, True)), ("arrows=<-", (True, False)),
])
def test_arrow_specs(key: str, tips: tuple | None) -> None:
    assert _tips(key) == tips


def test_latex_text() -> None:
    assert latex_text(r"\textbf{Input} \\ $\alpha_1 + x^2$") == "Input\nα1 + x2"
    assert latex_text(r"{\small Enc}oder~\textcolor{red}{x}\,y") == "Encoder x y"
    assert latex_text(r"\nodepart{second} 12") == "12"
    # a fraction is read as one, not as its digits run together ("2/10", not "210")
    assert latex_text(r"$\frac{2}{10}$") == "2/10"
    assert latex_text(r"$\tfrac12 + \dfrac{\alpha}{n}$") == "1/2 + α/n"


def test_styles_every_edge_and_waypoints() -> None:
    code = r"""
    \tikzset{arr/.style={-Stealth, thick}, box/.style={draw, rounded corners}}
    \tikzstyle{line} = [draw, -latex']
    \begin{tikzpicture}
    \node[box] (p) {Parse}; \node[box, right=of p] (q) {Query};
    \node[ellipse, draw, below=of q] (r) {Result};
    \draw[arr] (p) -- (q);            % user style carries the tip
    \path[line] (q) -- (r);           % \tikzstyle with draw and a tip
    \path (p) -- (r);                 % \path without draw draws nothing
    \draw[|-|] (p.south) -- (r.west); % bars: undirected
    \draw[->] (p.south) |- ++(1,-1) -| (r.north);  % waypoints in between: one edge
    \draw (p) to[bend left] node[midway, above] {back} (r);
    \end{tikzpicture}"""
    [g], info = tikz_source_graphs(code)
    assert [(n.id, n.shape) for n in g.nodes] == [("p", "rounded"), ("q", "rounded"),
                                                  ("r", "ellipse")]
    assert [(e.source, e.target, e.directed, e.label) for e in g.edges] == [
        ("p", "q", True, ""), ("q", "r", True, ""), ("p", "r", False, ""),
        ("p", "r", True, ""), ("p", "r", False, "back")]
    assert info.unresolved == 0


def test_edge_operations_keep_the_current_point_and_every_edge_style() -> None:
    code = r"""\begin{tikzpicture}[every edge/.style={draw, ->}]
    \node (a) {A}; \node (b) at (2,0) {B}; \node (c) at (2,2) {C};
    \path (a) edge node {x} (b) edge["y"] (c) (b) edge[-] (c) (c) edge[loop above] ();
    \end{tikzpicture}"""
    assert _edges(code) == [("a", "b", True, "x"), ("a", "c", True, "y"),
                            ("b", "c", False, ""), ("c", "c", True, "")]


def test_foreach_matrix_trees_and_inline_nodes() -> None:
    code = r"""\begin{tikzpicture}
    \foreach \n/\x in {a/0, b/2, c/4} \node[circle, draw] (\n) at (\x,0) {$\n$};
    \foreach \s/\t in {a/b, b/c} \draw[->] (\s) -- (\t);
    \foreach \i in {1,...,3} { \node (m\i) at (\i,2) {M\i}; }
    \draw[->] (m1) -- (m2) -- (m3) -- cycle;
    \end{tikzpicture}"""
    assert _edges(code) == [("a", "b", True, ""), ("b", "c", True, ""), ("m1", "m2", True, ""),
                            ("m2", "m3", True, ""), ("m3", "m1", True, "")]
    # braced items keep their commas; empty values and spaces around "/" are fine
    code = r"""\begin{tikzpicture}[auto]
    \foreach \pos/\name in {{(0,2)/a}, {(1,2)/b}} \node (\name) at \pos {$\name$};
    \foreach \s/ \t /\w/\style in {a/b/0/, b/a/1/bend right}
        \path (\s) edge[->, \style] node {$\w$} (\t);
    \end{tikzpicture}"""
    assert _edges(code) == [("a", "b", True, "0"), ("b", "a", True, "1")]
    code = r"""\begin{tikzpicture}
    \matrix (m) [matrix of math nodes] { A & B \\ C & D \\ };
    \path[->] (m-1-1) edge node[above] {f} (m-1-2);
    \draw[<-] (m-2-2) -- (m-1-2);
    \end{tikzpicture}"""
    [g], _ = tikz_source_graphs(code)
    assert [n.id for n in g.nodes] == ["m-1-1", "m-1-2", "m-2-1", "m-2-2"]
    assert _edges(code) == [("m-1-1", "m-1-2", True, "f"), ("m-1-2", "m-2-2", True, "")]
    code = r"""\begin{tikzpicture}[edge from parent/.style={draw, -latex}]
    \node (r) {Root} child {node (a) {A} child {node {A1}}} child[missing]
          child {node (b) {B} edge from parent node[right] {yes}};
    \end{tikzpicture}"""
    assert sorted(_edges(code)) == [("a", "_1", True, ""), ("r", "a", True, ""),
                                    ("r", "b", True, "yes")]
    # nodes placed on the path's own points join them; the last one is plain text
    code = r"\tikz \draw[->] (0,0) node[draw] (x) {X} -- (2,0) node[draw] (y) {Y} " \
           r"-- (4,0) node {Z};"
    assert _edges(code) == [("x", "y", True, ""), ("y", "_1", True, "")]


def test_macro_heavy_source_is_counted_unresolved() -> None:
    code = r"""\newcommand{\block}[3]{\node[draw] (#1) at (#2) {#3};}
    \newcommand{\link}[2]{\draw[->] (#1) -- (#2);}
    \begin{tikzpicture}
    \block{a}{0,0}{Encoder} \block{b}{3,0}{Decoder} \link{a}{b}
    \foreach \x in \mylist { \node at (\x,1) {\x}; }
    \end{tikzpicture}"""
    [g], info = tikz_source_graphs(code)
    assert g.nodes == [] and g.edges == []
    assert info.unresolved == 4  # three macro calls and one loop over a macro


# -- geometry of the compiled page, and the merge ------------------------------------------

FLOW = r"""\documentclass[tikz,border=2pt]{standalone}
\usetikzlibrary{shapes.geometric,arrows.meta,positioning}
\begin{document}
\begin{tikzpicture}[node distance=1.5cm]
\node[draw,rectangle] (a) {Start here};
\node[draw,circle,below=of a] (b) {Process};
\node[draw,diamond,right=of b] (c) {OK?};
\node[below=of b] (d) {Plain text end};
\draw[->] (a) -- (b);
\draw[-{Stealth}] (b) -- node[above] {go} (c);
\draw[->] (c) |- (d);
\draw (a) -| (c);
\end{tikzpicture}
\end{document}
"""

BALLS = r"""\documentclass[tikz,border=2pt]{standalone}
\usepackage{amssymb}
\newcounter{ball}
\newcommand{\R}{\mathbb{R}}
\begin{document}
\begin{tikzpicture}
\foreach \x in {1,2,3} {
  \stepcounter{ball}
  \node[draw] (b\x) at (\x*2,0) {ball \theball};
}
\node[draw] (in) at (4,-2) {Input $x \in \R^d$};
\draw[->] (b1) -- node[above] {hit} (b2);
\draw[->] (in) -- (b2);
\end{tikzpicture}
\end{document}
"""

AXES = r"""\documentclass[tikz,border=2pt]{standalone}
\begin{document}
\begin{tikzpicture}
\draw[->] (0,0) -- (2,0) node[right] {$x$};
\draw[->] (0,0) -- (0,2) node[above] {$y$};
\draw[->] (0,0) -- (-1.2,-1.2) node[below left] {$z$};
\end{tikzpicture}
\end{document}
"""

MACROS = r"""\documentclass[tikz,border=2pt]{standalone}
\newcommand{\block}[3]{\node[draw] (#1) at (#2) {#3};}
\newcommand{\link}[2]{\draw[-latex] (#1) -- (#2);}
\begin{document}
\begin{tikzpicture}
\block{a}{0,0}{Encoder} \block{b}{3,0}{Decoder} \block{c}{3,-2}{Loss}
\link{a}{b} \link{b}{c}
\end{tikzpicture}
\end{document}
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    import shutil
    import subprocess

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed")
    out = {}
    for name, code in (("flow", FLOW), ("macros", MACROS), ("balls", BALLS), ("axes", AXES)):
        d = tmp_path_factory.mktemp(name)
        (d / "f.tex").write_text(code)
        subprocess.run(["pdflatex", "-no-shell-escape", "-interaction=nonstopmode", "f.tex"],
                       cwd=d, capture_output=True, timeout=120, check=False)
        out[name] = (d / "f.pdf").read_bytes()
    return out


@needs_tex
def test_page_geometry_of_a_flowchart(compiled: dict[str, bytes]) -> None:
    g = pdf_graph(compiled["flow"])
    # text lines become nodes; node borders (rectangle, 4 curves, 4 lines) give their
    # boxes and shapes; the edge label "go" is text of its own, as DiagramEval has it
    assert [(n.text, n.shape) for n in g.nodes] == [
        ("Start here", "rectangle"), ("Process", "ellipse"), ("OK?", "polygon"),
        ("go", "text"), ("Plain text end", "text")]
    ids = {n.text: n.id for n in g.nodes}
    got = {(e.source, e.target, e.directed) for e in g.edges}
    # TikZ's default tip is two stroked curves, Stealth a filled path; the plain -| line
    # touches two boxes; the |- arrow ends at text without a border
    assert got == {(ids["Start here"], ids["Process"], True),
                   (ids["Process"], ids["OK?"], True),
                   (ids["OK?"], ids["Plain text end"], True),
                   (ids["Start here"], ids["OK?"], False)}


@needs_tex
def test_source_and_geometry_merge(compiled: dict[str, bytes]) -> None:
    g, rep = tikz_graph_report(FLOW, compiled["flow"])
    assert rep.method == "source"
    assert (rep.matched_nodes, rep.confirmed_edges) == (4, 4)
    # source names and labels, page boxes
    assert [n.id for n in g.nodes] == ["a", "b", "c", "d"]
    assert all(n.bbox is not None for n in g.nodes)
    assert [(e.source, e.target, e.label) for e in g.edges][1] == ("b", "c", "go")


@needs_tex
def test_macro_heavy_source_falls_back_to_geometry(compiled: dict[str, bytes]) -> None:
    g, rep = tikz_graph_report(MACROS, compiled["macros"])
    assert rep.method == "geometry" and rep.source_nodes == 0
    ids = {n.text: n.id for n in g.nodes}
    assert {(e.source, e.target, e.directed) for e in g.edges} == {
        (ids["Encoder"], ids["Decoder"], True), (ids["Decoder"], ids["Loss"], True)}


@needs_tex
def test_node_texts_are_what_was_typeset(compiled: dict[str, bytes]) -> None:
    # the source alone cannot know a counter's value nor a macro's letters
    src = [n.text for n in tikz_graph(BALLS).nodes]
    assert src == ["ball", "ball", "ball", "Input x ∈d"]
    g, rep = tikz_graph_report(BALLS, compiled["balls"])
    assert rep.method == "source"
    # the page's text lines, each in the node box that holds it, give the texts; the edge
    # label "hit", drawn between two boxes, stays the edge's
    assert [(n.id, n.text) for n in g.nodes] == [
        ("b1", "ball 1"), ("b2", "ball 2"), ("b3", "ball 3"), ("in", "Input x ∈Rd")]
    assert [(e.source, e.target, e.label) for e in g.edges] == [
        ("b1", "b2", "hit"), ("in", "b2", "")]


@needs_tex
def test_free_arrows_stay_free_rather_than_joining_their_labels(
        compiled: dict[str, bytes]) -> None:
    # the page's geometry alone joins the labels the three axes end at
    geo = pdf_graph(compiled["axes"])
    assert sorted(n.text for n in geo.nodes) == ["x", "y", "z"]
    assert geo.attached_edges()
    # the source says each arrow starts at a bare point: an edge with a free end each
    g, rep = tikz_graph_report(AXES, compiled["axes"])
    assert rep.method == "source"
    assert sorted(n.text for n in g.nodes) == ["x", "y", "z"]
    assert len(g.edges) == 3 and not g.attached_edges()
    assert all(e.source is None and e.unattached == ["source"] for e in g.edges)


def test_the_preamble_s_plain_tikzset_keys_apply_to_every_picture() -> None:
    doc = r"""\documentclass{article}\usepackage{tikz}
    \tikzset{->, >=stealth', auto, main/.style={circle, draw}}
    \begin{document}\begin{tikzpicture}
    \node[main] (a) {A}; \node[main] (b) at (2,0) {B};
    \path (a) edge node {4} (b);
    \end{tikzpicture}\end{document}"""
    assert _edges(doc) == [("a", "b", True, "4")]
    # without the preamble's tip the same edge is undirected
    assert _edges(doc.replace("\\tikzset{->, ", "\\tikzset{")) == [("a", "b", False, "4")]


def test_an_arrow_from_a_node_to_nowhere_is_an_edge_with_a_free_end() -> None:
    g = tikz_graph(r"""\begin{tikzpicture}
    \node (a) {A}; \node (b) at (2,0) {B};
    \draw[->] (a) -- (b);
    \draw[->] (b) -- ++(1,0);                 % an output arrow
    \draw[<-] (a) -- ++(-1,0);                % an input arrow, drawn backwards
    \draw[->] (a) -- ++(0,1) -| (b);          % through waypoints to a node: an edge
    \draw (a) -- ++(0,-1);                    % a plain stroke: no connection
    \draw (b) -- ++(1,1) -- ++(0,1) -- cycle; % a closed shape
    \end{tikzpicture}""")
    assert [(e.source, e.target, e.unattached) for e in g.edges] == [
        ("a", "b", []), ("b", None, ["target"]), (None, "a", ["source"]), ("a", "b", [])]


def test_typeset_texts_keep_a_container_s_own_text() -> None:
    from diagramforge.formats.tikz.graph import typeset_texts
    from diagramforge.graphs.geometry import TextItem
    from diagramforge.graphs.model import Edge, Graph, Node

    g = Graph(nodes=[Node(id="box", text="Backend", bbox=[0, 0, 200, 100]),
                     Node(id="a", text="A", bbox=[10, 40, 30, 20]),
                     Node(id="b", text="B", bbox=[150, 40, 30, 20]),
                     Node(id="c", text="cell", bbox=[60, 70, 40, 20])],
              edges=[Edge(source="a", target="b", label="calls")])
    lines = [TextItem("Backend", [5, 2, 50, 10], 10), TextItem("A", [20, 45, 8, 10], 10),
             TextItem("B", [160, 45, 8, 10], 10),
             TextItem("calls", [80, 45, 30, 10], 10),  # the edge label, in the container
             TextItem("cell 4", [65, 75, 30, 10], 10),
             TextItem("unrelated", [300, 300, 30, 10], 10)]  # in no box
    out = {n.id: n.text for n in typeset_texts(g, lines).nodes}
    assert out == {"box": "Backend", "a": "A", "b": "B", "c": "cell 4"}
    # a line that spells something else than the node's text is not taken for it
    g2 = g.model_copy(update={"nodes": [Node(id="c", text="cell", bbox=[60, 70, 40, 20])],
                              "edges": []})
    assert typeset_texts(g2, [TextItem("other", [65, 75, 30, 10], 10)]).nodes[0].text == "cell"
    # a label drawn twice at one place (overprinted) is read once
    twice = [TextItem("cell 4", [65, 75, 30, 10], 10), TextItem("cell 4", [65, 75, 30, 10], 10)]
    assert typeset_texts(g2, twice).nodes[0].text == "cell 4"
    # one line the page joined across two neighbouring boxes is neither's
    pair = Graph(nodes=[Node(id="a", text="subproject 1", bbox=[0, 0, 50, 12]),
                        Node(id="b", text="subproject 2", bbox=[52, 0, 50, 12])])
    joined = [TextItem("subproject 1 subproject 2", [2, 1, 98, 10], 10)]
    assert [n.text for n in typeset_texts(pair, joined).nodes] == ["subproject 1",
                                                                   "subproject 2"]
    leaves = Graph(nodes=[Node(id="a", text="NIL", bbox=[0, 0, 20, 12]),
                          Node(id="b", text="NIL", bbox=[21, 0, 20, 12])])
    both = [TextItem("NIL NIL", [2, 1, 38, 10], 10)]  # one line across two leaves
    assert [n.text for n in typeset_texts(leaves, both).nodes] == ["NIL", "NIL"]


def test_merge_adds_page_edges_the_source_could_not_read() -> None:
    from diagramforge.formats.tikz.graph import SourceInfo
    from diagramforge.graphs.model import Edge, Graph, Node

    src = Graph(nodes=[Node(id="a", text="A"), Node(id="b", text="B"), Node(id="c", text="C")],
                edges=[Edge(source="a", target="b")])
    geo = Graph(nodes=[Node(id="n0", text="A", bbox=[0, 0, 1, 1]),
                       Node(id="n1", text="B", bbox=[2, 0, 1, 1]),
                       Node(id="n2", text="C", bbox=[4, 0, 1, 1])],
                edges=[Edge(source="n0", target="n1"), Edge(source="n1", target="n2")])
    g, rep = merge_graphs(src, geo, SourceInfo(unresolved=0))
    assert (rep.method, rep.confirmed_edges, rep.added_edges) == ("source", 1, 0)
    assert g.nodes[1].bbox == [2, 0, 1, 1] and len(g.edges) == 1
    # with an unreadable statement in the source, the page's b→c joins (source names)
    g, rep = merge_graphs(src, geo, SourceInfo(unresolved=1))
    assert rep.added_edges == 1 and (g.edges[1].source, g.edges[1].target) == ("b", "c")
    # a source with far fewer edges than the page is too macro-heavy: geometry serves
    geo3 = geo.model_copy(update={"edges": geo.edges + [Edge(source="n2", target="n0")]})
    g, rep = merge_graphs(src, geo3)
    assert rep.method == "geometry" and g is geo3


def test_merge_matching_by_structure() -> None:
    from diagramforge.formats.tikz.graph import match_by_text_and_structure
    from diagramforge.graphs.model import Edge, Graph, Node

    # a parse tree with repeated labels: + (root) → + → {i, ++i}, root → ++i
    src = Graph(nodes=[Node(id="r", text="+"), Node(id="p", text="+"),
                       Node(id="i", text="i"), Node(id="a", text="++i"),
                       Node(id="b", text="++i")],
                edges=[Edge(source="r", target="p"), Edge(source="p", target="i"),
                       Edge(source="p", target="a"), Edge(source="r", target="b")])
    # the page lists them in another order; only "i" is unique
    geo = Graph(nodes=[Node(id="g0", text="++i"), Node(id="g1", text="+"),
                       Node(id="g2", text="i"), Node(id="g3", text="+"),
                       Node(id="g4", text="++i")],
                edges=[Edge(source="g3", target="g1"), Edge(source="g1", target="g2"),
                       Edge(source="g1", target="g4"), Edge(source="g3", target="g0")])
    # i↔g2 first; p (neighbour of i) must be g1, r the other "+", a↔g4 (beside i), b↔g0
    assert match_by_text_and_structure(src, geo, 0.8) == {
        "i": "g2", "p": "g1", "r": "g3", "a": "g4", "b": "g0"}
    # display math the page spells differently: placed by its matched neighbours
    src = Graph(nodes=[Node(id="x", text="Input"), Node(id="f", text=r"\begin{align}…"),
                       Node(id="y", text="Output")],
                edges=[Edge(source="x", target="f"), Edge(source="f", target="y")])
    geo = Graph(nodes=[Node(id="n0", text="Input"), Node(id="n1", text="x = Ay + b"),
                       Node(id="n2", text="Output"), Node(id="n3", text="note")],
                edges=[Edge(source="n0", target="n1"), Edge(source="n1", target="n2")])
    assert match_by_text_and_structure(src, geo, 0.8) == {"x": "n0", "y": "n2", "f": "n1"}


@needs_tex
def test_score_files_compiles_macro_heavy_tikz(tmp_path) -> None:  # noqa: ANN001
    from diagramforge.tools.graph_files import score_files

    (tmp_path / "ref.tex").write_text(MACROS)
    pred = MACROS.replace(r"\link{b}{c}", r"\link{c}{b}")  # one arrow reversed
    (tmp_path / "pred.tex").write_text(pred)
    # from the source alone both are empty (macros); compiled, the page gives the graph
    assert score_files(tmp_path / "pred.tex", tmp_path / "ref.tex")["node_ref"] == 0
    s = score_files(tmp_path / "pred.tex", tmp_path / "ref.tex", compile_tikz=True)
    # 3 text nodes match; Encoder→Decoder agrees, Loss→Decoder is reversed: TP 1 of 2
    assert (s["node_tp"], s["node_ref"]) == (3, 3)
    assert (s["edge_tp"], s["edge_pred"], s["edge_ref"]) == (1, 2, 2)


def test_tikzcd_cells_and_arrows():
    from diagramforge.formats.tikz.graph import tikz_source_graph

    code = (r"\DeclareMathOperator{\Hom}{Hom}" "\n"
            r"\begin{document}\begin{tikzcd}[column sep=large]" "\n"
            r"X \arrow{r}{\phi} & Y \arrow[d, dash] & \\" "\n"
            r'& \Hom(Y, Z) \arrow[ul, "\psi"' "'] " r"\arrow[r, bend left] & {}"
            r"\end{tikzcd}\end{document}")
    g = tikz_source_graph(code)
    text = {n.id: n.text for n in g.nodes}
    assert text == {"r0c0": "X", "r0c1": "Y", "r1c1": "Hom(Y, Z)", "r1c2": ""}
    assert [(text[e.source], text[e.target], e.label, e.directed) for e in g.edges] == [
        ("X", "Y", "ϕ", True), ("Y", "Hom(Y, Z)", "", False), ("Hom(Y, Z)", "X", "ψ", True),
        ("Hom(Y, Z)", "", "", True)]


def test_an_initial_state_has_its_start_arrow():
    from diagramforge.formats.tikz.graph import tikz_source_graph

    g = tikz_source_graph(r"\begin{tikzpicture}\node[state, initial] (q0) {$q_0$};"
                          r"\node[state, initial text=go, initial above] (q1) at (2,0) {$q_1$};"
                          r"\node[state] (q2) at (4,0) {$q_2$};\end{tikzpicture}")
    text = {n.id: n.text for n in g.nodes}
    assert sorted((text[e.source], text[e.target]) for e in g.edges) == [
        ("go", "q1"), ("start", "q0")]
    assert all(e.directed for e in g.edges)


def test_a_double_arrow_is_undirected_with_both_heads() -> None:
    """``<->`` is reachable both ways (undirected, as scorers read it) and drawn with two
    heads, which a twin must draw too; a plain line has none."""
    from diagramforge.graphs.model import Graph

    g = tikz_graph(r"""\begin{tikzpicture}
    \node (a) {A}; \node (b) at (2,0) {B}; \node (c) at (4,0) {C};
    \draw[<->] (a) -- node[above] {both ways} (b);
    \draw (b) -- (c);
    \draw[<->] (c) -- ++(1,0);                 % a double arrow to nowhere: a free end
    \end{tikzpicture}""")
    assert [(e.source, e.target, e.directed, e.both_heads) for e in g.edges] == [
        ("a", "b", False, True), ("b", "c", False, False), ("c", None, False, True)]
    # a graph without double arrows is the same JSON as before the field existed
    assert '"both_heads"' not in Graph(nodes=g.nodes, edges=g.edges[1:2]).to_json()
    assert Graph.from_json(g.to_json()) == g


DECISION_TREE = r"""\begin{tikzpicture}[node distance=2cm,
  every node/.style={draw, rounded corners}]
\node (root) {Outlook?};
\node (hum) [below left of=root] {Humidity?};
\node (play) [below of=root] {Play};
\node (wind) [below right of=root] {Windy?};
\draw[->] (root) -- node[draw=none, left] {sunny} (hum);
\draw[->] (root) -- (play) node[draw=none, midway, right] {overcast};
\draw[->] (root) -- (wind) node[draw=none, above right] {rain};
\node (no) [below left of=hum] {No};
\node (yes) [below right of=hum] {Yes};
\draw[->] (hum) -- (no) node[draw=none, pos=0.5, left] (h) {high};
\path[->] (hum) edge node[draw=none, right] {normal} (yes);
\draw[->] (wind) -- (3,-4) node[draw, circle, right] {Stay};
\end{tikzpicture}"""
COMMUTATIVE = r"""\begin{tikzpicture}
\matrix (m) [matrix of math nodes, row sep=3em, column sep=3em]
  { A & B \\ C & D \\ };
\path[->] (m-1-1) edge node[above] {$f$} (m-1-2)
                  edge node[left] {$g$} (m-2-1);
\draw[->] (m-1-2) -- (m-2-2) node[midway, right] {$h$};
\draw[->] (m-2-1) to node[below, sloped] {$k$} (m-2-2);
\end{tikzpicture}"""


def test_nodes_placed_on_a_path_are_its_edge_labels() -> None:
    """A decision tree's answers and a commutative diagram's maps label their edges
    (``midway``, ``pos=``, ``above``… beside an edge, ``edge node``, ``to node``,
    ``-- node``): none is a free-standing node (issue 50).  A framed node at a path's end
    is a node still."""
    g = tikz_source_graph(DECISION_TREE)
    text = {n.id: n.text for n in g.nodes}
    labelled = {(text[e.source], text[e.target]): e.label for e in g.edges
                if e.source in text and e.target in text}
    assert labelled == {("Outlook?", "Humidity?"): "sunny", ("Outlook?", "Play"): "overcast",
                        ("Outlook?", "Windy?"): "rain", ("Humidity?", "No"): "high",
                        ("Humidity?", "Yes"): "normal", ("Windy?", "Stay"): ""}
    assert sorted(text.values()) == sorted(["Outlook?", "Humidity?", "Play", "Windy?", "No",
                                            "Yes", "Stay"])
    g = tikz_source_graph(COMMUTATIVE)
    text = {n.id: n.text for n in g.nodes}
    assert sorted(text.values()) == ["A", "B", "C", "D"]
    assert {(text[e.source], text[e.target], e.label) for e in g.edges} == {
        ("A", "B", "f"), ("A", "C", "g"), ("B", "D", "h"), ("C", "D", "k")}


GROWN_TREE = r"""\begin{tikzpicture}[grow=right, edge from parent/.style={draw, -latex}, sloped]
  \node {Formula}
    child { node {equation} edge from parent node [below] {single-line?} }
    child { node [dummy] {}
      child { node {alignat}
        edge from parent node [above] {at several} node [below] {places?} }
      child { node {gather} edge from parent node [above] {centered?} }
      edge from parent node [above] {multi-line?} };
\end{tikzpicture}"""
LEVELLED = r"""\begin{tikzpicture}
  \matrix (m) [matrix of math nodes] { G & \varphi \\ H & \\ };
  \path[-stealth]
    (m-1-1) edge node [left] {$\pi$} (m-2-1)
    (m-1-1.east |- m-1-2) edge node [above] {$f$} (m-1-2);
\end{tikzpicture}"""


def test_tree_labels_and_levelled_arrows_are_read_as_drawn() -> None:
    """A decision tree whose inner node is an empty dummy still joins its children, and both
    texts under and over an ``edge from parent`` label it; an arrow leaving ``(a.east |-
    b)`` leaves ``a`` (a commutative diagram's level arrow), not a free point."""
    g = tikz_source_graph(GROWN_TREE)
    text = {n.id: n.text for n in g.nodes}
    assert sorted(text.values()) == ["", "Formula", "alignat", "equation", "gather"]
    assert sorted((text[e.source], text[e.target], e.label) for e in g.edges) == [
        ("", "alignat", "at several\nplaces?"), ("", "gather", "centered?"),
        ("Formula", "", "multi-line?"), ("Formula", "equation", "single-line?")]
    g = tikz_source_graph(LEVELLED)
    text = {n.id: n.text for n in g.nodes}
    assert {(text.get(e.source), text.get(e.target), e.label) for e in g.edges} == {
        ("G", "H", "π"), ("G", "φ", "f")}
