"""draw.io (mxGraph) as a twin target: an uncompressed ``<mxGraphModel>`` whose vertices sit
where the source drew them, at its size, in its shape (``layout``; on layers of the
structure when the source had no layout); its own SVG is draw.io's ``getSvg`` (the protocol:
:mod:`diagramforge.formats.twin_base`)."""

from __future__ import annotations

import math
from xml.sax.saxutils import quoteattr

from diagramforge.formats.grounding import Verdict
from diagramforge.formats.twin_base import Route, layout_kept, node_ids, routes, shape_of
from diagramforge.formats.twin_layout import (
    Font,
    check_expressible,
    check_lanes,
    check_overlaps,
    check_through,
    containers,
    fit_boxes,
    place,
)
from diagramforge.graphs.model import Graph

DRAWING = False
EXPORT_METHOD = "drawio-getsvg"
EDGES_FROM_STROKES = False
preserves = layout_kept


def source_check(code: str | None) -> Verdict | None:
    return None


_MX_SHAPES = {"rectangle": "rounded=0;", "rounded": "rounded=1;", "ellipse": "ellipse;",
              "rhombus": "rhombus;", "hexagon": "shape=hexagon;perimeter=hexagonPerimeter2;",
              "cylinder": "shape=cylinder3;", "triangle": "triangle;",
              "parallelogram": "shape=parallelogram;", "note": "shape=note;",
              "text": "text;", "container": "rounded=0;fillColor=none;verticalAlign=top;"}
MX_SPREAD = 32.0
"""px between the waypoints of two edges joining the same two nodes (and of a loop from its
node): wider than a line of label text, so labels drawn at them never meet."""


def _mx_points(box_a: tuple[float, ...], box_b: tuple[float, ...], r: Route
               ) -> list[tuple[float, float]]:
    """Waypoints of an edge from ``box_a`` to ``box_b`` (x, y, w, h): none for a lone
    edge; one beside the straight line for each of several between the same nodes; one off
    the node's side for a loop.  draw.io puts an edge's label at the middle of its route,
    which is then the waypoint: each label has its own place."""
    ax, ay = box_a[0] + box_a[2] / 2, box_a[1] + box_a[3] / 2
    if r.loop is not None:
        side = r.loop % 4
        far = MX_SPREAD * (1 + r.loop // 4)
        return [[(ax, box_a[1] - far), (box_a[0] + box_a[2] + far, ay),
                 (ax, box_a[1] + box_a[3] + far), (box_a[0] - far, ay)][side]]
    if r.offset == 0:
        return []
    bx, by = box_b[0] + box_b[2] / 2, box_b[1] + box_b[3] / 2
    dx, dy = (bx - ax, by - ay) if r.forward else (ax - bx, ay - by)
    length = math.hypot(dx, dy) or 1.0
    ux, uy = -dy / length, dx / length  # perpendicular to the first edge's direction
    step = r.offset * MX_SPREAD
    return [((ax + bx) / 2 + ux * step, (ay + by) / 2 + uy * step)]


MX_FONT = Font(char=7.0, line=15.0, pad=10.0)
"""draw.io's default label (12 px Helvetica), in px: a TeX text box fits its 10 pt text
exactly, draw.io's 12 px label would wrap and spill, so boxes are sized from the text."""
MX_MAX_SPREAD = 3.0
MX_CONTAINER = "rounded=0;fillColor=none;verticalAlign=top;"
"""A container's frame: no fill (what it holds shows through), its label at its top."""


def write(g: Graph, unit: float = 1.0) -> str:
    """An uncompressed ``<mxGraphModel>``: vertices at the source's boxes (× ``unit``) in its
    shapes, grown to hold their labels (:func:`~diagramforge.formats.twin_layout.fit_boxes`),
    plain-text labels; a
    container first, a frame with its label at its top around what it holds; edges between
    them (``endArrow=none`` when undirected), parallel and opposite ones routed apart through
    waypoints, loops each on another side (:func:`~diagramforge.formats.twin_base.routes`)."""
    check_expressible(g)
    ids = node_ids(g)
    cells = ['<mxCell id="0"/>', '<mxCell id="1" parent="0"/>']
    check_lanes(g, "draw.io")
    check_overlaps(g, "draw.io")
    boxes = fit_boxes(g, unit, MX_FONT, MX_MAX_SPREAD)
    check_overlaps(g, "draw.io", boxes)
    check_through(g, boxes, "draw.io")
    held = set(containers(g).values()) if place(g).from_source else set()
    for n in sorted(g.nodes, key=lambda n: (n.id not in held,
                                           -boxes[n.id][2] * boxes[n.id][3])):
        x, y, w, h = boxes[n.id]
        style = (MX_CONTAINER if n.id in held else _MX_SHAPES.get(shape_of(n.shape),
                                                                   "rounded=0;")) \
            + "whiteSpace=wrap;html=0;"
        cells.append(f'<mxCell id="{ids[n.id]}" value={quoteattr(n.text)} style="{style}" '
                     f'vertex="1" parent="1"><mxGeometry x="{x:.1f}" y="{y:.1f}" '
                     f'width="{w:.1f}" height="{h:.1f}" as="geometry"/></mxCell>')
    for k, (e, r) in enumerate(zip(g.edges, routes(g, boxes), strict=True)):
        arrow = ("endArrow=classic;" if e.directed else
                 "startArrow=classic;endArrow=classic;" if e.both_heads else "endArrow=none;")
        pts = _mx_points(boxes[e.source], boxes[e.target], r)  # type: ignore[index]
        inner = ('<Array as="points">' + "".join(f'<mxPoint x="{x:.1f}" y="{y:.1f}"/>'
                                                 for x, y in pts) + "</Array>") if pts else ""
        cells.append(f'<mxCell id="e{k}" value={quoteattr(e.label)} style="{arrow}html=0;" '
                     f'edge="1" parent="1" source="{ids[e.source]}" '  # type: ignore[index]
                     f'target="{ids[e.target]}"><mxGeometry relative="1" '  # type: ignore[index]
                     f'as="geometry">{inner}</mxGeometry></mxCell>')
    return "<mxGraphModel><root>" + "".join(cells) + "</root></mxGraphModel>"


