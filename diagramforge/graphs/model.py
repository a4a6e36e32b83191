"""The graph every extractor produces and every scorer reads.

Nodes carry text (what scorers match on), a shape and an absolute bbox ``[x, y, w, h]``;
edges name their endpoints by node id, and an end that touches no node is ``None`` with its
name in ``unattached`` so connectivity tasks can skip it while the edge still counts.
JSON is written with sorted keys so the same graph is always the same bytes.
"""

from __future__ import annotations

import json

import networkx as nx
from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer


class Node(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    text: str = ""
    shape: str = "rectangle"
    bbox: list[float] | None = None


class Edge(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str | None = None
    target: str | None = None
    label: str = ""
    directed: bool = True
    unattached: list[str] = []
    both_heads: bool = False
    """An undirected edge drawn with an arrow head at each end (TikZ ``<->``, DOT
    ``dir=both``, Mermaid ``<-->``, draw.io start and end arrows): reachable both ways, so
    ``directed`` is false as for a plain line, which scorers treat alike; but a twin must
    draw the heads, or it is not the picture (issue 40).  Written to JSON only when true,
    so a graph without such an edge is the same bytes as before."""

    @model_serializer(mode="wrap")
    def _omit_default_heads(self, handler: SerializerFunctionWrapHandler) -> dict:
        out = handler(self)
        if not self.both_heads:
            out.pop("both_heads", None)
        return out


class Graph(BaseModel):
    model_config = ConfigDict(extra="forbid")

    nodes: list[Node] = []
    edges: list[Edge] = []

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, compact, node/edge order as extracted."""
        return json.dumps(self.model_dump(), sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> Graph:
        return cls.model_validate(json.loads(text))

    def attached_edges(self) -> list[Edge]:
        """Edges whose both ends are nodes of this graph (the ones that carry structure)."""
        ids = {n.id for n in self.nodes}
        return [e for e in self.edges if e.source in ids and e.target in ids]

    def to_networkx(self) -> nx.DiGraph:
        """Directed view; an undirected edge becomes arcs both ways (reachable either way)."""
        g = nx.DiGraph()
        g.add_nodes_from(n.id for n in self.nodes)
        for e in self.attached_edges():
            g.add_edge(e.source, e.target)
            if not e.directed:
                g.add_edge(e.target, e.source)
        return g


def graph_stats(g: Graph) -> dict[str, int]:
    """Size and shape columns for difficulty and QA.

    ``components`` counts weakly connected components (an isolated node is one);
    ``longest_path`` is the longest directed path in edges after collapsing every cycle
    (including an undirected edge's two arcs) to one node, so it is finite on any graph.
    """
    d = g.to_networkx()
    cond = nx.condensation(d) if d.number_of_nodes() else d
    return {
        "nodes": len(g.nodes),
        "edges": len(g.edges),
        "components": nx.number_weakly_connected_components(d) if d.number_of_nodes() else 0,
        "longest_path": nx.dag_longest_path_length(cond) if cond.number_of_nodes() else 0,
    }
