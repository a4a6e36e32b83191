"""What an SVG drawing says about colour and shape beyond its structure graph: its scene
(:class:`~diagramforge.formats.scenes.Scene`), the ``scene`` capability the edit
instructions' referring expressions read (``synth/referents``).

It errs towards *less* certainty: a node no drawn shape matches has an
:data:`~diagramforge.formats.colours.UNKNOWN` fill (it matches every colour word), so a
doubtful fact can only make a description ambiguous — and so not used — never wrongly
unique.
"""

from __future__ import annotations

import re

from lxml import etree

from diagramforge.formats.colours import UNKNOWN, Shade, shade_of, unpainted
from diagramforge.formats.scenes import Element, Scene, one_line
from diagramforge.formats.svg.graph import IDENTITY, apply, mul, parse_transform
from diagramforge.graphs.model import Graph

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


def scene(code: str, graph: Graph, margin: float) -> Scene:
    """The nodes of an SVG drawing as a reader sees them: each node's fill is the topmost
    drawn shape whose box is the node's (within a tolerance growing with its size); a frame
    with neither fill nor stroke around a text is the text."""
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
            if hits and all(unpainted(f) and unpainted(k) for f, k in hits):
                cls = "text"  # an invisible frame around a text: what shows is the text
        scene.nodes[n.id] = Element(n.id, "node", one_line(n.text), cls, shade,
                                    tuple(n.bbox) if n.bbox else None)  # type: ignore[arg-type]
    return scene
