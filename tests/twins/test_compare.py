from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.twins.compare import Mismatch, as_text_nodes, differences, same


def g(nodes, edges):  # noqa: ANN001, ANN201
    return Graph(nodes=[Node(id=i, text=t) for i, t in nodes],
                 edges=[Edge(source=a, target=b, directed=d, label=lab)
                        for a, b, d, lab in edges])


SRC = g([("a", "Load data"), ("b", "Train"), ("c", "")],
        [("a", "b", True, "next"), ("b", "c", False, "")])


def test_ids_labels_and_spelling_do_not_count():
    twin = g([("n2", ""), ("n0", "load  DATA"), ("n1", "Train.")],
             [("n1", "n2", False, "whatever"), ("n0", "n1", True, "")])
    assert same(SRC, twin)
    swapped = g([("x", "Load data"), ("y", "Train"), ("z", "")],
                [("y", "x", True, ""), ("z", "y", False, "")])  # undirected: either way
    assert differences(SRC, swapped)[0].startswith(Mismatch.EDGES)


def test_texts_edge_count_and_direction_are_reported():
    fewer = g([("a", "Load data"), ("b", "Train")], [("a", "b", True, "")])
    diff = differences(SRC, fewer)
    assert diff[0].startswith(Mismatch.TEXTS) and diff[1].startswith(Mismatch.EDGE_COUNT)
    undirected = g([("a", "Load data"), ("b", "Train"), ("c", "")],
                   [("a", "b", False, ""), ("b", "c", False, "")])
    assert differences(SRC, undirected)[0].startswith(Mismatch.EDGES)


def test_an_svg_reader_sees_edge_labels_as_text_nodes():
    seen = as_text_nodes(SRC)
    assert sorted(n.text for n in seen.nodes) == ["", "Load data", "Train", "next"]
    assert seen.edges == SRC.edges and as_text_nodes(seen.model_copy(
        update={"edges": []})).nodes == seen.nodes
