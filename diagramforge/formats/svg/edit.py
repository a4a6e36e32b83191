"""VCG-Bench's fourteen atomic operations on an SVG drawing.

SVG has no nodes or edges, only shapes, text and strokes; the graph extractor
(:func:`diagramforge.formats.svg.graph.svg_read`) finds them geometrically and says which elements
it read each node and edge from, and the edits change exactly those elements
(:mod:`.edit_doc`): a node's shape and label move, scale, recolour or go together with the
ends (and arrowheads) of its connectors; a connector's strokes change paint, dash, arrow,
route or target; new nodes and connectors are drawn where nothing else is.
Preconditions (:class:`~diagramforge.formats.edits.EditError`, the sampler draws another
edit): the elements draw nothing else (a path holding several shapes, a label shared by two
nodes), a connector is one connection (not a fork), new geometry lands clear of everything
else.
"""

from __future__ import annotations

import math
import random
import re
import statistics
from collections.abc import Iterator

from lxml import etree

from diagramforge.formats.edits import (
    PALETTE,
    WORDS,
    EditError,
    Op,
    edit,
    expected_graph,
    find_edge,
    graph_diff,
    remap,
)
from diagramforge.formats.svg import document
from diagramforge.formats.svg.edit_doc import (
    SVG_NS,
    Drawing,
    ctm,
    element,
    ensure_marker,
    invert,
    local,
    move_end,
    pt,
    remove,
    scale,
    set_prop,
    translate,
)
from diagramforge.formats.svg.graph import svg_graph
from diagramforge.graphs.geometry import point_distance, union
from diagramforge.graphs.model import Graph
from diagramforge.graphs.settings import GraphParams

OPS: tuple[Op, ...] = tuple(Op)
SHAPES = {"rectangle": "rect", "ellipse": "ellipse", "polygon": "polygon"}
"""Shapes a node may become (the graph's name → the element drawn): a diamond polygon."""
SHORT = ["X", "Y", "Z", "Q", "K", "W"]
"""Labels for a node too small for any of :data:`~diagramforge.formats.edits.WORDS`."""
DASHES = ["6 4", "2 3", "8 3 2 3"]
Box = list[float]


def graph(code: str) -> Graph:
    """The drawing's structure graph, as extraction reads it (what verification compares)."""
    return svg_graph(code)


def validate(code: str) -> list[str]:
    """The extractor's sanitiser is SVG's validation: what it refuses would be refused at
    extraction."""
    try:
        document.clean(code)
    except document.SvgError as exc:
        return [f"{exc.reason}: {exc.detail}"]
    return []


def _unit(d: Drawing) -> float:
    """The drawing's text size over the graph's default: lengths scale with it, as the
    graph's tolerances do."""
    sizes = [t.size for t in d.texts]
    p = GraphParams()
    return (statistics.median(sizes) if sizes else p.svg_default_font_size) \
        / p.svg_default_font_size


def _attached(d: Drawing, nid: str) -> list[tuple[int, str]]:
    """(edge index, end) of every connector end on node ``nid``; each connector must be
    one connection drawn by its own elements, or the node cannot move without it."""
    out = []
    for k, e in enumerate(d.graph.edges):
        for end in ("source", "target"):
            if getattr(e, end) == nid:
                d.line_elements(k)
                d.cap_elements(k)
                out.append((k, end))
    return out


def _move_edge_end(d: Drawing, k: int, end: str, to: tuple[float, float]) -> None:
    """Put a connector's ``end`` at drawing point ``to``, its arrowhead along."""
    line, which = d.trace.edges[k].ends[end]
    x, y = line.pts[0 if which == 0 else -1]
    dx, dy = to[0] - x, to[1] - y
    move_end(line, which, dx, dy)
    for cap in d.cap_elements(k, end):
        translate(cap, dx, dy)


def _reshape(d: Drawing, nid: str, new: Box, resize: bool) -> None:
    shape, texts = d.node_elements(nid)
    old = d.nodes[nid].bbox
    ends = _attached(d, nid)
    if resize:
        f = new[2] / old[2] if old[2] else 1.0
        cx, cy = old[0] + old[2] / 2, old[1] + old[3] / 2
        if shape is None:  # a bare label grows with its text
            for el in texts:
                scale(el, f, cx, cy)
        else:  # a shape grows; its labels keep their size and their place in it
            scale(shape, f, cx, cy)
            for el in texts:
                boxes = [t.box for t in d.trace.nodes[nid].texts if el in t.src]
                tx, ty = _centre(union(boxes))
                translate(el, (f - 1) * (tx - cx), (f - 1) * (ty - cy))
    else:
        for el in [shape, *texts]:
            if el is not None:
                translate(el, new[0] - old[0], new[1] - old[1])
    for k, end in ends:
        line, which = d.trace.edges[k].ends[end]
        _move_edge_end(d, k, end, remap(old, new, *line.pts[0 if which == 0 else -1]))


def _border(box: Box, toward: tuple[float, float]) -> tuple[float, float]:
    """Where the line from the box's centre toward a point leaves the box."""
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    dx, dy = toward[0] - cx, toward[1] - cy
    if dx == dy == 0:
        return cx, cy
    t = min(box[2] / 2 / abs(dx) if dx else math.inf, box[3] / 2 / abs(dy) if dy else math.inf)
    return round(cx + dx * t, 3), round(cy + dy * t, 3)


def _centre(b: Box) -> tuple[float, float]:
    return b[0] + b[2] / 2, b[1] + b[3] / 2


def _clear(d: Drawing, a: tuple[float, float], b: tuple[float, float], skip: set[str]) -> None:
    """A new stroke from ``a`` to ``b`` must pass clear of every other node and stay away
    from every other stroke's ends (else the graph would read it as theirs)."""
    tol = GraphParams().attach_tolerance * _unit(d)
    n = max(2, int(math.dist(a, b) / max(tol / 2, 1e-6)))
    samples = [(a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n)
               for i in range(n + 1)]
    for node in d.graph.nodes:
        if node.id not in skip and node.bbox and any(
                point_distance(node.bbox, *s) <= 2 * tol for s in samples):
            raise EditError(f"a new stroke would pass by {node.id}")
    for p in d.paths:
        if not p.closed:
            for q in (p.pts[0], p.pts[-1]):
                if min(math.dist(q, a), math.dist(q, b)) <= 2 * tol:
                    raise EditError("a new stroke would end at another's end")


def _node_text(d: Drawing, nid: str, text: str) -> None:
    _, texts = d.node_elements(nid)
    if not texts:
        raise EditError(f"node {nid!r} has no label")
    first, rest = texts[0], texts[1:]
    if local(first) != "text":
        raise EditError(f"a <{local(first)}> label")
    # the first line keeps its element: a tspan carries its own place, anchor and font
    line = next((c for c in first if local(c) == "tspan" and "".join(c.itertext()).strip()),
                None) if not (first.text or "").strip() else None
    holder = line if line is not None else first
    for c in list(first):
        if c is not line:
            first.remove(c)
    for c in list(holder):
        holder.remove(c)
    if holder is not first:
        first.text = None
    holder.text = text
    holder.tail = None
    for el in rest:
        remove(el)


def _new_shape(d: Drawing, nid: str, kind: str) -> None:
    """Draw the node as another kind of shape over the same box, with the same paint."""
    shape, _ = d.node_elements(nid)
    if shape is None or local(shape) not in ("rect", "ellipse", "circle", "polygon", "path"):
        raise EditError(f"node {nid!r} has no shape element")
    m = ctm(shape)
    if m[1] or m[2]:
        raise EditError("a rotated shape")
    inv = invert(m)
    b = d.nodes[nid].bbox
    (x0, y0), (x1, y1) = pt(inv, b[0], b[1]), pt(inv, b[0] + b[2], b[1] + b[3])
    x0, x1, y0, y1 = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
    geo = {"rect": {"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0},
           "ellipse": {"cx": (x0 + x1) / 2, "cy": (y0 + y1) / 2, "rx": (x1 - x0) / 2,
                       "ry": (y1 - y0) / 2}}
    tag = SHAPES[kind]
    keep = {k: v for k, v in shape.attrib.items() if k not in (
        "x", "y", "width", "height", "rx", "ry", "cx", "cy", "r", "points", "d")}
    new = etree.Element(f"{{{SVG_NS}}}{tag}", keep)
    if tag == "polygon":
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        new.set("points", f"{cx:.6g},{y0:.6g} {x1:.6g},{cy:.6g} {cx:.6g},{y1:.6g} "
                          f"{x0:.6g},{cy:.6g}")
    else:
        for k, v in geo[tag].items():
            new.set(k, f"{v:.6g}")
    shape.addprevious(new)
    remove(shape)


def _grow_canvas(root: etree._Element, box: Box) -> None:
    """Make the visible area take ``box`` (drawing units) in: the viewBox grows, and the
    width/height with it, in their own units."""
    vb = [float(v) for v in re.split(r"[\s,]+", (root.get("viewBox") or "").strip()) if v]
    sizes = {k: re.fullmatch(r"\s*([-+]?[\d.]+(?:[eE][-+]?\d+)?)\s*([a-z%]*)\s*",
                             root.get(k) or "") for k in ("width", "height")}
    if len(vb) != 4:
        if not (sizes["width"] and sizes["height"]) or "%" in root.get("width", ""):
            raise EditError("no viewBox and no size to grow")
        vb = [0.0, 0.0, float(sizes["width"].group(1)), float(sizes["height"].group(1))]
    right = max(vb[0] + vb[2], box[0] + box[2] + box[3] / 2)
    bottom = max(vb[1] + vb[3], box[1] + box[3] + box[3] / 2)
    new = [vb[0], vb[1], right - vb[0], bottom - vb[1]]
    for k, i in (("width", 2), ("height", 3)):
        mt = sizes[k]
        if mt and vb[i] and mt.group(2) != "%":
            root.set(k, f"{float(mt.group(1)) * new[i] / vb[i]:.6g}{mt.group(2)}")
    root.set("viewBox", " ".join(f"{v:.6g}" for v in new))


def _edge_op(d: Drawing, op: Op, p: dict) -> None:
    k = find_edge(d.graph, p["source"], p["target"], p.get("label"))
    if k is None:
        raise EditError(f"no edge {p['source']} -> {p['target']}")
    lines, caps = d.line_elements(k), d.cap_elements(k)
    tr = d.trace.edges[k]
    if op == Op.EDGE_COLOUR:
        for el in lines:
            set_prop(el, "stroke", p["colour"])
        for el in caps:
            set_prop(el, "stroke", p["colour"])
            set_prop(el, "fill", p["colour"])
    elif op == Op.EDGE_STYLE:
        for el in lines:
            set_prop(el, "stroke-dasharray", p["dash"])
            set_prop(el, "stroke-width", f"{p['width']:g}")
    elif op == Op.DELETE_EDGE:
        for el in lines + caps:
            remove(el)
    elif op == Op.REDIRECT_EDGE:
        line, which = tr.ends["target"]
        here = line.pts[0 if which == 0 else -1]
        _move_edge_end(d, k, "target", _border(d.nodes[p["new_target"]].bbox, here))
    elif op == Op.EDGE_ARROW:
        _arrow(d, k, bool(p["directed"]))
    elif op == Op.EDGE_PATH:
        if len(tr.lines) != 1:
            raise EditError("a connector drawn in pieces")
        a, b = tr.lines[0].pts[0], tr.lines[0].pts[-1]
        el, inv = lines[0], invert(ctm(lines[0]))
        route = [pt(inv, *q) for q in [a, *p["points"], b]]
        for attr in ("x1", "y1", "x2", "y2", "points"):
            el.attrib.pop(attr, None)
        el.tag = f"{{{SVG_NS}}}path"
        el.set("d", "M " + " L ".join(f"{x:.6g},{y:.6g}" for x, y in route))
        set_prop(el, "fill", "none")


def _arrow(d: Drawing, k: int, directed: bool) -> None:
    """Give a connector one arrowhead at its target end, or take every arrowhead off (a
    line that stopped short of its node for the head is extended to the node)."""
    tr = d.trace.edges[k]
    e = d.graph.edges[k]
    for end in ("source", "target"):
        for cap in d.cap_elements(k, end):
            remove(cap)
        line, which = tr.ends[end]
        el = element(line)[0]
        for prop in ("marker-start", "marker-end", "marker"):
            set_prop(el, prop, "none")
        node = d.nodes.get(getattr(e, end) or "")
        if node is not None and node.bbox:
            here = line.pts[0 if which == 0 else -1]
            bx = node.bbox
            _move_edge_end(d, k, end, (min(max(here[0], bx[0]), bx[0] + bx[2]),
                                       min(max(here[1], bx[1]), bx[1] + bx[3])))
    if directed:
        line, which = tr.ends["target"]
        el, sub = element(line)
        last = max(element(p)[1] for p in d.paths if element(p)[0] is el)
        if sub != (0 if which == 0 else last):  # a marker goes on a path's first/last point
            raise EditError("the target end is inside the path")
        side = "start" if which == 0 else "end"
        set_prop(el, f"marker-{side}", f"url(#{ensure_marker(d.root, side)})")


def apply_edit(code: str, ed: dict) -> str:
    """``code`` (a sanitised SVG document) with the edit applied."""
    d = Drawing(code)
    op, p = Op(ed["op"]), ed.get("params", {})
    if op == Op.NODE_COLOUR:
        shape, texts = d.node_elements(p["node"])
        for el in [shape] if shape is not None else texts:
            set_prop(el, "fill", p["colour"])
    elif op == Op.NODE_SHAPE:
        _new_shape(d, p["node"], p["shape"])
    elif op in (Op.NODE_SIZE, Op.MOVE_NODE):
        _reshape(d, p["node"], list(p["bbox"]), op == Op.NODE_SIZE)
    elif op == Op.NODE_TEXT:
        _node_text(d, p["node"], p["text"])
    elif op == Op.DELETE_NODE:
        shape, texts = d.node_elements(p["node"])
        ends = _attached(d, p["node"])
        for el in [shape, *texts] + [x for k, _ in ends
                                     for x in d.line_elements(k) + d.cap_elements(k)]:
            remove(el)
    elif op == Op.ADD_NODE:
        x, y, w, h = p["bbox"]
        _grow_canvas(d.root, p["bbox"])
        etree.SubElement(d.root, f"{{{SVG_NS}}}rect", x=f"{x:g}", y=f"{y:g}", width=f"{w:g}",
                         height=f"{h:g}", fill=p.get("colour", "#ffffff"), stroke="#333333")
        t = etree.SubElement(d.root, f"{{{SVG_NS}}}text", x=f"{x + w / 2:g}",
                             y=f"{y + h / 2 + p['size'] * 0.35:g}", **{
                                 "font-family": "sans-serif", "font-size": f"{p['size']:g}",
                                 "text-anchor": "middle", "fill": "#000000"})
        t.text = p["text"]
    elif op == Op.ADD_EDGE:
        sb, tb = d.nodes[p["source"]].bbox, d.nodes[p["target"]].bbox
        if sb is None or tb is None:
            raise EditError("an end has no box")
        a, b = _border(sb, _centre(tb)), _border(tb, _centre(sb))
        _clear(d, a, b, {p["source"], p["target"]})
        etree.SubElement(d.root, f"{{{SVG_NS}}}line", x1=f"{a[0]:g}", y1=f"{a[1]:g}",
                         x2=f"{b[0]:g}", y2=f"{b[1]:g}", stroke="#333333", **{
                             "stroke-width": f"{max(_unit(d), 0.01):.3g}",
                             "marker-end": f"url(#{ensure_marker(d.root, 'end')})"})
    else:
        _edge_op(d, op, p)
    return d.code()


def _holds_its_frame(d: Drawing, nid: str) -> bool:
    """Is this node's shape the only labelled shape inside some larger closed shape? That
    frame reads as a container only because of it (DiagramEval's rule): without it, the
    frame would read as the box of whatever text it still holds."""
    tr = d.trace.nodes[nid]
    if tr.shape is None:
        return False
    own = tr.shape.box()
    shapes = [p for p in d.paths if p.closed and p is not tr.shape]
    centres = [_centre(t.box) for t in d.texts]

    def inside(b: Box, o: Box) -> bool:
        return o[0] >= b[0] - 0.5 and o[1] >= b[1] - 0.5 and o[0] + o[2] <= b[0] + b[2] + 0.5 \
            and o[1] + o[3] <= b[1] + b[3] + 0.5 and b[2] * b[3] > o[2] * o[3]

    def labelled(b: Box) -> bool:
        return any(b[0] <= x <= b[0] + b[2] and b[1] <= y <= b[1] + b[3] for x, y in centres)

    for frame in (s for s in shapes if inside(s.box(), own)):
        fb = frame.box()
        if not any(inside(fb, o.box()) and labelled(o.box()) for o in shapes
                   if o is not frame):
            return True
    return False


def _fits(d: Drawing, nid: str, words: list[str]) -> list[str]:
    """Labels that fit where the old one was: inside the node's shape (half an em clear
    each side) or, for a bare label, no wider than it was — wider text would run into its
    neighbours' and the graph would read one label."""
    tr = d.trace.nodes[nid]
    size = max(t.size for t in tr.texts)
    width = max(t.box[2] for t in tr.texts)
    room = d.nodes[nid].bbox[2] - size if tr.shape is not None else width
    per = GraphParams().svg_char_width_em * size
    return [w for w in words if len(w) * per <= max(room, width)]


def _free_box(d: Drawing) -> tuple[Box, float]:
    """Room for a new node beside everything drawn (below a wide drawing, else right of
    it), sized like the drawing's nodes; and its text size."""
    items = [p.box() for p in d.paths] + [t.box for t in d.texts]
    size = statistics.median([t.size for t in d.texts]) if d.texts else 12.0
    shaped = [n.bbox for n in d.graph.nodes if n.bbox and n.shape != "text"]
    w = statistics.median([b[2] for b in shaped]) if shaped else 7 * size
    h = statistics.median([b[3] for b in shaped]) if shaped else 3 * size
    w = max(w, 7 * size * GraphParams().svg_char_width_em * 1.5)
    if not items:
        return [10.0, 10.0, w, h], size
    x0, y0 = min(b[0] for b in items), min(b[1] for b in items)
    x1, y1 = max(b[0] + b[2] for b in items), max(b[1] + b[3] for b in items)
    gap = 3 * size
    if x1 - x0 > y1 - y0:
        return [round(x0, 2), round(y1 + gap, 2), round(w, 2), round(h, 2)], size
    return [round(x1 + gap, 2), round(y0, 2), round(w, 2), round(h, 2)], size


def _ok(f, *a) -> bool:  # noqa: ANN001 - a precondition check
    try:
        f(*a)
    except EditError:
        return False
    return True


def candidates(code: str, rng: random.Random) -> Iterator[dict]:
    """Applicable edits, one per (operation, target) — several new connectors, since only
    some pairs have a clear straight path: nodes whose elements draw only them, connectors
    that are one connection; a redirect needs a third node."""
    d = Drawing(code)
    g = d.graph
    nodes = [n for n in g.nodes if n.bbox and _ok(d.node_elements, n.id)]
    for n in nodes:
        kind, (x, y, w, h) = "node", n.bbox
        shape, texts = d.node_elements(n.id)
        paint = shape if shape is not None else texts[0] if texts else None
        now = (paint.get("fill") or "").lower() if paint is not None else ""
        yield edit(Op.NODE_COLOUR, n.id, n.text, kind, node=n.id,
                   colour=rng.choice([c for c in PALETTE if c != now]))
        if shape is not None and n.shape in ("rectangle", "rounded", "ellipse", "polygon",
                                             "path"):
            yield edit(Op.NODE_SHAPE, n.id, n.text, kind, node=n.id,
                       shape=rng.choice([s for s in SHAPES if s != n.shape]))
        if n.text and texts:
            fit = _fits(d, n.id, [t for t in WORDS if t != n.text]) or \
                [t for t in SHORT if t != n.text]
            if n.shape == "text" and any(n.id in (e.source, e.target) for e in g.edges):
                # a bare label is its own box: a connector on it stays only if the new
                # label is about as wide
                fit = [t for t in WORDS + SHORT if t != n.text
                       and abs(len(t) - len(n.text)) <= max(1, 0.15 * len(n.text))]
            if fit:
                yield edit(Op.NODE_TEXT, n.id, n.text, kind, node=n.id,
                           text=rng.choice(fit))
        if not _ok(_attached, d, n.id):
            continue
        f = rng.choice([0.8, 1.25])
        yield edit(Op.NODE_SIZE, n.id, n.text, kind, node=n.id, old_bbox=n.bbox,
                   bbox=[x + w * (1 - f) / 2, y + h * (1 - f) / 2, w * f, h * f])
        dx, dy = rng.choice([(0, 1), (0, -1), (1, 0), (-1, 0)])
        step = rng.choice([0.5, 1.0]) * min(w, h) if min(w, h) > 0 else 10.0
        yield edit(Op.MOVE_NODE, n.id, n.text, kind, node=n.id, old_bbox=n.bbox,
                   bbox=[x + dx * step, y + dy * step, w, h])
        if not _holds_its_frame(d, n.id):
            yield edit(Op.DELETE_NODE, n.id, n.text, kind, node=n.id)
    box, size = _free_box(d)
    text = rng.choice([t for t in WORDS if t not in {n.text for n in g.nodes}])
    yield edit(Op.ADD_NODE, "new", text, "node", id="new", text=text, shape="rectangle",
               bbox=box, size=round(size, 3))
    yield from _edge_edits(d, rng, nodes)


def _edge_edits(d: Drawing, rng: random.Random, nodes: list) -> Iterator[dict]:  # noqa: ANN001
    g = d.graph
    seen: set[tuple] = set()
    for k, e in enumerate(g.edges):
        key = (e.source, e.target, e.label)
        if e.source is None or e.target is None or key in seen \
                or find_edge(g, e.source, e.target, e.label) != k:
            continue
        seen.add(key)
        if not (_ok(d.line_elements, k) and _ok(d.cap_elements, k)):
            continue
        eid, ends = f"{e.source}->{e.target}", {"source": e.source, "target": e.target,
                                                 "label": e.label}
        lines = d.line_elements(k)
        now = (lines[0].get("stroke") or "").lower()
        yield edit(Op.EDGE_COLOUR, eid, e.label, "edge", **ends,
                   colour=rng.choice([c for c in PALETTE if c != now]))
        yield edit(Op.EDGE_STYLE, eid, e.label, "edge", **ends, dash=rng.choice(DASHES),
                   width=rng.choice([1.5, 3.0]) * _unit(d))
        yield edit(Op.EDGE_ARROW, eid, e.label, "edge", **ends, directed=not e.directed)
        yield edit(Op.DELETE_EDGE, eid, e.label, "edge", **ends)
        third = [n.id for n in nodes if n.id not in (e.source, e.target)
                 and (e.source, n.id) not in {(x.source, x.target) for x in g.edges}]
        if third:
            yield edit(Op.REDIRECT_EDGE, eid, e.label, "edge", **ends,
                       new_target=rng.choice(third))
        sb, tb = d.nodes[e.source].bbox, d.nodes[e.target].bbox
        (sx, sy), (tx, ty) = _centre(sb), _centre(tb)
        off = rng.choice([1, -1]) * max(sb[3], tb[3], 1.0)
        # a bend beside the straight line, halfway: perpendicular to it
        ln = math.hypot(tx - sx, ty - sy) or 1.0
        mid = [round((sx + tx) / 2 - (ty - sy) / ln * off, 2),
               round((sy + ty) / 2 + (tx - sx) / ln * off, 2)]
        yield edit(Op.EDGE_PATH, eid, e.label, "edge", **ends, points=[mid])
    joined = {(e.source, e.target) for e in g.edges} | {(e.target, e.source) for e in g.edges}
    free = [(a.id, b.id) for a in nodes for b in nodes
            if a.id != b.id and (a.id, b.id) not in joined]
    for s, t in rng.sample(free, min(len(free), 6)):
        yield edit(Op.ADD_EDGE, f"{s}->{t}", "", "edge", source=s, target=t)


# -- settling: parameters the drawing reads as meant ------------------------------------
MAX_TRIES = 8
"""Parameter choices tried per drawn edit (each is one graph extraction)."""


def _options(d: Drawing, ed: dict) -> Iterator[dict]:
    """Other parameters for the same operation and target, in a fixed order."""
    op, p, t = Op(ed["op"]), ed["params"], ed["target"]

    def with_(**kv: object) -> dict:
        return {**ed, "params": {**p, **kv}}

    n = d.nodes.get(str(p.get("node")))
    if op == Op.MOVE_NODE and n is not None:
        x, y, w, h = n.bbox
        for f in (0.5, 1.0, 1.5):
            for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                s = f * min(w, h) if min(w, h) > 0 else 10.0
                yield with_(bbox=[x + dx * s, y + dy * s, w, h])
    elif op == Op.NODE_SIZE and n is not None:
        x, y, w, h = n.bbox
        for f in (1.25, 0.8, 1.1, 0.9):
            yield with_(bbox=[x + w * (1 - f) / 2, y + h * (1 - f) / 2, w * f, h * f])
    elif op == Op.NODE_TEXT and n is not None:
        # words that fit first; then any, closest in length (a bare label's box is its
        # text: connectors on it stay attached if it keeps its width)
        words = [w for w in WORDS + SHORT if w != n.text]
        fit = set(_fits(d, n.id, words))
        for w in sorted(words, key=lambda w: (w not in fit, abs(len(w) - len(n.text)), w)):
            yield with_(text=w)
    elif op == Op.NODE_SHAPE:
        for kind in SHAPES:
            yield with_(shape=kind)
    elif op == Op.REDIRECT_EDGE:
        for m in d.graph.nodes:
            if m.id not in (p["source"], p["target"]):
                yield with_(new_target=m.id)
    elif op == Op.EDGE_PATH:
        sb, tb = d.nodes[p["source"]].bbox, d.nodes[p["target"]].bbox
        (sx, sy), (tx, ty) = _centre(sb), _centre(tb)
        ln = math.hypot(tx - sx, ty - sy) or 1.0
        for f in (1.0, -1.0, 0.5, -0.5, 2.0, -2.0):
            off = f * max(sb[3], tb[3], 1.0)
            yield with_(points=[[round((sx + tx) / 2 - (ty - sy) / ln * off, 2),
                                 round((sy + ty) / 2 + (tx - sx) / ln * off, 2)]])
    elif op == Op.ADD_EDGE:
        joined = {(e.source, e.target) for e in d.graph.edges}
        ids = sorted(d.nodes)
        for a in ids:
            for b in ids:
                if a != b and (a, b) not in joined and (b, a) not in joined:
                    yield {**ed, "target": {**t, "id": f"{a}->{b}"},
                           "params": {**p, "source": a, "target": b}}
    elif op == Op.ADD_NODE:
        box, _ = _free_box(d)
        for gap in (0.0, 2.0, 4.0):
            yield with_(bbox=[box[0] + gap * box[3], box[1], box[2], box[3]])
            yield with_(bbox=[box[0], box[1] + gap * box[3], box[2], box[3]])


def settle(code: str, graph: Graph, ed: dict, tol: float = 1.0) -> dict:
    """The edit with the first of its parameter choices (where to move, how much to grow,
    which word, which pair) whose result the graph reads as the operation says; the edit as
    drawn when none does (the sampler then verifies it and ledgers the failure).

    SVG's graph is a geometric reading (DiagramEval's rules): a label that grows into its
    neighbour's line reads as one node, a box moved next to a loose arrowhead takes it over.
    The drawing is edited as asked, but it no longer reads as the operation; another
    placement usually does. Operations without a choice (colours, deletions) are not
    tried here."""
    d = Drawing(code)
    options = list(_options(d, ed))
    if not options:
        return ed
    same = d.code()
    seen: list[dict] = []
    for opt in [ed, *options]:
        if opt in seen:
            continue
        seen.append(opt)
        if len(seen) > MAX_TRIES:
            break
        try:
            after = apply_edit(code, opt)
            want = expected_graph(graph, opt)
        except (EditError, KeyError):
            continue
        if after != same and not graph_diff(want, svg_graph(after), tol):
            return opt
    return ed
