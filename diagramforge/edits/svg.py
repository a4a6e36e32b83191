"""Atomic edits on an SVG drawing: fill/stroke colour, text, size, move, delete/add shape,
stroke style, markers, delete/add/redirect connector.

SVG has no nodes or edges, only shapes and strokes; the graph extractor
(:func:`diagramforge.graphs.svg.svg_graph`) finds them geometrically, so edits find their
elements the same way: a node is the ``rect``/``circle``/``ellipse``/``polygon`` whose
absolute box is the node's bbox, with the ``<text>`` anchored inside it; a connector is a
``<line>`` (or a ``<path>``) whose ends lie at the two nodes' borders, with an arrowhead
polygon at its end when it has no marker. Moving or resizing a node moves the ends of its
``<line>`` connectors with it so they stay attached.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from diagramforge.edits.base import PALETTE, WORDS, EditError, Op, edit
from diagramforge.graphs.model import Graph
from diagramforge.graphs.svg import IDENTITY, apply, mul, parse_transform, svg_graph

OPS: tuple[Op, ...] = (Op.NODE_COLOUR, Op.NODE_TEXT, Op.NODE_SIZE, Op.MOVE_NODE,
                       Op.DELETE_NODE, Op.ADD_NODE, Op.EDGE_COLOUR, Op.EDGE_STYLE,
                       Op.EDGE_ARROW, Op.DELETE_EDGE, Op.ADD_EDGE, Op.REDIRECT_EDGE)
SVG_NS = "http://www.w3.org/2000/svg"
_SHAPES = ("rect", "circle", "ellipse", "polygon")
MARKER_ID = "df-arrow"
TOL = 1.5
END_TOL = 12.0


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


def _f(el: etree._Element, k: str) -> float:
    try:
        return float(el.get(k, 0) or 0)
    except ValueError:
        return float("nan")


def _ctm(el: etree._Element) -> tuple:
    m = IDENTITY
    chain = [a for a in el.iterancestors() if isinstance(a.tag, str)][::-1] + [el]
    for a in chain:
        m = mul(m, parse_transform(a.get("transform")))
    return m


def _points(el: etree._Element) -> list[tuple[float, float]]:
    nums = [float(v) for v in (el.get("points") or "").replace(",", " ").split()]
    return list(zip(nums[::2], nums[1::2], strict=False))


def local_box(el: etree._Element) -> list[float] | None:
    t = _local(el)
    if t == "rect":
        return [_f(el, "x"), _f(el, "y"), _f(el, "width"), _f(el, "height")]
    if t == "circle":
        r = _f(el, "r")
        return [_f(el, "cx") - r, _f(el, "cy") - r, 2 * r, 2 * r]
    if t == "ellipse":
        rx, ry = _f(el, "rx"), _f(el, "ry")
        return [_f(el, "cx") - rx, _f(el, "cy") - ry, 2 * rx, 2 * ry]
    if t == "polygon":
        pts = _points(el)
        if not pts:
            return None
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        return [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
    return None


def abs_box(el: etree._Element) -> list[float] | None:
    """The element's box in drawing coordinates (translations and scales only)."""
    b, m = local_box(el), _ctm(el)
    if b is None or m[1] or m[2]:
        return None
    x0, y0 = apply(m, b[0], b[1])
    x1, y1 = apply(m, b[0] + b[2], b[1] + b[3])
    return [min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0)]


def _near(a: list[float], b: list[float], tol: float = TOL) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def _dist(box: list[float], x: float, y: float) -> float:
    dx = max(box[0] - x, 0.0, x - (box[0] + box[2]))
    dy = max(box[1] - y, 0.0, y - (box[1] + box[3]))
    return math.hypot(dx, dy)


def _ends(el: etree._Element) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """End points of a straight connector (a ``<line>`` or a path of line segments), in
    drawing coordinates; ``None`` for anything else."""
    if _ctm(el) != IDENTITY:
        return None
    if _local(el) == "line":
        return (_f(el, "x1"), _f(el, "y1")), (_f(el, "x2"), _f(el, "y2"))
    if _local(el) != "path" or (el.get("fill") not in (None, "none")) or \
            not re.fullmatch(r"[MmLlHhVv0-9eE.,+\-\s]+", el.get("d") or "x"):
        return None
    import svgelements

    try:
        path = svgelements.Path(el.get("d"))
    except Exception:  # noqa: BLE001 - unreadable path data is not a connector
        return None
    if len(list(path.as_subpaths())) != 1 or path.first_point is None:
        return None
    return (path.first_point.x, path.first_point.y), (path.current_point.x,
                                                       path.current_point.y)


@dataclass
class Connector:
    el: etree._Element
    head: etree._Element | None  # an arrowhead polygon drawn separately
    source_end: str  # "1" or "2" (line) — which end lies at the graph edge's source


class _Doc:
    def __init__(self, code: str):
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
        self.root = etree.fromstring(code.encode(), parser)
        self.graph: Graph = svg_graph(code)
        self.els = [e for e in self.root.iter() if isinstance(e.tag, str)]

    def code(self) -> str:
        return etree.tostring(self.root, encoding="unicode")

    def node(self, nid: str) -> tuple[etree._Element, etree._Element | None, list[float]]:
        """(shape, text, bbox) of a graph node."""
        n = next((n for n in self.graph.nodes if n.id == nid), None)
        if n is None or n.bbox is None or n.shape == "text":
            raise EditError(f"no shape node {nid!r}")
        shapes = [e for e in self.els if _local(e) in _SHAPES
                  and (b := abs_box(e)) is not None and _near(b, n.bbox)]
        if len(shapes) != 1:
            raise EditError(f"node {nid!r}: {len(shapes)} shapes have its box")
        texts = [e for e in self.els if _local(e) == "text"
                 and "".join(e.itertext()).strip() == n.text.strip()
                 and _dist(n.bbox, *apply(_ctm(e), _f(e, "x"), _f(e, "y"))) == 0]
        if n.text and len(texts) != 1:
            raise EditError(f"node {nid!r}: {len(texts)} texts read {n.text!r}")
        return shapes[0], texts[0] if texts else None, n.bbox

    def connectors(self, nid: str) -> list[tuple[int, Connector]]:
        return [(k, self.connector(k)) for k, e in enumerate(self.graph.edges)
                if nid in (e.source, e.target)]

    def connector(self, k: int) -> Connector:
        """The stroke of graph edge ``k``: a ``<line>``, or a straight-segment ``<path>``
        with the arrowhead polygon drawn at its end (as many exporters do); a path is
        turned into a line when an end has to move (:func:`_as_line`)."""
        e = self.graph.edges[k]
        boxes = {n.id: n.bbox for n in self.graph.nodes}
        sb, tb = boxes.get(e.source), boxes.get(e.target)
        if sb is None or tb is None:
            raise EditError(f"edge {k} has a loose end")
        hits = []
        for el in self.els:
            ends = _ends(el)
            if ends is None:
                continue
            p1, p2 = ends
            for first, a, b in (("1", p1, p2), ("2", p2, p1)):
                if _dist(sb, *a) <= END_TOL and _dist(tb, *b) <= END_TOL:
                    hits.append(Connector(el, self._head(b if first == "1" else a, b), first))
        if len(hits) != 1:
            raise EditError(f"edge {e.source}->{e.target}: {len(hits)} straight connectors")
        return hits[0]

    def _head(self, end: tuple[float, float], _target_end: tuple[float, float]
              ) -> etree._Element | None:
        """A small polygon at a stroke's end that is not a node: its arrowhead."""
        node_boxes = [n.bbox for n in self.graph.nodes if n.bbox]
        for el in self.els:
            if _local(el) != "polygon" or _ctm(el) != IDENTITY:
                continue
            b = local_box(el)
            if b is None or max(b[2], b[3]) > 3 * END_TOL or any(_near(b, nb) for nb in
                                                                  node_boxes):
                continue
            if _dist(b, *end) <= END_TOL / 2:
                return el
        return None

    def append(self, el: etree._Element) -> None:
        self.root.append(el)


def _set_paint(el: etree._Element, prop: str, value: str) -> None:
    el.set(prop, value)
    style = el.get("style")
    if style:
        kept = [d for d in style.split(";") if d.split(":")[0].strip() != prop and d.strip()]
        el.set("style", ";".join(kept))


def _border(box: list[float], toward: tuple[float, float]) -> tuple[float, float]:
    """Where the line from the box's centre toward a point leaves the box."""
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    dx, dy = toward[0] - cx, toward[1] - cy
    if dx == dy == 0:
        return cx, cy
    t = min(box[2] / 2 / abs(dx) if dx else math.inf, box[3] / 2 / abs(dy) if dy else math.inf)
    return round(cx + dx * t, 2), round(cy + dy * t, 2)


def _centre(b: list[float]) -> tuple[float, float]:
    return b[0] + b[2] / 2, b[1] + b[3] / 2


def _ensure_marker(d: _Doc) -> None:
    if any(e.get("id") == MARKER_ID for e in d.els):
        return
    defs = etree.SubElement(d.root, f"{{{SVG_NS}}}defs")
    m = etree.SubElement(defs, f"{{{SVG_NS}}}marker", id=MARKER_ID, markerWidth="10",
                         markerHeight="10", refX="9", refY="3", orient="auto")
    etree.SubElement(m, f"{{{SVG_NS}}}path", d="M0,0 L0,6 L9,3 z", fill="#333")
    d.root.remove(defs)
    d.root.insert(0, defs)


def _line_between(a: list[float], b: list[float]) -> tuple[tuple, tuple]:
    return _border(a, _centre(b)), _border(b, _centre(a))


def _as_line(d: _Doc, c: Connector) -> None:
    """A path connector becomes a ``<line>`` between its ends (its bends dropped) and its
    arrowhead polygon a marker, so its ends can be moved."""
    if _local(c.el) == "line":
        return
    (x1, y1), (x2, y2) = _ends(c.el)
    keep = {k: v for k, v in c.el.attrib.items() if k != "d"}
    c.el.tag = f"{{{SVG_NS}}}line"
    c.el.attrib.clear()
    c.el.attrib.update({**keep, "x1": f"{x1:g}", "y1": f"{y1:g}", "x2": f"{x2:g}",
                        "y2": f"{y2:g}"})
    if c.head is not None:
        c.head.getparent().remove(c.head)
        c.head = None
        _ensure_marker(d)
        c.el.set("marker-end" if c.source_end == "1" else "marker-start",
                 f"url(#{MARKER_ID})")


def _set_end(c: Connector, which: str, pt: tuple[float, float]) -> None:
    """Set the connector's source end (``which="source"``) or target end."""
    n = c.source_end if which == "source" else ("2" if c.source_end == "1" else "1")
    c.el.set(f"x{n}", f"{pt[0]:g}")
    c.el.set(f"y{n}", f"{pt[1]:g}")


def _reshape(d: _Doc, nid: str, new: list[float]) -> None:
    """Give node ``nid`` the box ``new`` (move or resize), its text and line ends along."""
    shape, text, old = d.node(nid)
    conns = d.connectors(nid)  # found before anything moves
    m = _ctm(shape)
    if m[1] or m[2] or m[0] <= 0 or m[3] <= 0:
        raise EditError(f"node {nid!r} is rotated or mirrored")
    sx, sy = (new[2] / old[2] if old[2] else 1.0), (new[3] / old[3] if old[3] else 1.0)
    lb = local_box(shape)
    # the new box in the shape's own coordinates
    lx, ly = (new[0] - m[4]) / m[0], (new[1] - m[5]) / m[3]
    lw, lh = lb[2] * sx, lb[3] * sy
    t = _local(shape)
    if t == "rect":
        for k, v in (("x", lx), ("y", ly), ("width", lw), ("height", lh)):
            shape.set(k, f"{v:g}")
    elif t == "circle":
        if abs(sx - sy) > 1e-6:
            raise EditError("a circle scales evenly")
        shape.set("cx", f"{lx + lw / 2:g}")
        shape.set("cy", f"{ly + lh / 2:g}")
        shape.set("r", f"{lw / 2:g}")
    elif t == "ellipse":
        shape.set("cx", f"{lx + lw / 2:g}")
        shape.set("cy", f"{ly + lh / 2:g}")
        shape.set("rx", f"{lw / 2:g}")
        shape.set("ry", f"{lh / 2:g}")
    else:
        pts = [(lx + (x - lb[0]) * sx, ly + (y - lb[1]) * sy) for x, y in _points(shape)]
        shape.set("points", " ".join(f"{x:g},{y:g}" for x, y in pts))
    if text is not None:  # the label keeps its place relative to the box centre
        (ocx, ocy), (ncx, ncy) = _centre(old), _centre(new)
        tm = _ctm(text)
        text.set("x", f"{_f(text, 'x') + (ncx - ocx) / tm[0]:g}")
        text.set("y", f"{_f(text, 'y') + (ncy - ocy) / tm[3]:g}")
    boxes = {n.id: n.bbox for n in d.graph.nodes}
    boxes[nid] = new
    for k, c in conns:
        _as_line(d, c)
        e = d.graph.edges[k]
        a, b = _line_between(boxes[e.source], boxes[e.target])
        _set_end(c, "source", a)
        _set_end(c, "target", b)


def apply_edit(code: str, ed: dict) -> str:
    """``code`` (a sanitised SVG document) with the edit applied."""
    d = _Doc(code)
    op, p = Op(ed["op"]), ed.get("params", {})
    if op == Op.NODE_COLOUR:
        _set_paint(d.node(p["node"])[0], "fill", p["colour"])
    elif op == Op.NODE_TEXT:
        _, text, _ = d.node(p["node"])
        if text is None:
            raise EditError(f"node {p['node']!r} has no text")
        for child in list(text):
            text.remove(child)
        text.text = p["text"]
    elif op in (Op.NODE_SIZE, Op.MOVE_NODE):
        _reshape(d, p["node"], p["bbox"])
    elif op == Op.DELETE_NODE:
        shape, text, _ = d.node(p["node"])
        conns = d.connectors(p["node"])
        for el in [shape, text] + [c.el for _, c in conns] + [c.head for _, c in conns]:
            if el is not None and el.getparent() is not None:
                el.getparent().remove(el)
    elif op == Op.ADD_NODE:
        x, y, w, h = p["bbox"]
        vb = [float(v) for v in (d.root.get("viewBox") or "").replace(",", " ").split()]
        if len(vb) != 4:
            raise EditError("no viewBox to grow")
        right, bottom = max(vb[0] + vb[2], x + w + 10), max(vb[1] + vb[3], y + h + 10)
        sx = float(d.root.get("width", vb[2]) or vb[2]) / vb[2] if vb[2] else 1.0
        sy = float(d.root.get("height", vb[3]) or vb[3]) / vb[3] if vb[3] else 1.0
        d.root.set("viewBox", f"{vb[0]:g} {vb[1]:g} {right - vb[0]:g} {bottom - vb[1]:g}")
        if d.root.get("width"):
            d.root.set("width", f"{(right - vb[0]) * sx:g}")
        if d.root.get("height"):
            d.root.set("height", f"{(bottom - vb[1]) * sy:g}")
        etree.SubElement(d.root, f"{{{SVG_NS}}}rect", x=f"{x:g}", y=f"{y:g}", width=f"{w:g}",
                         height=f"{h:g}", fill=p.get("colour", "#ffffff"), stroke="#333333")
        t = etree.SubElement(d.root, f"{{{SVG_NS}}}text", x=f"{x + w / 2:g}",
                             y=f"{y + h / 2 + 5:g}", **{"font-family": "sans-serif",
                                                        "font-size": "14",
                                                        "text-anchor": "middle"})
        t.text = p["text"]
    elif op == Op.ADD_EDGE:
        boxes = {n.id: n.bbox for n in d.graph.nodes}
        if boxes.get(p["source"]) is None or boxes.get(p["target"]) is None:
            raise EditError("an end has no box")
        _ensure_marker(d)
        a, b = _line_between(boxes[p["source"]], boxes[p["target"]])
        etree.SubElement(d.root, f"{{{SVG_NS}}}line", x1=f"{a[0]:g}", y1=f"{a[1]:g}",
                         x2=f"{b[0]:g}", y2=f"{b[1]:g}", stroke="#333333",
                         **{"stroke-width": "2", "marker-end": f"url(#{MARKER_ID})"})
    else:
        from diagramforge.edits.base import find_edge

        k = find_edge(d.graph, p["source"], p["target"], p.get("label"))
        if k is None:
            raise EditError(f"no edge {p['source']} -> {p['target']}")
        c = d.connector(k)
        if op == Op.EDGE_COLOUR:
            _set_paint(c.el, "stroke", p["colour"])
            if c.head is not None:
                _set_paint(c.head, "fill", p["colour"])
        elif op == Op.EDGE_STYLE:
            c.el.set("stroke-dasharray", p["dash"])
            c.el.set("stroke-width", f"{p['width']:g}")
        elif op == Op.EDGE_ARROW:
            if p["directed"]:
                _ensure_marker(d)
                c.el.set("marker-end" if c.source_end == "1" else "marker-start",
                         f"url(#{MARKER_ID})")
            else:
                if c.head is not None:  # the head bridged the gap to the box: close it
                    _as_line(d, c)
                    boxes = {n.id: n.bbox for n in d.graph.nodes}
                    a, b = _line_between(boxes[p["source"]], boxes[p["target"]])
                    _set_end(c, "source", a)
                    _set_end(c, "target", b)
                for k2 in ("marker-end", "marker-start", "marker"):
                    c.el.attrib.pop(k2, None)
        elif op == Op.DELETE_EDGE:
            c.el.getparent().remove(c.el)
            if c.head is not None:
                c.head.getparent().remove(c.head)
        elif op == Op.REDIRECT_EDGE:
            _as_line(d, c)
            boxes = {n.id: n.bbox for n in d.graph.nodes}
            a, b = _line_between(boxes[p["source"]], boxes[p["new_target"]])
            _set_end(c, "source", a)
            _set_end(c, "target", b)
        else:
            raise EditError(f"{op} is not an SVG edit", reason="edit_unknown_op")
    return d.code()


def candidates(code: str, rng: random.Random) -> Iterator[dict]:
    """Applicable edits, one per (operation, target): shape nodes found by their box,
    connectors that are straight strokes (``<line>``, or a ``<path>`` of line segments with
    its arrowhead polygon); a redirect needs a third node; a new
    node goes right of the drawing (the viewBox grows)."""
    d = _Doc(code)
    g = d.graph
    nodes = []
    for n in g.nodes:
        try:
            d.node(n.id)
        except EditError:
            continue
        nodes.append(n)
    for n in nodes:
        x, y, w, h = n.bbox
        now = (d.node(n.id)[0].get("fill") or "").lower()
        yield edit(Op.NODE_COLOUR, n.id, n.text, "node", node=n.id,
                   colour=rng.choice([c for c in PALETTE if c != now]))
        if n.text:
            yield edit(Op.NODE_TEXT, n.id, n.text, "node", node=n.id,
                       text=rng.choice([t for t in WORDS if t != n.text]))
        f = rng.choice([0.8, 1.2])
        nw, nh = w * f, h * f
        yield edit(Op.NODE_SIZE, n.id, n.text, "node", node=n.id,
                   bbox=[x + (w - nw) / 2, y + (h - nh) / 2, nw, nh])
        dx, dy = rng.choice([(0, 1), (0, -1), (1, 0), (-1, 0)])
        step = rng.choice([10, 20])
        yield edit(Op.MOVE_NODE, n.id, n.text, "node", node=n.id,
                   bbox=[x + dx * step, y + dy * step, w, h])
        yield edit(Op.DELETE_NODE, n.id, n.text, "node", node=n.id)
    boxes = [n.bbox for n in g.nodes if n.bbox]
    if boxes:
        text = rng.choice([t for t in WORDS if t not in {n.text for n in g.nodes}])
        right = max(b[0] + b[2] for b in boxes)
        top = min(b[1] for b in boxes)
        yield edit(Op.ADD_NODE, "new", text, "node", id="new", text=text, shape="rectangle",
                   bbox=[round(right + 30), round(top), 90, 40])
    for k, e in enumerate(g.edges):
        try:
            d.connector(k)
        except EditError:
            continue
        eid, ends = f"{e.source}->{e.target}", {"source": e.source, "target": e.target,
                                                 "label": e.label}
        now = (d.connector(k).el.get("stroke") or "").lower()
        yield edit(Op.EDGE_COLOUR, eid, e.label, "edge", **ends,
                   colour=rng.choice([c for c in PALETTE if c != now]))
        yield edit(Op.EDGE_STYLE, eid, e.label, "edge", **ends,
                   dash=rng.choice(["6 4", "2 3"]), width=rng.choice([1.0, 3.0]))
        yield edit(Op.EDGE_ARROW, eid, e.label, "edge", **ends, directed=not e.directed)
        yield edit(Op.DELETE_EDGE, eid, e.label, "edge", **ends)
        third = [n.id for n in nodes if n.id not in (e.source, e.target)]
        if third:
            yield edit(Op.REDIRECT_EDGE, eid, e.label, "edge", **ends,
                       new_target=rng.choice(third))
    joined = {(e.source, e.target) for e in g.edges} | {(e.target, e.source) for e in g.edges}
    free = [(a.id, b.id) for a in nodes for b in nodes
            if a.id != b.id and (a.id, b.id) not in joined]
    if free:
        s, t = rng.choice(free)
        yield edit(Op.ADD_EDGE, f"{s}->{t}", "", "edge", source=s, target=t)
