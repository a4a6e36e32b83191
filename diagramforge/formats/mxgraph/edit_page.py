"""An mxGraph page as the edit operations change it: cells by id, styles token by token,
geometry in each cell's own coordinate system, and the floating edge ends the structure
graph attached to nodes.

Real draw.io pages are not flat: a child's geometry is relative to its parent (containers,
swimlanes, groups, tables), a port's is a fraction of its parent's size plus an offset, an
edge inside a container writes its points in the container's coordinates, and an edge end
may float at a ``sourcePoint``/``targetPoint`` that the graph reads as attached to the node
it lies on (``graphs.mxgraph``). An edit that keeps the structure graph it promises has to
move, lift and re-point all of these together; :class:`Page` does it.
"""

from __future__ import annotations

from collections.abc import Iterable

from lxml import etree

from diagramforge.formats.edits import EditError
from diagramforge.formats.mxgraph.graph import FloatingEnd, nearest, read_page
from diagramforge.formats.mxgraph.notation import cell_id, cells, parse_xml
from diagramforge.graphs.model import Node
from diagramforge.graphs.settings import GraphParams

WRAPPERS = ("object", "UserObject")
POINTS = "mxPoint[@as='sourcePoint']|mxPoint[@as='targetPoint']|Array[@as='points']/mxPoint"


def style_key(token: str) -> str | None:
    """``k`` of a ``k=v`` token; None for a bare token (a named style such as ``image``)."""
    return token.split("=", 1)[0].strip() if "=" in token else None


def set_style(cell: etree._Element, **kv: str | None) -> None:
    """Set (or with None remove) ``k=v`` tokens, keeping every other token where it was.
    Token by token, not through a dict: ``image;image=img/...`` has a bare token and a key
    of the same name, and the bare token (draw.io's named style, the node's shape) must
    stay first."""
    tokens = [t.strip() for t in (cell.get("style") or "").split(";") if t.strip()]
    for k, v in kv.items():
        at = next((i for i, t in enumerate(tokens) if style_key(t) == k), None)
        tokens = [t for i, t in enumerate(tokens) if style_key(t) != k or i == at]
        if v is None:
            if at is not None:
                del tokens[at]
        elif at is None:
            tokens.append(f"{k}={v}")
        else:
            tokens[at] = f"{k}={v}"
    cell.set("style", "".join(f"{t};" for t in tokens))


def fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}"


def num(el: etree._Element | None, k: str) -> float:
    try:
        return float(el.get(k, 0) or 0) if el is not None else 0.0
    except ValueError:
        return 0.0


def shift(el: etree._Element, dx: float, dy: float) -> None:
    el.set("x", fmt(num(el, "x") + dx))
    el.set("y", fmt(num(el, "y") + dy))


class Page:
    """One parsed page, its graph and floating ends read once (before any change)."""

    def __init__(self, code: str):
        self.model = parse_xml(code)
        self.cells = {cell_id(c): c for c in cells(self.model) if cell_id(c) is not None}
        params = GraphParams()  # the sampler verifies with the graph's defaults
        self.tol = params.attach_tolerance
        read = read_page(self.model, params)
        self.geo, self.graph, self.floating = read.cells, read.graph, read.floating
        self.nodes = {n.id: n for n in self.graph.nodes}
        self._index: tuple[int, dict[str | None, list[str]]] | None = None

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
        return p if p is not None and p.tag in WRAPPERS else c

    def layer(self) -> str:
        """The first layer (a child of the root cell): where draw.io puts new cells. Not
        always ``"1"``: pages keep the ids their editor gave them."""
        roots = [k for k, c in self.cells.items() if c.get("parent") is None]
        return next((k for k, c in self.cells.items() if c.get("parent") in roots),
                    roots[0] if roots else "1")

    def children(self, cid: str) -> list[str]:
        return list(self._kids().get(cid, ()))

    def descendants(self, cid: str) -> list[str]:
        out, todo = [], self.children(cid)
        while todo:
            k = todo.pop()
            out.append(k)
            todo += self.children(k)
        return out

    def _kids(self) -> dict[str | None, list[str]]:
        """Each cell's children, in page order: read once for as long as no cell comes,
        goes or changes parent (the sampler asks for a node's subtree for every box it
        tries, and a scan of the page per ask made that quadratic)."""
        if self._index is None or self._index[0] != len(self.cells):
            kids: dict[str | None, list[str]] = {}
            for k, c in self.cells.items():
                kids.setdefault(c.get("parent"), []).append(k)
            self._index = (len(self.cells), kids)
        return self._index[1]

    def origin(self, cid: str) -> tuple[float, float]:
        """Page position of the coordinate system ``cid``'s geometry is written in."""
        return self.geo.origin(self.cells[cid])

    # -- floating ends ------------------------------------------------------------------
    def attached_to(self, ids: Iterable[str]) -> list[FloatingEnd]:
        ids = set(ids)
        return [f for f in self.floating if f.node in ids]

    def move_end(self, f: FloatingEnd, x: float, y: float) -> None:
        """Put a floating end at page position ``(x, y)`` (its point is in its edge's
        parent's coordinates)."""
        g = self.cells[f.edge].find("mxGeometry")
        pt = g.find(f"mxPoint[@as='{f.end}Point']")
        ox, oy = self.origin(f.edge)
        pt.set("x", fmt(x - ox))
        pt.set("y", fmt(y - oy))

    def keeps_attachments(self, boxes: dict[str, list[float]],
                          moved: dict[tuple[str, str], tuple[float, float]]) -> bool:
        """Would every floating end still attach where it does, with the nodes in ``boxes``
        at their new boxes and the ends in ``moved`` at their new points? Only ends that
        moved, were on a changed node or now lie near a changed box can change."""
        tol = self.tol
        nodes: list[Node] | None = None  # made for the first end that needs them: most
        # calls have none (the sampler asks for up to 16 boxes per node of the page, and a
        # page of validated nodes made for each call was most of an edit's time)
        for f in self.floating:
            x, y = moved.get((f.edge, f.end), (f.x, f.y))
            if (f.edge, f.end) not in moved and f.node not in boxes and not any(
                    _near(b, x, y, tol) for b in boxes.values()):
                continue
            if nodes is None:
                nodes = [Node.model_construct(id=n.id, bbox=boxes[n.id]) if n.id in boxes
                         else n for n in self.graph.nodes]
            if nearest(nodes, x, y, tol) != f.node:
                return False
        return True

    # -- removal ------------------------------------------------------------------------
    def remove(self, cid: str) -> None:
        """A cell and everything parented to it (children, edge labels); terminals of
        other edges that pointed at what went become floating points there."""
        gone = [cid, *self.descendants(cid)]
        where = {k: self.centre(k) for k in gone}
        self._index = None
        for k in gone:
            el = self.element(k)
            if el.getparent() is not None:
                el.getparent().remove(el)
            self.cells.pop(k, None)
        for c in self.cells.values():
            for end in ("source", "target"):
                ref = c.get(end)
                if c.get("edge") == "1" and ref in where:
                    self._float(c, end, where[ref])

    def _float(self, c: etree._Element, end: str, at: tuple[float, float] | None) -> None:
        del c.attrib[end]
        g = c.find("mxGeometry")
        if g is None:
            g = etree.SubElement(c, "mxGeometry", relative="1", **{"as": "geometry"})
        if g.find(f"mxPoint[@as='{end}Point']") is None:
            ox, oy = self.geo.origin(c)
            x, y = at or (ox, oy)
            etree.SubElement(g, "mxPoint", x=fmt(x - ox), y=fmt(y - oy), **{"as": f"{end}Point"})

    def centre(self, cid: str) -> tuple[float, float] | None:
        """Page position of a cell's middle: a vertex's box centre; for an edge, halfway
        between its ends (where another edge joined to it is drawn)."""
        c = self.cells.get(cid)
        if c is None:
            return None
        if c.get("vertex") == "1":
            b = self.geo.box(c)
            return (b[0] + b[2] / 2, b[1] + b[3] / 2) if b else None
        ends = []
        for end in ("source", "target"):
            ref = c.get(end)
            f = next((f for f in self.floating if f.edge == cid and f.end == end), None)
            ends.append(self.centre(ref) if ref in self.cells and ref != cid
                        else (f.x, f.y) if f else None)
        if None in ends:
            return None
        (x1, y1), (x2, y2) = ends
        return (x1 + x2) / 2, (y1 + y2) / 2

    def lift_children(self, cid: str) -> None:
        """Re-parent ``cid``'s children to its parent, where they are on the page: vertex
        geometry (ports' relative geometry too) and edge points rewritten in the new
        parent's coordinates."""
        c = self.cells[cid]
        new_parent = c.get("parent")
        ox, oy = self.origin(cid)
        for k in self.children(cid):
            ch = self.cells[k]
            g = ch.find("mxGeometry")
            if ch.get("vertex") == "1" and g is not None:
                box = self.geo.box(ch)
                if box is not None:
                    g.attrib.pop("relative", None)
                    for off in g.findall("mxPoint[@as='offset']"):
                        g.remove(off)
                    g.set("x", fmt(box[0] - ox))
                    g.set("y", fmt(box[1] - oy))
            elif ch.get("edge") == "1" and g is not None:
                px, py = self.geo.origin(ch)
                for pt in g.xpath(POINTS):
                    shift(pt, px - ox, py - oy)
            ch.set("parent", new_parent or self.layer())
        self._index = None


def _near(box: list[float] | None, x: float, y: float, tol: float) -> bool:
    return box is not None and box[0] - tol <= x <= box[0] + box[2] + tol \
        and box[1] - tol <= y <= box[1] + box[3] + tol
