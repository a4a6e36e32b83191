"""A structure graph written as PlantUML: the twin writer into this format.

Any node-link graph is written as a PlantUML *description* diagram — the kind whose
entities are boxes of a chosen drawing joined by links, laid out by Graphviz — so the twin
is drawn by PlantUML itself and read back through PlantUML's own model (``graph.py``).
Shapes: a rectangle is a ``rectangle``, a rounded box ``storage``, an ellipse ``usecase``,
a cylinder ``database``, a bare label ``label``, a note ``file``, a cloud ``cloud``, an
actor ``actor``; a container is a ``rectangle`` around what its box holds (the smallest
container box around a node's box); a diamond or a hexagon has no drawing in PlantUML's
description diagrams (1.2020) and is refused.  Links: ``-->`` directed, ``--`` plain,
``<-->`` headed both ways, the label after ``:``.  The layout is top-down, left to right
when the source was drawn wider than tall.

Text: a label is written quoted; what PlantUML would read as markup (creole ``**``, ``//``,
``__``, ``--``, ``~~``, ``""``, HTML-like tags, ``[[links]]``), a double quote or a
backslash cannot be written as plain text and is refused (:class:`TwinRefusal`), never
drawn differently.
"""

from __future__ import annotations

import re

from diagramforge.graphs.model import Graph, Node
from diagramforge.store.records import Refusal

UNEXPRESSIBLE = "twin_text_unexpressible"
UNDRAWABLE = "twin_undrawable"
SCALE = 0.75
"""PlantUML's SVG is in CSS px (the default unit of the other px formats)."""

SHAPES = {"rectangle": "rectangle", "rounded": "storage", "ellipse": "usecase",
          "cylinder": "database", "text": "label", "note": "file", "cloud": "cloud",
          "actor": "actor", "cube": "node", "folder": "folder"}
"""A graph shape → the PlantUML keyword whose drawing it is (read back by ``graph.py``)."""
_MARKUP = re.compile(r'\*\*|//|__|--|~~|""|<[a-zA-Z/][^>]*>|\[\[|\]\]|"|\\|^\s*$')


class TwinRefusal(Refusal):
    """A graph PlantUML cannot draw as it is (``twin_text_unexpressible`` /
    ``twin_undrawable``)."""


def _text(s: str) -> str:
    if not s.strip():
        return '" "'  # an empty entity (a pseudo-state, a bar) still draws, without words
    lines = s.split("\n")
    for ln in lines:
        if ln and _MARKUP.search(ln):
            raise TwinRefusal(UNEXPRESSIBLE, f"PlantUML reads {s[:40]!r} as markup")
    return '"' + "\\n".join(lines) + '"'


def _inside(a: list[float], b: list[float]) -> bool:
    return a[0] >= b[0] and a[1] >= b[1] and a[0] + a[2] <= b[0] + b[2] \
        and a[1] + a[3] <= b[1] + b[3]


def _holders(g: Graph) -> dict[str, str | None]:
    """Each node's container: the smallest container box around its box."""
    boxes = [n for n in g.nodes if n.shape == "container" and n.bbox]
    out: dict[str, str | None] = {}
    for n in g.nodes:
        around = [c for c in boxes if c.id != n.id and n.bbox and _inside(n.bbox, c.bbox)
                  and c.bbox != n.bbox]
        out[n.id] = min(around, key=lambda c: c.bbox[2] * c.bbox[3]).id if around else None
    return out


def to_plantuml(g: Graph) -> str:
    """The graph as a PlantUML description diagram (:class:`TwinRefusal` if it cannot)."""
    if not g.nodes:
        raise TwinRefusal(UNDRAWABLE, "no nodes")
    ids = {n.id: f"n{k}" for k, n in enumerate(g.nodes)}
    for e in g.edges:
        if e.source not in ids or e.target not in ids:
            raise TwinRefusal(UNDRAWABLE, "an edge with a loose end")
    holder = _holders(g)
    boxes = [n.bbox for n in g.nodes if n.bbox]
    wide = bool(boxes) and (max(b[0] + b[2] for b in boxes) - min(b[0] for b in boxes)
                            > max(b[1] + b[3] for b in boxes) - min(b[1] for b in boxes))
    lines = ["@startuml", *(["left to right direction"] if wide else []),
             "skinparam shadowing false"]

    def emit(parent: str | None, indent: str) -> None:
        for n in g.nodes:
            if holder.get(n.id) != parent:
                continue
            if n.shape == "container":
                lines.append(f"{indent}rectangle {_text(n.text or ' ')} as {ids[n.id]} {{")
                emit(n.id, indent + "  ")
                lines.append(f"{indent}}}")
                continue
            lines.append(f"{indent}{_keyword(n)} {_text(n.text)} as {ids[n.id]}")

    emit(None, "")
    for e in g.edges:
        arrow = "-->" if e.directed else "<-->" if e.both_heads else "--"
        label = f" : {_text(e.label)[1:-1]}" if e.label.strip() else ""
        lines.append(f"{ids[e.source]} {arrow} {ids[e.target]}{label}")
    return "\n".join([*lines, "@enduml", ""])


def _keyword(n: Node) -> str:
    word = SHAPES.get(n.shape)
    if word is None:
        raise TwinRefusal(UNDRAWABLE, f"PlantUML's description diagrams have no {n.shape!r}")
    return word
