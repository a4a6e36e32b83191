"""Structure graph of an SVG diagram, after DiagramEval's rule-based extraction.

The SVG is reduced to text items and paths in one coordinate system, then
:func:`diagramforge.graphs.geometry.build_graph` applies the rules (text lines merged by
K × font size and x overlap τ; enclosing shapes give node boxes; strokes with markers or
arrowheads, or touching two node boxes, are edges; direction from markers/arrowheads).

What is read: every transform (``matrix``, ``translate``, ``scale``, ``rotate``, ``skewX``,
``skewY``, nested) applied to all geometry and to text anchors and sizes; ``<use>`` of an
element or symbol; nested ``<svg>`` offsets; ``<style>`` rules with simple selectors
(``tag``, ``.class``, ``#id``, their compounds; the last compound of a descendant selector
is matched, ancestors are not checked); a ``<symbol>``'s ``viewBox`` fitted into its use's
width and height; inline ``style``; inherited ``font-size``,
``text-anchor`` and markers; ``display:none``/``visibility:hidden`` subtrees are skipped;
``<tspan>`` lines (``x``/``y``/``dy``); draw.io's ``<switch>`` (the ``<text>`` fallback,
completed from the ``<foreignObject>`` HTML when the fallback was cut with "...").
Path data is parsed with ``svgelements`` (arcs and curves included).

Limits: text width is estimated (``svg_char_width_em`` per character: no font metrics);
edge labels become nodes, as in DiagramEval; DiagramEval's LLM refinement of nodes and its
LLM edge reading are not reproduced (the edges here come from geometry).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import svgelements
import tinycss2
from lxml import etree

from diagramforge.graphs.geometry import PathItem, TextItem, Trace, bbox, build_graph
from diagramforge.graphs.model import Graph
from diagramforge.graphs.settings import GraphParams
from diagramforge.notation.declarations import declaration

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                          huge_tree=False, remove_comments=True)
_NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_SKIP = {"defs", "marker", "symbol", "clipPath", "mask", "pattern", "style", "script",
         "metadata", "title", "desc", "linearGradient", "radialGradient", "filter"}
_INHERITED = ("font-size", "text-anchor", "marker-start", "marker-end", "visibility")
Matrix = tuple[float, float, float, float, float, float]  # a b c d e f (SVG order)
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
MAX_USE_DEPTH = 8
MAX_ELEMENTS = 200_000


# -- transforms -------------------------------------------------------------------------

def mul(m: Matrix, n: Matrix) -> Matrix:
    """``m ∘ n``: apply ``n`` first, then ``m``."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2,
            a * e2 + c * f2 + e, b * e2 + d * f2 + f)


def apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def parse_transform(text: str | None) -> Matrix:
    """An SVG transform list as one matrix (unknown or malformed items are skipped)."""
    m = IDENTITY
    for name, args in re.findall(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)",
                                 text or ""):
        v = [float(n) for n in _NUM.findall(args)]
        t: Matrix | None = None
        if name == "matrix" and len(v) == 6:
            t = (v[0], v[1], v[2], v[3], v[4], v[5])
        elif name == "translate" and v:
            t = (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0.0)
        elif name == "scale" and v:
            t = (v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0)
        elif name == "rotate" and v:
            r = math.radians(v[0])
            t = (math.cos(r), math.sin(r), -math.sin(r), math.cos(r), 0, 0)
            if len(v) == 3:
                t = mul(mul((1, 0, 0, 1, v[1], v[2]), t), (1, 0, 0, 1, -v[1], -v[2]))
        elif name == "skewX" and v:
            t = (1, 0, math.tan(math.radians(v[0])), 1, 0, 0)
        elif name == "skewY" and v:
            t = (1, math.tan(math.radians(v[0])), 0, 1, 0, 0)
        if t is not None:
            m = mul(m, t)
    return m


def _scale(m: Matrix) -> float:
    return math.sqrt(abs(m[0] * m[3] - m[1] * m[2])) or 1.0


# -- style ------------------------------------------------------------------------------

def _local(tag: object) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _declarations(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(";"):
        k, sep, v = part.partition(":")
        if sep:
            out[k.strip().lower()] = v.replace("!important", "").strip()
    return out


class _Css:
    """``<style>`` rules with simple selectors, matched on an element's last compound."""

    def __init__(self, root: etree._Element) -> None:
        self.rules: list[tuple[str, set[str], str | None, dict[str, str]]] = []
        for st in root.iter("{*}style"):
            css = "".join(st.itertext())
            for rule in tinycss2.parse_stylesheet(css, skip_comments=True,
                                                  skip_whitespace=True):
                if rule.type != "qualified-rule":
                    continue
                decl = _declarations(tinycss2.serialize(rule.content))
                for sel in tinycss2.serialize(rule.prelude).split(","):
                    last = re.split(r"[\s>+~]+", sel.strip())[-1] if sel.strip() else ""
                    m = re.fullmatch(r"([A-Za-z][\w-]*|\*)?((?:[.#][\w-]+)*)", last)
                    if not m:
                        continue
                    tag = m.group(1) if m.group(1) not in (None, "*") else ""
                    classes = set(re.findall(r"\.([\w-]+)", m.group(2)))
                    ids = re.findall(r"#([\w-]+)", m.group(2))
                    self.rules.append((tag, classes, ids[0] if ids else None, decl))

    def style(self, el: etree._Element, tag: str) -> dict[str, str]:
        out: dict[str, str] = {}
        if not self.rules:
            return out
        classes = set((el.get("class") or "").split())
        for rtag, rclasses, rid, decl in self.rules:
            if rtag and rtag != tag:
                continue
            if rid and el.get("id") != rid:
                continue
            if rclasses <= classes and (rtag or rclasses or rid):
                out.update(decl)
        return out


def _length(value: str | None, parent: float) -> float | None:
    if not value:
        return None
    m = re.match(r"\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*(px|pt|em|rem|%|pc|mm|cm|in)?", value)
    if not m:
        named = {"small": 13.0, "medium": 16.0, "large": 18.0, "x-small": 10.0,
                 "x-large": 24.0, "smaller": parent * 0.83, "larger": parent * 1.2}
        return named.get(value.strip())
    v, unit = float(m.group(1)), m.group(2) or "px"
    return v * {"px": 1.0, "pt": 4 / 3, "em": parent, "rem": 16.0, "%": parent / 100,
                "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}[unit]


def _num(value: str | None, default: float = 0.0) -> float:
    m = _NUM.match((value or "").strip())
    return float(m.group()) if m else default


def _symbol_fit(symbol: etree._Element, use: etree._Element) -> Matrix:
    """A symbol's ``viewBox`` drawn into its ``<use>``'s width and height (the default
    ``preserveAspectRatio``: uniform scale, centred; ``none``: stretched)."""
    vb = [float(v) for v in _NUM.findall(symbol.get("viewBox") or "")]
    w, h = _length(use.get("width"), 0.0), _length(use.get("height"), 0.0)
    if len(vb) != 4 or vb[2] <= 0 or vb[3] <= 0 or not w or not h:
        return (1.0, 0.0, 0.0, 1.0, -vb[0], -vb[1]) if len(vb) == 4 else IDENTITY
    sx, sy = w / vb[2], h / vb[3]
    if (symbol.get("preserveAspectRatio") or "").strip().startswith("none"):
        return (sx, 0.0, 0.0, sy, -vb[0] * sx, -vb[1] * sy)
    s = min(sx, sy)
    ox, oy = (w - vb[2] * s) / 2, (h - vb[3] * s) / 2
    return (s, 0.0, 0.0, s, ox - vb[0] * s, oy - vb[1] * s)


def _first(value: str | None) -> float | None:
    nums = _NUM.findall(value or "")
    return float(nums[0]) if nums else None


# -- walking ----------------------------------------------------------------------------

class _Collector:
    def __init__(self, root: etree._Element, params: GraphParams) -> None:
        self.params = params
        self.css = _Css(root)
        self.ids = {el.get("id"): el for el in root.iter() if el.get("id")}
        self.texts: list[TextItem] = []
        self.paths: list[PathItem] = []
        self.count = 0

    def props(self, el: etree._Element, tag: str, inherited: dict[str, str]
              ) -> dict[str, str]:
        """Computed properties of interest: inherited ones, then attributes, CSS, inline."""
        own: dict[str, str] = {}
        for k in ("font-size", "text-anchor", "marker-start", "marker-end", "marker",
                  "display", "visibility", "fill", "stroke"):
            if el.get(k) is not None:
                own[k] = el.get(k)
        own.update(self.css.style(el, tag))
        own.update(_declarations(el.get("style") or ""))
        if "marker" in own:
            own.setdefault("marker-start", own["marker"])
            own.setdefault("marker-end", own["marker"])
        out = {k: v for k, v in inherited.items()}
        out.update({k: v for k, v in own.items() if k != "font-size"})
        parent_fs = float(inherited.get("font-size", self.params.svg_default_font_size))
        fs = _length(own.get("font-size"), parent_fs)
        out["font-size"] = str(fs if fs and fs > 0 else parent_fs)
        return out

    def walk(self, el: etree._Element, m: Matrix, inherited: dict[str, str],
             depth: int = 0, via: etree._Element | None = None) -> None:
        """Collect ``el``'s items; ``via`` is the ``<use>`` that drew it, if any (then the
        items' ``src`` is that use: editing the referenced element would edit every use)."""
        self.count += 1
        if self.count > MAX_ELEMENTS:
            return
        tag = _local(el.tag)
        if tag in _SKIP or tag == "":
            return
        p = self.props(el, tag, inherited)
        if p.get("display", "").strip() == "none" or p.get("visibility", "").strip() in (
                "hidden", "collapse"):
            return
        m = mul(m, parse_transform(el.get("transform")))
        if tag == "svg" and depth > 0:
            m = mul(m, (1, 0, 0, 1, _num(el.get("x")), _num(el.get("y"))))
        src = via if via is not None else el
        if tag == "text":
            self._text(el, m, p, src)
            return
        if tag == "foreignObject":
            self._foreign(el, m, p, src)
            return
        if tag == "switch":
            self._switch(el, m, p, depth, via)
            return
        if tag == "use":
            ref = (el.get("{http://www.w3.org/1999/xlink}href") or el.get("href") or "")
            target = self.ids.get(ref[1:]) if ref.startswith("#") else None
            if target is not None and depth < MAX_USE_DEPTH:
                m2 = mul(m, (1, 0, 0, 1, _num(el.get("x")), _num(el.get("y"))))
                if _local(target.tag) == "symbol":
                    m2 = mul(m2, _symbol_fit(target, el))
                    for child in target:
                        self.walk(child, m2, p, depth + 1, src)
                else:
                    self.walk(target, m2, p, depth + 1, src)
            return
        self._shape(el, tag, m, p, src)
        for child in el:
            self.walk(child, m, p, depth + 1, via)

    # -- text ---------------------------------------------------------------------------
    def _emit(self, text: str, x: float, y: float, size: float, anchor: str, m: Matrix,
              src: etree._Element | None = None, width: float | None = None) -> None:
        text = " ".join(text.split())
        if not text:
            return
        # the writer's own advance (``textLength``) when it gave one, else an estimate
        w = width if width and width > 0 else self.params.svg_char_width_em * size * len(text)
        x -= {"middle": w / 2, "end": w}.get(anchor.strip(), 0.0)
        corners = [apply(m, cx, cy) for cx, cy in ((x, y - 0.8 * size), (x + w, y - 0.8 * size),
                                                   (x, y + 0.2 * size), (x + w, y + 0.2 * size))]
        self.texts.append(TextItem(text, bbox(corners), size * _scale(m),
                                   (src,) if src is not None else ()))

    def _text(self, el: etree._Element, m: Matrix, p: dict[str, str],
              src: etree._Element | None = None) -> None:
        x = _first(el.get("x")) or 0.0
        y = _first(el.get("y")) or 0.0
        x += _first(el.get("dx")) or 0.0
        y += _first(el.get("dy")) or 0.0
        # lines: the text's own leading text, then each positioned tspan starts a new line
        own = _first(el.get("textLength")) if len(el) == 0 else None  # else it spans all
        lines: list[list] = [[x, y, float(p["font-size"]), p.get("text-anchor", "start"),
                              el.text or "", own]]
        for child in el:
            if _local(child.tag) in ("tspan", "a", "textPath"):
                cp = self.props(child, "tspan", p)
                if cp.get("display", "").strip() == "none":
                    lines[-1][4] += child.tail or ""
                    lines[-1][5] = None if (child.tail or "").strip() else lines[-1][5]
                    continue
                nx, ny = _first(child.get("x")), _first(child.get("y"))
                dy = _first(child.get("dy")) or 0.0
                cur = lines[-1]
                if nx is not None or ny is not None or dy:
                    lines.append([nx if nx is not None else cur[0],
                                  (ny if ny is not None else cur[1]) + dy,
                                  float(cp["font-size"]), cp.get("text-anchor", cur[3]),
                                  "".join(child.itertext()), _first(child.get("textLength"))])
                else:
                    cur[5] = None if cur[4].strip() else _first(child.get("textLength"))
                    cur[4] += "".join(child.itertext())
                lines[-1][4] += child.tail or ""
                if (child.tail or "").strip():
                    lines[-1][5] = None  # more text than the given length covers
        for lx, ly, size, anchor, text, width in lines:
            self._emit(text, lx, ly, size, anchor, m, src, width)

    def _foreign(self, el: etree._Element, m: Matrix, p: dict[str, str],
                 src: etree._Element | None = None) -> None:
        text = " ".join(" ".join(el.itertext()).split())
        if not text:
            return
        x, y = _num(el.get("x")), _num(el.get("y"))
        w, h = _num(el.get("width")), _num(el.get("height"))
        size = float(p["font-size"])
        if w > 1 and h > 1:
            corners = [apply(m, x, y), apply(m, x + w, y + h)]
            self.texts.append(TextItem(text, bbox(corners), size * _scale(m), (src,)))
        else:
            self._emit(text, x, y + size, size, "start", m, src)

    def _switch(self, el: etree._Element, m: Matrix, p: dict[str, str], depth: int,
                via: etree._Element | None = None) -> None:
        kids = [c for c in el if isinstance(c.tag, str)]
        fallback = [c for c in kids if _local(c.tag) != "foreignObject"]
        foreign = [c for c in kids if _local(c.tag) == "foreignObject"]
        if not fallback:
            for c in foreign[:1]:
                self.walk(c, m, p, depth + 1, via)
            return
        full = " ".join(" ".join(foreign[0].itertext()).split()) if foreign else ""
        before = len(self.texts)
        self.walk(fallback[0], m, p, depth + 1, via)
        new = self.texts[before:]
        if len(new) == 1 and full and new[0].text.endswith("...") \
                and full.startswith(new[0].text[:-3].strip()):
            new[0].text = full

    # -- shapes and strokes ------------------------------------------------------------
    def _shape(self, el: etree._Element, tag: str, m: Matrix, p: dict[str, str],
               src: etree._Element | None = None) -> None:
        g = el.get
        before = len(self.paths)
        ms = p.get("marker-start", "none").strip() not in ("none", "")
        me = p.get("marker-end", "none").strip() not in ("none", "")
        if tag == "rect":
            x, y, w, h = _num(g("x")), _num(g("y")), _num(g("width")), _num(g("height"))
            if w <= 0 or h <= 0:
                return
            pts = [apply(m, *q) for q in ((x, y), (x + w, y), (x + w, y + h), (x, y + h))]
            kind = "rounded" if _num(g("rx")) > 0 or _num(g("ry")) > 0 else "rectangle"
            self.paths.append(PathItem(pts, closed=True, kind=kind))
        elif tag in ("circle", "ellipse"):
            rx = _num(g("r")) if tag == "circle" else _num(g("rx"))
            ry = _num(g("r")) if tag == "circle" else _num(g("ry"))
            if rx <= 0 or ry <= 0:
                return
            cx, cy = _num(g("cx")), _num(g("cy"))
            pts = [apply(m, cx + rx * math.cos(a * math.pi / 8), cy + ry * math.sin(a * math.pi
                                                                                     / 8))
                   for a in range(16)]
            self.paths.append(PathItem(pts, closed=True, curved=True, kind="ellipse"))
        elif tag == "line":
            pts = [apply(m, _num(g("x1")), _num(g("y1"))), apply(m, _num(g("x2")), _num(g("y2")))]
            self.paths.append(PathItem(pts, marker_start=ms, marker_end=me, straight=True))
        elif tag in ("polyline", "polygon"):
            nums = [float(n) for n in _NUM.findall(g("points") or "")]
            pts = [apply(m, x, y) for x, y in zip(nums[::2], nums[1::2], strict=False)]
            if len(pts) < 2:
                return
            closed = tag == "polygon" and len(pts) > 2
            self.paths.append(PathItem(pts, closed=closed, marker_start=ms, marker_end=me,
                                       kind="polygon", straight=len(pts) == 2))
        elif tag == "path":
            self._path(g("d") or "", m, ms, me)
        for k, item in enumerate(self.paths[before:]):
            # the element and which of its subpaths (a path's own count: some are empty)
            item.src = (src, item.src if isinstance(item.src, int) else k)

    def _path(self, d: str, m: Matrix, ms: bool, me: bool) -> None:
        try:
            path = svgelements.Path(d)
            subs = list(path.as_subpaths())
        except Exception:  # noqa: BLE001 - malformed path data: nothing to read
            return
        items: list[PathItem] = []
        for sub_index, sub in enumerate(subs):
            on: list[tuple[float, float]] = []
            ext: list[tuple[float, float]] = []
            closed = curved = False
            kinds: list[str] = []
            for seg in sub:
                name = type(seg).__name__
                if name == "Move":
                    on.append((float(seg.end.x), float(seg.end.y)))
                    continue
                if name == "Close":
                    closed = True
                    continue
                kinds.append(name)
                if name in ("CubicBezier", "QuadraticBezier"):
                    ext += [(float(c.x), float(c.y)) for c in (
                        [seg.control1, seg.control2] if name == "CubicBezier" else [seg.control])]
                elif name == "Arc":
                    ext += [(float(q.x), float(q.y)) for q in
                            (seg.point(t / 8) for t in range(1, 8))]
                on.append((float(seg.end.x), float(seg.end.y)))
            if len(on) < 2:
                continue
            curved = bool(kinds) and all(k != "Line" for k in kinds)
            if not closed and len(on) > 3:
                span = bbox(on)
                closed = math.dist(on[0], on[-1]) <= 1e-3 * max(1.0, span[2] + span[3])
            pts = [apply(m, *q) for q in on]
            extent = bbox(pts + [apply(m, *q) for q in ext])
            items.append(PathItem(pts, closed=closed, curved=curved, extent=extent,
                                  straight=kinds == ["Line"], kind="path", src=sub_index))
        if items:
            items[0].marker_start = ms and not items[0].closed
            items[-1].marker_end = me and not items[-1].closed
            self.paths += items


def svg_primitives(svg: str | bytes, params: GraphParams | None = None
                   ) -> tuple[list[TextItem], list[PathItem]]:
    """Text items and paths of an SVG drawing, in root user units."""
    params = params or GraphParams()
    root = _parse(svg)
    col = _Collector(root, params)
    col.walk(root, IDENTITY, {"font-size": str(params.svg_default_font_size)})
    return col.texts, col.paths


@dataclass
class SvgRead:
    """A parsed drawing, its items (``src``: the element behind each, in ``root``), its
    graph and which items became which node and edge."""

    root: etree._Element
    texts: list[TextItem]
    paths: list[PathItem]
    graph: Graph
    trace: Trace


def _parse(svg: str | bytes) -> etree._Element:
    raw = svg.encode() if isinstance(svg, str) else svg
    # an external DTD reference (Graphviz, Inkscape) is never loaded; an internal subset
    # (entities: billion laughs, XXE) is refused outright, as every format refuses it
    why = declaration(raw)
    if why is not None:
        raise ValueError(why)
    return etree.fromstring(raw, _PARSER)


def svg_read(svg: str | bytes, params: GraphParams | None = None) -> SvgRead:
    """Read a drawing once for editing: the tree, the items, the graph and its trace."""
    params = params or GraphParams()
    root = _parse(svg)
    col = _Collector(root, params)
    col.walk(root, IDENTITY, {"font-size": str(params.svg_default_font_size)})
    trace = Trace()
    graph = build_graph(list(col.texts), list(col.paths), params, trace)
    return SvgRead(root, col.texts, col.paths, graph, trace)


def svg_graph(svg: str | bytes, params: GraphParams | None = None) -> Graph:
    """Graph of an SVG drawing (see the module notes for what is and is not read)."""
    params = params or GraphParams()
    texts, paths = svg_primitives(svg, params)
    return build_graph(texts, paths, params)
