"""Exact structure graph of an mxGraph (draw.io) page, from its cells.

draw.io stores what we need explicitly, so nothing is guessed except where the file itself is
loose: a child's geometry is relative to its parent (groups, containers, swimlanes), so bboxes
are made absolute by adding the parents' offsets; an edge end saved as a bare
``sourcePoint``/``targetPoint`` (no ``source``/``target``) is attached to the vertex it lies in
or near (within ``attach_tolerance``), as a reader of the picture would; otherwise it is listed
in ``unattached``.  Edge labels are separate vertex cells parented to the edge: they become the
edge's label, never nodes.
"""

from __future__ import annotations

import re

from lxml import etree

from diagramforge.formats.mxgraph import (
    cell_id,
    cells,
    decode,
    html_to_text,
    label_of,
    parse_xml,
)
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.params import GraphParams


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
        return m.group(1)
    return first if first and "=" not in first else "rectangle"


def _text(cell: etree._Element) -> str:
    label = label_of(cell)
    if "html=1" in (cell.get("style") or ""):
        return html_to_text(label)
    return label.strip()


def _num(el: etree._Element | None, key: str) -> float:
    if el is None:
        return 0.0
    try:
        return float(el.get(key, 0))
    except ValueError:
        return 0.0


class _Page:
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


def _nearest(nodes: list[Node], x: float, y: float, tol: float) -> str | None:
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


def model_graph(model: etree._Element, params: GraphParams | None = None) -> Graph:
    """Graph of one parsed ``<mxGraphModel>``."""
    params = params or GraphParams()
    page = _Page(model)
    edge_ids = {cell_id(c) for c in page.order if c.get("edge") == "1"}
    labels: dict[str, list[str]] = {}
    nodes: list[Node] = []
    for c in page.order:
        if c.get("vertex") != "1":
            continue
        if c.get("parent") in edge_ids:  # an edge label (style edgeLabel), not a node
            text = _text(c)
            if text:
                labels.setdefault(c.get("parent") or "", []).append(text)
            continue
        nodes.append(Node(id=cell_id(c) or "", text=_text(c), shape=_shape(c.get("style") or ""),
                          bbox=page.box(c)))
    node_ids = {n.id for n in nodes}
    edges: list[Edge] = []
    for c in page.order:
        if c.get("edge") != "1":
            continue
        eid = cell_id(c) or ""
        ends: dict[str, str | None] = {}
        g = c.find("mxGeometry")
        ox, oy = page.origin(c)
        for end in ("source", "target"):
            ref = c.get(end)
            if ref in node_ids:
                ends[end] = ref
                continue
            pt = g.find(f"mxPoint[@as='{end}Point']") if g is not None else None
            ends[end] = None if pt is None else _nearest(
                nodes, ox + _num(pt, "x"), oy + _num(pt, "y"), params.attach_tolerance)
        directed, reverse = _direction(parse_style(c.get("style") or ""))
        src, tgt = ends["source"], ends["target"]
        if reverse:
            src, tgt = tgt, src
        text = "\n".join(t for t in [_text(c), *labels.get(eid, [])] if t)
        edges.append(Edge(source=src, target=tgt, label=text, directed=directed,
                          unattached=[k for k, v in (("source", src), ("target", tgt))
                                      if v is None]))
    return Graph(nodes=nodes, edges=edges)


def mxgraph_graph(xml: str | bytes, params: GraphParams | None = None) -> Graph:
    """Graph of an uncompressed ``<mxGraphModel>`` (an ``<mxfile>`` gives its first page)."""
    root = parse_xml(xml)
    if root.tag != "mxGraphModel":
        raw = xml.encode() if isinstance(xml, str) else xml
        pages = [p for p in decode(raw) if p.model is not None]
        root = pages[0].model  # decode() refuses a file without pages
    return model_graph(root, params)
