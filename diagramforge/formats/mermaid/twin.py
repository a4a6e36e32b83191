"""Mermaid as a twin target: a ``flowchart`` Mermaid lays out and routes itself, so the twin
keeps the source's ``structure`` (the protocol: :mod:`diagramforge.formats.twin_base`)."""

from __future__ import annotations

import math
import re

from diagramforge.formats.grounding import Verdict
from diagramforge.formats.twin_base import (
    STRUCTURE,
    UNEXPRESSIBLE,
    is_wide,
    node_ids,
    routes,
    shape_of,
)
from diagramforge.formats.twin_layout import UNDRAWABLE, WriteError, check_expressible, nesting
from diagramforge.graphs.model import Graph

DRAWING = False
EXPORT_METHOD = "mermaid-svg"
EDGES_FROM_STROKES = False


def preserves(g: Graph) -> str:
    """Mermaid places every node itself: the structure only."""
    return STRUCTURE


def source_check(code: str | None) -> Verdict | None:
    return None


# -- Mermaid --------------------------------------------------------------------------------
_MERMAID_SHAPES = {"rectangle": ("[", "]"), "rounded": ("(", ")"), "ellipse": ("((", "))"),
                   "rhombus": ("{", "}"), "hexagon": ("{{", "}}"), "cylinder": ("[(", ")]"),
                   "stadium": ("([", "])"), "container": ("[", "]"), "text": ("[", "]")}
_MERMAID_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MERMAID_CODE = re.compile(r"#\w+;")


def _mermaid_str(s: str) -> str:
    """A quoted Mermaid label that draws as ``s``.  Mermaid draws plain-text labels (the
    only safe kind) without decoding its own entity codes (``#quot;`` shows as
    ``&quot;``), so a double quote, a ``#name;`` sequence or a leading backtick (a
    Markdown string) cannot be written: :class:`WriteError`."""
    if '"' in s or _MERMAID_CODE.search(s) or s.lstrip().startswith("`"):
        raise WriteError(UNEXPRESSIBLE, f"Mermaid cannot draw {s[:40]!r} as plain text")
    body = "".join(_MERMAID_ESCAPES.get(c, c) for c in s).replace("\n", "<br>")
    return '"' + (body if body.strip() else " ") + '"'


MERMAID_SPACING = 80
"""Mermaid's ``nodeSpacing`` and ``rankSpacing`` (defaults 50) for a flowchart with loops,
parallel or opposite edges: at the defaults dagre puts a loop's label on its neighbour's."""


def write(g: Graph, unit: float = 1.0) -> str:
    """A ``flowchart``, top-down (left-right when the source drew it wider than tall); a
    container as a ``subgraph`` around what it holds.  Mermaid draws one loop per node (a
    second loop's curve and label are lost from the drawing, though its parse keeps it):
    such a graph is refused."""
    check_expressible(g)
    nest = nesting(g, "Mermaid")
    looped = [e.source for e in g.edges if e.source == e.target]
    if len(looped) != len(set(looped)):
        text = {n.id: n.text for n in g.nodes}
        twice = next(s for s in looped if looped.count(s) > 1)
        raise WriteError(UNDRAWABLE, f"Mermaid draws one loop per node; {text.get(twice)!r} "
                         f"has {looped.count(twice)}")
    ids = node_ids(g)
    wide = is_wide(g)
    # loops, parallel or opposite edges: Mermaid routes them as curves of its own, with
    # room between ranks and nodes for their labels to stand apart
    dense = any(r.loop is not None or r.offset for r in routes(g))
    lines = ([f"---\nconfig:\n  flowchart:\n    nodeSpacing: {MERMAID_SPACING}\n"
              f"    rankSpacing: {MERMAID_SPACING}\n---"] if dense else []) + [
        f"flowchart {'LR' if wide else 'TD'}"]

    def emit(holder: str | None, indent: str) -> None:
        for n in nest.children(g, holder):
            if n.id in nest.holders:
                lines.append(f"{indent}subgraph {ids[n.id]}[{_mermaid_str(n.text)}]")
                emit(n.id, indent + "  ")
                lines.append(f"{indent}end")
                continue
            a, b = _MERMAID_SHAPES.get(shape_of(n.shape), ("[", "]"))
            lines.append(f"{indent}{ids[n.id]}{a}{_mermaid_str(n.text)}{b}")

    emit(None, "  ")
    for e in g.edges:
        arrow = "-->" if e.directed else "<-->" if e.both_heads else "---"
        label = f"|{_mermaid_str(e.label)}|" if e.label.strip() else ""
        lines.append(f"  {ids[e.source]} {arrow}{label} {ids[e.target]}")  # type: ignore[index]
    # many separate parts: invisible links (laid out, never drawn, not in the graph) stack
    # them in columns, so the drawing is a grid rather than one long row
    order = {n.id: k for k, n in enumerate(g.nodes)}
    heads = [ids[min(c, key=order.__getitem__)] for c in _components(g)
             if not c <= nest.holders]  # a subgraph is no part: what it holds is
    cols = math.ceil(math.sqrt(len(heads)))
    lines += [f"  {heads[k]} ~~~ {heads[k + cols]}" for k in range(len(heads) - cols)]
    return "\n".join(lines) + "\n"


def _components(g: Graph) -> list[set[str]]:
    import networkx as nx

    order = {n.id: k for k, n in enumerate(g.nodes)}
    comps = nx.weakly_connected_components(g.to_networkx())
    return sorted(comps, key=lambda c: min(order[n] for n in c))
