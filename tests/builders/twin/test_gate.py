"""The twin gate: a diagram is twinned only where its structure graph is the diagram."""

from __future__ import annotations

import pytest

from diagramforge.builders.twin.gate import (
    INCOMPLETE,
    NOT_A_GRAPH,
    UNTYPED,
    code_check,
    letters,
    picture_check,
    structure_check,
    text_check,
)
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.vocabulary import GRAPH_LIKE, KINDS, Family, graph_like


def g(texts: list[str], edges: list[tuple[str | None, str | None]], labels=()) -> Graph:  # noqa: ANN001
    nodes = [Node(id=f"n{k}", text=t) for k, t in enumerate(texts)]
    lab = list(labels) + [""] * len(edges)
    return Graph(nodes=nodes, edges=[Edge(source=a, target=b, label=lab[k])
                                     for k, (a, b) in enumerate(edges)])


def test_graph_like_kinds_are_diagrams_and_leave_out_what_the_issue_names() -> None:
    assert set(GRAPH_LIKE) <= set(KINDS)
    assert all(KINDS[k].family == Family.DIAGRAM for k in GRAPH_LIKE)
    for k in ("flowchart", "graph", "tree", "automaton", "commutative_diagram", "uml",
              "architecture_diagram", "block_diagram", "network_diagram", "mind_map",
              "neural_network"):
        assert graph_like(k), k
    # charts, tables, plots, pictures, Venn diagrams and circuits are not, even under a
    # graph-like ACL-Fig parent (circuit under architecture_diagram, feynman under graph)
    for k in ("bar_chart", "line_chart", "pie_chart", "table", "function_plot", "venn_diagram",
              "circuit", "feynman_diagram", "natural_image", "algorithm"):
        assert not graph_like(k), k


@pytest.mark.parametrize(("graph", "kind", "reason"), [
    (g(["A", "B"], [("n0", "n1")]), "flowchart", None),
    (g(["A", "B"], [("n0", "n1")]), None, None),  # untyped: the graph decides
    (g(["A", "B"], [("n0", "n1")]), "bar_chart", NOT_A_GRAPH),
    (g(["A", "B"], [("n0", "n1")]), "no_such_kind", NOT_A_GRAPH),
    (g(["2", "loss", "epoch"], []), "graph", NOT_A_GRAPH),  # loose labels
    (g([], []), "flowchart", NOT_A_GRAPH),
    # a geometry figure typed "graph": labels, one of them joined by a line
    (g(["F = 5N", "s = 3m", "φ", "A", "B"], [("n3", "n4")]), "graph", NOT_A_GRAPH),
    (g(["A", "B", "C", "title", "legend"], [("n0", "n1"), ("n1", "n2")]), "graph", None),
    (g([], [(None, None)] * 3), "neural_network", INCOMPLETE),  # connectors, no node read
    (g(["x", "y", "z"], [(None, "n0"), (None, "n1"), (None, "n2")]), "graph", INCOMPLETE),
    (g(["A", "B"], [("n0", "n1"), ("n1", None)]), "flowchart", INCOMPLETE),
    # a sequence diagram: two lifelines and their messages, typed uml
    (Graph(nodes=[Node(id="c", text="Client", shape="actor"),
                  Node(id="s", text="Server", shape="actor")],
           edges=[Edge(source="c", target="s", label="GET"),
                  Edge(source="s", target="c", label="200 OK")]), "uml", NOT_A_GRAPH),
    (Graph(nodes=[Node(id="c", text="Client", shape="umlLifeline"), Node(id="s", text="S")],
           edges=[Edge(source="c", target="s")]), None, NOT_A_GRAPH),
    # vendor icons joined by lines, three of four without text: drawn, not written
    (g(["", "", "", "Amazon S3"], [("n0", "n1"), ("n1", "n2"), ("n2", "n3")]),
     "architecture_diagram", INCOMPLETE),
    # a state diagram's start and end dots: two blank nodes of four are still a graph
    (g(["", "Idle", "Running", ""], [("n0", "n1"), ("n1", "n2"), ("n2", "n3")]),
     "graph", None),
    # a use-case diagram's stick figure (draw.io umlActor) is a node like any other
    (Graph(nodes=[Node(id="u", text="User", shape="umlActor"), Node(id="l", text="Log in")],
           edges=[Edge(source="u", target="l")]), "uml", None),
])
def test_structure_check(graph: Graph, kind: str | None, reason: str | None) -> None:
    v = structure_check(graph, kind)
    assert (v.reason if v else None) == reason


@pytest.mark.parametrize(("record", "reason"), [
    ({"diagram_type": "flowchart"}, None),
    # the filter's per-picture verdict decides over the kind, both ways: a UML sequence
    # diagram is not graph-like though UML is; a picture the filter judged graph-like is
    ({"diagram_type": "uml", "graph_like": False}, NOT_A_GRAPH),
    ({"diagram_type": "illustration", "graph_like": True}, None),
    # typed before the column: the kind (a Feynman diagram, a chart are not)
    ({"diagram_type": "feynman_diagram"}, NOT_A_GRAPH),
    ({"diagram_type": "line_chart", "graph_like": None}, NOT_A_GRAPH),
    # unknown: no twins, with a reason of its own
    ({"diagram_type": None}, UNTYPED),
    ({"diagram_type": None, "graph_like": False}, UNTYPED),  # the filter abstained
    ({}, UNTYPED),
])
def test_picture_check_asks_the_picture_not_its_graph(record: dict, reason: str | None) -> None:
    v = picture_check(record)
    assert (v.reason if v else None) == reason


def test_letters_ignore_how_runs_are_split_and_spaced() -> None:
    assert letters("Expert 1") == letters("Expert1") == "expert1"
    assert letters("1 −p") == letters("1-p") == "1p"  # TeX's minus, the source's hyphen
    assert letters("→") == ""


def test_text_check_counts_runs_hand_computed() -> None:
    graph = g([f"node {k}" for k in range(19)], [("n0", "n1")], labels=["yes"])
    runs = [f"node{k}" for k in range(19)]
    assert text_check(graph, runs) is None
    # 19 of 20 runs in a label: 95 % passes; 19 of 21 (90.5 %) does not
    assert text_check(graph, [*runs, "stray"]) is None
    v = text_check(graph, [*runs, "stray", "other"])
    assert v is not None and v.reason == INCOMPLETE
    assert "19 of 21 text runs" in v.detail and "'stray'" in v.detail
    assert text_check(graph, [*runs, "stray", "other"], min_share=0.9) is None
    # runs of punctuation or operators only are not counted; edge labels explain runs
    assert text_check(graph, [*runs, "→", "−", ",", "yes"]) is None


def test_text_check_ball_labels_and_absent_node_texts() -> None:
    # the reader said "ball" where the page shows "ball 1", "ball 2", "ball 3"
    balls = g(["ball", "ball", "ball"], [("n0", "n1"), ("n1", "n2")])
    v = text_check(balls, ["ball1", "ball2", "ball3"])
    assert v is not None and "0 of 3 text runs" in v.detail
    as_typeset = g(["ball 1", "ball 2", "ball 3"], [("n0", "n1"), ("n1", "n2")])
    assert text_check(as_typeset, ["ball1", "ball2", "ball3"]) is None
    # a math label drawn as one run per font; a two-line node drawn as two runs
    math = g(["q0", "Input\nlayer"], [("n0", "n1")], labels=["1-p"])
    assert text_check(math, ["q", "0", "Input", "layer", "1", "−", "p"]) is None
    # a node text the render does not show: the graph says more than the drawing
    ghost = g(["A", "B", "hidden"], [("n0", "n1")])
    v = text_check(ghost, ["A", "B"])
    assert v is not None and v.reason == INCOMPLETE and "'hidden'" in v.detail
    # nothing drawn as text (unlabelled nodes): nothing unexplained
    assert text_check(g(["", ""], [("n0", "n1")]), []) is None


BTREE = r"""\documentclass[tikz]{standalone}
\tikzset{key/.style={draw, minimum width=6mm}}
\begin{document}
\begin{tikzpicture}[level distance=15mm] % \tikz in a comment is no picture
  \node (root) {\tikz \node[key] {13}; \tikz \node[key] {42};}
    child {node (a) {\tikz \node[key] {2};}}
    child {node (b) {\tikz \node[key] {20};}};
\end{tikzpicture}
\end{document}
"""


@pytest.mark.parametrize(("fmt", "code", "pictures"), [
    ("tikz", BTREE, 5),  # the outer picture and four in its nodes
    ("tikz", BTREE.replace(r"\begin{tikzpicture}", r"\begin{tikzpicture}\begin{tikzpicture}")
     .replace(r"\end{tikzpicture}", r"\end{tikzpicture}\end{tikzpicture}"), 6),
    ("tikz", "\\begin{tikzpicture}\\node (a) {A}; \\node (b) at (1,0) {B};"
     "\\draw (a) -- (b);\\end{tikzpicture}\n\\begin{tikzpicture}\\node {C};"
     "\\end{tikzpicture}", 2),  # two pictures side by side: two diagrams
    ("tikz", r"\tikzset{x/.style={}}\begin{tikzpicture}\tikzstyle{y}=[]\node {\tikzname};"
             r"\end{tikzpicture}", 0),
    ("tikz", "\\begin{tikzpicture}\\node (a) {A}; % see \\tikz\n\\end{tikzpicture}", 0),
    ("dot", 'digraph { a [label="\\tikz \\tikz"] }', 0),
])
def test_code_check_refuses_pictures_in_a_picture(fmt: str, code: str, pictures: int) -> None:
    verdict = code_check(fmt, code)
    if not pictures:
        assert verdict is None
    else:
        assert verdict is not None and verdict.reason == INCOMPLETE
        assert verdict.detail.startswith(f"{pictures} pictures in one source")


def test_label_check_finds_edge_labels_read_as_loose_nodes() -> None:
    """A decision's "yes" and "no" beside its arrows, read as nodes joined to nothing: every
    twin would draw them as loose boxes (a structure twin far from their arrows).  A node
    off the edges, and a lane's title (it holds what the edge joins), are not labels."""
    from diagramforge.builders.twin.gate import label_check

    def node(i: str, text: str, box: list[float]) -> Node:
        return Node(id=i, text=text, bbox=box)

    tree = [node("q", "Raining?", [100, 0, 80, 40]), node("u", "Umbrella", [0, 120, 80, 30]),
            node("s", "Sunglasses", [200, 120, 80, 30])]
    edges = [Edge(source="q", target="u"), Edge(source="q", target="s")]
    labels = [node("y", "yes", [75, 70, 20, 12]), node("n", "no", [185, 70, 16, 12])]
    v = label_check(Graph(nodes=tree + labels, edges=edges))
    assert v is not None and v.reason == INCOMPLETE
    assert "2 texts" in v.detail and "'yes' by 'Raining?'->'Umbrella'" in v.detail
    # attached (the reader's fix), or standing apart: nothing to say
    attached = [Edge(source="q", target="u", label="yes"), Edge(source="q", target="s",
                                                               label="no")]
    assert label_check(Graph(nodes=tree, edges=attached)) is None
    legend = node("l", "Legend", [400, 0, 60, 20])
    assert label_check(Graph(nodes=[*tree, legend], edges=edges)) is None
    lane = node("lane", "Weather", [-10, -10, 300, 170])
    assert label_check(Graph(nodes=[*tree, lane], edges=edges)) is None


def test_label_check_finds_marks_read_as_nodes() -> None:
    from diagramforge.builders.twin.gate import label_check

    g = Graph(nodes=[Node(id="m", text="M1"), Node(id="e", text="E"), Node(id="d", text="⋮")],
              edges=[Edge(source="m", target="e")])
    v = label_check(g)
    assert v is not None and v.reason == INCOMPLETE and "'⋮'" in v.detail
    # joined to something, a mark is a node like any other (a state named "…")
    joined = g.model_copy(update={"edges": [*g.edges, Edge(source="e", target="d")]})
    assert label_check(joined) is None


def test_icon_check_counts_pictures_without_text() -> None:
    from diagramforge.builders.twin.gate import icon_check

    def net(icons: int, named: int) -> Graph:
        nodes = [Node(id=f"i{k}", shape="mxgraph.citrix.firewall") for k in range(icons)]
        nodes += [Node(id=f"n{k}", text=f"Client {k}") for k in range(named)]
        return Graph(nodes=nodes, edges=[Edge(source=nodes[0].id, target=nodes[-1].id)])

    v = icon_check(net(5, 15))
    assert v is not None and v.reason == INCOMPLETE and "5 of 20" in v.detail
    assert icon_check(net(1, 9)) is None  # a router in the middle of a home network
    # blank shapes the writers draw as themselves (an empty circle) are point 3's; a UML
    # start and end state, drawn as empty boxes, are counted
    dots = Graph(nodes=[Node(id="s", shape="ellipse"), Node(id="a", text="Idle"),
                        Node(id="e", shape="ellipse")],
                 edges=[Edge(source="s", target="a"), Edge(source="a", target="e")])
    assert icon_check(dots) is None
    uml = dots.model_copy(update={"nodes": [Node(id="s", shape="startState"), dots.nodes[1],
                                            Node(id="e", shape="endState")]})
    v = icon_check(uml)
    assert v is not None and "endState, startState" in v.detail


def test_stroke_check_finds_a_line_drawn_twice() -> None:
    from diagramforge.builders.twin.gate import stroke_check

    path = g(["a", "b", "c"], [("n0", "n1"), ("n1", "n2"), ("n1", "n0")])
    lines = path.model_copy(update={"edges": [e.model_copy(update={"directed": False})
                                              for e in path.edges]})
    v = stroke_check(lines, _stroked("tikz"))
    assert v is not None and v.reason == INCOMPLETE and "'a'–'b'" in v.detail
    assert stroke_check(path, _stroked("tikz")) is None  # two arrows: a 2-cycle, drawn apart
    labelled = lines.model_copy(update={"edges": [*lines.edges[:2], lines.edges[2].model_copy(
        update={"label": "w"})]})
    assert stroke_check(labelled, _stroked("svg")) is None
    # draw.io states its connectors: two between the same tables are two, routed apart
    assert stroke_check(lines, _stroked("mxgraph")) is None


def test_source_check_asks_the_source_format_under_the_twin_s_reason() -> None:
    """What a source's format says against its graph (TikZ's fractions: its own tests) is
    ledgered as the twin's ``twin_graph_incomplete``; a format that says nothing, or has no
    twin capability at all (raster), passes."""
    from diagramforge.builders.twin.gate import source_check
    from diagramforge.formats.registry import handlers

    code = r"\begin{tikzpicture}\node (a) {$\nicefrac{8}{10}$};\end{tikzpicture}"
    v = source_check(handlers()["tikz"].capability("twin"), code)
    assert v is not None and v.reason == INCOMPLETE
    assert source_check(handlers()["mermaid"].capability("twin"), code) is None
    assert source_check(handlers()["raster"].capability("twin"), code) is None


def _stroked(fmt: str) -> bool:
    from diagramforge.formats.registry import handlers

    return handlers()[fmt].capability("twin").EDGES_FROM_STROKES
