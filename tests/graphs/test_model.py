from __future__ import annotations

from diagramforge.graphs.model import Edge, Graph, Node, graph_stats


def _g(nodes: list[str], edges: list[tuple[str, str, bool]]) -> Graph:
    return Graph(nodes=[Node(id=n, text=n) for n in nodes],
                 edges=[Edge(source=s, target=t, directed=d) for s, t, d in edges])


def test_json_round_trip_is_stable_and_sorted() -> None:
    g = Graph(nodes=[Node(id="b", text="B", bbox=[1, 2, 3, 4]), Node(id="a", text="A")],
              edges=[Edge(source="b", target="a", label="x")])
    text = g.to_json()
    assert Graph.from_json(text) == g
    assert Graph.from_json(text).to_json() == text
    # sorted keys: "edges" before "nodes", "bbox" first within a node
    assert text.index('"edges"') < text.index('"nodes"')
    assert text.startswith('{"edges":[{"directed":true,"label":"x"')


def test_stats_chain_and_isolated_node() -> None:
    # a→b→c→d, plus isolated e: 2 components, longest path 3 edges
    g = _g(["a", "b", "c", "d", "e"], [("a", "b", True), ("b", "c", True), ("c", "d", True)])
    assert graph_stats(g) == {"nodes": 5, "edges": 3, "components": 2, "longest_path": 3}


def test_stats_cycle_collapses_and_undirected_edge_counts_once() -> None:
    # a→b→c→a is one strongly connected blob, then c→d: longest path 1
    g = _g(["a", "b", "c", "d"], [("a", "b", True), ("b", "c", True), ("c", "a", True),
                                  ("c", "d", True)])
    assert graph_stats(g)["longest_path"] == 1
    # x — y undirected, then y→z: {x,y} collapse, one step to z
    g = _g(["x", "y", "z"], [("x", "y", False), ("y", "z", True)])
    assert graph_stats(g) == {"nodes": 3, "edges": 2, "components": 1, "longest_path": 1}


def test_stats_ignore_dangling_edges_for_structure() -> None:
    g = Graph(nodes=[Node(id="a"), Node(id="b")],
              edges=[Edge(source="a", target=None, unattached=["target"])])
    assert graph_stats(g) == {"nodes": 2, "edges": 1, "components": 2, "longest_path": 0}
    assert graph_stats(Graph()) == {"nodes": 0, "edges": 0, "components": 0,
                                    "longest_path": 0}
