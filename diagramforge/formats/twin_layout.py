"""Where a twin's nodes go: the source's own layout when every node has a bbox, else a
layered drawing of the structure (longest-path layers, in source order; a cycle's nodes side
by side, as far apart as the labels between them need), so a writer for a language with
explicit positions (TikZ, mxGraph) always has one.

Which node holds which (:func:`containers`: a swimlane, a cluster, a group's frame, a UML
class around its rows) is read from the same boxes, so every writer can draw a container
as one — a DOT cluster, a Mermaid subgraph, a frame with its label on top — and the layout
writers' boxes (:func:`fit_boxes`) are sized from their text, so no label is set larger
than its box and spills onto its neighbours'."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx

from diagramforge.graphs.model import Graph, Node


class WriteError(ValueError):
    """A graph this language cannot express (the ledger's reason is :attr:`reason`)."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


DANGLING = "twin_dangling_edge"
EMPTY = "twin_empty_graph"
UNDRAWABLE = "twin_structure_undrawable"
CROWDED = "twin_text_overlaps"
"""An edge label with no room on its line: the same reason as text found overlapping on a
rendered twin (``builders/twin/readable.py``), found before drawing it."""
FRAME_SHAPES = frozenset({"container", "swimlane"})
"""Shapes the readers give a frame around other nodes: a DOT cluster's and a Mermaid
subgraph's ``container``, draw.io's ``swimlane``."""
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Placed:
    """Node boxes ``id → (x, y, w, h)`` (y down, origin at the drawing's corner) and
    whether they are the source's own layout."""

    boxes: dict[str, tuple[float, float, float, float]]
    from_source: bool


def check_expressible(g: Graph) -> None:
    """Every language here draws edges between nodes: an edge with a free end (draw.io
    lets one end anywhere) has no counterpart, nor has an empty drawing."""
    if not g.nodes:
        raise WriteError(EMPTY, "no nodes")
    ids = {n.id for n in g.nodes}
    for e in g.edges:
        if e.source not in ids or e.target not in ids:
            raise WriteError(DANGLING, f"edge {e.source}->{e.target} has a free end")


def place(g: Graph, node_w: float = 120.0, node_h: float = 50.0, gap: float = 40.0
          ) -> Placed:
    """The source's boxes (shifted to the origin), or layers of the directed structure."""
    if g.nodes and all(n.bbox and len(n.bbox) == 4 for n in g.nodes):
        x0 = min(n.bbox[0] for n in g.nodes)  # type: ignore[index]
        y0 = min(n.bbox[1] for n in g.nodes)  # type: ignore[index]
        return Placed({n.id: (n.bbox[0] - x0, n.bbox[1] - y0,  # type: ignore[index]
                              max(n.bbox[2], 1.0), max(n.bbox[3], 1.0))  # type: ignore[index]
                       for n in g.nodes}, True)
    d = g.to_networkx()
    cond = nx.condensation(d)
    depth: dict[int, int] = {}
    for c in nx.topological_sort(cond):
        depth[c] = max((depth[p] + 1 for p in cond.predecessors(c)), default=0)
    layer = {n: depth[cond.graph["mapping"][n]] for n in d.nodes}
    # a cycle's nodes share a layer: the edges between them run across the gap between
    # columns, which must hold their labels (about 7 units a character at 12 px)
    across = [len(max(e.label.split("\n"), key=len)) for e in g.edges
              if e.label and e.source != e.target
              and layer.get(e.source or "") == layer.get(e.target or "") is not None]
    col_gap = max([gap] + [7.0 * n + 24.0 for n in across])
    rows: dict[int, int] = {}
    boxes = {}
    for n in g.nodes:  # source order within a layer
        k = layer[n.id]
        col = rows.get(k, 0)
        rows[k] = col + 1
        boxes[n.id] = (col * (node_w + col_gap), k * (node_h + gap), node_w, node_h)
    return Placed(boxes, False)


def _holds(a: list[float], b: list[float], tolerance: float) -> bool:
    return (b[2] * b[3] < a[2] * a[3] and a[0] - tolerance <= b[0]
            and a[1] - tolerance <= b[1] and b[0] + b[2] <= a[0] + a[2] + tolerance
            and b[1] + b[3] <= a[1] + a[3] + tolerance)


def containers(g: Graph, tolerance: float = 1.0) -> dict[str, str]:
    """``child id → holder id``: the smallest node whose box holds the child's box (a
    swimlane, a draw.io ``container=1`` shape or a group's frame, a DOT cluster, a Mermaid
    subgraph, a UML class around its rows).  Nested holders form a tree; a node held by
    nothing is not in the map."""
    boxed = [n for n in g.nodes if n.bbox and len(n.bbox) == 4]
    out: dict[str, str] = {}
    for b in boxed:
        best = None
        for a in boxed:
            if a is not b and _holds(a.bbox, b.bbox, tolerance) and (  # type: ignore[arg-type]
                    best is None or a.bbox[2] * a.bbox[3] < best.bbox[2] * best.bbox[3]):  # type: ignore[index]
                best = a
        if best is not None:
            out[b.id] = best.id
    return out


@dataclass(frozen=True)
class Font:
    """What a target draws text with, in the units of its boxes: a character's width (an
    estimate a little wider than the font's mean advance), a line's height, and the room a
    label needs around it."""

    char: float
    line: float
    pad: float

    def need(self, text: str) -> tuple[float, float]:
        lines = text.split("\n") if text else [""]
        return (max(len(ln) for ln in lines) * self.char + self.pad,
                len(lines) * self.line + self.pad)


def fit_boxes(g: Graph, unit: float, font: Font, max_spread: float, margin: float = 20.0,
              growth: Callable[[Node], float] | None = None) -> dict[str, Box]:
    """Each node's box in the target (x, y, w, h, ``margin`` from the corner): the placed
    box × ``unit``, grown about its centre to hold its text in ``font``; the centres are
    spread by the one factor (≤ ``max_spread``) that keeps grown boxes as far apart as the
    source's were and gives each edge's label room on the line between its nodes, so
    positions keep their relations (a label that has no room even so: :class:`WriteError`,
    :data:`CROWDED`).  A container (:func:`containers`) is
    scaled whole by that factor, then grown to hold its children with a line for its label
    above them (its label is drawn at its top).  ``growth`` says how much larger than its
    text a node's shape is drawn (TikZ sets a diamond round its text box, twice as wide)."""
    placed = place(g)
    held = containers(g) if placed.from_source else {}
    holders = set(held.values())
    scaled = {i: tuple(v * unit for v in b) for i, b in placed.boxes.items()}
    need = {n.id: tuple(v * (growth(n) if growth else 1.0) for v in font.need(n.text))
            for n in g.nodes}
    spread = 1.0
    for n in g.nodes:
        if n.id not in holders:
            _, _, w, h = scaled[n.id]
            spread = max(spread, need[n.id][0] / max(w, 1.0), need[n.id][1] / max(h, 1.0))
    room = _label_room(g, scaled, need, font, holders)
    spread = max([spread, *(r for r, _ in room)])
    if spread > max_spread and any(r > max_spread for r, _ in room):
        crowded = [why for r, why in room if r > max_spread]
        raise WriteError(CROWDED, f"{len(crowded)} edge labels have no room between their "
                         f"nodes even spread {max_spread:g}×: " + ", ".join(crowded[:3]))
    spread = min(spread, max_spread)
    out: dict[str, list[float]] = {}
    for n in g.nodes:
        x, y, w, h = scaled[n.id]
        nw, nh = need[n.id]
        if n.id in holders:
            out[n.id] = [x * spread, y * spread, max(w * spread, nw), h * spread]
        else:
            cx, cy = (x + w / 2) * spread, (y + h / 2) * spread
            bw, bh = max(w, nw), max(h, nh)
            out[n.id] = [cx - bw / 2, cy - bh / 2, bw, bh]
    inner_first = sorted(holders, key=lambda i: scaled[i][2] * scaled[i][3])
    for h_id in inner_first:
        kids = [out[c] for c, p in held.items() if p == h_id]
        x, y, w, h = out[h_id]
        head = font.line + font.pad / 2 if letters_of(g, h_id) else font.pad / 2
        x0 = min([x, *(k[0] - font.pad / 2 for k in kids)])
        y0 = min([y, *(k[1] - head for k in kids)])
        x1 = max([x + w, *(k[0] + k[2] + font.pad / 2 for k in kids)])
        y1 = max([y + h, *(k[1] + k[3] + font.pad / 2 for k in kids)])
        out[h_id] = [x0, y0, x1 - x0, y1 - y0]
    x0 = min(b[0] for b in out.values())
    y0 = min(b[1] for b in out.values())
    return {i: (x - x0 + margin, y - y0 + margin, w, h) for i, (x, y, w, h) in out.items()}


def _inside(box: tuple[float, ...], grown: tuple[float, float], ux: float, uy: float
            ) -> float:
    """How far a line from the centre of ``box`` (grown to ``grown``) in direction
    (``ux``, ``uy``) runs inside it."""
    w, h = max(box[2], grown[0]), max(box[3], grown[1])
    return min(w / 2 / ux if ux else float("inf"), h / 2 / uy if uy else float("inf"))


def _label_room(g: Graph, scaled: dict[str, tuple[float, ...]],
                need: dict[str, tuple[float, float]], font: Font, holders: set[str]
                ) -> list[tuple[float, str]]:
    """For each labelled edge (no loop, neither end a frame): the spread its label needs to
    fit on the line between its two grown boxes, and a description.  A label longer than
    that line is set over the boxes it joins (an edge bent apart from another between the
    same nodes runs about as long)."""
    text = {n.id: n.text for n in g.nodes}
    out = []
    for e in g.edges:
        if not e.label.strip() or e.source == e.target or e.source in holders \
                or e.target in holders or e.source not in scaled or e.target not in scaled:
            continue
        a, b = scaled[e.source], scaled[e.target]  # type: ignore[index]
        dx = (b[0] + b[2] / 2) - (a[0] + a[2] / 2)
        dy = (b[1] + b[3] / 2) - (a[1] + a[3] / 2)
        length = (dx * dx + dy * dy) ** 0.5
        if length < 1e-6:
            continue
        ux, uy = abs(dx) / length, abs(dy) / length
        lw, lh = font.need(e.label)
        required = _inside(a, need[e.source], ux, uy) + _inside(  # type: ignore[index]
            b, need[e.target], ux, uy) + ux * lw + uy * lh + font.pad  # type: ignore[index]
        out.append((required / length, f"{e.label!r} on {text[e.source]!r}->"  # type: ignore[index]
                    f"{text[e.target]!r}"))  # type: ignore[index]
    return out


def letters_of(g: Graph, node: str) -> bool:
    """Whether ``node`` has any text to draw."""
    return any(n.id == node and n.text.strip() for n in g.nodes)


THROUGH = "twin_edge_through_node"


def _hits(p: tuple[float, float], q: tuple[float, float], box: Box, inset: float) -> bool:
    """Whether the segment ``p``–``q`` passes through ``box`` shrunk by ``inset`` a side
    (Liang–Barsky clipping)."""
    x0, y0 = box[0] + inset, box[1] + inset
    x1, y1 = box[0] + box[2] - inset, box[1] + box[3] - inset
    if x1 <= x0 or y1 <= y0:
        return False
    dx, dy = q[0] - p[0], q[1] - p[1]
    lo, hi = 0.0, 1.0
    for d, a, b in ((dx, p[0] - x0, x1 - p[0]), (dy, p[1] - y0, y1 - p[1])):
        for num, den in ((a, -d), (b, d)):
            if den == 0:
                if num < 0:
                    return False
                continue
            t = num / den
            if den < 0:
                lo = max(lo, t)
            else:
                hi = min(hi, t)
    return lo < hi


def through_nodes(g: Graph, boxes: dict[str, Box], inset: float = -3.0
                  ) -> list[tuple[str, str]]:
    """``(edge, node)`` texts for each edge that a writer drawing straight lines between
    box centres would draw through another node's box (a return edge the source routed round
    a row of steps, struck through every label on the way back) or along its border (within
    ``-inset`` of it: a line drawn on a box's edge reads as part of the box); a container
    does not count (an edge crosses a lane's frame as the source's did)."""
    frames = set(containers(g).values()) if place(g).from_source else set()
    text = {n.id: n.text for n in g.nodes}
    out = []
    for e in g.edges:
        if e.source == e.target or e.source not in boxes or e.target not in boxes:
            continue
        a, b = boxes[e.source], boxes[e.target]  # type: ignore[index]
        p = (a[0] + a[2] / 2, a[1] + a[3] / 2)
        q = (b[0] + b[2] / 2, b[1] + b[3] / 2)
        skip = {e.source, e.target} | frames
        for n in g.nodes:
            if n.id not in skip and n.id in boxes and _hits(p, q, boxes[n.id], inset):
                out.append((f"{text.get(e.source or '', '')!r}->{text.get(e.target or '', '')!r}",
                            text[n.id]))
    return out


def check_through(g: Graph, boxes: dict[str, Box], language: str) -> None:
    """:class:`WriteError` (:data:`THROUGH`) when a straight edge would cross a node."""
    hit = through_nodes(g, boxes)
    if hit:
        show = ", ".join(f"{e} through {n!r}" for e, n in hit[:3])
        raise WriteError(THROUGH, f"{len(hit)} edges would be drawn straight through another "
                         f"node in the {language} twin (the source routed them round): {show}")


# -- containers as a writer draws them --------------------------------------------------
@dataclass(frozen=True)
class Nesting:
    """Which node holds which (:func:`~.layout.containers`), as a writer of a structure
    language draws it: the holders, each node's holder, and the nodes in source order."""

    parent: dict[str, str]
    holders: set[str]

    def children(self, g: Graph, holder: str | None) -> list[Node]:
        return [n for n in g.nodes if self.parent.get(n.id) == holder]


def check_lanes(g: Graph, language: str) -> dict[str, str]:
    """The graph's containers (:func:`~.layout.containers`), or :class:`WriteError` when two
    of them cross — a grid of lanes (a cross-functional flowchart's rows over its phase
    columns): no language here nests one frame in another that crosses it, and a layout
    twin that grows each frame round what it holds draws them over each other.  Nor when
    a reader says a node is a frame (:data:`FRAME_SHAPES`) but the graph has no layout to
    say what it holds (a Mermaid subgraph an edge points at reads as a node with no box):
    its twin would be one more loose box."""
    if not place(g).from_source:
        frames = [n.text for n in g.nodes if n.shape in FRAME_SHAPES]
        if frames:
            raise WriteError(UNDRAWABLE, f"{len(frames)} frames ({frames[0]!r}) whose members "
                             "the graph does not say (not every node has a box)")
    parent = containers(g)
    holders = sorted(set(parent.values()))
    box = {n.id: n.bbox for n in g.nodes}
    text = {n.id: n.text for n in g.nodes}

    def above(a: str, b: str) -> bool:  # a holds b, through any number of frames
        while b in parent:
            b = parent[b]
            if b == a:
                return True
        return False

    for i, a in enumerate(holders):
        for b in holders[i + 1:]:
            ax, ay, aw, ah = box[a]  # type: ignore[misc]
            bx, by, bw, bh = box[b]  # type: ignore[misc]
            crosses = min(ax + aw, bx + bw) - max(ax, bx) > 1 and \
                min(ay + ah, by + bh) - max(ay, by) > 1
            if crosses and not above(a, b) and not above(b, a):
                raise WriteError(UNDRAWABLE, f"containers {text[a]!r} and {text[b]!r} cross "
                                 f"(a grid of lanes): a {language} twin cannot draw one frame "
                                 "across another")
    return parent


MAX_BOX_OVERLAP = 0.25
"""Share of the smaller of two node boxes the other may cover, neither holding the other,
in a layout twin: a lane across phase columns, a label set over a shape."""


def check_overlaps(g: Graph, language: str, boxes: dict[str, Box] | None = None) -> None:
    """:class:`WriteError` when two nodes' boxes overlap without one holding the other: a
    layout twin draws each box where the source had it, grown to its text, so a grid of
    lanes or a text laid over a shape becomes frames and labels on top of each other.  With
    ``boxes`` (the twin's own, after :func:`fit_boxes`) the frames are held to no overlap at
    all: a lane grown to fit its title over the lane above sets the titles on each other."""
    frames: set[str] = set(containers(g).values()) if boxes is not None else set()
    where = boxes if boxes is not None else {n.id: tuple(n.bbox) for n in g.nodes
                                             if n.bbox and len(n.bbox) == 4}
    text = {n.id: n.text for n in g.nodes}
    ids = sorted(where, key=lambda i: where[i][0])
    for k, a in enumerate(ids):
        ax, ay, aw, ah = where[a]
        for b in ids[k + 1:]:
            bx, by, bw, bh = where[b]
            if bx >= ax + aw:
                break
            w = min(ax + aw, bx + bw) - max(ax, bx)
            h = min(ay + ah, by + bh) - max(ay, by)
            small = min(aw * ah, bw * bh)
            if w <= 0 or h <= 0 or small <= 0 or w * h >= 0.98 * small:
                continue  # apart, or one holds the other
            limit = 2.0 * max(w, h) if (a in frames or b in frames) else MAX_BOX_OVERLAP * small
            if w * h > limit:
                raise WriteError(UNDRAWABLE, f"the boxes of {text[a]!r} and {text[b]!r} "
                                 f"overlap ({w * h / small:.0%} of the smaller), neither "
                                 f"holding the other: a {language} twin would set them "
                                 "on top of each other")


def nesting(g: Graph, language: str) -> Nesting:
    """The graph's containers, drawable as ``language``'s own (a DOT cluster, a Mermaid
    subgraph); :class:`WriteError` when one cannot be: an edge ends on it (a cluster is no
    node an edge can reach) or it has no label (neither draws a frame without a title as a
    node its reader finds), or two cross (:func:`check_lanes`)."""
    parent = check_lanes(g, language)
    holders = set(parent.values())
    text = {n.id: n.text for n in g.nodes}
    ends = [h for h in holders if any(h in (e.source, e.target) for e in g.edges)]
    if ends:
        show = ", ".join(repr(text[h]) for h in sorted(ends)[:3])
        raise WriteError(UNDRAWABLE, f"an edge ends on a container ({show}): a {language} "
                         "container is no node an edge can reach")
    blank = [h for h in holders if not text[h].strip()]
    if blank:
        raise WriteError(UNDRAWABLE, f"{len(blank)} containers have no label: a {language} "
                         "twin would draw a frame its reader does not find")
    return Nesting(parent, holders)
