"""What a draw.io page says about colour, shape and visibility beyond its structure graph:
its scene (:class:`~diagramforge.formats.scenes.Scene`), the ``scene`` capability the edit
instructions' referring expressions read (``synth/referents``).

It errs towards *less* certainty: a colour it cannot read is
:data:`~diagramforge.formats.colours.UNKNOWN` (it matches every colour word) and a shape it
cannot classify is the generic ``shape`` class, so a doubtful fact can only make a
description ambiguous — and so not used — never wrongly unique.
"""

from __future__ import annotations

from lxml import etree

from diagramforge.formats.colours import UNKNOWN, Shade, shade_of, unpainted
from diagramforge.formats.mxgraph.graph import parse_style
from diagramforge.formats.mxgraph.notation import cell_id, cells, decode, parse_xml
from diagramforge.formats.scenes import FRAMED, Element, Scene, one_line
from diagramforge.graphs.model import Graph

_MX_CLASS = {
    "rectangle": "box", "rect": "box", "process": "box", "label": "box",
    "partialRectangle": "box", "swimlane": "box", "table": "box", "tableRow": "box",
    "ellipse": "circle", "doubleEllipse": "circle", "startState": "circle",
    "endState": "circle", "rhombus": "diamond", "triangle": "triangle",
    "hexagon": "hexagon", "cylinder": "cylinder", "cylinder3": "cylinder",
    "datastore": "cylinder", "cloud": "cloud", "parallelogram": "parallelogram",
    "document": "document", "note": "note", "folder": "folder", "cube": "cube",
    "trapezoid": "trapezoid", "actor": "actor", "umlActor": "actor",
    "umlLifeline": "lifeline", "text": "text", "image": "icon", "line": "separator",
    "message": "envelope",
    "mxgraph.flowchart.decision": "diamond", "mxgraph.flowchart.process": "box",
    "mxgraph.flowchart.predefined_process": "box", "mxgraph.flowchart.terminator": "box",
    "mxgraph.flowchart.start_1": "circle", "mxgraph.flowchart.start_2": "circle",
    "mxgraph.flowchart.on-page_reference": "circle", "mxgraph.flowchart.document":
        "document", "mxgraph.flowchart.database": "cylinder",
    "mxgraph.flowchart.data": "parallelogram", "mxgraph.flowchart.merge_or_storage":
        "triangle", "ext": "box", "mxgraph.bpmn.task": "box",
    "mxgraph.bpmn.timer_start": "circle", "mxgraph.bpmn.shape": "circle",
    "mxgraph.bpmn.message": "envelope",
}
"""draw.io shape names → node class (other ``mxgraph.*`` stencils are icons)."""


def _mx_cells(code: str) -> dict[str, etree._Element]:
    root = parse_xml(code)
    if root.tag != "mxGraphModel":
        pages = [p for p in decode(code.encode()) if p.model is not None]
        root = pages[0].model
    return {cid: c for c in cells(root) if (cid := cell_id(c)) is not None}


def _mx_hidden(c: etree._Element, by_id: dict[str, etree._Element]) -> bool:
    seen: set[str] = set()
    while c is not None:
        if c.get("visible") == "0":
            return True
        pid = c.get("parent")
        if not pid or pid in seen:
            return False
        seen.add(pid)
        c = by_id.get(pid)
    return False


def _mx_node(nid: str, text: str, shape: str, c: etree._Element | None,
             by_id: dict[str, etree._Element], margin: float) -> Element | None:
    """The element a draw.io vertex shows, or ``None`` when nothing of it is drawn."""
    style = parse_style(c.get("style") or "") if c is not None else {}
    if c is not None and _mx_hidden(c, by_id):
        return None
    if style.get("opacity", "").strip() == "0":
        return None
    first = next(iter(style), "")
    cls = _MX_CLASS.get(shape) or ("icon" if shape.startswith("mxgraph.") else "shape")
    if shape == "mxgraph.bpmn.shape" and style.get("symbol", "").endswith("Gw"):
        cls = "diamond"  # a BPMN gateway
    if style.get("image") or shape == "image":
        cls = "icon"
    texty = first in ("text", "edgeLabel", "group") or cls == "text"
    fill, stroke = style.get("fillColor"), style.get("strokeColor")
    has_fill = not unpainted(fill) if fill is not None else not texty
    has_stroke = not unpainted(stroke) if stroke is not None else not texty
    if cls == "text" and (has_fill or has_stroke):
        cls = "box"  # a text cell with a border or background reads as a box
    if not (text or has_fill or has_stroke or cls == "icon"):
        return None
    if cls == "icon" or (style.get("gradientColor") and not unpainted(style.get("gradientColor"))):
        # a stencil or picture draws its own colours (draw.io's 3D AWS bands are orange
        # with fillColor=#000000): its style does not say how it looks
        shade: Shade | None = UNKNOWN
    elif fill is not None and fill.strip().casefold() != "default":
        shade = shade_of(fill, margin)
    elif has_fill and (cls in FRAMED or cls == "shape"):  # draw.io's default white
        shade = shade_of("#ffffff", margin)
    else:
        shade = None
    return Element(nid, "node", text, cls, shade)


def scene(code: str, graph: Graph, margin: float) -> Scene:
    """The nodes of a draw.io page as a reader sees them (edges are added by the caller,
    the same for every format): hidden cells (an invisible layer or ancestor, opacity 0,
    nothing drawn) in ``hidden``, a layout frame seen but not nameable."""
    by_id = _mx_cells(code)
    parents = {c.get("parent") for c in by_id.values() if c.get("vertex") == "1"}
    scene = Scene()
    for n in graph.nodes:
        el = _mx_node(n.id, one_line(n.text), n.shape, by_id.get(n.id), by_id, margin)
        if el is None:
            scene.hidden.add(n.id)
            continue
        if n.id in parents and not el.text and el.shade is None:
            el.nameable = False  # a layout frame (table row): seen, but not a thing
        el.bbox = tuple(n.bbox) if n.bbox else None  # type: ignore[assignment]
        scene.nodes[n.id] = el
    return scene
