import pytest

from diagramforge.formats.twin_layout import DANGLING, EMPTY, WriteError, check_expressible, place
from diagramforge.graphs.model import Edge, Graph, Node


def test_the_source_layout_is_kept_shifted_to_the_origin():
    g = Graph(nodes=[Node(id="a", bbox=[100, 50, 40, 20]), Node(id="b", bbox=[300, 90, 40, 0])])
    p = place(g)
    assert p.from_source and p.boxes == {"a": (0, 0, 40, 20), "b": (200, 40, 40, 1.0)}


def test_without_boxes_nodes_go_on_layers_of_the_structure():
    g = Graph(nodes=[Node(id=i) for i in "abcd"],
              edges=[Edge(source="a", target="b"), Edge(source="b", target="c"),
                     Edge(source="c", target="b"), Edge(source="a", target="d")])
    p = place(g)
    assert not p.from_source
    ys = {k: v[1] for k, v in p.boxes.items()}
    assert ys["a"] < ys["b"] == ys["c"] and ys["d"] == ys["b"]  # a cycle is one layer
    xs = sorted(v[0] for k, v in p.boxes.items() if k != "a")
    assert len(set(xs)) == 3  # side by side, not on top of each other


def test_what_no_language_here_can_draw():
    with pytest.raises(WriteError) as e:
        check_expressible(Graph(nodes=[Node(id="a")], edges=[Edge(source="a", target=None)]))
    assert e.value.reason == DANGLING
    with pytest.raises(WriteError) as e:
        check_expressible(Graph())
    assert e.value.reason == EMPTY


def test_a_cycle_side_by_side_leaves_room_for_its_labels():
    # a request and its answer: one layer, the two labels between the two boxes
    g = Graph(nodes=[Node(id="c", text="Client"), Node(id="s", text="Server")],
              edges=[Edge(source="c", target="s", label="GET /items"),
                     Edge(source="s", target="c", label="200 OK")])
    p = place(g)
    (cx, cy, cw, _), (sx, sy, _, _) = p.boxes["c"], p.boxes["s"]
    assert cy == sy and sx - (cx + cw) >= 7 * len("GET /items") + 24
    # unlabelled, or across layers: the ordinary gap
    g2 = g.model_copy(update={"edges": [e.model_copy(update={"label": ""}) for e in g.edges]})
    (cx, _, cw, _), (sx, _, _, _) = place(g2).boxes["c"], place(g2).boxes["s"]
    assert sx - (cx + cw) == 40


def test_an_edge_drawn_straight_through_another_node_is_found():
    """A return edge the source routed over a row of steps: drawn straight between box
    centres it strikes through every step on the way back; a lane's frame does not count."""
    from diagramforge.formats.twin_layout import THROUGH, check_through, through_nodes

    row = Graph(nodes=[Node(id=k, text=k.upper(), bbox=[100 * i, 0, 60, 30])
                       for i, k in enumerate("abcd")],
                edges=[Edge(source="a", target="b"), Edge(source="b", target="c"),
                       Edge(source="c", target="d"), Edge(source="d", target="a")])
    boxes = place(row).boxes
    assert through_nodes(row, boxes) == [("'D'->'A'", "B"), ("'D'->'A'", "C")]
    with pytest.raises(WriteError) as e:
        check_through(row, boxes, "TikZ")
    assert e.value.reason == THROUGH and "'D'->'A' through 'B'" in e.value.detail
    # an edge along a lane, past its title: the frame is crossed as in the source
    lane = row.model_copy(update={"nodes": [*row.nodes, Node(id="l", text="Lane",
                                                              bbox=[-10, -20, 400, 60])],
                                  "edges": row.edges[:3]})
    assert through_nodes(lane, place(lane).boxes) == []


def test_an_edge_label_gets_room_between_its_nodes_or_the_twin_is_refused():
    """A three-line legend read as the label of a short arrow: the layout spreads until
    it fits on the line between the two boxes; a label too long for any spread is refused
    (drawn, it would lie over the boxes it joins)."""
    from diagramforge.formats.twin_layout import CROWDED, Font, fit_boxes

    font = Font(char=7.0, line=15.0, pad=10.0)
    g = Graph(nodes=[Node(id="x", text="x", bbox=[0, 0, 30, 15]),
                     Node(id="y", text="y", bbox=[0, 40, 30, 15])],
              edges=[Edge(source="x", target="y",
                          label="Testverfahren x\nsubsummiert\nTestverfahren y")])
    boxes = fit_boxes(g, 1.0, font, 3.0)
    gap = boxes["y"][1] - (boxes["x"][1] + boxes["x"][3])
    assert gap >= 3 * font.line  # the label's three lines fit between the boxes
    long = g.model_copy(update={"edges": [g.edges[0].model_copy(
        update={"label": "\n".join(["line"] * 12)})]})
    with pytest.raises(WriteError) as e:
        fit_boxes(long, 1.0, font, 3.0)
    assert e.value.reason == CROWDED and "no room" in e.value.detail
