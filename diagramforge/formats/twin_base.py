"""What every format's twin writer shares (``formats/<name>/twin.py``, found through
:meth:`~diagramforge.formats.registry.DiagramFormat.capability` ``("twin")``).

A twin is a diagram re-expressed in another language from its structure graph
(:class:`~diagramforge.graphs.model.Graph`: node texts and shapes, directed or undirected
edges with labels, bboxes), compiled by that language's real engine, and kept by the twin
stage (``builders/twin``) only when the twin's graph equals the source's.  A format takes
part in twins by having a ``twin.py``; one without (raster) is no twin target, which is how
"no twins into raster" is declared.  Every ``twin.py`` says, with the same names:

``DRAWING: bool``
    ``True`` when the format's code *is* a drawing (SVG): a twin into it is the source
    engine's own drawing (its ``export_svg``), not written from the graph, and a source in
    it is its own drawing.
``EXPORT_METHOD: str | None``
    The method name of this format's own SVG export when it is the source of a drawing twin
    (``None`` when its code is its drawing).
``EDGES_FROM_STROKES: bool``
    Whether its structure graph reads edges from drawn strokes (the TikZ page, an SVG's
    paths), where one line drawn twice reads as two edges (the twin gate's
    ``stroke_check``); draw.io, Graphviz and Mermaid state their edges.
``preserves(graph) -> str``
    What a twin into it keeps: :data:`STRUCTURE`, :data:`LAYOUT` or :data:`LAYOUT_STYLE`.
``write(graph, unit) -> str`` (unless ``DRAWING``)
    The twin's code; ``unit`` is the source graph's box unit in the writer's own (the two
    formats' ``graph_unit_pt`` over each other: draw.io's, Mermaid's and SVG's boxes are in
    px, TikZ's and Graphviz's in pt), used by the writers that keep positions.  A graph the
    language cannot express raises :class:`~.twin_layout.WriteError`.
``source_check(code) -> Verdict | None``
    What a source in this format says against its graph being the whole diagram, beyond
    the shared checks (:mod:`diagramforge.formats.grounding`): ``None`` when nothing.

Dense graphs stay readable: no two edges nor labels lie on each other.  DOT and Mermaid
route edges themselves; TikZ and mxGraph, which draw what they are told, bend parallel and
opposite edges apart and put loops on a node's free sides (:func:`routes`).  Text is written
so the target's own reader gives it back; ids are the target's own (``n0``, ``n1``…).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from diagramforge.formats.twin_layout import place
from diagramforge.graphs.model import Graph

STRUCTURE = "structure"
LAYOUT = "layout"
LAYOUT_STYLE = "layout+style"
UNEXPRESSIBLE = "twin_text_unexpressible"


def node_ids(g: Graph) -> dict[str, str]:
    return {n.id: f"n{k}" for k, n in enumerate(g.nodes)}


_SHAPE_NAMES = {"circle": "ellipse", "diamond": "rhombus", "rounded rectangle": "rounded"}
"""The readers' other names for the writers' shapes (TikZ's ``circle``, ``diamond``)."""


def shape_of(shape: str) -> str:
    return _SHAPE_NAMES.get(shape, shape)


DRAWN_SHAPES = frozenset({"rectangle", "rounded", "ellipse", "rhombus", "cylinder", "hexagon",
                          "triangle", "parallelogram", "note", "text", "container"})
"""Shapes every writer draws as themselves (through :func:`shape_of`): any other shape is
drawn as a box."""


@dataclass(frozen=True)
class Route:
    """How a writer with explicit geometry (TikZ, mxGraph) draws one edge so that no two
    edges, nor their labels, lie on each other: the ``loop``-th loop on its node (each on
    another side), or the ``offset``-th of the edges that join the same two nodes — either
    way round — bent apart (0: alone, drawn straight).  ``offset`` is signed in the frame of
    the first such edge's direction; ``forward`` says whether this one runs that way."""

    loop: int | None = None
    offset: float = 0.0
    forward: bool = True


LOOP_SIDES = ("above", "right", "below", "left")
_SIDE_VECTORS = {"above": (0.0, -1.0), "right": (1.0, 0.0), "below": (0.0, 1.0),
                 "left": (-1.0, 0.0)}  # y down


def _loop_sides(g: Graph, node: str | None,
                boxes: dict[str, tuple[float, float, float, float]] | None) -> list[int]:
    """The sides of ``node`` (indices into :data:`LOOP_SIDES`) for its loops, freest first:
    a side that other edges leave the node by is taken last, so a loop never sits on an
    incoming arrow.  Without boxes: above, right, below, left."""
    order = list(range(len(LOOP_SIDES)))
    if not boxes or node not in boxes:
        return order

    def centre(i: str) -> tuple[float, float]:
        x, y, w, h = boxes[i]
        return x + w / 2, y + h / 2

    cx, cy = centre(node)  # type: ignore[arg-type]
    ways = []
    for e in g.edges:
        other = e.target if e.source == node else e.source if e.target == node else None
        if other is None or other == node or other not in boxes:
            continue
        ox, oy = centre(other)
        d = math.hypot(ox - cx, oy - cy)
        if d > 0:
            ways.append(((ox - cx) / d, (oy - cy) / d))

    def crowding(k: int) -> float:
        vx, vy = _SIDE_VECTORS[LOOP_SIDES[k]]
        return max((vx * wx + vy * wy for wx, wy in ways), default=-1.0)

    return sorted(order, key=lambda k: (crowding(k) > 0.5, k))  # stable: above first


def routes(g: Graph, boxes: dict[str, tuple[float, float, float, float]] | None = None
           ) -> list[Route]:
    """One :class:`Route` per edge, in order: parallel and opposite edges spread evenly
    about the straight line (two: ±½, three: −1, 0, 1…); loops on a node each on its own
    side (:data:`LOOP_SIDES` index in ``loop``; past four, the sides again, wider), the sides
    other edges leave by last when ``boxes`` (id → x, y, w, h; y down) say where they go."""
    loops: dict[str | None, int] = {}
    sides: dict[str | None, list[int]] = {}
    pairs: dict[frozenset, list[int]] = {}
    for k, e in enumerate(g.edges):
        if e.source != e.target:
            pairs.setdefault(frozenset((e.source, e.target)), []).append(k)
    out: list[Route] = []
    for k, e in enumerate(g.edges):
        if e.source == e.target:
            n = loops.get(e.source, 0)
            if e.source not in sides:
                sides[e.source] = _loop_sides(g, e.source, boxes)
            out.append(Route(loop=sides[e.source][n % 4] + 4 * (n // 4)))
            loops[e.source] = n + 1
            continue
        group = pairs[frozenset((e.source, e.target))]
        first = g.edges[group[0]]
        slot = group.index(k) - (len(group) - 1) / 2
        out.append(Route(offset=slot, forward=(e.source, e.target) == (first.source,
                                                                          first.target)))
    return out


def is_wide(g: Graph) -> bool:
    """Whether the source drew it wider than tall (×1.5): its twin runs left to right."""
    boxes = [n.bbox for n in g.nodes if n.bbox]
    return bool(boxes) and (max(b[0] + b[2] for b in boxes) - min(b[0] for b in boxes)
                            > 1.5 * (max(b[1] + b[3] for b in boxes)
                                     - min(b[1] for b in boxes)))


def layout_kept(g: Graph) -> str:
    """What a writer that places nodes where the source drew them keeps: :data:`LAYOUT`
    (positions, sizes, shapes) when the source had a layout, else :data:`STRUCTURE` (the
    nodes are then on layers of the structure: :func:`~.twin_layout.place`)."""
    return LAYOUT if place(g).from_source else STRUCTURE
