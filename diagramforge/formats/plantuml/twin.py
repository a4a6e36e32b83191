"""A structure graph written as PlantUML: the twin writer into this format.

Any node-link graph is written as a PlantUML *description* diagram — the kind whose
entities are boxes of a chosen drawing joined by links, laid out by Graphviz — so the twin
is drawn by PlantUML itself and read back through PlantUML's own model (``graph.py``).
Shapes: a rectangle is a ``rectangle``, a rounded box ``storage``, an ellipse ``usecase``,
a cylinder ``database``, a bare label ``label``, a note ``file``, a cloud ``cloud``, an
actor ``actor``; a container is a ``rectangle`` around what it holds
(``twin_layout.check_lanes``: links may end on it, as PlantUML draws them; crossing frames
are refused); a diamond or a hexagon has no drawing in PlantUML's description diagrams
(1.2020) and is refused.  Links: ``-->`` directed, ``--`` plain,
``<-->`` headed both ways, the label after ``:``.  The layout is top-down, left to right
when the source was drawn wider than tall.

Text: a label is written quoted; what PlantUML would read as markup (creole ``**``, ``//``,
``__``, ``--``, ``~~``, ``""``, HTML-like tags, ``[[links]]``), a double quote or a
backslash cannot be written as plain text and is refused (``WriteError``), never drawn
differently.  The protocol every ``twin.py`` follows: :mod:`diagramforge.formats.twin_base`.
"""

from __future__ import annotations

import re

from diagramforge.formats.grounding import Verdict
from diagramforge.formats.twin_base import STRUCTURE, UNEXPRESSIBLE, is_wide, node_ids, shape_of
from diagramforge.formats.twin_layout import (
    UNDRAWABLE,
    Nesting,
    WriteError,
    check_expressible,
    check_lanes,
)
from diagramforge.graphs.model import Graph, Node

DRAWING = False
EXPORT_METHOD = "plantuml-svg"
EDGES_FROM_STROKES = False
"""PlantUML states its links (its model is read, not its strokes)."""

SHAPES = {"rectangle": "rectangle", "rounded": "storage", "ellipse": "usecase",
          "cylinder": "database", "text": "label", "note": "file", "cloud": "cloud",
          "actor": "actor", "umlActor": "actor", "cube": "node", "folder": "folder"}
"""A graph shape → the PlantUML keyword whose drawing it is (read back by ``graph.py``)."""
_MARKUP = re.compile(r'\*\*|//|__|--|~~|""|<[a-zA-Z/][^>]*>|\[\[|\]\]|"|\\|^\s*$')


def preserves(g: Graph) -> str:
    """PlantUML lays the twin out itself (through Graphviz): the structure only."""
    return STRUCTURE


def source_check(code: str | None) -> Verdict | None:
    return None


def _text(s: str) -> str:
    if not s.strip():
        return '" "'  # an empty entity (a pseudo-state, a bar) still draws, without words
    lines = s.split("\n")
    for ln in lines:
        if ln and _MARKUP.search(ln):
            raise WriteError(UNEXPRESSIBLE, f"PlantUML reads {s[:40]!r} as markup")
    return '"' + "\\n".join(lines) + '"'


def write(g: Graph, unit: float = 1.0) -> str:
    """The graph as a PlantUML description diagram (:class:`WriteError` if it cannot be);
    ``unit`` is unused: PlantUML places every entity itself."""
    check_expressible(g)
    # PlantUML draws a link to a group and a group without a title, which the shared
    # ``nesting`` refuses for DOT and Mermaid: only crossing frames are refused here
    parent = check_lanes(g, "PlantUML")
    nest = Nesting(parent, set(parent.values()))
    ids = node_ids(g)
    lines = ["@startuml", *(["left to right direction"] if is_wide(g) else []),
             "skinparam shadowing false"]

    def emit(holder: str | None, indent: str) -> None:
        for n in nest.children(g, holder):
            if n.id in nest.holders or shape_of(n.shape) == "container":
                lines.append(f"{indent}rectangle {_text(n.text)} as {ids[n.id]} {{")
                emit(n.id, indent + "  ")
                lines.append(f"{indent}}}")
                continue
            lines.append(f"{indent}{_keyword(n)} {_text(n.text)} as {ids[n.id]}")

    emit(None, "")
    for e in g.edges:
        arrow = "-->" if e.directed else "<-->" if e.both_heads else "--"
        label = f" : {_text(e.label)[1:-1]}" if e.label.strip() else ""
        lines.append(f"{ids[e.source]} {arrow} {ids[e.target]}{label}")  # type: ignore[index]
    return "\n".join([*lines, "@enduml", ""])


def _keyword(n: Node) -> str:
    word = SHAPES.get(shape_of(n.shape))
    if word is None:
        raise WriteError(UNDRAWABLE, f"PlantUML's description diagrams have no {n.shape!r}")
    return word
