"""VCG-Bench's fourteen atomic operations on an mxGraph page, on its XML tree (lxml).

Targets are cells by id (the graph's node ids are cell ids). :func:`candidates` proposes
edits whose preconditions hold (a redirect needs a third vertex, a move a place where no
floating edge end changes hands, …); :func:`apply_edit` applies one and raises
:class:`~diagramforge.formats.edits.EditError` when the code does not allow it.

Each operation does exactly what it says to the structure graph on real pages too
(:mod:`.edit_page` keeps the page's geometry consistent): moving a container moves what it
contains (``params.carried`` names those nodes); deleting a container keeps its children
where they are, lifted to its parent; a floating edge end attached to a node moves with the
node and goes with it; an edge is addressed by its graph ends, whichever cell end and arrow
they come from; new cells go on the page's first layer.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from lxml import etree

from diagramforge.formats.edits import PALETTE, WORDS, EditError, Op, edit, remap
from diagramforge.formats.mxgraph import notation
from diagramforge.formats.mxgraph.edit_page import Page, fmt, set_style, shift, style_key
from diagramforge.formats.mxgraph.graph import mxgraph_graph, parse_style
from diagramforge.formats.mxgraph.notation import cell_id, set_label
from diagramforge.graphs.model import Graph

OPS: tuple[Op, ...] = tuple(Op)
SHAPES = ["ellipse", "rhombus", "hexagon", "triangle", "cylinder3", "parallelogram",
          "process", "cloud", "rectangle"]
"""Shapes a node may become; the graph calls them by these names (``shape=<name>``)."""
NAMED_SHAPES = frozenset({"ellipse", "rhombus", "triangle", "hexagon", "cloud", "cylinder",
                          "doubleEllipse", "swimlane", "label", "image", "text", "rectangle"})
"""Bare style tokens that name a shape (draw.io's named styles)."""
ARROWS = [("block", "none", True), ("open", "none", True), ("none", "none", False),
          ("classic", "classic", False)]
"""(arrow at the graph target, arrow at the graph source, directed) an edge may get."""
STROKES = [(True, 2), (True, 3), (True, 1), (False, 2), (False, 3)]
"""(dashed, width) an edge may get; never the one it has."""
Box = list[float]


def graph(code: str) -> Graph:
    """The page's structure graph, as extraction reads it (what verification compares)."""
    return mxgraph_graph(code)


def validate(code: str) -> list[str]:
    """What draw.io's reader would refuse in the page (empty: a valid page)."""
    return notation.validate(notation.parse_xml(code))


def _width(v: str) -> float:
    try:
        return float(v)
    except ValueError:
        return 1.0


def _reversed(cell: etree._Element) -> bool:
    """A start arrow alone: the graph reads the edge from its cell target to its source."""
    s = parse_style(cell.get("style") or "")
    end = s.get("endArrow", "classic") not in ("none", "")
    return not end and s.get("startArrow", "none") not in ("none", "")


def _reshape_plan(d: Page, nid: str, new: Box) -> tuple[dict[str, Box], dict]:
    """The node boxes and floating-end points after ``nid`` takes box ``new``: its
    subtree moves along (child geometry is relative to the parent), ends attached to it
    keep their place on it, ends attached to its descendants or drawn inside it move
    along."""
    old = d.nodes[nid].bbox
    dx, dy = new[0] - old[0], new[1] - old[1]
    sub = set(d.descendants(nid))
    boxes = {nid: new}
    for k in sub:
        b = d.nodes[k].bbox if k in d.nodes else None
        if b is not None:
            boxes[k] = [b[0] + dx, b[1] + dy, b[2], b[3]]
    ends = {}
    for f in d.floating:
        if f.edge in sub:
            ends[(f.edge, f.end)] = (f.x + dx, f.y + dy)  # drawn in the subtree: implicit
        elif f.node == nid:
            ends[(f.edge, f.end)] = remap(old, new, f.x, f.y)
        elif f.node in sub:
            ends[(f.edge, f.end)] = (f.x + dx, f.y + dy)
    return boxes, ends


def _reshape(d: Page, nid: str, new: Box) -> None:
    c = d.cell(nid, "vertex")
    g = c.find("mxGeometry")
    old = d.nodes[nid].bbox if nid in d.nodes else None
    if g is None or old is None:
        raise EditError(f"cell {nid!r} has no geometry")
    _, ends = _reshape_plan(d, nid, new)
    dx, dy = new[0] - old[0], new[1] - old[1]
    if g.get("relative") == "1":  # a port: a fraction of the parent plus an offset
        off = g.find("mxPoint[@as='offset']")
        if off is None:
            off = etree.SubElement(g, "mxPoint", **{"as": "offset"})
        shift(off, dx, dy)
    else:
        shift(g, dx, dy)
    g.set("width", fmt(new[2]))
    g.set("height", fmt(new[3]))
    sub = set(d.descendants(nid))
    for f in d.floating:
        if (f.edge, f.end) in ends and f.edge not in sub:
            d.move_end(f, *ends[(f.edge, f.end)])


def _invisible_outline(style: dict[str, str]) -> bool:
    """Neither stroke nor fill is drawn (a text box, an icon's label holder): a new shape
    there would change nothing on the page."""
    unset = "none" if "text" in style else ""  # draw.io's ``text`` style: no fill, no stroke
    return style.get("strokeColor", unset) == "none" and style.get("fillColor", unset) in (
        "none", "")


def _node_shape(c: etree._Element, shape: str) -> None:
    style = parse_style(c.get("style") or "")
    tokens = [t.strip() for t in (c.get("style") or "").split(";") if t.strip()]
    keep = [t for t in tokens if not (style_key(t) is None and t in NAMED_SHAPES)
            and style_key(t) not in ("shape", "perimeter")]
    c.set("style", "".join(f"{t};" for t in [f"shape={shape}", *keep]))
    if _invisible_outline(style):  # the new shape is drawn in draw.io's default stroke
        set_style(c, strokeColor="#000000")


def _fill_key(c: etree._Element) -> str:
    """Where a node's colour goes: an image's fill is never drawn, its background is."""
    style = parse_style(c.get("style") or "")
    image = style.get("shape") == "image" or (c.get("style") or "").startswith("image;")
    return "imageBackground" if image else "fillColor"


def _delete_node(d: Page, tid: str) -> None:
    d.cell(tid, "vertex")
    floating = {f.edge for f in d.attached_to([tid])}
    for k in [k for k, c in d.cells.items() if c.get("edge") == "1"
              and (tid in (c.get("source"), c.get("target")) or k in floating)]:
        if k in d.cells:
            d.remove(k)
    d.lift_children(tid)
    d.remove(tid)


def _new_cell(d: Page, p: dict, **attrs: str) -> etree._Element:
    if p["id"] in d.cells:
        raise EditError(f"id {p['id']!r} is taken")
    el = etree.SubElement(d.model.find("root"), "mxCell", id=p["id"], parent=d.layer(),
                          **attrs)
    d.cells[p["id"]] = el
    return el


def apply_edit(code: str, ed: dict) -> str:
    """``code`` with the edit applied (an uncompressed ``<mxGraphModel>``)."""
    d = Page(code)
    op, p, tid = Op(ed["op"]), ed.get("params", {}), ed["target"]["id"]
    if op == Op.NODE_COLOUR:
        c = d.cell(tid, "vertex")
        set_style(c, **{_fill_key(c): p["colour"]})
    elif op == Op.NODE_SHAPE:
        _node_shape(d.cell(tid, "vertex"), p["shape"])
    elif op in (Op.NODE_SIZE, Op.MOVE_NODE):
        _reshape(d, tid, list(p["bbox"]))
    elif op == Op.NODE_TEXT:
        set_label(d.cell(tid, "vertex"), p["text"])
    elif op == Op.DELETE_NODE:
        _delete_node(d, tid)
    elif op == Op.ADD_NODE:
        x, y, w, h = p["bbox"]
        el = _new_cell(d, p, value=p["text"], vertex="1",
                       style=f"shape={p['shape']};whiteSpace=wrap;html=1;")
        etree.SubElement(el, "mxGeometry", x=fmt(x), y=fmt(y), width=fmt(w), height=fmt(h),
                         **{"as": "geometry"})
    elif op == Op.EDGE_COLOUR:
        set_style(d.cell(tid, "edge"), strokeColor=p["colour"])
    elif op == Op.EDGE_STYLE:
        set_style(d.cell(tid, "edge"), dashed="1" if p.get("dashed") else "0",
                  strokeWidth=str(p.get("width", 1)))
    elif op == Op.EDGE_ARROW:
        set_style(d.cell(tid, "edge"), endArrow=p["end"], startArrow=p["start"])
    elif op == Op.DELETE_EDGE:
        d.cell(tid, "edge")
        d.remove(tid)
    elif op == Op.ADD_EDGE:
        for end in ("source", "target"):
            d.cell(p[end], "vertex")
        el = _new_cell(d, p, value="", edge="1", source=p["source"], target=p["target"],
                       style="edgeStyle=orthogonalEdgeStyle;rounded=0;html=1;"
                             "endArrow=classic;")
        etree.SubElement(el, "mxGeometry", relative="1", **{"as": "geometry"})
    elif op == Op.REDIRECT_EDGE:
        c = d.cell(tid, "edge")
        d.cell(p["new_target"], "vertex")
        end = "source" if _reversed(c) else "target"  # the cell end the graph's target is
        c.set(end, p["new_target"])
        g = c.find("mxGeometry")
        for pt in [] if g is None else g.findall(f"mxPoint[@as='{end}Point']"):
            g.remove(pt)
    elif op == Op.EDGE_PATH:
        c = d.cell(tid, "edge")
        g = c.find("mxGeometry")
        if g is None:
            g = etree.SubElement(c, "mxGeometry", relative="1", **{"as": "geometry"})
        for arr in g.findall("Array[@as='points']"):
            g.remove(arr)
        arr = etree.SubElement(g, "Array", **{"as": "points"})
        ox, oy = d.origin(tid)  # points are in the edge's parent's coordinates
        for x, y in p["points"]:
            etree.SubElement(arr, "mxPoint", x=fmt(x - ox), y=fmt(y - oy))
        set_style(c, edgeStyle=p.get("edge_style"))
    return d.code()


def _free_box(d: Page, w: float = 120, h: float = 60) -> Box:
    """A box beside every node and every floating edge end, so a new node overlaps nothing
    and no loose end attaches to it: below a drawing wider than tall, else right of it (a
    page stays near its aspect; a long strip would fail the render's aspect check)."""
    boxes = [n.bbox for n in d.graph.nodes if n.bbox] + [[f.x, f.y, 0, 0] for f in d.floating]
    if not boxes:
        return [40.0, 40.0, w, h]
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[0] + b[2] for b in boxes), max(b[1] + b[3] for b in boxes)
    if x1 - x0 > y1 - y0:
        return [float(round(x0)), float(round(y1 + 40)), w, h]
    return [float(round(x1 + 40)), float(round(y0)), w, h]


def _other_colour(cell: etree._Element, key: str, rng: random.Random) -> str:
    """A palette colour the cell does not have already (else the edit changes nothing)."""
    now = parse_style(cell.get("style") or "").get(key, "").lower()
    return rng.choice([c for c in PALETTE if c != now])


def _placement(d: Page, nid: str, options: list[Box]) -> Box | None:
    """The first box for ``nid`` (in the drawn order) that keeps every floating end
    attached where it is."""
    for new in options:
        if d.keeps_attachments(*_reshape_plan(d, nid, new)):
            return new
    return None


def _has_port(d: Page, nid: str) -> bool:
    """A child with relative geometry: its box scales with this node's size."""
    return any(d.cells[k].get("vertex") == "1" and (g := d.cells[k].find("mxGeometry"))
               is not None and g.get("relative") == "1" for k in d.children(nid))


def _node_edits(d: Page, rng: random.Random) -> Iterator[dict]:
    for n in d.graph.nodes:
        c = d.cells[n.id]
        if n.bbox is None or c.find("mxGeometry") is None:
            continue
        kind, (x, y, w, h) = "node", n.bbox
        yield edit(Op.NODE_COLOUR, n.id, n.text, kind, node=n.id,
                   colour=_other_colour(c, _fill_key(c), rng))
        yield edit(Op.NODE_SHAPE, n.id, n.text, kind, node=n.id,
                   shape=rng.choice([s for s in SHAPES if s != n.shape]))
        factors = rng.sample([0.6, 0.75, 1.25, 1.5], 4)
        size = None if _has_port(d, n.id) else _placement(
            d, n.id, [[x, y, round(w * f), round(h * f)] for f in factors])
        if size is not None:
            yield edit(Op.NODE_SIZE, n.id, n.text, kind, node=n.id, old_bbox=n.bbox,
                       bbox=size)
        yield edit(Op.NODE_TEXT, n.id, n.text, kind, node=n.id,
                   text=rng.choice([t for t in WORDS if t != n.text]))
        yield edit(Op.DELETE_NODE, n.id, n.text, kind, node=n.id)
        steps = rng.sample([(dx * s, dy * s) for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1))
                            for s in (40, 60, 80)], 12)
        to = _placement(d, n.id, [[x + dx, y + dy, w, h] for dx, dy in steps])
        if to is not None:
            carried = sorted(k for k in d.descendants(n.id) if k in d.nodes)
            yield edit(Op.MOVE_NODE, n.id, n.text, kind, node=n.id, old_bbox=n.bbox, bbox=to,
                       **({"carried": carried} if carried else {}))


def _edge_edits(d: Page, rng: random.Random) -> Iterator[dict]:
    g = d.graph
    pairs = {(e.source, e.target) for e in g.edges}
    edge_cells = [c for c in d.geo.order if c.get("edge") == "1"]
    for c, e in zip(edge_cells, g.edges, strict=True):
        if e.source is None or e.target is None:
            continue
        cid, kind = cell_id(c) or "", "edge"
        ends = {"source": e.source, "target": e.target, "label": e.label}
        yield edit(Op.EDGE_COLOUR, cid, e.label, kind, **ends,
                   colour=_other_colour(c, "strokeColor", rng))
        style = parse_style(c.get("style") or "")
        look = (style.get("dashed", "0") == "1", _width(style.get("strokeWidth", "1")))
        dashed, width = rng.choice([s for s in STROKES if s != look])
        yield edit(Op.EDGE_STYLE, cid, e.label, kind, **ends, dashed=dashed, width=width)
        now = (style.get("endArrow", "classic") or "none", style.get("startArrow", "none")
               or "none")
        flip = _reversed(c)
        arrows = [(s, t, dr) if flip else (t, s, dr) for t, s, dr in ARROWS]
        end, start, directed = rng.choice([a for a in arrows if a[:2] != now])
        yield edit(Op.EDGE_ARROW, cid, e.label, kind, **ends, end=end, start=start,
                   directed=directed)
        yield edit(Op.DELETE_EDGE, cid, e.label, kind, **ends)
        third = [n.id for n in g.nodes if n.id not in (e.source, e.target)
                 and (e.source, n.id) not in pairs]
        if third:
            yield edit(Op.REDIRECT_EDGE, cid, e.label, kind, **ends,
                       new_target=rng.choice(third))
        sb, tb = d.nodes[e.source].bbox, d.nodes[e.target].bbox
        if sb and tb:
            mid = [round((sb[0] + sb[2] / 2 + tb[0] + tb[2] / 2) / 2),
                   round(max(sb[1] + sb[3], tb[1] + tb[3]) + rng.choice([30, 50]))]
            yield edit(Op.EDGE_PATH, cid, e.label, kind, **ends, points=[mid],
                       edge_style="orthogonalEdgeStyle")


def candidates(code: str, rng: random.Random) -> Iterator[dict]:
    """Every applicable edit of every operation, one per (operation, target), with
    parameters drawn from ``rng``. Preconditions: a box (for size, no port children)
    where every floating edge end stays attached where it was, for size and move; edges
    whose graph ends are both nodes, for edge operations; an arrow other than the edge's
    own; a third vertex for a redirect; a pair not yet joined for a new edge."""
    d = Page(code)
    g = d.graph
    yield from _node_edits(d, rng)
    used = set(d.cells)
    new_id = next(f"df{k}" for k in range(1, 10_000) if f"df{k}" not in used)
    text = rng.choice([t for t in WORDS if t not in {n.text for n in g.nodes}])
    yield edit(Op.ADD_NODE, new_id, text, "node", id=new_id, text=text, shape="rectangle",
               bbox=_free_box(d))
    yield from _edge_edits(d, rng)
    pairs = {(e.source, e.target) for e in g.edges}
    free = [(a.id, b.id) for a in g.nodes for b in g.nodes
            if a.id != b.id and (a.id, b.id) not in pairs and (b.id, a.id) not in pairs]
    if free:
        s, t = rng.choice(free)
        eid = next(f"de{k}" for k in range(1, 10_000) if f"de{k}" not in used)
        yield edit(Op.ADD_EDGE, eid, "", "edge", id=eid, source=s, target=t)
