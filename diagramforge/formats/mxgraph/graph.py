"""Exact structure graph of an mxGraph (draw.io) page, from its cells.

draw.io stores what we need explicitly, so nothing is guessed except where the file itself is
loose: a child's geometry is relative to its parent (groups, containers, swimlanes), so bboxes
are made absolute by adding the parents' offsets; an edge end saved as a bare
``sourcePoint``/``targetPoint`` (no ``source``/``target``) is attached to the vertex it lies in
or near (within ``attach_tolerance``), as a reader of the picture would; otherwise it is listed
in ``unattached``.  Edge labels are separate vertex cells parented to the edge: they become the
edge's label, never nodes.  A draw.io *group* (style ``group``, no label) draws nothing: its
children are the nodes, it is not one.  A label with ``placeholders="1"`` reads as draw.io
draws it (``%name%`` from the object's or an ancestor's attributes).  Inline stencils
(``shape=stencil(<base64>)``) are shape ``stencil``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from diagramforge.formats.mxgraph.notation import (
    cell_id,
    cells,
    decode,
    html_to_text,
    label_of,
    parse_xml,
)
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.settings import GraphParams


def parse_style(style: str) -> dict[str, str]:
    """``a=1;b=2;ellipse`` → ``{"a": "1", "b": "2", "ellipse": ""}`` (bare tokens kept)."""
    out: dict[str, str] = {}
    for part in style.split(";"):
        part = part.strip()
        if not part:
            continue
        k, _, v = part.partition("=")
        out[k.strip()] = v.strip()
    return out


def _shape(style: str) -> str:
    first = style.split(";", 1)[0].strip()
    m = re.search(r"(?:^|;)\s*shape=([^;]+)", style)
    if m:
        return "stencil" if m.group(1).startswith("stencil(") else m.group(1)
    return first if first and "=" not in first else "rectangle"


_PLACEHOLDER = re.compile(r"%(date\{.*\}|[^%^{^}]+)%")


def _placeholders(cell: etree._Element, label: str, by_id: dict[str, etree._Element]) -> str:
    """draw.io's ``replacePlaceholders``: ``%id%`` is the cell id; ``%name%`` the attribute of
    the nearest object wrapper up the parent chain that has it; ``%%`` escapes; anything
    else (page variables, dates) stays as written."""
    out, at = [], 0
    for m in _PLACEHOLDER.finditer(label):
        name, value = m.group(1), None
        if m.start() > at and label[m.start() - 1] == "%":
            value = m.group(0)[1:]
        elif name == "id":
            value = cell_id(cell)
        elif name not in ("label", "tooltip") and "{" not in name:
            c: etree._Element | None = cell
            seen: set[str] = set()
            while value is None and c is not None and (cell_id(c) or "") not in seen:
                seen.add(cell_id(c) or "")
                wrapper = c.getparent()
                if wrapper is not None and wrapper.tag in ("object", "UserObject"):
                    value = wrapper.get(name)
                c = by_id.get(c.get("parent") or "")
        out.append(label[at:m.start()] + (m.group(0) if value is None else value))
        at = m.end()
    return "".join(out) + label[at:]


def _text(cell: etree._Element, by_id: dict[str, etree._Element] | None = None) -> str:
    label = label_of(cell)
    wrapper = cell.getparent()
    if by_id is not None and wrapper is not None and wrapper.tag in ("object", "UserObject") \
            and wrapper.get("placeholders") == "1":
        label = _placeholders(cell, label, by_id)
    if "html=1" in (cell.get("style") or ""):
        return html_to_text(label)
    return label.strip()


def is_group(cell: etree._Element) -> bool:
    """A draw.io group: style ``group`` (draw.io's stylesheet draws it without fill or
    stroke) and no label — nothing on the page but its children."""
    style = cell.get("style") or ""
    return style.split(";", 1)[0].strip() == "group" and not label_of(cell).strip() \
        and "fillColor=#" not in style and "strokeColor=#" not in style


def _num(el: etree._Element | None, key: str) -> float:
    if el is None:
        return 0.0
    try:
        return float(el.get(key, 0))
    except ValueError:
        return 0.0


class PageCells:
    """Cells of one page indexed by id, with absolute vertex boxes memoised."""

    def __init__(self, model: etree._Element) -> None:
        self.by_id: dict[str, etree._Element] = {}
        self.order: list[etree._Element] = []
        for c in cells(model):
            cid = cell_id(c)
            if cid is not None:
                self.by_id.setdefault(cid, c)
                self.order.append(c)
        self._boxes: dict[str, list[float] | None] = {}

    def parent(self, c: etree._Element) -> etree._Element | None:
        pid = c.get("parent")
        return self.by_id.get(pid) if pid else None

    def origin(self, c: etree._Element, seen: frozenset[str] = frozenset()) -> tuple[float, float]:
        """Absolute position of the coordinate system ``c``'s geometry is written in."""
        p = self.parent(c)
        if p is None or p.get("vertex") != "1":
            return 0.0, 0.0  # layers and the root sit at the origin
        box = self.box(p, seen)
        return (box[0], box[1]) if box else (0.0, 0.0)

    def box(self, c: etree._Element, seen: frozenset[str] = frozenset()) -> list[float] | None:
        """Absolute ``[x, y, w, h]`` of a vertex; relative geometry (ports) is a fraction of
        the parent's size plus an optional ``offset`` point."""
        cid = cell_id(c) or ""
        if cid in self._boxes:
            return self._boxes[cid]
        if cid in seen:  # a parent cycle: a broken file, not our problem to draw
            return None
        seen = seen | {cid}
        g = c.find("mxGeometry")
        if g is None:
            self._boxes[cid] = None
            return None
        x, y, w, h = (_num(g, k) for k in ("x", "y", "width", "height"))
        p = self.parent(c)
        if g.get("relative") == "1" and p is not None and p.get("vertex") == "1":
            pb = self.box(p, seen) or [0.0, 0.0, 0.0, 0.0]
            off = g.find("mxPoint[@as='offset']")
            x, y = pb[0] + x * pb[2] + _num(off, "x"), pb[1] + y * pb[3] + _num(off, "y")
        else:
            ox, oy = self.origin(c, seen)
            x, y = x + ox, y + oy
        self._boxes[cid] = [x, y, w, h]
        return self._boxes[cid]


def _distance(box: list[float], x: float, y: float) -> float:
    dx = max(box[0] - x, 0.0, x - (box[0] + box[2]))
    dy = max(box[1] - y, 0.0, y - (box[1] + box[3]))
    return (dx * dx + dy * dy) ** 0.5


def nearest(nodes: list[Node], x: float, y: float, tol: float) -> str | None:
    """The node whose box holds (or is within ``tol`` of) the point; the innermost (smallest)
    wins, so a point on a shape inside a container attaches to the shape."""
    best: tuple[float, float, str] | None = None
    for n in nodes:
        if not n.bbox:
            continue
        d = _distance(n.bbox, x, y)
        if d <= tol:
            key = (d, n.bbox[2] * n.bbox[3], n.id)
            if best is None or key[:2] < best[:2]:
                best = key
    return best[2] if best else None


def _direction(style: dict[str, str]) -> tuple[bool, bool]:
    """(directed, reversed).  draw.io's default end arrow is ``classic``.  Arrows at both
    ends mean reachable both ways, stored as undirected; a start arrow alone reverses it."""
    end = style.get("endArrow", "classic") not in ("none", "")
    start = style.get("startArrow", "none") not in ("none", "")
    if end and start:
        return False, False
    if start:
        return True, True
    return end, False


@dataclass(frozen=True)
class FloatingEnd:
    """An edge end not attached to a node cell, drawn at its ``sourcePoint``/``targetPoint``:
    the node the graph attaches it to (or None) and the point in page coordinates."""

    edge: str
    end: str  # the cell's end ("source"/"target"), before any arrow reversal
    x: float
    y: float
    node: str | None


@dataclass
class PageGraph:
    """A page read once: its cells, its graph and how each floating edge end attached."""

    cells: PageCells
    graph: Graph
    floating: list[FloatingEnd]


def floating_ends(page: PageCells, nodes: list[Node], tol: float) -> list[FloatingEnd]:
    """Every edge end whose ``source``/``target`` is not a node and that has a point."""
    node_ids = {n.id for n in nodes}
    out: list[FloatingEnd] = []
    for c in page.order:
        if c.get("edge") != "1":
            continue
        g = c.find("mxGeometry")
        ox, oy = page.origin(c)
        for end in ("source", "target"):
            pt = g.find(f"mxPoint[@as='{end}Point']") if g is not None else None
            if c.get(end) in node_ids or pt is None:
                continue
            x, y = ox + _num(pt, "x"), oy + _num(pt, "y")
            out.append(FloatingEnd(cell_id(c) or "", end, x, y, nearest(nodes, x, y, tol)))
    return out


def read_page(model: etree._Element, params: GraphParams | None = None) -> PageGraph:
    """Graph of one parsed ``<mxGraphModel>``, with the cells and floating ends behind it
    (the edit operations keep those attachments as they are)."""
    params = params or GraphParams()
    page = PageCells(model)
    edge_ids = {cell_id(c) for c in page.order if c.get("edge") == "1"}
    labels: dict[str, list[str]] = {}
    nodes: list[Node] = []
    for c in page.order:
        if c.get("vertex") != "1":
            continue
        if c.get("parent") in edge_ids:  # an edge label (style edgeLabel), not a node
            text = _text(c, page.by_id)
            if text:
                labels.setdefault(c.get("parent") or "", []).append(text)
            continue
        if is_group(c):
            continue
        nodes.append(Node(id=cell_id(c) or "", text=_text(c, page.by_id),
                          shape=_shape(c.get("style") or ""), bbox=page.box(c)))
    node_ids = {n.id for n in nodes}
    floating = floating_ends(page, nodes, params.attach_tolerance)
    attached = {(f.edge, f.end): f.node for f in floating}
    edges: list[Edge] = []
    for c in page.order:
        if c.get("edge") != "1":
            continue
        eid = cell_id(c) or ""
        ends: dict[str, str | None] = {}
        for end in ("source", "target"):
            ref = c.get(end)
            ends[end] = ref if ref in node_ids else attached.get((eid, end))
        style = parse_style(c.get("style") or "")
        directed, reverse = _direction(style)
        src, tgt = ends["source"], ends["target"]
        if reverse:
            src, tgt = tgt, src
        text = "\n".join(t for t in [_text(c, page.by_id), *labels.get(eid, [])] if t)
        both = (style.get("endArrow", "classic") not in ("none", "")
                and style.get("startArrow", "none") not in ("none", ""))
        edges.append(Edge(source=src, target=tgt, label=text, directed=directed,
                          both_heads=both,
                          unattached=[k for k, v in (("source", src), ("target", tgt))
                                      if v is None]))
    return PageGraph(page, Graph(nodes=nodes, edges=edges), floating)


def model_graph(model: etree._Element, params: GraphParams | None = None) -> Graph:
    """Graph of one parsed ``<mxGraphModel>``."""
    return read_page(model, params).graph


def mxgraph_graph(xml: str | bytes, params: GraphParams | None = None) -> Graph:
    """Graph of an uncompressed ``<mxGraphModel>`` (an ``<mxfile>`` gives its first page)."""
    root = parse_xml(xml)
    if root.tag != "mxGraphModel":
        raw = xml.encode() if isinstance(xml, str) else xml
        pages = [p for p in decode(raw) if p.model is not None]
        root = pages[0].model  # decode() refuses a file without pages
    return model_graph(root, params)
