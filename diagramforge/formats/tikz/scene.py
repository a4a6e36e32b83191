"""What a TikZ picture says about colour and shape beyond its structure graph: its scene
(:class:`~diagramforge.formats.scenes.Scene`), the ``scene`` capability the edit
instructions' referring expressions read (``synth/referents``).

It errs towards *less* certainty: a node whose options we cannot fully read (a style, an
``every node`` setting) has an :data:`~diagramforge.formats.colours.UNKNOWN` fill (it
matches every colour word) and the generic ``shape`` class, so a doubtful fact can only make
a description ambiguous — and so not used — never wrongly unique.
"""

from __future__ import annotations

import re

from diagramforge.formats.colours import UNKNOWN, Shade, shade_of
from diagramforge.formats.scenes import Element, Scene, one_line
from diagramforge.formats.tikz.graph.named_nodes import node_statements
from diagramforge.graphs.model import Graph

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
    from diagramforge.formats.colours import parse

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


def scene(code: str, graph: Graph, margin: float) -> Scene:
    """The nodes of a TikZ picture as a reader sees them, read from each simple named
    ``\\node``'s own options; places from the compiled page's boxes when the graph has them,
    else from where the source puts each node."""
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
