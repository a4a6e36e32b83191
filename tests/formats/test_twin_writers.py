"""Each writer's code, compiled by its language's real engine, has the source's graph —
including text that is syntax in that language — and the layout writers keep positions.
The writers are every format's twin capability (``formats/<name>/twin.py``) that writes
code; what is one format's own is in ``tests/formats/<name>/test_twin.py``."""

from __future__ import annotations

import pytest

from diagramforge.builders.twin.compare import differences
from diagramforge.formats.registry import handlers as registered
from diagramforge.formats.registry import instantiate
from diagramforge.formats.twin_base import LAYOUT, LAYOUT_STYLE, STRUCTURE
from diagramforge.formats.twin_layout import WriteError
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.score import normalise_text
from tests.conftest import make_params, needs_browser, needs_tex
from tests.formats.twins import ENGINES, rendered_graph, writers

WRITERS = writers()
_rendered_graph = rendered_graph

GRAPH = Graph(
    nodes=[Node(id="a", text="Load data", shape="rectangle", bbox=[0, 0, 120, 40]),
           Node(id="b", text="Is x > 5 & y_1?", shape="rhombus", bbox=[0, 90, 120, 60]),
           Node(id="c", text="two\nlines", shape="ellipse", bbox=[220, 90, 100, 50]),
           Node(id="m", text="x ∈ A − 1", shape="rectangle", bbox=[400, 0, 80, 40]),
           Node(id="d", text="50% {done} #1 ~ ^ \\", shape="rounded", bbox=[220, 0, 110, 40])],
    edges=[Edge(source="a", target="b", label="next"), Edge(source="b", target="c",
                                                           directed=False),
           Edge(source="c", target="a"), Edge(source="a", target="c"),
           Edge(source="d", target="d"), Edge(source="b", target="d", label="yes|no")])

@pytest.fixture(scope="module")
def handlers(tmp_path_factory):
    hs = instantiate(make_params(tmp_path_factory.mktemp("w")), lambda r: r["id"])
    yield hs
    for h in hs.values():
        h.close()


@pytest.mark.parametrize("target", [pytest.param(t, marks=m) for t, m in ENGINES.items()])
def test_a_written_twin_has_the_source_graph(handlers, target):
    code = WRITERS[target](GRAPH)
    twin, rec = _rendered_graph(handlers[target], code)
    assert differences(GRAPH, twin) == []
    assert rec["image"][:4] == b"\x89PNG"


@pytest.mark.parametrize("target", [pytest.param("tikz", marks=needs_tex),
                                    pytest.param("mxgraph", marks=needs_browser)])
def test_layout_writers_keep_where_things_are(handlers, target):
    twin, _ = _rendered_graph(handlers[target], WRITERS[target](GRAPH))
    box = {normalise_text(n.text): n.bbox for n in twin.nodes}
    assert box["load data"][0] < box["two lines"][0]  # left of
    assert box["load data"][1] < box[normalise_text("Is x > 5 & y_1?")][1]  # above
    twin_of = registered()[target].capability("twin")
    assert twin_of.preserves(GRAPH) == LAYOUT
    no_layout = GRAPH.model_copy(update={"nodes": [n.model_copy(update={"bbox": None})
                                                   for n in GRAPH.nodes]})
    assert twin_of.preserves(no_layout) == STRUCTURE
    assert registered()["dot"].capability("twin").preserves(GRAPH) == STRUCTURE


# -- readable twins: loops, parallel and opposite edges ------------------------------------

DENSE = Graph(
    nodes=[Node(id="s", text="start", shape="text", bbox=[0, 36, 40, 12]),
           Node(id="q0", text="idle", shape="ellipse", bbox=[60, 28, 36, 28]),
           Node(id="q1", text="busy", shape="ellipse", bbox=[160, 28, 36, 28])],
    edges=[Edge(source="s", target="q0"),
           Edge(source="q0", target="q1", label="request"),
           Edge(source="q1", target="q0", label="done"),       # opposite
           Edge(source="q0", target="q1", label="urgent"),     # parallel
           Edge(source="q0", target="q0", label="poll"),       # two loops on one node
           Edge(source="q0", target="q0", label="tick"),
           Edge(source="q1", target="q1", label="work")])
"""An automaton as dense as the samples' (two loops, opposite edges), and more: a parallel
edge and two loops on one node."""


def _overlap(a: list[float], b: list[float]) -> bool:
    return (min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]) > 0.5
            and min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]) > 0.5)


@pytest.mark.parametrize("layout", [True, False], ids=["layout", "structure"])
@pytest.mark.parametrize("target", [pytest.param(t, marks=m) for t, m in ENGINES.items()])
def test_dense_twins_keep_every_edge_label_apart(handlers, target, layout):
    from diagramforge.builders.twin.gate import letters
    from diagramforge.formats.svg.graph import svg_primitives

    g = DENSE if layout else DENSE.model_copy(update={
        "nodes": [n.model_copy(update={"bbox": None}) for n in DENSE.nodes]})
    if target == "mermaid":  # Mermaid draws one loop per node: refused, not drawn wrong
        with pytest.raises(WriteError) as e:
            WRITERS[target](g)
        assert e.value.reason == "twin_structure_undrawable"
        g = g.model_copy(update={"edges": [e for e in g.edges if e.label != "tick"]})
    code = WRITERS[target](g)
    twin, rec = _rendered_graph(handlers[target], code)
    assert differences(g, twin) == []
    # the engine's own drawing of the twin: where each label and node text landed
    svg = handlers[target].export_svg([{**rec, "code": code}])[0]
    assert isinstance(svg, str), svg
    texts, _ = svg_primitives(svg)
    boxes = {}
    for want in [e.label for e in g.edges if e.label] + [n.text for n in g.nodes]:
        found = [t.box for t in texts if letters(t.text) == letters(want)]
        assert len(found) == 1, (want, [t.text for t in texts])
        boxes[want] = found[0]
    labels = [e.label for e in g.edges if e.label]
    clashes = [(a, b) for i, a in enumerate(labels) for b in list(boxes)[i + 1:]
               if _overlap(boxes[a], boxes[b])]
    assert clashes == [], (clashes, {k: [round(v) for v in b] for k, b in boxes.items()})


LANES = Graph(
    nodes=[Node(id="ci", text="CI", shape="swimlane", bbox=[100, 0, 260, 70]),
           Node(id="b", text="Build", bbox=[110, 30, 70, 30]),
           Node(id="t", text="Run tests", bbox=[260, 30, 90, 30]),
           Node(id="cd", text="Release", shape="swimlane", bbox=[100, 100, 260, 70]),
           Node(id="p", text="Publish", bbox=[110, 130, 70, 30]),
           Node(id="f", text="Fetch", bbox=[0, 30, 60, 30])],
    edges=[Edge(source="f", target="b"), Edge(source="b", target="t", label="green"),
           Edge(source="t", target="p")])
"""Two swimlanes stacked, each holding its steps, and a step outside both."""


def _inside(inner: list[float], outer: list[float]) -> bool:
    return (outer[0] - 1 <= inner[0] and outer[1] - 1 <= inner[1]
            and inner[0] + inner[2] <= outer[0] + outer[2] + 1
            and inner[1] + inner[3] <= outer[1] + outer[3] + 1)


@pytest.mark.parametrize("target", [pytest.param(t, marks=m) for t, m in ENGINES.items()])
def test_containers_are_drawn_as_containers(handlers, target):
    """A swimlane, a cluster or a group's frame holds other nodes: every twin draws it as
    one — a DOT cluster, a Mermaid subgraph, a frame with its title on top in TikZ and
    draw.io — around what it holds, not as one more box stacked on top of them."""
    twin, _ = _rendered_graph(handlers[target], WRITERS[target](LANES))
    assert differences(LANES, twin) == []
    box = {n.text: n.bbox for n in twin.nodes}
    if target == "tikz":  # the TikZ page gives a title's text box: on top of its lane
        assert box["CI"][1] + box["CI"][3] <= min(box["Build"][1], box["Run tests"][1])
        assert box["Release"][1] + box["Release"][3] <= box["Publish"][1]
        assert box["CI"][1] + box["CI"][3] <= box["Release"][1]
    else:
        for child, lane in (("Build", "CI"), ("Run tests", "CI"), ("Publish", "Release")):
            assert _inside(box[child], box[lane]), (child, box[child], lane, box[lane])
        assert not _inside(box["Fetch"], box["CI"])
        ci, rel = box["CI"], box["Release"]  # the lanes side by side or stacked, apart
        assert ci[1] + ci[3] <= rel[1] + 1 or rel[1] + rel[3] <= ci[1] + 1 \
            or ci[0] + ci[2] <= rel[0] + 1 or rel[0] + rel[2] <= ci[0] + 1


def test_a_container_no_structure_language_can_draw_is_refused():
    """An edge that ends on a container (a cluster is no node an edge reaches), a frame
    without a title (its reader finds no node): DOT and Mermaid refuse, with a reason."""
    to_lane = LANES.model_copy(update={"edges": [*LANES.edges,
                                                 Edge(source="f", target="cd")]})
    untitled = LANES.model_copy(update={"nodes": [n.model_copy(update={"text": ""})
                                                  if n.id == "ci" else n
                                                  for n in LANES.nodes]})
    for g, why in ((to_lane, "an edge ends on a container ('Release')"),
                   (untitled, "1 containers have no label")):
        for target in ("dot", "mermaid"):
            with pytest.raises(WriteError) as e:
                WRITERS[target](g)
            assert e.value.reason == "twin_structure_undrawable" and why in e.value.detail
    # a frame the reader named but placed nowhere (a Mermaid subgraph an edge points at):
    # what it holds is unknown
    ghost = LANES.model_copy(update={"nodes": [n.model_copy(update={"bbox": None})
                                               if n.id == "f" else n for n in LANES.nodes]})
    for target in WRITERS:
        with pytest.raises(WriteError) as e:
            WRITERS[target](ghost)
        assert e.value.reason == "twin_structure_undrawable" and "frames" in e.value.detail
    # side by side, nothing held: no container at all
    apart = LANES.model_copy(update={"nodes": [
        n.model_copy(update={"bbox": [400 + 100 * k, 200, 50, 30]})
        for k, n in enumerate(LANES.nodes)]})
    assert "subgraph" not in WRITERS["dot"](apart) + WRITERS["mermaid"](apart)


def test_lanes_that_cross_and_edges_through_nodes_are_refused():
    """A cross-functional flowchart's rows over its phase columns: frames that cross, which
    no writer can nest; a layout twin's straight edge through another node (the source
    routed it round): refused with a reason, never drawn wrong.  DOT and Mermaid route
    their own edges round nodes."""
    from diagramforge.formats.twin_layout import THROUGH

    grid = LANES.model_copy(update={"nodes": [*LANES.nodes, Node(
        id="col", text="Phase 1", bbox=[105, -10, 90, 190])]})
    for target in WRITERS:
        with pytest.raises(WriteError) as e:
            WRITERS[target](grid)
        assert e.value.reason == "twin_structure_undrawable"
        assert "cross" in e.value.detail and "'Phase 1'" in e.value.detail
    # a row lane laid across the two lanes' steps, holding none of them whole: a layout
    # twin would set its frame and title over theirs
    row = LANES.model_copy(update={"nodes": [*LANES.nodes, Node(
        id="row", text="Customer", bbox=[90, 20, 280, 120])]})
    for target in ("tikz", "mxgraph"):
        with pytest.raises(WriteError) as e:
            WRITERS[target](row)
        assert e.value.reason == "twin_structure_undrawable" and "overlap" in e.value.detail
    back = LANES.model_copy(update={"edges": [*LANES.edges,
                                              Edge(source="t", target="f", label="again")]})
    for target in ("tikz", "mxgraph"):
        with pytest.raises(WriteError) as e:
            WRITERS[target](back)
        assert e.value.reason == THROUGH and "through 'Build'" in e.value.detail
    assert "again" in WRITERS["dot"](back) and "again" in WRITERS["mermaid"](back)


DECISION = Graph(
    nodes=[Node(id="q", text="Raining?", shape="rhombus", bbox=[100, 0, 80, 50]),
           Node(id="u", text="Umbrella", bbox=[0, 100, 80, 30]),
           Node(id="s", text="Sunglasses", bbox=[200, 100, 80, 30]),
           Node(id="w", text="Windy?", shape="rhombus", bbox=[200, 170, 80, 50]),
           Node(id="k", text="Kite", bbox=[200, 260, 80, 30])],
    edges=[Edge(source="q", target="u", label="yes"), Edge(source="q", target="s", label="no"),
           Edge(source="s", target="w"), Edge(source="w", target="k", label="yes")])
"""A decision tree whose answers are on its arrows ("yes" twice: labels are not names)."""


@pytest.mark.parametrize("target", [pytest.param(t, marks=m) for t, m in ENGINES.items()])
def test_edge_labels_are_drawn_on_their_edges(handlers, target):
    """Each writer draws an edge's label as that edge's label, which its engine's reader
    gives back on the same edge — never a free-standing node beside the arrow."""
    twin, _ = _rendered_graph(handlers[target], WRITERS[target](DECISION))
    assert sorted(n.text for n in twin.nodes) == sorted(n.text for n in DECISION.nodes)
    text = {n.id: n.text for n in twin.nodes}
    assert sorted((text[e.source], text[e.target], e.label) for e in twin.edges) == [
        ("Raining?", "Sunglasses", "no"), ("Raining?", "Umbrella", "yes"),
        ("Sunglasses", "Windy?", ""), ("Windy?", "Kite", "yes")]
    assert differences(DECISION, twin) == []


# -- double arrows: a line and an arrow with a head at each end are different pictures ------

BOTH = Graph(
    nodes=[Node(id=i, text=t, bbox=[x, y, 60, 30]) for i, t, x, y in
           (("s", "Start", 0, 0), ("e", "End", 200, 0), ("p", "Plain", 0, 100),
            ("q", "Line", 200, 100))],
    edges=[Edge(source="s", target="e", label="both ways", directed=False, both_heads=True),
           Edge(source="p", target="q", directed=False),
           Edge(source="s", target="p")])


@pytest.mark.parametrize("layout", [True, False], ids=["layout", "structure"])
@pytest.mark.parametrize("target", [pytest.param(t, marks=m) for t, m in ENGINES.items()])
def test_a_double_arrow_stays_a_double_arrow(handlers, target, layout):
    """Each language draws ``<->`` as it does (``dir=both``, ``<-->``, ``<->``, start and
    end arrows), and its engine's graph reads the heads back; a plain line stays a line."""
    g = BOTH if layout else BOTH.model_copy(update={
        "nodes": [n.model_copy(update={"bbox": None}) for n in BOTH.nodes]})
    twin, _ = _rendered_graph(handlers[target], WRITERS[target](g))
    assert differences(g, twin) == []
    text = {n.id: normalise_text(n.text) for n in twin.nodes}
    heads = {(text[e.source], text[e.target]): e.both_heads for e in twin.edges
             if e.source in text and e.target in text}
    assert heads.get(("start", "end"), heads.get(("end", "start"))) is True, heads
    assert heads.get(("plain", "line"), heads.get(("line", "plain"))) is False, heads


def test_every_format_says_whether_it_takes_twins():
    """A format takes part in twins by its twin capability, which every such module states
    with the same names; raster has none, which is how no twin goes into raster."""
    caps = {name: h.capability("twin") for name, h in registered().items()}
    assert caps["raster"] is None
    assert {n for n, c in caps.items() if c is not None} >= {"tikz", "mxgraph", "svg", "dot",
                                                             "mermaid"}
    for name, cap in caps.items():
        if cap is None:
            continue
        assert isinstance(cap.DRAWING, bool) and isinstance(cap.EDGES_FROM_STROKES, bool), name
        assert cap.DRAWING or callable(cap.write), name
        assert cap.preserves(GRAPH) in (STRUCTURE, LAYOUT, LAYOUT_STYLE), name
        assert cap.source_check(None) is None, name
    assert caps["svg"].DRAWING and caps["svg"].preserves(GRAPH) == LAYOUT_STYLE

