"""Graphviz's twin writer: where Graphviz's own routing lets edges or labels meet, the
writer gives each its own side (compass ports), and a labelled graph is not packed."""

from __future__ import annotations

import pytest

from diagramforge.formats.dot.twin import write
from diagramforge.formats.registry import instantiate
from diagramforge.graphs.model import Edge, Graph, Node
from tests.conftest import make_params
from tests.formats.twins import needs_dot


@pytest.fixture(scope="module")
def dot(tmp_path_factory):
    hs = instantiate(make_params(tmp_path_factory.mktemp("w")), lambda r: r["id"])
    yield hs["dot"]
    for h in hs.values():
        h.close()


@needs_dot
@pytest.mark.parametrize("wide", [False, True], ids=["top-down", "left-right"])
def test_dot_twin_keeps_a_two_cycle_s_edges_apart(wide):
    """Graphviz alone draws a 2-cycle's two splines almost on top of each other (about 2 pt
    apart when one is unlabelled); the writer gives each its own side of the nodes."""
    import json
    import subprocess

    x = 300 if wide else 0
    g = Graph(nodes=[Node(id="a", text="Train model", bbox=[0, 0, 90, 30]),
                     Node(id="b", text="Evaluate", bbox=[x, 0 if wide else 100, 90, 30])],
              edges=[Edge(source="a", target="b"),
                     Edge(source="b", target="a", label="retrain")])
    code = write(g)
    assert ("rankdir=LR" in code) == wide
    laid = json.loads(subprocess.run(["dot", "-Tjson"], input=code, capture_output=True,
                                     text=True, check=True).stdout)

    def middle(edge: dict) -> tuple[float, float]:
        pts = [p for op in edge["_draw_"] if op["op"] in "bB" for p in op["points"]]
        return pts[len(pts) // 2]

    (ax, ay), (bx, by) = (middle(e) for e in laid["edges"])
    assert ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5 > 20  # pt


@needs_dot
def test_dot_twin_of_several_parts_draws_its_edge_labels(dot):
    """Graphviz drops the edge labels of a packed graph (its -Tjson still lists them, so the
    twin's graph looked right): a labelled graph is not packed."""
    from diagramforge.formats.svg.graph import svg_primitives

    g = Graph(nodes=[Node(id=i, text=t) for i, t in
                     (("a", "x0"), ("b", "x1"), ("s", "sum"), ("d", "dots"))],
              edges=[Edge(source="a", target="s", label="w0"),
                     Edge(source="b", target="s", label="w1")])  # "dots" stands apart
    code = write(g)
    svg = dot.export_svg([{"id": "t", "code": code, "format": "dot"}])[0]
    drawn = {t.text for t in svg_primitives(svg)[0]}
    assert {"w0", "w1"} <= drawn, drawn
