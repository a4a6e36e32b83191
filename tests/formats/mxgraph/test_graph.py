from __future__ import annotations

from pathlib import Path

import pytest

from diagramforge.formats.mxgraph.graph import is_group, mxgraph_graph
from diagramforge.formats.mxgraph.notation import decode, normalise
from diagramforge.graphs.settings import GraphParams

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures" / "mxgraph"


def _model(cells: str) -> str:
    return f'<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>{cells}' \
           '</root></mxGraphModel>'


def _v(cid: str, text: str, x: float, y: float, w: float = 100, h: float = 40,
       parent: str = "1", style: str = "rounded=1;html=1;") -> str:
    return (f'<mxCell id="{cid}" value="{text}" style="{style}" vertex="1" parent="{parent}">'
            f'<mxGeometry x="{x}" y="{y}" width="{w}" height="{h}" as="geometry"/></mxCell>')


def _e(cid: str, src: str | None, tgt: str | None, style: str = "endArrow=classic;",
       points: str = "", value: str = "", parent: str = "1") -> str:
    ends = (f' source="{src}"' if src else "") + (f' target="{tgt}"' if tgt else "")
    return (f'<mxCell id="{cid}" value="{value}" style="{style}" edge="1" parent="{parent}"'
            f'{ends}><mxGeometry relative="1" as="geometry">{points}</mxGeometry></mxCell>')


def test_vertices_edges_and_html_labels() -> None:
    xml = _model(_v("a", "Load &lt;b&gt;data&lt;/b&gt;", 0, 0)
                 + _v("b", "Train", 200, 0, style="ellipse;html=1;")
                 + _e("e", "a", "b", value="then"))
    g = mxgraph_graph(xml)
    assert [(n.id, n.text, n.shape, n.bbox) for n in g.nodes] == [
        ("a", "Load data", "rectangle", [0, 0, 100, 40]),
        ("b", "Train", "ellipse", [200, 0, 100, 40])]
    [e] = g.edges
    assert (e.source, e.target, e.label, e.directed, e.unattached) == ("a", "b", "then",
                                                                        True, [])


def test_children_of_groups_get_absolute_boxes() -> None:
    # container at (100, 50); child at (10, 20) inside it; grandchild at (5, 5) in the child
    xml = _model(_v("grp", "Pool", 100, 50, 400, 300, style="swimlane;html=1;")
                 + _v("c", "Inner", 10, 20, 200, 100, parent="grp")
                 + _v("gc", "Deep", 5, 5, 50, 20, parent="c"))
    boxes = {n.id: n.bbox for n in mxgraph_graph(xml).nodes}
    assert boxes == {"grp": [100, 50, 400, 300], "c": [110, 70, 200, 100],
                     "gc": [115, 75, 50, 20]}


def test_relative_port_geometry_is_fraction_of_parent() -> None:
    port = ('<mxCell id="p" value="" style="ellipse;" vertex="1" parent="a">'
            '<mxGeometry x="1" y="0.5" width="10" height="10" relative="1" as="geometry">'
            '<mxPoint x="-5" y="-5" as="offset"/></mxGeometry></mxCell>')
    xml = _model(_v("a", "A", 100, 100, 200, 40) + port)
    assert {n.id: n.bbox for n in mxgraph_graph(xml).nodes}["p"] == [295, 115, 10, 10]


def test_edge_label_cells_become_the_label_not_nodes() -> None:
    label = ('<mxCell id="lbl" value="yes" style="edgeLabel;html=1;" vertex="1" '
             'connectable="0" parent="e"><mxGeometry x="-0.2" relative="1" as="geometry">'
             '<mxPoint as="offset"/></mxGeometry></mxCell>')
    xml = _model(_v("a", "Q?", 0, 0) + _v("b", "Do", 0, 200) + _e("e", "a", "b") + label)
    g = mxgraph_graph(xml)
    assert [n.id for n in g.nodes] == ["a", "b"]
    assert g.edges[0].label == "yes"


def test_floating_ends_attach_inside_or_near_a_box() -> None:
    pts = ('<mxPoint x="50" y="20" as="sourcePoint"/>'     # inside a
           '<mxPoint x="195" y="20" as="targetPoint"/>')   # 5 px left of b
    far = ('<mxPoint x="50" y="500" as="sourcePoint"/>'
           '<mxPoint x="150" y="20" as="targetPoint"/>')   # 50 px from both boxes
    xml = _model(_v("a", "A", 0, 0) + _v("b", "B", 200, 0)
                 + _e("near", None, None, points=pts) + _e("far", None, None, points=far))
    near, far_e = mxgraph_graph(xml).edges
    assert (near.source, near.target, near.unattached) == ("a", "b", [])
    assert (far_e.source, far_e.target, far_e.unattached) == (None, None,
                                                               ["source", "target"])
    # a tighter tolerance lets go of the 5 px end
    near, _ = mxgraph_graph(xml, GraphParams(attach_tolerance=2)).edges
    assert (near.target, near.unattached) == (None, ["target"])


def test_floating_end_prefers_innermost_box_and_uses_parent_offset() -> None:
    # the point (130, 80) in page coordinates lies in the container and in the child box
    pts = '<mxPoint x="30" y="30" as="targetPoint"/>'  # edge lives in grp: +100, +50
    xml = _model(_v("grp", "", 100, 50, 400, 300, style="group;")
                 + _v("c", "C", 10, 10, 60, 40, parent="grp")
                 + _v("s", "S", 0, 0, 40, 40)
                 + _e("e", "s", None, points=pts, parent="grp"))
    [e] = mxgraph_graph(xml).edges
    assert (e.source, e.target) == ("s", "c")


def test_a_group_draws_nothing_and_is_not_a_node() -> None:
    """draw.io's ``group`` style has no fill and no stroke: its children are what a reader
    sees. A labelled or filled group is drawn, so it stays a node."""
    xml = _model(_v("grp", "", 100, 50, 300, 60, style="group")
                 + _v("a", "A", 0, 0, parent="grp") + _v("b", "B", 200, 0, parent="grp")
                 + _v("shown", "Team", 0, 200, style="group;fillColor=#dae8fc;"))
    assert [(n.id, n.bbox) for n in mxgraph_graph(xml).nodes] == [
        ("a", [100, 50, 100, 40]), ("b", [300, 50, 100, 40]), ("shown", [0, 200, 100, 40])]


def test_inline_stencils_are_shape_stencil() -> None:
    xml = _model(_v("s", "Valve", 0, 0, style="shape=stencil(tZRNDoIwEIVP0==);html=1;"))
    assert mxgraph_graph(xml).nodes[0].shape == "stencil"


def test_placeholders_are_filled_as_drawio_draws_them() -> None:
    xml = _model('<UserObject label="%name% (%team%) %id% %missing% 100%%" placeholders="1" '
                 'name="Billing" id="svc"><mxCell style="html=1;" vertex="1" parent="grp">'
                 '<mxGeometry width="80" height="40" as="geometry"/></mxCell></UserObject>'
                 '<object label="" team="finance" id="grp"><mxCell style="swimlane;" '
                 'vertex="1" parent="1"><mxGeometry width="300" height="200" as="geometry"/>'
                 '</mxCell></object>'
                 '<UserObject label="%name%" name="Plain" id="raw"><mxCell vertex="1" '
                 'parent="1"><mxGeometry width="80" height="40" as="geometry"/></mxCell>'
                 '</UserObject>')
    texts = {n.id: n.text for n in mxgraph_graph(xml).nodes}
    assert texts["svc"] == "Billing (finance) svc %missing% 100%%"
    assert texts["raw"] == "%name%"  # placeholders off: the label as written


def test_direction_from_arrows() -> None:
    xml = _model(_v("a", "A", 0, 0) + _v("b", "B", 200, 0)
                 + _e("plain", "a", "b", style="endArrow=none;")
                 + _e("default", "a", "b", style="edgeStyle=orthogonalEdgeStyle;")
                 + _e("back", "a", "b", style="endArrow=none;startArrow=classic;")
                 + _e("both", "a", "b", style="endArrow=block;startArrow=block;"))
    got = [(e.source, e.target, e.directed, e.both_heads) for e in mxgraph_graph(xml).edges]
    assert got == [("a", "b", False, False), ("a", "b", True, False), ("b", "a", True, False),
                   ("a", "b", False, True)]


def test_edge_to_missing_cell_is_unattached() -> None:
    xml = _model(_v("a", "A", 0, 0) + _e("e", "a", "ghost"))
    [e] = mxgraph_graph(xml).edges
    assert (e.source, e.target, e.unattached) == ("a", None, ["target"])


def test_floating_edges_fixture() -> None:
    [page] = decode((FIXTURES / "floating_edges.drawio").read_bytes())
    g = mxgraph_graph(normalise(page.model))
    assert [n.text for n in g.nodes] == ["Gateway", "Service"]
    # e1 floats at both ends far from the boxes; e2/e3 keep their attached end
    assert [(e.source, e.target) for e in g.edges] == [(None, None), (None, "v2"),
                                                       ("v1", None)]
    assert g.edges[0].label == "free line"


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.drawio")))
def test_fixture_cells_are_all_accounted_for(name: str) -> None:
    """Exactness: every vertex cell is a node, an edge label or a group, every edge cell an
    edge."""
    for page in decode((FIXTURES / name).read_bytes(), name):
        if page.model is None:
            continue
        g = mxgraph_graph(normalise(page.model))
        cells = list(page.model.iter("mxCell"))
        edge_ids = {c.get("id") for c in cells if c.get("edge") == "1"}
        vertices = [c for c in cells if c.get("vertex") == "1"
                    and c.get("parent") not in edge_ids and not is_group(c)]
        assert len(g.nodes) == len(vertices)
        assert len(g.edges) == len(edge_ids)
