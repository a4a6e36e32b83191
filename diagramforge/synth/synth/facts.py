"""What the language tasks may say about a diagram: its labels and structure, from its graph.

Every task grounds its prompt — and every check of the model's answer — in these facts, so
they come from one place: the record's ``graph`` column (filled by the render stage through
``diagramforge.graphs``) or, when that is null, a parse of the code by the format's
``code_graph`` capability (``formats/<name>/code_graph.py``: the same extractors, no
render). A diagram neither yields is not described at all: a caption of a diagram whose
labels we do not know could not be checked.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import networkx as nx

from diagramforge.formats import capabilities

_SPACE = re.compile(r"\s+")


def norm(text: str) -> str:
    """Case- and space-insensitive form used to compare a label with what a model wrote."""
    return _SPACE.sub(" ", text).strip().casefold()


def _distinct_texts(nodes: list[FNode]) -> list[str]:
    """The nodes' non-empty texts, each once (by :func:`norm`), in the nodes' order."""
    seen: dict[str, str] = {}
    for n in nodes:
        if n.text and norm(n.text) not in seen:
            seen[norm(n.text)] = n.text
    return list(seen.values())


@dataclass(frozen=True)
class FNode:
    id: str
    text: str
    shape: str = ""


@dataclass(frozen=True)
class FEdge:
    source: str | None
    target: str | None
    label: str = ""
    directed: bool = True


@dataclass
class Facts:
    """Nodes and edges of one diagram, and where they came from (``graph`` or ``parse``)."""

    nodes: list[FNode]
    edges: list[FEdge]
    origin: str
    extra: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def by_id(self) -> dict[str, FNode]:
        return {n.id: n for n in self.nodes}

    @cached_property
    def labels(self) -> list[str]:
        """Distinct non-empty node texts, in diagram order."""
        return _distinct_texts(self.nodes)

    @cached_property
    def annotations(self) -> set[str]:
        """Ids of the texts written *on* the picture rather than drawn as its elements: a bare
        ``text`` node joined to nothing — a title, a caption, a legend, a free remark (every
        reader writes them so: draw.io's ``text`` cell, PlantUML's title, TikZ's undrawn
        label). A person asked about the diagram's elements does not count the title, and a
        question that names it as an element ("an arrow from the title…") makes no sense.
        An undrawn text *with* an arrow (a tikz-cd object) is an element: it stays."""
        joined = {x for e in self.attached for x in (e.source, e.target)}
        return {n.id for n in self.nodes if n.shape == "text" and n.id not in joined}

    @cached_property
    def elements(self) -> list[FNode]:
        """The nodes a question may treat as the diagram's elements (no annotation)."""
        return [n for n in self.nodes if n.id not in self.annotations]

    @cached_property
    def element_labels(self) -> list[str]:
        """Distinct texts of the elements (the pool of a multiple choice's other options)."""
        return _distinct_texts(self.elements)

    @cached_property
    def unique_nodes(self) -> list[FNode]:
        """Elements whose text names them unambiguously (the only ones a question may name;
        an annotation's text is never one, even when unique)."""
        counts: dict[str, int] = {}
        for n in self.nodes:
            if n.text:
                counts[norm(n.text)] = counts.get(norm(n.text), 0) + 1
        return [n for n in self.elements if n.text and counts[norm(n.text)] == 1]

    @cached_property
    def edge_labels(self) -> list[str]:
        return sorted({e.label for e in self.edges if e.label})

    @cached_property
    def vocabulary(self) -> set[str]:
        """Every text the diagram shows (node and edge labels), normalised."""
        return {norm(t) for t in [*self.labels, *self.edge_labels]}

    @cached_property
    def attached(self) -> list[FEdge]:
        return [e for e in self.edges if e.source in self.by_id and e.target in self.by_id]

    @cached_property
    def digraph(self) -> nx.DiGraph:
        """Arcs as drawn; an undirected edge is an arc both ways."""
        g = nx.DiGraph()
        g.add_nodes_from(n.id for n in self.nodes)
        for e in self.attached:
            g.add_edge(e.source, e.target)
            if not e.directed:
                g.add_edge(e.target, e.source)
        return g

    @cached_property
    def arrows(self) -> nx.DiGraph:
        """The arrows alone: a plain line (a note's tie, an interface's socket) is not an
        arrow, so "following the arrows" never crosses one and "is there an arrow from A to
        B" is not answered yes by one.  With :attr:`digraph` it splits a pair three ways:
        joined by arrows, joined by nothing, or joined only through lines — the last a
        question about arrows cannot answer either way and does not ask."""
        g = nx.DiGraph()
        g.add_nodes_from(n.id for n in self.nodes)
        g.add_edges_from((e.source, e.target) for e in self.attached if e.directed)
        return g

    @property
    def directed(self) -> bool:
        """Whether the diagram has arrows at all (reachability means nothing otherwise)."""
        return any(e.directed for e in self.attached)

    def prompt_lines(self, limit: int) -> tuple[list[str], list[str]]:
        """``(labels, edges)`` as the prompt shows them, at most ``limit`` each."""
        edges = []
        for e in self.attached[:limit]:
            a, b = self.by_id[e.source].text, self.by_id[e.target].text
            if not (a and b):
                continue
            arrow = "->" if e.directed else "--"
            edges.append(f'"{a}" {arrow} "{b}"' + (f' (label "{e.label}")' if e.label else ""))
        return self.labels[:limit], edges

    def context(self, limit: int) -> dict[str, Any]:
        """The structured facts a prompt is written from (also the offline backend's input)."""
        labels, edges = self.prompt_lines(limit)
        return {"labels": labels, "edges": edges, "n_nodes": len(self.nodes),
                "n_edges": len(self.edges), "n_labels": len(self.labels)}


def _load_graph_json(text: str) -> tuple[list[FNode], list[FEdge]]:
    """Nodes and edges of a graph JSON string; tolerant of the edge text key (``label`` in
    the contract, ``text`` in older rows)."""
    data = json.loads(text)
    nodes = [FNode(str(n["id"]), _SPACE.sub(" ", str(n.get("text") or "")).strip(),
                   str(n.get("shape") or "")) for n in data.get("nodes", [])]
    edges = [FEdge(None if e.get("source") is None else str(e["source"]),
                   None if e.get("target") is None else str(e["target"]),
                   _SPACE.sub(" ", str(e.get("label") or e.get("text") or "")).strip(),
                   bool(e.get("directed", True))) for e in data.get("edges", [])]
    return nodes, edges


def _parse_code(fmt: str, code: str) -> str | None:
    """Graph JSON from the code by the format's ``code_graph`` capability (``None``: the
    format reads no graph from code alone)."""
    reader = capabilities.of(fmt, "code_graph")
    return None if reader is None else reader.graph(code).to_json()


def facts_of(row: dict[str, Any]) -> tuple[Facts | None, str]:
    """The facts of a diagram record, or ``(None, why)`` when neither its graph column nor a
    parse of its code gives a node with text."""
    why = ""
    for origin in ("graph", "parse"):
        try:
            text = row.get("graph") if origin == "graph" else _parse_code(
                str(row.get("format") or ""), str(row.get("code") or ""))
            if not text:
                why = why or f"no {origin}"
                continue
            nodes, edges = _load_graph_json(text)
        except Exception as exc:  # noqa: BLE001 - a bad graph or code is a ledger row, not a crash
            why = f"{origin}: {type(exc).__name__}: {str(exc)[:160]}"
            continue
        facts = Facts(nodes, edges, origin, {"graph_json": text})
        if facts.labels:
            return facts, ""
        why = f"{origin}: no node has text"
    return None, why
