"""TikZ as a twin target: a standalone picture that places every node where the source drew
it, at its size, in its shape (``layout``; on layers of the structure when the source had no
layout), and as a twin source: its own SVG is pdflatex's page through PyMuPDF, its edges are
read from strokes, and fractions its reader cannot spell keep it out (the protocol:
:mod:`diagramforge.formats.twin_base`)."""

from __future__ import annotations

import re

from diagramforge.formats import grounding
from diagramforge.formats.grounding import Verdict
from diagramforge.formats.tikz import grounding as tikz_grounding
from diagramforge.formats.tikz.graph.text import SYMBOLS
from diagramforge.formats.tikz.pictures import STANDALONE_CLASS
from diagramforge.formats.twin_base import (
    LOOP_SIDES,
    UNEXPRESSIBLE,
    layout_kept,
    node_ids,
    routes,
    shape_of,
)
from diagramforge.formats.twin_layout import (
    Font,
    WriteError,
    check_expressible,
    check_lanes,
    check_overlaps,
    check_through,
    containers,
    fit_boxes,
    place,
)
from diagramforge.graphs.model import Graph, Node

DRAWING = False
EXPORT_METHOD = "pdflatex-pymupdf-svg"
EDGES_FROM_STROKES = True
preserves = layout_kept

_STACKED = re.compile(r"\\(?:[dtc]?frac|nicefrac|sfrac|[dt]?binom|over|choose)(?![A-Za-z@])")


def source_check(code: str | None) -> Verdict | None:
    """``None`` unless the picture typesets fractions or binomials (``\\\\frac``,
    ``\\\\nicefrac``, ``\\\\binom``…): the graph reader spells their parts run together
    ("⅛₁₀" reads "810"), so every twin would write a label the picture does not show
    (:data:`~diagramforge.formats.grounding.INCOMPLETE`)."""
    if not code:
        return None
    body = tikz_grounding.body(code)
    found = sorted(set(_STACKED.findall(body)))
    if found:
        return Verdict(grounding.INCOMPLETE, f"labels typeset with {', '.join(found[:3])}: "
                       "the reader spells a fraction's parts run together, not as drawn")
    return None


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


def write(g: Graph, unit: float = 1.0) -> str:
    """A standalone TikZ picture: nodes at the source's positions and sizes (× ``unit``, in
    pt), in their shapes, each box grown to hold its text and the centres spread to keep them
    apart (:func:`~diagramforge.formats.twin_layout.fit_boxes`: scaling the picture down to a
    page's width while the
    text kept its size is what made labels spill over their boxes); a container drawn first,
    as a frame around what it holds with its label at its top; edges as straight arrows,
    their labels on them — but edges between the same two nodes (parallel or opposite) bent
    apart, each label outside its own bend, and loops on a node each on another side
    (:func:`~diagramforge.formats.twin_base.routes`)."""
    check_expressible(g)
    check_lanes(g, "TikZ")
    check_overlaps(g, "TikZ")
    boxes = fit_boxes(g, unit, TIKZ_FONT, TIKZ_MAX_SPREAD, growth=_tikz_growth)
    check_overlaps(g, "TikZ", boxes)
    check_through(g, boxes, "TikZ")
    held = set(containers(g).values()) if place(g).from_source else set()
    ids = node_ids(g)
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


