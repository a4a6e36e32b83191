"""An SVG drawing as the edit operations change it: the elements behind each node and edge
(``graphs.svg.svg_read``'s trace), changed in their own coordinate systems.

Real SVG diagrams (Graphviz, Inkscape, draw.io exports, hand-written) draw a node as any
element — ``rect``, ``ellipse``, ``polygon``, a ``path``, a ``<use>`` of a symbol — inside
groups with transforms, label it with ``<text>`` (one per line, or ``<tspan>`` lines), and
draw a connector as a curved ``path`` with its arrowhead as a separate polygon or a marker,
its paint in attributes, in ``style`` or in a stylesheet. So an edit never looks elements up
by type: it changes the elements the graph was read from, moving them with a ``translate``
prepended to their own transform (in their parent's coordinates), and the ends of a
connector by rewriting its path data (in its own coordinates).
"""

from __future__ import annotations

import re

import svgelements
from lxml import etree

from diagramforge.formats.edits import EditError
from diagramforge.formats.svg.graph import IDENTITY, Matrix, mul, parse_transform, svg_read
from diagramforge.graphs.geometry import PathItem, TextItem

SVG_NS = "http://www.w3.org/2000/svg"
MARKERS = {"end": "df-arrow", "start": "df-arrow-start"}
"""Arrowhead markers an edit adds (ids); the start one points back along the line."""


def local(el: etree._Element) -> str:
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


def _num(v: str | None) -> float:
    try:
        return float(re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", v or "")[0])
    except (IndexError, ValueError):
        return 0.0


def ctm(el: etree._Element) -> Matrix:
    """Drawing (root user unit) coordinates of ``el``'s own coordinates, as the graph reads
    them: every transform from the root down, nested ``<svg>`` offsets included."""
    m = IDENTITY
    chain = [a for a in el.iterancestors() if isinstance(a.tag, str)][::-1] + [el]
    for depth, a in enumerate(chain):
        m = mul(m, parse_transform(a.get("transform")))
        if local(a) == "svg" and depth > 0:
            m = mul(m, (1, 0, 0, 1, _num(a.get("x")), _num(a.get("y"))))
    return m


def invert(m: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    det = a * d - b * c
    if abs(det) < 1e-12:
        raise EditError("a degenerate transform")
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    return ia, ib, ic, id_, -(ia * e + ic * f), -(ib * e + id_ * f)


def vec(m: Matrix, dx: float, dy: float) -> tuple[float, float]:
    """A displacement under ``m``'s linear part."""
    return m[0] * dx + m[2] * dy, m[1] * dx + m[3] * dy


def pt(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def parent_ctm(el: etree._Element) -> Matrix:
    p = el.getparent()
    return ctm(p) if p is not None else IDENTITY


def prepend(el: etree._Element, transform: str) -> None:
    el.set("transform", f"{transform} {el.get('transform') or ''}".strip())


def translate(el: etree._Element, dx: float, dy: float) -> None:
    """Move an element by ``(dx, dy)`` drawing units."""
    vx, vy = vec(invert(parent_ctm(el)), dx, dy)
    if vx or vy:
        prepend(el, f"translate({vx:.6g},{vy:.6g})")


def scale(el: etree._Element, s: float, cx: float, cy: float) -> None:
    """Scale an element by ``s`` about the drawing point ``(cx, cy)`` (a uniform scale is the
    same in every coordinate system)."""
    px, py = pt(invert(parent_ctm(el)), cx, cy)
    prepend(el, f"translate({px:.6g},{py:.6g}) scale({s:.6g}) translate({-px:.6g},{-py:.6g})")


def set_prop(el: etree._Element, prop: str, value: str | None) -> None:
    """Set (or with None remove) a presentation property where it wins: the inline style
    (above any stylesheet rule and attribute); the attribute goes."""
    el.attrib.pop(prop, None)
    decls = [d for d in (el.get("style") or "").split(";")
             if d.strip() and d.split(":")[0].strip() != prop]
    if value is not None:
        decls.append(f"{prop}:{value}")
    if decls:
        el.set("style", ";".join(decls))
    else:
        el.attrib.pop("style", None)


def remove(el: etree._Element | None) -> None:
    if el is not None and el.getparent() is not None:
        el.getparent().remove(el)


def ensure_marker(root: etree._Element, which: str) -> str:
    """The id of an arrowhead marker for a line's ``end`` or ``start``, added if missing."""
    mid = MARKERS[which]
    if root.find(f".//*[@id='{mid}']") is None:
        defs = etree.Element(f"{{{SVG_NS}}}defs")
        m = etree.SubElement(defs, f"{{{SVG_NS}}}marker", id=mid, markerWidth="10",
                             markerHeight="10", refX="9", refY="3", markerUnits="strokeWidth",
                             orient="auto" if which == "end" else "auto-start-reverse")
        etree.SubElement(m, f"{{{SVG_NS}}}path", d="M0,0 L0,6 L9,3 z", fill="#333333")
        root.insert(0, defs)
    return mid


# -- items back to elements ------------------------------------------------------------
def element(item: PathItem) -> tuple[etree._Element, int]:
    """The element behind a path item and which of its subpaths it is."""
    if not isinstance(item.src, tuple):
        raise EditError("an item without its element")
    return item.src


def text_elements(items: list[TextItem]) -> list[etree._Element]:
    out: list[etree._Element] = []
    for t in items:
        out += [e for e in t.src if e is not None and e not in out]
    return out


class Drawing:
    """A parsed drawing with its graph, trace, and how many items each element drew."""

    def __init__(self, code: str):
        read = svg_read(code)
        self.root, self.graph, self.trace = read.root, read.graph, read.trace
        self.texts, self.paths = read.texts, read.paths
        self.nodes = {n.id: n for n in self.graph.nodes}
        self.drawn: dict[int, int] = {}
        for p in self.paths:
            self.drawn[id(element(p)[0])] = self.drawn.get(id(element(p)[0]), 0) + 1
        self.text_nodes: dict[int, set[str]] = {}
        """Per text element, the nodes its lines became (a label is edited only with its
        node's own elements)."""
        for nid, tr in self.trace.nodes.items():
            for e in text_elements(tr.texts):
                self.text_nodes.setdefault(id(e), set()).add(nid)

    def code(self) -> str:
        return etree.tostring(self.root, encoding="unicode")

    def own(self, el: etree._Element, n: int = 1) -> etree._Element:
        """``el``, if it draws only what is being edited (``n`` items); an element that also
        draws something else cannot change for this one alone."""
        if self.drawn.get(id(el), 0) != n:
            raise EditError(f"<{local(el)}> draws {self.drawn.get(id(el), 0)} items, not {n}")
        return el

    def node_elements(self, nid: str) -> tuple[etree._Element | None, list[etree._Element]]:
        """(shape element or None, text elements) of a node, each drawing only this node."""
        tr = self.trace.nodes.get(nid)
        if tr is None:
            raise EditError(f"no node {nid!r}")
        shape = self.own(element(tr.shape)[0]) if tr.shape is not None else None
        texts = text_elements(tr.texts)
        for e in texts:
            if self.text_nodes.get(id(e)) != {nid}:
                raise EditError(f"a <{local(e)}> labels several nodes")
        return shape, texts

    def line_elements(self, k: int) -> list[etree._Element]:
        tr = self.trace.edges[k]
        if not tr.simple:
            raise EditError(f"edge {k} is part of a fork")
        els = [element(p)[0] for p in tr.lines]
        return [self.own(e, sum(1 for x in els if x is e)) for e in dict.fromkeys(els)]

    def cap_elements(self, k: int, end: str | None = None) -> list[etree._Element]:
        tr = self.trace.edges[k]
        caps = [c for e in (("source", "target") if end is None else (end,))
                for c in tr.caps.get(e, [])]
        return [self.own(element(c)[0]) for c in caps]


def move_end(item: PathItem, which: int, dx: float, dy: float) -> None:
    """Move the first (``which=0``) or last point of a stroke by a drawing displacement;
    a curve's control point next to it moves along, so the stroke keeps its bearing."""
    el, sub = element(item)
    vx, vy = vec(invert(ctm(el)), dx, dy)
    tag = local(el)
    if tag == "line":
        n = "1" if which == 0 else "2"
        el.set(f"x{n}", f"{_num(el.get('x' + n)) + vx:.6g}")
        el.set(f"y{n}", f"{_num(el.get('y' + n)) + vy:.6g}")
    elif tag == "polyline":
        nums = [float(v) for v in re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?",
                                             el.get("points") or "")]
        i = 0 if which == 0 else len(nums) - 2
        nums[i], nums[i + 1] = nums[i] + vx, nums[i + 1] + vy
        el.set("points", " ".join(f"{nums[j]:.6g},{nums[j + 1]:.6g}"
                                  for j in range(0, len(nums) - 1, 2)))
    elif tag == "path":
        el.set("d", _move_path_end(el.get("d") or "", sub, which, vx, vy))
    else:
        raise EditError(f"cannot move the end of a <{tag}>")


def _shift(p: svgelements.Point, vx: float, vy: float) -> svgelements.Point:
    return svgelements.Point(p.x + vx, p.y + vy)


def _move_path_end(d: str, sub: int, which: int, vx: float, vy: float) -> str:
    path = svgelements.Path(d)
    segs = list(path)
    starts = [i for i, s in enumerate(segs) if isinstance(s, svgelements.Move)]
    if sub >= len(starts):
        raise EditError("no such subpath")
    lo = starts[sub]
    hi = starts[sub + 1] if sub + 1 < len(starts) else len(segs)
    body = [i for i in range(lo + 1, hi) if not isinstance(segs[i], svgelements.Close)]
    if not body:
        raise EditError("an empty subpath")
    if which == 0:
        segs[lo].end = _shift(segs[lo].end, vx, vy)
        first = segs[body[0]]
        first.start = segs[lo].end
        if isinstance(first, svgelements.CubicBezier):
            first.control1 = _shift(first.control1, vx, vy)
        elif isinstance(first, svgelements.QuadraticBezier):
            first.control = _shift(first.control, vx, vy)
    else:
        last = segs[body[-1]]
        last.end = _shift(last.end, vx, vy)
        if isinstance(last, svgelements.CubicBezier):
            last.control2 = _shift(last.control2, vx, vy)
        elif isinstance(last, svgelements.QuadraticBezier):
            last.control = _shift(last.control, vx, vy)
        if body[-1] + 1 < len(segs):
            segs[body[-1] + 1].start = last.end
    return svgelements.Path(*segs).d(relative=False)
