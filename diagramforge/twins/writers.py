"""A structure graph written in another diagram language.

Each writer takes the source's :class:`~diagramforge.graphs.model.Graph` (node texts and
shapes, directed or undirected edges with labels, bboxes) and writes code its real engine
compiles.  What each keeps is declared in :data:`PRESERVES`: DOT and Mermaid lay the
structure out themselves (``structure``); TikZ and mxGraph place every node where the
source drew it, at its size, in its shape (``layout``) — or on layers of the structure when
the source had no layout (then ``structure`` too: see :func:`preserves`).

Text is written so the target's own reader gives it back: escaped for DOT strings, HTML
escapes in Mermaid's quoted labels (what Mermaid cannot draw is refused, not altered), LaTeX
escapes, XML attribute escapes.  Ids are the target's own (``n0``, ``n1``…).
"""

from __future__ import annotations

import math
import re
from xml.sax.saxutils import quoteattr

from diagramforge.graphs.model import Graph
from diagramforge.twins.layout import WriteError, check_expressible, place

STRUCTURE = "structure"
LAYOUT = "layout"


def _ids(g: Graph) -> dict[str, str]:
    return {n.id: f"n{k}" for k, n in enumerate(g.nodes)}


# -- Graphviz DOT ---------------------------------------------------------------------------
_DOT_SHAPES = {"rectangle": "box", "rounded": "box", "ellipse": "ellipse", "rhombus": "diamond",
               "cylinder": "cylinder", "hexagon": "hexagon", "triangle": "triangle",
               "parallelogram": "parallelogram", "note": "note", "text": "plaintext",
               "container": "box"}


def _dot_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(g: Graph) -> str:
    """``digraph`` with Graphviz's own layout; undirected edges as ``dir=none``."""
    check_expressible(g)
    ids = _ids(g)
    # components packed in an array: a graph of many small parts is not one long row
    lines = ["digraph twin {", '  pack=true; packmode="array_u";',
             '  node [fontname="DejaVu Sans"];']
    for n in g.nodes:
        attrs = [f"label={_dot_str(n.text)}", f"shape={_DOT_SHAPES.get(n.shape, 'box')}"]
        if n.shape == "rounded":
            attrs.append('style="rounded"')
        lines.append(f"  {ids[n.id]} [{', '.join(attrs)}];")
    for e in g.edges:
        attrs = [] if e.directed else ["dir=none"]
        if e.label:
            attrs.append(f"label={_dot_str(e.label)}")
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


def to_mermaid(g: Graph) -> str:
    """A ``flowchart``, top-down (left-right when the source drew it wider than tall)."""
    check_expressible(g)
    ids = _ids(g)
    boxes = [n.bbox for n in g.nodes if n.bbox]
    wide = bool(boxes) and (max(b[0] + b[2] for b in boxes) - min(b[0] for b in boxes)
                            > 1.5 * (max(b[1] + b[3] for b in boxes) - min(b[1] for b in boxes)))
    lines = [f"flowchart {'LR' if wide else 'TD'}"]
    for n in g.nodes:
        a, b = _MERMAID_SHAPES.get(n.shape, ("[", "]"))
        lines.append(f"  {ids[n.id]}{a}{_mermaid_str(n.text)}{b}")
    for e in g.edges:
        arrow = "-->" if e.directed else "---"
        label = f"|{_mermaid_str(e.label)}|" if e.label.strip() else ""
        lines.append(f"  {ids[e.source]} {arrow}{label} {ids[e.target]}")  # type: ignore[index]
    # many separate parts: invisible links (laid out, never drawn, not in the graph) stack
    # them in columns, so the drawing is a grid rather than one long row
    order = {n.id: k for k, n in enumerate(g.nodes)}
    heads = [ids[min(c, key=order.__getitem__)] for c in _components(g)]
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
_TIKZ_SHAPES = {"ellipse": "ellipse", "rhombus": "diamond", "hexagon": "regular polygon, "
                "regular polygon sides=6", "cylinder": "cylinder, shape border rotate=90",
                "rounded": "rectangle, rounded corners", "text": "rectangle, draw=none"}
TIKZ_WIDTH_PT = 460.0
"""A twin wider than this (a page's text width) is scaled down to fit."""


def _math_symbols() -> dict[str, str]:
    from diagramforge.graphs.tikz import _SYMBOLS

    return {c: rf"\{name}{{}}" if name.startswith("text") else rf"\ensuremath{{\{name}}}"
            for name, c in sorted(_SYMBOLS.items())
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
    lines = ["".join(_tex_char(c) for c in ln) for ln in s.split("\n")]
    return r" \\ ".join(lines)


def to_tikz(g: Graph) -> str:
    """A standalone TikZ picture: nodes at the source's positions and sizes (pt), in their
    shapes; edges as straight arrows (loops above, parallel edges bent apart)."""
    from diagramforge.formats.tikz import STANDALONE_CLASS

    check_expressible(g)
    placed = place(g)
    ids = _ids(g)
    right = max(x + w for x, _, w, _ in placed.boxes.values())
    k = min(1.0, TIKZ_WIDTH_PT / right) if right > 0 else 1.0
    body = [rf"\begin{{tikzpicture}}[x={k:.4f}pt, y={k:.4f}pt, every node/.style="
            r"{draw, align=center, inner sep=2pt, font=\small}]"]
    for n in g.nodes:
        x, y, w, h = placed.boxes[n.id]
        shape = _TIKZ_SHAPES.get(n.shape, "rectangle")
        body.append(rf"  \node[{shape}, minimum width={w * k:.1f}pt, minimum height="
                    rf"{h * k:.1f}pt] ({ids[n.id]}) at ({x + w / 2:.1f}, {-(y + h / 2):.1f}) "
                    rf"{{{_tex(n.text)}}};")
    seen: dict[frozenset, int] = {}
    for e in g.edges:
        a, b = ids[e.source], ids[e.target]  # type: ignore[index]
        tip = "->" if e.directed else "-"
        label = (rf" node[midway, fill=white, draw=none, font=\scriptsize] {{{_tex(e.label)}}}"
                 if e.label.strip() else "")
        if a == b:
            body.append(rf"  \draw[{tip}] ({a}) to[loop above]{label} ({a});")
            continue
        pair = frozenset((a, b))
        bend = seen.get(pair, 0)
        seen[pair] = bend + 1
        path = "--" if bend == 0 else f"to[bend left={15 * bend}]"
        body.append(rf"  \draw[{tip}] ({a}) {path}{label} ({b});")
    body.append(r"\end{tikzpicture}")
    return "\n".join([STANDALONE_CLASS, r"\usepackage[T1]{fontenc}", r"\usepackage{tikz}",
                      r"\usetikzlibrary{shapes.geometric}", r"\begin{document}", *body,
                      r"\end{document}", ""])


# -- mxGraph (draw.io) ----------------------------------------------------------------------
_MX_SHAPES = {"rectangle": "rounded=0;", "rounded": "rounded=1;", "ellipse": "ellipse;",
              "rhombus": "rhombus;", "hexagon": "shape=hexagon;perimeter=hexagonPerimeter2;",
              "cylinder": "shape=cylinder3;", "triangle": "triangle;",
              "parallelogram": "shape=parallelogram;", "note": "shape=note;",
              "text": "text;", "container": "rounded=0;fillColor=none;verticalAlign=top;"}
MX_SCALE = {"tikz": 4 / 3, "dot": 4 / 3}
"""Source units per draw.io px: TikZ and Graphviz boxes are in pt."""


def to_mxgraph(g: Graph, unit: float = 1.0) -> str:
    """An uncompressed ``<mxGraphModel>``: vertices at the source's boxes (× ``unit``) in its
    shapes, plain-text labels; edges between them (``endArrow=none`` when undirected)."""
    check_expressible(g)
    placed = place(g)
    ids = _ids(g)
    cells = ['<mxCell id="0"/>', '<mxCell id="1" parent="0"/>']
    for n in g.nodes:
        x, y, w, h = (v * unit for v in placed.boxes[n.id])
        style = _MX_SHAPES.get(n.shape, "rounded=0;") + "whiteSpace=wrap;html=0;"
        cells.append(f'<mxCell id="{ids[n.id]}" value={quoteattr(n.text)} style="{style}" '
                     f'vertex="1" parent="1"><mxGeometry x="{x + 20:.1f}" y="{y + 20:.1f}" '
                     f'width="{w:.1f}" height="{h:.1f}" as="geometry"/></mxCell>')
    for k, e in enumerate(g.edges):
        arrow = "endArrow=classic;" if e.directed else "endArrow=none;"
        cells.append(f'<mxCell id="e{k}" value={quoteattr(e.label)} style="{arrow}html=0;" '
                     f'edge="1" parent="1" source="{ids[e.source]}" '  # type: ignore[index]
                     f'target="{ids[e.target]}"><mxGeometry relative="1" '  # type: ignore[index]
                     'as="geometry"/></mxCell>')
    return "<mxGraphModel><root>" + "".join(cells) + "</root></mxGraphModel>"


WRITERS = {"dot": to_dot, "mermaid": to_mermaid, "tikz": to_tikz, "mxgraph": to_mxgraph}


def preserves(target: str, g: Graph) -> str:
    """What a written twin keeps: ``layout`` (positions, sizes, shapes) for TikZ and mxGraph
    when the source had a layout, else ``structure``."""
    if target in ("tikz", "mxgraph") and place(g).from_source:
        return LAYOUT
    return STRUCTURE
