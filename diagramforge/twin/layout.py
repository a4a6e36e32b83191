"""Where a twin's nodes go: the source's own layout when every node has a bbox, else a
layered drawing of the structure (longest-path layers, in source order; a cycle's nodes side
by side, as far apart as the labels between them need), so a writer for a language with
explicit positions (TikZ, mxGraph) always has one."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from diagramforge.graphs.model import Graph


class WriteError(ValueError):
    """A graph this language cannot express (the ledger's reason is :attr:`reason`)."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


DANGLING = "twin_dangling_edge"
EMPTY = "twin_empty_graph"


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
