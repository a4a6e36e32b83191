"""mxGraph evidence: shape libraries, styles and the shape of the edge graph."""

from __future__ import annotations

import pytest

from diagramforge.filters.classifier.evidence.mxgraph import evidence


def mx(cells: str) -> str:
    return (f'<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>{cells}'
            '</root></mxGraphModel>')


def v(i: int | str, style: str, x: float = 0, y: float = 0, w: float = 80,
      h: float = 40) -> str:
    return (f'<mxCell id="v{i}" value="n{i}" style="{style}" vertex="1" parent="1">'
            f'<mxGeometry x="{x}" y="{y}" width="{w}" height="{h}" as="geometry"/></mxCell>')


def e(i: int, s: int | str, t: int | str, style: str = "endArrow=classic;") -> str:
    return (f'<mxCell id="e{i}" style="{style}" edge="1" parent="1" source="v{s}" '
            f'target="v{t}"><mxGeometry relative="1" as="geometry"/></mxCell>')


def many(n: int, style: str) -> str:
    return "".join(v(i, style, x=100 * i) for i in range(n))


CASES = [
    (mx(many(3, "shape=mxgraph.aws4.resourceIcon;resIcon=mxgraph.aws4.lambda;") + e(1, 0, 1)),
     "network_diagram", "mxgraph.cloud_icons"),
    (mx(many(3, "shape=mxgraph.cisco.routers.router;") + e(1, 0, 1)), "network_diagram",
     "mxgraph.network_icons"),
    (mx(v(0, "shape=umlLifeline;") + v(1, "shape=umlLifeline;", x=200) + v(2, "rounded=1;")
        + e(1, 0, 1)), "uml", "mxgraph.uml"),
    (mx(v("b", "shape=mxgraph.bpmn.task;") + many(3, "rounded=1;")), "bpmn", "mxgraph.bpmn"),
    (mx(many(3, "swimlane;") + e(1, 0, 1, "endArrow=ERmany;startArrow=ERmandOne;")),
     "er_diagram", "mxgraph.er"),
    (mx(many(4, "shape=mxgraph.mockup.containers.browserWindow;")), "wireframe",
     "mxgraph.mockup"),
    (mx(many(3, "shape=mxgraph.electrical.resistors.resistor_1;") + e(1, 0, 1)), "circuit",
     "mxgraph.electrical"),
    (mx(v(0, "swimlane;fontStyle=1;childLayout=stackLayout;") + v(1, "line;strokeWidth=1;")
        + v(2, "text;")), "uml", "mxgraph.class_boxes"),
    (mx("".join(v(f"{r}{c}", "shape=tableRow;", x=60 * c, y=30 * r) for r in range(3)
                for c in range(2))), "table", "mxgraph.table"),
    (mx(v(0, "rounded=1;") + v(1, "rhombus;", y=80) + v(2, "rounded=1;", y=160)
        + e(1, 0, 1) + e(2, 1, 2)), "flowchart", "mxgraph.decisions"),
    (mx(v(0, "ellipse;fillColor=#f00;opacity=50;", 0, 0, 100, 100)
        + v(1, "ellipse;fillColor=#00f;opacity=50;", 60, 0, 100, 100)), "venn_diagram",
     "mxgraph.overlapping_ellipses"),
    (mx(v(0, "", 100, 0) + v(1, "", 0, 100) + v(2, "", 200, 100) + v(3, "", 150, 200)
        + e(1, 0, 1) + e(2, 0, 2) + e(3, 2, 3)), "tree", "mxgraph.tree"),
    (mx(v(0, "ellipse;", 200, 200) + v(1, "", 0, 200) + v(2, "", 400, 200) + v(3, "", 400, 0)
        + e(1, 0, 1, "endArrow=none;") + e(2, 0, 2, "endArrow=none;")
        + e(3, 0, 3, "endArrow=none;")), "mind_map", "mxgraph.mind_map"),
    (mx(v(0, "", 0, 60, 30, 100) + v(1, "", 50, 120, 30, 40) + v(2, "", 100, 20, 30, 140)
        + v(3, "", 150, 90, 30, 70) + e(1, "x", "y")), "bar_chart", "mxgraph.bars"),
    (mx(v(0, "rounded=1;") + v(1, "rounded=1;", x=200) + v(2, "rounded=1;", x=400)
        + e(1, 0, 1) + e(2, 1, 2) + e(3, 2, 0)), "architecture_diagram", "mxgraph.node_link"),
]


@pytest.mark.parametrize(("code", "label", "rule"), CASES, ids=[c[2] for c in CASES])
def test_rule(code: str, label: str, rule: str) -> None:
    ev = evidence(code)
    assert (ev.label, ev.rule) == (label, rule)


def test_two_phone_icons_do_not_make_a_data_flow_a_wireframe() -> None:
    """Icon libraries must dominate the page, not merely appear on it."""
    code = mx("".join(v(i, "rounded=1;", x=100 * i) for i in range(8))
              + v(9, "shape=mxgraph.ios7ui.phone;") + "".join(e(i, i, i + 1) for i in range(7)))
    assert evidence(code).label == "architecture_diagram"


def test_touching_cells_are_a_grid_not_bars() -> None:
    code = mx("".join(v(f"{r}{c}", "", 60 * c, 50 * r, 60, 50) for r in range(4)
                      for c in range(3)))
    assert evidence(code).label != "bar_chart"


@pytest.mark.parametrize("code", [mx(v(0, "rounded=1;")), mx(many(3, "text;"))])
def test_silent(code: str) -> None:
    assert evidence(code).label is None


def test_a_page_that_is_mostly_a_picture_is_not_known_to_be_drawn() -> None:
    page = mx(v(0, "shape=image;image=data:image/png,AAAA;", 0, 0, 400, 300)
              + v(1, "rounded=1;", 10, 10, 40, 20))
    icons = mx(v(0, "shape=image;image=data:image/png,AAAA;", 0, 0, 30, 30)
               + v(1, "rounded=1;", 300, 300, 80, 40) + e(1, 0, 1))
    assert not evidence(page).drawn
    assert evidence(icons).drawn


def test_lifelines_are_uml_but_no_node_link_drawing() -> None:
    page = mx(v(0, "shape=umlLifeline;perimeter=lifelinePerimeter;", 0) +
              v(1, "shape=umlLifeline;perimeter=lifelinePerimeter;", 200) +
              e(0, 0, 1) + e(1, 1, 0) + e(2, 0, 1))
    ev = evidence(page)
    assert (ev.label, ev.graph_like) == ("uml", False)
    assert "umlLifeline" in ev.line


def test_a_page_without_edges_is_a_diagram_of_no_stated_kind() -> None:
    ev = evidence(mx(v(0, "rounded=1;", 0) + v(1, "rounded=1;", 200)))
    assert (ev.label, ev.family, ev.graph_like) == (None, "diagram", False)
