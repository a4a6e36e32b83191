"""Scenes of mxGraph, SVG and TikZ code: what each format says about colour, shape and
visibility beyond the structure graph.

Each builder errs towards *less* certainty: a colour it cannot read is
:data:`~.colours.UNKNOWN` (it matches every colour word) and a shape it cannot classify is
the generic ``node`` class, so a doubtful fact can only make a description ambiguous — and
so not used — never wrongly unique.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree

from diagramforge.formats.mxgraph.graph import parse_style
from diagramforge.formats.mxgraph.notation import cell_id, cells, decode, parse_xml
from diagramforge.formats.svg.graph import IDENTITY, apply, mul, parse_transform
from diagramforge.formats.tikz.graph.named_nodes import node_statements
from diagramforge.graphs.model import Graph
from diagramforge.synth.referents.colours import UNKNOWN, Shade, shade_of
from diagramforge.synth.referents.scene import FRAMED, Element, Scene, one_line

# -- mxGraph ------------------------------------------------------------------------------
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


def _none(v: str | None) -> bool:
    return v is not None and v.strip().casefold() in ("none", "", "transparent")


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
    has_fill = not _none(fill) if fill is not None else not texty
    has_stroke = not _none(stroke) if stroke is not None else not texty
    if cls == "text" and (has_fill or has_stroke):
        cls = "box"  # a text cell with a border or background reads as a box
    if not (text or has_fill or has_stroke or cls == "icon"):
        return None
    if cls == "icon" or (style.get("gradientColor") and not _none(style.get("gradientColor"))):
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


def _mx_scene(code: str, graph: Graph, margin: float) -> Scene:
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


# -- SVG ----------------------------------------------------------------------------------
_SVG_CLASS = {"rectangle": "box", "rounded": "box", "ellipse": "circle", "text": "text"}
_SVG_SHAPES = ("rect", "circle", "ellipse", "polygon", "path")


def _declared(el: etree._Element, prop: str) -> str | None:
    style = el.get("style") or ""
    m = re.search(r"(?:^|;)\s*" + re.escape(prop) + r"\s*:\s*([^;]+)", style)
    return m.group(1).strip() if m else el.get(prop)


def _attr(el: etree._Element, name: str) -> float:
    try:
        return float(re.sub(r"[a-z%]+$", "", (el.get(name) or "0").strip()) or 0)
    except ValueError:
        return 0.0


def local_box(el: etree._Element) -> list[float] | None:
    """The box a basic shape declares in its own user units (``None``: not a basic shape,
    or a polygon without points): what a reader sees as the shape's extent."""
    t = etree.QName(el).localname
    if t == "rect":
        return [_attr(el, "x"), _attr(el, "y"), _attr(el, "width"), _attr(el, "height")]
    if t == "circle":
        r = _attr(el, "r")
        return [_attr(el, "cx") - r, _attr(el, "cy") - r, 2 * r, 2 * r]
    if t == "ellipse":
        rx, ry = _attr(el, "rx"), _attr(el, "ry")
        return [_attr(el, "cx") - rx, _attr(el, "cy") - ry, 2 * rx, 2 * ry]
    if t == "polygon":
        nums = [float(v) for v in re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?",
                                             el.get("points") or "")]
        if len(nums) < 2:
            return None
        xs, ys = nums[0::2][:len(nums) // 2], nums[1::2]
        return [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
    return None


def svg_fills(code: str) -> list[tuple[list[float], str, str]]:
    """(box in root user units, fill, stroke as written) of every drawn shape, in drawing
    order: ``fill``/``stroke`` inherited through groups, transforms applied as the graph
    extractor does."""
    import svgelements

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    root = etree.fromstring(code.encode(), parser)
    out: list[tuple[list[float], str, str]] = []

    def walk(el: etree._Element, m: tuple, fill: str | None, stroke: str | None) -> None:
        if not isinstance(el.tag, str):
            return
        tag = etree.QName(el).localname
        if tag in ("defs", "marker", "symbol", "clipPath", "mask", "pattern", "style"):
            return
        m = mul(m, parse_transform(el.get("transform")))
        f, k = _declared(el, "fill"), _declared(el, "stroke")
        fill = fill if f is None or f.strip() == "inherit" else f
        stroke = stroke if k is None or k.strip() == "inherit" else k
        if tag in _SVG_SHAPES:
            box = local_box(el)
            if box is None and tag == "path":
                try:
                    bb = svgelements.Path(el.get("d") or "").bbox()
                except Exception:  # noqa: BLE001 - unreadable path data: not a shape
                    bb = None
                box = None if bb is None else [bb[0], bb[1], bb[2] - bb[0], bb[3] - bb[1]]
            if box is not None:
                pts = [apply(m, box[0], box[1]), apply(m, box[0] + box[2], box[1] + box[3])]
                xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                out.append(([min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)],
                            "black" if fill is None else fill, stroke or "none"))
        for child in el:
            walk(child, m, fill, stroke)

    walk(root, IDENTITY, None, None)
    return out


def _svg_scene(code: str, graph: Graph, margin: float) -> Scene:
    fills = svg_fills(code)
    scene = Scene()
    for n in graph.nodes:
        cls = _SVG_CLASS.get(n.shape, "shape")
        shade: Shade | None = None
        if cls != "text" and n.bbox:
            tol = 1.5 + 0.02 * max(n.bbox[2], n.bbox[3])
            hits = [(f, k) for b, f, k in fills
                    if all(abs(a - c) <= tol for a, c in zip(b, n.bbox, strict=True))]
            shade = shade_of(hits[-1][0], margin) if hits else UNKNOWN  # the top one
            if hits and all(_none(f) and _none(k) for f, k in hits):
                cls = "text"  # an invisible frame around a text: what shows is the text
        scene.nodes[n.id] = Element(n.id, "node", one_line(n.text), cls, shade,
                                    tuple(n.bbox) if n.bbox else None)  # type: ignore[arg-type]
    return scene


# -- TikZ ---------------------------------------------------------------------------------
_TIKZ_CLASS = {"rectangle": "box", "rounded": "box", "rounded rectangle": "box",
               "circle": "circle", "ellipse": "circle", "diamond": "diamond",
               "cylinder": "cylinder", "cloud": "cloud", "trapezium": "trapezoid",
               "document": "document", "isosceles triangle": "triangle",
               "regular polygon": "shape"}
_TIKZ_KNOWN = frozenset({
    "draw", "fill", "filldraw", "shape", "circle", "rectangle", "ellipse", "diamond",
    "rounded corners", "sharp corners", "minimum width", "minimum height", "minimum size",
    "inner sep", "outer sep", "inner xsep", "inner ysep", "align", "text width", "font",
    "anchor", "above", "below", "left", "right", "above left", "above right",
    "below left", "below right", "right of", "left of", "above of", "below of",
    "node distance", "thick", "thin", "very thick", "ultra thick", "semithick",
    "very thin", "ultra thin", "line width", "color", "text", "dashed", "dotted",
    "solid", "label", "scale", "xshift", "yshift", "opacity", "fill opacity",
    "text opacity", "draw opacity", "rotate", "at", "pin", "text centered", "midway",
    "pos", "sloped", "near start", "near end", "transform shape", "double",
    "text height", "text depth", "name", "alias", "cylinder", "cloud", "trapezium",
})
"""Option keys whose effect on fill and shape we know (anything else may be a style)."""


def _tikz_opts(code: str) -> dict[str, tuple[list[str], tuple[float, float] | None]]:
    """Per simple named ``\\node`` statement: its own option keys and its ``at (x, y)``
    when that is two numbers (TikZ's y points up: flipped here, as on the page)."""
    # lazy: loads pymupdf, scipy
    from diagramforge.formats.tikz.graph import split_top
    out = {}
    for name, st in node_statements(code).items():
        keys = split_top(code[st.opts[0] + 1:st.opts[1] - 1]) if st.opts else []
        at = None
        if st.at is not None:
            m = re.fullmatch(r"\s*(-?[\d.]+)\s*(?:cm)?\s*,\s*(-?[\d.]+)\s*(?:cm)?\s*",
                             code[st.at[0]:st.at[1]])
            if m:
                at = (float(m.group(1)), -float(m.group(2)))
        out[name] = ([k.strip() for k in keys if k.strip()], at)
    return out


def _tikz_node(nid: str, text: str, shape: str, keys: list[str] | None, uncertain: bool,
               margin: float) -> Element:
    # lazy: loads skimage
    from diagramforge.synth.referents.colours import parse

    names = [k.partition("=")[0].strip() for k in keys or []]
    known = keys is not None and not uncertain and all(
        n in _TIKZ_KNOWN or parse(n, tex=True) is not None for n in names)
    if not known:
        return Element(nid, "node", text, "shape", UNKNOWN)
    drawn = any(n in ("draw", "fill", "filldraw", "double") for n in names)
    cls = _TIKZ_CLASS.get(shape, "shape") if drawn else "text"
    fills = [k.partition("=")[2].strip() for k in keys or [] if k.partition("=")[0].strip()
             in ("fill", "filldraw") and "=" in k]
    shade: Shade | None = None
    if fills:
        shade = shade_of(fills[-1], margin, tex=True)
    elif "fill" in names or "filldraw" in names:
        shade = UNKNOWN  # the current colour
    return Element(nid, "node", text, cls, shade)


def _tikz_scene(code: str, graph: Graph, margin: float) -> Scene:
    # lazy: loads pymupdf, scipy
    from diagramforge.formats.tikz.graph import tikz_source_layout

    opts = _tikz_opts(code)
    # where the source places nodes (``at``, ``right=of a``, paths, chains, matrices):
    # each a point — their sizes are estimates, good for order and level, not for
    # containment — with the estimated typical node size as the scene's unit
    try:
        layout = tikz_source_layout(code) if not any(n.bbox for n in graph.nodes) else {}
    except Exception:  # noqa: BLE001 - an unreadable layout: no places, no position words
        layout = {}
    # styles for every node (or shapes set far away) make each node's look uncertain
    uncertain = bool(re.search(r"every\s+node|every\s+state|every\s+shape", code))
    scene = Scene()
    for n in graph.nodes:
        keys, at = opts.get(n.id, (None, None))
        el = _tikz_node(n.id, one_line(n.text), n.shape, keys, uncertain, margin)
        if n.bbox:
            el.bbox = tuple(n.bbox)  # type: ignore[assignment]
        elif n.id in layout:
            el.bbox = (layout[n.id][0], layout[n.id][1], 0.0, 0.0)
        elif at is not None:
            el.bbox = (at[0], at[1], 0.0, 0.0)
        scene.nodes[n.id] = el
    sides = sorted(min(w, h) for _, _, w, h in layout.values())
    if sides:
        scene._median = sides[len(sides) // 2]
    return scene


_BUILDERS: dict[str, Callable[[str, Graph, float], Scene]] = {
    "mxgraph": _mx_scene, "svg": _svg_scene, "tikz": _tikz_scene}
FORMATS = frozenset(_BUILDERS)


def scene_of(fmt: str, code: str, graph: Graph, colour_margin: float = 3.0) -> Scene:
    """The scene of ``code`` (format ``fmt``) whose structure graph is ``graph``."""
    scene = _BUILDERS[fmt](code, graph, colour_margin)
    for k, e in enumerate(graph.edges):
        scene.edges[f"e{k}"] = Element(f"e{k}", "edge", one_line(e.label), "edge", None,
                                       None, e.source, e.target, e.directed)
    return scene
