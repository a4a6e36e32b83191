"""A structure graph written in another diagram language.

Each writer takes the source's :class:`~diagramforge.graphs.model.Graph` (node texts and
shapes, directed or undirected edges with labels, bboxes) and writes code its real engine
compiles.  What each keeps is declared by :func:`preserves`: DOT and Mermaid lay the
structure out themselves (``structure``); TikZ and mxGraph place every node where the
source drew it, at its size, in its shape (``layout``) — or on layers of the structure when
the source had no layout (then ``structure`` too: see :func:`preserves`).

Dense graphs stay readable: no two edges nor labels lie on each other.  DOT and Mermaid
route edges themselves (Graphviz's splines — a node's further loops on its other sides;
Mermaid's curves, with more room between nodes when the graph has loops, parallel or
opposite edges — and one loop per node, what Mermaid can draw); TikZ and mxGraph, which
draw what they are told, bend parallel and opposite edges apart and put loops on a node's
free sides (:func:`routes`).

Text is written so the target's own reader gives it back: escaped for DOT strings, HTML
escapes in Mermaid's quoted labels (what Mermaid cannot draw is refused, not altered), LaTeX
escapes, XML attribute escapes.  Ids are the target's own (``n0``, ``n1``…).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

from diagramforge.builders.twin.layout import (
    UNDRAWABLE,
    Font,
    WriteError,
    check_expressible,
    check_lanes,
    check_overlaps,
    check_through,
    containers,
    fit_boxes,
    nesting,
    place,
)
from diagramforge.formats.tikz.graph.text import SYMBOLS
from diagramforge.formats.tikz.pictures import STANDALONE_CLASS
from diagramforge.graphs.model import Graph, Node

STRUCTURE = "structure"
LAYOUT = "layout"


def _ids(g: Graph) -> dict[str, str]:
    return {n.id: f"n{k}" for k, n in enumerate(g.nodes)}


_SHAPE_NAMES = {"circle": "ellipse", "diamond": "rhombus", "rounded rectangle": "rounded"}
"""The readers' other names for the writers' shapes (TikZ's ``circle``, ``diamond``)."""


def shape_of(shape: str) -> str:
    return _SHAPE_NAMES.get(shape, shape)


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


# -- Graphviz DOT ---------------------------------------------------------------------------
_DOT_SHAPES = {"rectangle": "box", "rounded": "box", "ellipse": "ellipse", "rhombus": "diamond",
               "cylinder": "cylinder", "hexagon": "hexagon", "triangle": "triangle",
               "parallelogram": "parallelogram", "note": "note", "text": "plaintext",
               "container": "box"}


DRAWN_SHAPES = frozenset(_DOT_SHAPES)
"""Shapes every writer draws as themselves (through :func:`shape_of`): any other shape is
drawn as a box."""


def _dot_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _wide(g: Graph) -> bool:
    """Whether the source drew it wider than tall (×1.5): its twin runs left to right."""
    boxes = [n.bbox for n in g.nodes if n.bbox]
    return bool(boxes) and (max(b[0] + b[2] for b in boxes) - min(b[0] for b in boxes)
                            > 1.5 * (max(b[1] + b[3] for b in boxes)
                                     - min(b[1] for b in boxes)))


_DOT_LOOP_PORTS = {False: ("", "w", "n", "s"), True: ("", "s", "w", "e")}
"""Compass ports of a node's 1st, 2nd, 3rd… loop, top-down and left-right: Graphviz nests a
node's loops on one side (east; north when left-right) with their labels edge to edge
("polltick"); the second goes to the opposite side, further ones where ranks join."""


def to_dot(g: Graph) -> str:
    """``digraph`` with Graphviz's own layout and edge routing (left to right when the
    source is wide); undirected edges as ``dir=none``; a container (a swimlane, a group's
    frame) as a ``cluster`` around what it holds, titled with its text.  Where Graphviz's
    routing alone lets edges or labels meet, each is given its own side of its nodes by
    compass ports: a node's second and further loops, and edges joining the same two nodes
    (a 2-cycle's two splines otherwise run almost on top of each other, their labels edge
    to edge)."""
    check_expressible(g)
    nest = nesting(g, "DOT")
    ids = _ids(g)
    wide = _wide(g)
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


# -- Mermaid --------------------------------------------------------------------------------
_MERMAID_SHAPES = {"rectangle": ("[", "]"), "rounded": ("(", ")"), "ellipse": ("((", "))"),
                   "rhombus": ("{", "}"), "hexagon": ("{{", "}}"), "cylinder": ("[(", ")]"),
                   "stadium": ("([", "])"), "container": ("[", "]"), "text": ("[", "]")}
_MERMAID_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MERMAID_CODE = re.compile(r"#\w+;")
UNEXPRESSIBLE = "twin_text_unexpressible"


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


def to_mermaid(g: Graph) -> str:
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
    ids = _ids(g)
    wide = _wide(g)
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


# -- TikZ -----------------------------------------------------------------------------------
_TEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                "^": r"\textasciicircum{}"}
_TIKZ_SHAPES = {"ellipse": "ellipse", "rhombus": "diamond",
                # a hexagon pointed left and right, sized to its text (a regular polygon is
                # circumscribed about its text box: a wide label made a hexagon wider than
                # the gap to its neighbours, which it covered)
                "hexagon": "signal, signal to=east and west, signal pointer angle=120",
                "cylinder": "cylinder, shape border rotate=90",
                "rounded": "rectangle, rounded corners", "text": "rectangle, draw=none"}
TIKZ_FONT = Font(char=5.0, line=11.0, pad=6.0)
"""``\\small`` Computer Modern (9 pt) in pt: a character a little wider than its mean
advance, a line's baselineskip, twice the nodes' inner sep and a little air."""
TIKZ_MAX_SPREAD = 3.0
TIKZ_GROWTH = {"ellipse": 1.42, "rhombus": 2.0}
"""How much wider and taller than its text TikZ draws a shape set round it: an ellipse
through its text box's corners (√2), a diamond (2)."""


def _tikz_growth(n: Node) -> float:
    return TIKZ_GROWTH.get(shape_of(n.shape), 1.0)


def _math_symbols() -> dict[str, str]:
    return {c: rf"\{name}{{}}" if name.startswith("text") else rf"\ensuremath{{\{name}}}"
            for name, c in sorted(SYMBOLS.items())
            if len(c) == 1 and ord(c) > 0xFF and name.isalpha()}


_MATH = _math_symbols()
r"""Symbols pdflatex has no text glyph for, as the math commands the TikZ reader maps back
(∈ → ``\in``)."""


def _tex_char(c: str) -> str:
    if c in _TEX_ESCAPES:
        return _TEX_ESCAPES[c]
    if ord(c) <= 0xFF:  # Latin-1: T1 and utf8 input have it
        return c
    if c in _MATH:
        return _MATH[c]
    raise WriteError(UNEXPRESSIBLE, f"pdflatex has no glyph for {c!r} (U+{ord(c):04X})")


def _tex(s: str) -> str:
    """``s`` as TeX, its lines broken by ``\\\\{}``: a line that opens with ``[``
    ("[Structured Authn]") would be ``\\\\``'s optional length after a bare break."""
    lines = ["".join(_tex_char(c) for c in ln) for ln in s.split("\n")]
    return r" \\{} ".join(lines)


TIKZ_BEND = 30
"""Degrees a pair of edges between the same two nodes bend apart (each side)."""
TIKZ_BEND_STEP = 15
"""Degrees each further edge between the same two nodes bends past the pair's: five
control lines between a switch matrix and its device under test bent 60° and 120° (loops
round half the drawing), now 30° and 45°."""


def tikz_bend(side: float) -> float:
    """The bend of the edge at ``side`` slots from the straight line (±½ for a pair)."""
    side = abs(side)
    return TIKZ_BEND * 2 * side if side <= 0.5 else TIKZ_BEND + TIKZ_BEND_STEP * (side - 0.5)


TIKZ_SCALE = {"mxgraph": 0.75, "mermaid": 0.75, "svg": 0.75}
"""pt per source unit: draw.io's, Mermaid's and SVG's boxes are in px (TikZ's and
Graphviz's in pt), so a twin's text fits boxes made for the source's."""


def to_tikz(g: Graph, unit: float = 1.0) -> str:
    """A standalone TikZ picture: nodes at the source's positions and sizes (× ``unit``, in
    pt), in their shapes, each box grown to hold its text and the centres spread to keep them
    apart (:func:`~.layout.fit_boxes`: scaling the picture down to a page's width while the
    text kept its size is what made labels spill over their boxes); a container drawn first,
    as a frame around what it holds with its label at its top; edges as straight arrows,
    their labels on them — but edges between the same two nodes (parallel or opposite) bent
    apart, each label outside its own bend, and loops on a node each on another side
    (:func:`routes`)."""
    check_expressible(g)
    check_lanes(g, "TikZ")
    check_overlaps(g, "TikZ")
    boxes = fit_boxes(g, unit, TIKZ_FONT, TIKZ_MAX_SPREAD, growth=_tikz_growth)
    check_overlaps(g, "TikZ", boxes)
    check_through(g, boxes, "TikZ")
    held = set(containers(g).values()) if place(g).from_source else set()
    ids = _ids(g)
    body = [r"\begin{tikzpicture}[x=1pt, y=1pt, every node/.style="
            r"{draw, align=center, inner sep=2pt, font=\small}]"]
    order = sorted(g.nodes, key=lambda n: (n.id not in held,
                                           -boxes[n.id][2] * boxes[n.id][3]))
    for n in order:
        x, y, w, h = boxes[n.id]
        if n.id in held:  # the label on top, the frame around what it holds
            shape = rf"rectangle, text height=7pt, text depth={max(h - 11.0, 0.0):.1f}pt"
        else:
            shape = _TIKZ_SHAPES.get(shape_of(n.shape), "rectangle")
        body.append(rf"  \node[{shape}, minimum width={w:.1f}pt, minimum height="
                    rf"{h:.1f}pt] ({ids[n.id]}) at ({x + w / 2:.1f}, {-(y + h / 2):.1f}) "
                    rf"{{{_tex(n.text)}}};")
    for e, r in zip(g.edges, routes(g, boxes), strict=True):
        a, b = ids[e.source], ids[e.target]  # type: ignore[index]
        tip = "->" if e.directed else "<->" if e.both_heads else "-"
        where = "midway, fill=white"
        if r.loop is not None:
            wider = f", min distance={6 + 4 * (r.loop // 4)}mm" if r.loop >= 4 else ""
            path = f"to[loop {LOOP_SIDES[r.loop % 4]}{wider}]"
        elif r.offset == 0:
            path = "--"
        else:
            # the pair's frame: the first edge's direction; an edge drawn the other way
            # bends to its own other side to land on the same one
            side = r.offset if r.forward else -r.offset
            path = f"to[bend {'left' if side > 0 else 'right'}={tikz_bend(side):g}]"
            where = "midway, auto" + ("" if side > 0 else ", swap")  # outside the bend
        label = (rf" node[{where}, draw=none, font=\scriptsize] {{{_tex(e.label)}}}"
                 if e.label.strip() else "")
        body.append(rf"  \draw[{tip}] ({a}) {path}{label} ({b if a != b else a});")
    body.append(r"\end{tikzpicture}")
    return "\n".join([STANDALONE_CLASS, r"\usepackage[T1]{fontenc}", r"\usepackage{tikz}",
                      r"\usetikzlibrary{shapes.geometric, shapes.symbols}",
                      r"\begin{document}", *body,
                      r"\end{document}", ""])


# -- mxGraph (draw.io) ----------------------------------------------------------------------
_MX_SHAPES = {"rectangle": "rounded=0;", "rounded": "rounded=1;", "ellipse": "ellipse;",
              "rhombus": "rhombus;", "hexagon": "shape=hexagon;perimeter=hexagonPerimeter2;",
              "cylinder": "shape=cylinder3;", "triangle": "triangle;",
              "parallelogram": "shape=parallelogram;", "note": "shape=note;",
              "text": "text;", "container": "rounded=0;fillColor=none;verticalAlign=top;"}
MX_SCALE = {"tikz": 4 / 3, "dot": 4 / 3}
"""Source units per draw.io px: TikZ and Graphviz boxes are in pt."""


MX_SPREAD = 32.0
"""px between the waypoints of two edges joining the same two nodes (and of a loop from its
node): wider than a line of label text, so labels drawn at them never meet."""


def _mx_points(box_a: tuple[float, ...], box_b: tuple[float, ...], r: Route
               ) -> list[tuple[float, float]]:
    """Waypoints of an edge from ``box_a`` to ``box_b`` (x, y, w, h): none for a lone
    edge; one beside the straight line for each of several between the same nodes; one off
    the node's side for a loop.  draw.io puts an edge's label at the middle of its route,
    which is then the waypoint: each label has its own place."""
    ax, ay = box_a[0] + box_a[2] / 2, box_a[1] + box_a[3] / 2
    if r.loop is not None:
        side = r.loop % 4
        far = MX_SPREAD * (1 + r.loop // 4)
        return [[(ax, box_a[1] - far), (box_a[0] + box_a[2] + far, ay),
                 (ax, box_a[1] + box_a[3] + far), (box_a[0] - far, ay)][side]]
    if r.offset == 0:
        return []
    bx, by = box_b[0] + box_b[2] / 2, box_b[1] + box_b[3] / 2
    dx, dy = (bx - ax, by - ay) if r.forward else (ax - bx, ay - by)
    length = math.hypot(dx, dy) or 1.0
    ux, uy = -dy / length, dx / length  # perpendicular to the first edge's direction
    step = r.offset * MX_SPREAD
    return [((ax + bx) / 2 + ux * step, (ay + by) / 2 + uy * step)]


MX_FONT = Font(char=7.0, line=15.0, pad=10.0)
"""draw.io's default label (12 px Helvetica), in px: a TeX text box fits its 10 pt text
exactly, draw.io's 12 px label would wrap and spill, so boxes are sized from the text."""
MX_MAX_SPREAD = 3.0
MX_CONTAINER = "rounded=0;fillColor=none;verticalAlign=top;"
"""A container's frame: no fill (what it holds shows through), its label at its top."""


def to_mxgraph(g: Graph, unit: float = 1.0) -> str:
    """An uncompressed ``<mxGraphModel>``: vertices at the source's boxes (× ``unit``) in its
    shapes, grown to hold their labels (:func:`~.layout.fit_boxes`), plain-text labels; a
    container first, a frame with its label at its top around what it holds; edges between
    them (``endArrow=none`` when undirected), parallel and opposite ones routed apart through
    waypoints, loops each on another side (:func:`routes`)."""
    check_expressible(g)
    ids = _ids(g)
    cells = ['<mxCell id="0"/>', '<mxCell id="1" parent="0"/>']
    check_lanes(g, "draw.io")
    check_overlaps(g, "draw.io")
    boxes = fit_boxes(g, unit, MX_FONT, MX_MAX_SPREAD)
    check_overlaps(g, "draw.io", boxes)
    check_through(g, boxes, "draw.io")
    held = set(containers(g).values()) if place(g).from_source else set()
    for n in sorted(g.nodes, key=lambda n: (n.id not in held,
                                           -boxes[n.id][2] * boxes[n.id][3])):
        x, y, w, h = boxes[n.id]
        style = (MX_CONTAINER if n.id in held else _MX_SHAPES.get(shape_of(n.shape),
                                                                   "rounded=0;")) \
            + "whiteSpace=wrap;html=0;"
        cells.append(f'<mxCell id="{ids[n.id]}" value={quoteattr(n.text)} style="{style}" '
                     f'vertex="1" parent="1"><mxGeometry x="{x:.1f}" y="{y:.1f}" '
                     f'width="{w:.1f}" height="{h:.1f}" as="geometry"/></mxCell>')
    for k, (e, r) in enumerate(zip(g.edges, routes(g, boxes), strict=True)):
        arrow = ("endArrow=classic;" if e.directed else
                 "startArrow=classic;endArrow=classic;" if e.both_heads else "endArrow=none;")
        pts = _mx_points(boxes[e.source], boxes[e.target], r)  # type: ignore[index]
        inner = ('<Array as="points">' + "".join(f'<mxPoint x="{x:.1f}" y="{y:.1f}"/>'
                                                 for x, y in pts) + "</Array>") if pts else ""
        cells.append(f'<mxCell id="e{k}" value={quoteattr(e.label)} style="{arrow}html=0;" '
                     f'edge="1" parent="1" source="{ids[e.source]}" '  # type: ignore[index]
                     f'target="{ids[e.target]}"><mxGeometry relative="1" '  # type: ignore[index]
                     f'as="geometry">{inner}</mxGeometry></mxCell>')
    return "<mxGraphModel><root>" + "".join(cells) + "</root></mxGraphModel>"


WRITERS = {"dot": to_dot, "mermaid": to_mermaid, "tikz": to_tikz, "mxgraph": to_mxgraph}


def preserves(target: str, g: Graph) -> str:
    """What a written twin keeps: ``layout`` (positions, sizes, shapes) for TikZ and mxGraph
    when the source had a layout, else ``structure``."""
    if target in ("tikz", "mxgraph") and place(g).from_source:
        return LAYOUT
    return STRUCTURE
