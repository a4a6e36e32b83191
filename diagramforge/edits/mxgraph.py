"""VCG-Bench's fourteen atomic operations on an mxGraph page, on its XML tree (lxml).

Targets are cells by id (the graph's node ids are cell ids). :func:`candidates` proposes
edits whose preconditions hold (a redirect needs a third vertex, a size change a vertex
without children whose geometry is relative, …); :func:`apply_edit` applies one and raises
:class:`~.base.EditError` when the code does not allow it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from lxml import etree

from diagramforge.edits.base import PALETTE, WORDS, EditError, Op, edit
from diagramforge.formats.mxgraph import _set_label, cell_id, cells, parse_xml
from diagramforge.graphs.mxgraph import model_graph, parse_style

OPS: tuple[Op, ...] = tuple(Op)
SHAPES = ["ellipse", "rhombus", "hexagon", "triangle", "cylinder3", "parallelogram",
          "process", "cloud", "rectangle"]
"""Shapes a node may become; the graph calls them by these names (``shape=<name>``)."""
NAMED_SHAPES = frozenset({"ellipse", "rhombus", "triangle", "hexagon", "cloud", "cylinder",
                          "doubleEllipse", "swimlane", "label", "image", "text", "rectangle"})
"""Bare style tokens that name a shape (draw.io's named styles)."""


def _format_style(style: dict[str, str]) -> str:
    return "".join(f"{k}={v};" if v != "" or "=" in k else f"{k};" for k, v in style.items())


def _set_style(cell: etree._Element, **kv: str | None) -> None:
    style = parse_style(cell.get("style") or "")
    for k, v in kv.items():
        if v is None:
            style.pop(k, None)
        else:
            style[k] = v
    cell.set("style", _format_style(style))


class _Doc:
    def __init__(self, code: str):
        self.model = parse_xml(code)
        self.cells = {cell_id(c): c for c in cells(self.model) if cell_id(c) is not None}

    def code(self) -> str:
        return etree.tostring(self.model, encoding="unicode")

    def cell(self, cid: str, kind: str) -> etree._Element:
        c = self.cells.get(cid)
        if c is None or c.get(kind) != "1":
            raise EditError(f"no {kind} cell {cid!r}")
        return c

    def element(self, cid: str) -> etree._Element:
        """The element to remove for a cell: its ``<object>`` wrapper when it has one."""
        c = self.cells[cid]
        p = c.getparent()
        return p if p is not None and p.tag in ("object", "UserObject") else c

    def remove(self, cid: str) -> None:
        """A cell and everything parented to it (children, edge labels)."""
        for child in [k for k, c in self.cells.items() if c.get("parent") == cid]:
            self.remove(child)
        el = self.element(cid)
        if el.getparent() is not None:
            el.getparent().remove(el)
        self.cells.pop(cid, None)

    def new_id(self, stem: str) -> str:
        k = 1
        while f"{stem}{k}" in self.cells:
            k += 1
        return f"{stem}{k}"

    def layer(self, ref: etree._Element) -> str:
        return ref.get("parent") or "1"

    def append(self, el: etree._Element) -> None:
        self.model.find("root").append(el)


def _geometry(c: etree._Element) -> etree._Element:
    g = c.find("mxGeometry")
    if g is None or g.get("relative") == "1":
        raise EditError(f"cell {cell_id(c)!r} has no absolute geometry")
    return g


def _num(g: etree._Element, k: str) -> float:
    return float(g.get(k, 0) or 0)


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}"


def apply_edit(code: str, ed: dict) -> str:
    """``code`` with the edit applied (an uncompressed ``<mxGraphModel>``)."""
    d = _Doc(code)
    op, p, tid = Op(ed["op"]), ed.get("params", {}), ed["target"]["id"]
    if op == Op.NODE_COLOUR:
        _set_style(d.cell(tid, "vertex"), fillColor=p["colour"])
    elif op == Op.NODE_SHAPE:
        c = d.cell(tid, "vertex")
        style = {k: v for k, v in parse_style(c.get("style") or "").items()
                 if not (v == "" and k in NAMED_SHAPES) and k not in ("shape", "perimeter")}
        if p["shape"] != "rectangle":
            style = {"shape": p["shape"], **style}
        c.set("style", _format_style(style))
    elif op in (Op.NODE_SIZE, Op.MOVE_NODE):
        g = _geometry(d.cell(tid, "vertex"))
        x, y, w, h = p["bbox"]
        # the graph's bbox is absolute; the geometry is relative to the parent's origin
        dx, dy = x - p["old_bbox"][0], y - p["old_bbox"][1]
        g.set("x", _fmt(_num(g, "x") + dx))
        g.set("y", _fmt(_num(g, "y") + dy))
        g.set("width", _fmt(w))
        g.set("height", _fmt(h))
    elif op == Op.NODE_TEXT:
        c = d.cell(tid, "vertex")
        _set_label(c, p["text"])
    elif op == Op.DELETE_NODE:
        d.cell(tid, "vertex")
        for k in [k for k, c in d.cells.items() if c.get("edge") == "1"
                  and tid in (c.get("source"), c.get("target"))]:
            d.remove(k)
        d.remove(tid)
    elif op == Op.ADD_NODE:
        if p["id"] in d.cells:
            raise EditError(f"id {p['id']!r} is taken")
        x, y, w, h = p["bbox"]
        shape = "" if p["shape"] == "rectangle" else f"shape={p['shape']};"
        el = etree.SubElement(d.model.find("root"), "mxCell", id=p["id"], value=p["text"],
                              style=f"{shape}whiteSpace=wrap;html=1;", vertex="1",
                              parent=p.get("parent", "1"))
        etree.SubElement(el, "mxGeometry", x=_fmt(x), y=_fmt(y), width=_fmt(w),
                         height=_fmt(h), **{"as": "geometry"})
    elif op == Op.EDGE_COLOUR:
        _set_style(d.cell(tid, "edge"), strokeColor=p["colour"])
    elif op == Op.EDGE_STYLE:
        _set_style(d.cell(tid, "edge"), dashed="1" if p.get("dashed") else "0",
                   strokeWidth=str(p.get("width", 1)))
    elif op == Op.EDGE_ARROW:
        _set_style(d.cell(tid, "edge"), endArrow=p["end"], startArrow=p["start"])
    elif op == Op.DELETE_EDGE:
        d.cell(tid, "edge")
        d.remove(tid)
    elif op == Op.ADD_EDGE:
        if p["id"] in d.cells:
            raise EditError(f"id {p['id']!r} is taken")
        for end in ("source", "target"):
            d.cell(p[end], "vertex")
        el = etree.SubElement(d.model.find("root"), "mxCell", id=p["id"], value="",
                              style="edgeStyle=orthogonalEdgeStyle;rounded=0;html=1;"
                                    "endArrow=classic;", edge="1", parent="1",
                              source=p["source"], target=p["target"])
        etree.SubElement(el, "mxGeometry", relative="1", **{"as": "geometry"})
    elif op == Op.REDIRECT_EDGE:
        c = d.cell(tid, "edge")
        d.cell(p["new_target"], "vertex")
        c.set("target", p["new_target"])
        g = c.find("mxGeometry")
        for pt in [] if g is None else g.findall("mxPoint[@as='targetPoint']"):
            g.remove(pt)
    elif op == Op.EDGE_PATH:
        c = d.cell(tid, "edge")
        g = c.find("mxGeometry")
        if g is None:
            g = etree.SubElement(c, "mxGeometry", relative="1", **{"as": "geometry"})
        for arr in g.findall("Array[@as='points']"):
            g.remove(arr)
        arr = etree.SubElement(g, "Array", **{"as": "points"})
        for x, y in p["points"]:
            etree.SubElement(arr, "mxPoint", x=_fmt(x), y=_fmt(y))
        _set_style(c, edgeStyle=p.get("edge_style"))
    return d.code()


def _free_box(boxes: list[list[float]], w: float = 120, h: float = 60) -> list[float]:
    """A box right of everything, so a new node overlaps nothing."""
    if not boxes:
        return [40.0, 40.0, w, h]
    right = max(b[0] + b[2] for b in boxes)
    top = min(b[1] for b in boxes)
    return [float(round(right + 40)), float(round(top)), w, h]


def _other_colour(cell: etree._Element, key: str, rng: random.Random) -> str:
    """A palette colour the cell does not have already (else the edit changes nothing)."""
    now = parse_style(cell.get("style") or "").get(key, "").lower()
    return rng.choice([c for c in PALETTE if c != now])


def candidates(code: str, rng: random.Random) -> Iterator[dict]:
    """Every applicable edit of every operation, one per (operation, target), with
    parameters drawn from ``rng``. Preconditions: vertices with absolute geometry and no
    child vertices for size/move/delete; edges with both ends on vertices, not reversed,
    for edge operations; a third vertex for a redirect; a pair not yet joined for a new
    edge."""
    d = _Doc(code)
    g = model_graph(d.model)
    ids = {n.id for n in g.nodes}
    parents = {c.get("parent") for c in d.cells.values()}
    nodes = [n for n in g.nodes if n.bbox is not None and n.id not in parents
             and d.cells[n.id].find("mxGeometry") is not None
             and d.cells[n.id].find("mxGeometry").get("relative") != "1"]
    edge_cells = [c for c in cells(d.model) if c.get("edge") == "1"]
    boxes = [n.bbox for n in g.nodes if n.bbox]
    for n in nodes:
        kind = "node"
        yield edit(Op.NODE_COLOUR, n.id, n.text, kind, node=n.id,
                   colour=_other_colour(d.cells[n.id], "fillColor", rng))
        yield edit(Op.NODE_SHAPE, n.id, n.text, kind, node=n.id,
                   shape=rng.choice([s for s in SHAPES if s != n.shape]))
        x, y, w, h = n.bbox
        f = rng.choice([0.6, 0.75, 1.25, 1.5])
        yield edit(Op.NODE_SIZE, n.id, n.text, kind, node=n.id, old_bbox=n.bbox,
                   bbox=[x, y, round(w * f), round(h * f)])
        yield edit(Op.NODE_TEXT, n.id, n.text, kind, node=n.id,
                   text=rng.choice([t for t in WORDS if t != n.text]))
        yield edit(Op.DELETE_NODE, n.id, n.text, kind, node=n.id)
        dx, dy = rng.choice([(-1, 0), (1, 0), (0, -1), (0, 1)])
        step = rng.choice([40, 60, 80])
        yield edit(Op.MOVE_NODE, n.id, n.text, kind, node=n.id, old_bbox=n.bbox,
                   bbox=[x + dx * step, y + dy * step, w, h])
    used = set(d.cells)
    new_id = next(f"df{k}" for k in range(1, 10_000) if f"df{k}" not in used)
    text = rng.choice([t for t in WORDS if t not in {n.text for n in g.nodes}])
    yield edit(Op.ADD_NODE, new_id, text, "node", id=new_id, text=text, shape="rectangle",
               bbox=_free_box(boxes))
    pairs = {(e.source, e.target) for e in g.edges}
    for c, e in zip(edge_cells, g.edges, strict=True):
        if c.get("source") not in ids or c.get("target") not in ids or e.source is None \
                or e.target is None or (e.source, e.target) != (c.get("source"),
                                                                c.get("target")):
            continue
        cid, kind = cell_id(c), "edge"
        ends = {"source": e.source, "target": e.target, "label": e.label}
        yield edit(Op.EDGE_COLOUR, cid, e.label, kind, **ends,
                   colour=_other_colour(c, "strokeColor", rng))
        yield edit(Op.EDGE_STYLE, cid, e.label, kind, **ends, dashed=True,
                   width=rng.choice([2, 3]))
        arrow = rng.choice([("block", "none", True), ("open", "none", True),
                            ("none", "none", False), ("classic", "classic", False)])
        yield edit(Op.EDGE_ARROW, cid, e.label, kind, **ends, end=arrow[0], start=arrow[1],
                   directed=arrow[2])
        yield edit(Op.DELETE_EDGE, cid, e.label, kind, **ends)
        third = [n.id for n in g.nodes if n.id not in (e.source, e.target)
                 and (e.source, n.id) not in pairs]
        if third:
            yield edit(Op.REDIRECT_EDGE, cid, e.label, kind, **ends,
                       new_target=rng.choice(third))
        sb, tb = d_box(g, e.source), d_box(g, e.target)
        if sb and tb:
            mid = [round((sb[0] + sb[2] / 2 + tb[0] + tb[2] / 2) / 2),
                   round(max(sb[1] + sb[3], tb[1] + tb[3]) + rng.choice([30, 50]))]
            yield edit(Op.EDGE_PATH, cid, e.label, kind, **ends, points=[mid],
                       edge_style="orthogonalEdgeStyle")
    free = [(a.id, b.id) for a in g.nodes for b in g.nodes
            if a.id != b.id and (a.id, b.id) not in pairs and (b.id, a.id) not in pairs]
    if free:
        s, t = rng.choice(free)
        eid = next(f"de{k}" for k in range(1, 10_000) if f"de{k}" not in used)
        yield edit(Op.ADD_EDGE, eid, "", "edge", id=eid, source=s, target=t)


def d_box(g, nid: str) -> list[float] | None:  # noqa: ANN001 - a Graph
    return next((n.bbox for n in g.nodes if n.id == nid), None)
