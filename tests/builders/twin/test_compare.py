from diagramforge.builders.twin.compare import Mismatch, as_text_nodes, differences, same
from diagramforge.graphs.model import Edge, Graph, Node


def g(nodes, edges):  # noqa: ANN001, ANN201
    return Graph(nodes=[Node(id=i, text=t) for i, t in nodes],
                 edges=[Edge(source=a, target=b, directed=d, label=lab)
                        for a, b, d, lab in edges])


SRC = g([("a", "Load data"), ("b", "Train"), ("c", "")],
        [("a", "b", True, "next"), ("b", "c", False, "")])


def test_ids_and_spelling_do_not_count():
    twin = g([("n2", ""), ("n0", "load  DATA"), ("n1", "Train.")],
             [("n1", "n2", False, ""), ("n0", "n1", True, "Next")])
    assert same(SRC, twin)
    swapped = g([("x", "Load data"), ("y", "Train"), ("z", "")],
                [("y", "x", True, ""), ("z", "y", False, "")])  # undirected: either way
    assert differences(SRC, swapped)[0].startswith(Mismatch.EDGES)


def test_an_edge_label_is_part_of_its_edge():
    """A label lost, moved to another edge, or drawn as a box of its own is another
    diagram (a decision tree's "yes" and "no" beside its arrows, not on them)."""
    lost = g([("a", "Load data"), ("b", "Train"), ("c", "")],
             [("a", "b", True, ""), ("b", "c", False, "")])
    assert differences(SRC, lost)[0].startswith(Mismatch.LABELS)
    moved = g([("a", "Load data"), ("b", "Train"), ("c", "")],
              [("a", "b", True, ""), ("b", "c", False, "next")])
    assert differences(SRC, moved)[0].startswith(Mismatch.LABELS)
    as_node = g([("a", "Load data"), ("b", "Train"), ("c", ""), ("l", "next")],
                [("a", "b", True, ""), ("b", "c", False, "")])
    assert differences(SRC, as_node)[0].startswith(Mismatch.TEXTS)


def test_texts_edge_count_and_direction_are_reported():
    fewer = g([("a", "Load data"), ("b", "Train")], [("a", "b", True, "")])
    diff = differences(SRC, fewer)
    assert diff[0].startswith(Mismatch.TEXTS) and diff[1].startswith(Mismatch.EDGE_COUNT)
    undirected = g([("a", "Load data"), ("b", "Train"), ("c", "")],
                   [("a", "b", False, ""), ("b", "c", False, "")])
    assert differences(SRC, undirected)[0].startswith(Mismatch.EDGES)


def test_an_svg_reader_sees_edge_labels_as_text_nodes():
    src = g([("a", "Load data"), ("b", "Train"), ("c", "Test")],
            [("a", "b", True, "next"), ("b", "c", False, "")])
    seen = as_text_nodes(src)
    assert sorted(n.text for n in seen.nodes) == ["Load data", "Test", "Train", "next"]
    # the label is the reader's node now, not the edge's
    assert [(e.source, e.target, e.label) for e in seen.edges] == [("a", "b", ""),
                                                                   ("b", "c", "")]
    assert as_text_nodes(seen.model_copy(update={"edges": []})).nodes == seen.nodes


def test_an_svg_reader_sees_no_node_in_a_box_without_text():
    src = g([("a", "Start"), ("b", " "), ("c", "End"), ("d", ""), ("e", "|")],
            [("a", "b", True, ""), ("b", "c", True, "go"), ("c", "d", False, "")])
    seen = as_text_nodes(src)
    # (a text of punctuation only is still a text the reader finds)
    assert sorted(n.text for n in seen.nodes) == ["End", "Start", "go", "|"]
    seen = seen.model_copy(update={"nodes": [n for n in seen.nodes if n.id != "e"]})
    # edges at a blank box keep their labelled end and direction; an undirected stroke
    # to it is a divider to the reader, so it is not expected
    assert [(e.source, e.target, e.directed) for e in seen.edges] == [
        ("a", None, True), (None, "c", True)]
    # what a text reader finds in the twin: free ends where the blank box is
    twin = Graph(nodes=[Node(id="n0", text="start"), Node(id="n1", text="end"),
                        Node(id="n2", text="go", shape="text")],
                 edges=[Edge(source="n0"), Edge(target="n1")])
    assert same(seen, twin)
    # …and still nothing else passes: the direction, a lost labelled node, an edge more
    flipped = twin.model_copy(update={"edges": [Edge(target="n0"), Edge(target="n1")]})
    assert differences(seen, flipped)[0].startswith(Mismatch.EDGES)
    lost = twin.model_copy(update={"nodes": twin.nodes[1:]})
    assert differences(seen, lost)[0].startswith(Mismatch.TEXTS)
    more = twin.model_copy(update={"edges": [*twin.edges, Edge(source="n0", target="n1")]})
    assert differences(seen, more)[0].startswith(Mismatch.EDGE_COUNT)


def test_a_line_is_not_a_double_arrow():
    """Both are undirected (reachable both ways), but a twin that draws ``<->`` as a plain
    line is not the picture."""
    nodes = [Node(id="a", text="Start"), Node(id="b", text="End")]
    arrow = Graph(nodes=nodes, edges=[Edge(source="a", target="b", directed=False,
                                           both_heads=True)])
    line = Graph(nodes=nodes, edges=[Edge(source="b", target="a", directed=False)])
    assert differences(arrow, line)[0].startswith(Mismatch.EDGES)
    assert same(arrow, arrow.model_copy(update={"edges": [
        Edge(source="b", target="a", directed=False, both_heads=True)]}))
    # the SVG reader keeps a double arrow with a free end (it is decorated), not a line
    free = Graph(nodes=nodes[:1], edges=[Edge(source="a", target=None, directed=False,
                                              both_heads=True, unattached=["target"])])
    assert len(as_text_nodes(free).edges) == 1
    assert as_text_nodes(free.model_copy(update={"edges": [
        free.edges[0].model_copy(update={"both_heads": False})]})).edges == []
