"""Graphviz DOT as a twin target: a ``digraph`` Graphviz lays out and routes itself, so the
twin keeps the source's ``structure`` (the protocol: :mod:`diagramforge.formats.twin_base`)."""

from __future__ import annotations

from diagramforge.formats.grounding import Verdict
from diagramforge.formats.twin_base import STRUCTURE, is_wide, node_ids, routes, shape_of
from diagramforge.formats.twin_layout import check_expressible, nesting
from diagramforge.graphs.model import Graph

DRAWING = False
EXPORT_METHOD = "graphviz-svg"
EDGES_FROM_STROKES = False


def preserves(g: Graph) -> str:
    """Graphviz places every node itself: the structure only."""
    return STRUCTURE


def source_check(code: str | None) -> Verdict | None:
    return None


_DOT_SHAPES = {"rectangle": "box", "rounded": "box", "ellipse": "ellipse", "rhombus": "diamond",
               "cylinder": "cylinder", "hexagon": "hexagon", "triangle": "triangle",
               "parallelogram": "parallelogram", "note": "note", "text": "plaintext",
               "container": "box"}


def _dot_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_DOT_LOOP_PORTS = {False: ("", "w", "n", "s"), True: ("", "s", "w", "e")}
"""Compass ports of a node's 1st, 2nd, 3rd… loop, top-down and left-right: Graphviz nests a
node's loops on one side (east; north when left-right) with their labels edge to edge
("polltick"); the second goes to the opposite side, further ones where ranks join."""


def write(g: Graph, unit: float = 1.0) -> str:
    """``digraph`` with Graphviz's own layout and edge routing (left to right when the
    source is wide); undirected edges as ``dir=none``; a container (a swimlane, a group's
    frame) as a ``cluster`` around what it holds, titled with its text.  Where Graphviz's
    routing alone lets edges or labels meet, each is given its own side of its nodes by
    compass ports: a node's second and further loops, and edges joining the same two nodes
    (a 2-cycle's two splines otherwise run almost on top of each other, their labels edge
    to edge)."""
    check_expressible(g)
    nest = nesting(g, "DOT")
    ids = node_ids(g)
    wide = is_wide(g)
    # components packed in an array, so a graph of many small parts is not one long row —
    # but Graphviz (2.43) drops every edge label of a packed graph, so not when it has any;
    # labels in the font the SVG is drawn with, so Graphviz sizes them as they are drawn
    labelled = any(e.label for e in g.edges)
    lines = ["digraph twin {", *([] if labelled else ['  pack=true; packmode="array_u";']),
             *(["  rankdir=LR;"] if wide else []),
             '  node [fontname="DejaVu Sans"];', '  edge [fontname="DejaVu Sans"];']

    def emit(holder: str | None, indent: str) -> None:
        for n in nest.children(g, holder):
            if n.id in nest.holders:
                lines.extend([f"{indent}subgraph cluster_{ids[n.id]} {{",
                              f"{indent}  label={_dot_str(n.text)};"])
                emit(n.id, indent + "  ")
                lines.append(f"{indent}}}")
                continue
            attrs = [f"label={_dot_str(n.text)}",
                     f"shape={_DOT_SHAPES.get(shape_of(n.shape), 'box')}"]
            if shape_of(n.shape) == "rounded":
                attrs.append('style="rounded"')
            lines.append(f"{indent}{ids[n.id]} [{', '.join(attrs)}];")

    emit(None, "  ")
    sides = ("n", "s") if wide else ("w", "e")  # beside the direction ranks run in
    loops: dict[str | None, int] = {}
    for e, r in zip(g.edges, routes(g), strict=True):
        attrs = [] if e.directed else ["dir=both" if e.both_heads else "dir=none"]
        if e.label:
            attrs.append(f"label={_dot_str(e.label)}")
        port = ""
        if e.source == e.target:
            port = _DOT_LOOP_PORTS[wide][loops.get(e.source, 0) % 4]
            loops[e.source] = loops.get(e.source, 0) + 1
        elif r.offset:  # the same side of both nodes, whichever way the edge runs
            port = sides[r.offset > 0]
        if port:
            attrs += [f"tailport={port}", f"headport={port}"]
        tail = f" [{', '.join(attrs)}]" if attrs else ""
        lines.append(f"  {ids[e.source]} -> {ids[e.target]}{tail};")  # type: ignore[index]
    return "\n".join([*lines, "}", ""])
