"""Which diagrams get twins: those whose structure graph *is* the diagram.

The checks are the shared ones of :mod:`diagramforge.formats.grounding` (QA and edit
referents ask them too), under the twin's own reason names (``twin_not_a_graph``,
``twin_graph_incomplete``); what follows is what they mean for a twin.

A twin written from the structure graph (DOT, Mermaid, TikZ, mxGraph) is the same diagram
only when that graph says everything the drawing says; the twin check (:mod:`.compare`)
cannot see what the graph lacks.  A line chart's graph is its tick labels with no edges — any
writer that copies labels "verifies" — and a graph read with ``ball`` where the page shows
"ball 1" gives a twin that equals the graph, not the picture.  So a diagram is twinned only
when:

1. **the picture is graph-like** (:func:`picture_check`: the ``diagram_type`` filter's
   per-picture ``graph_like``, else its kind in :data:`~diagramforge.vocabulary.GRAPH_LIKE`:
   flowcharts, graphs, trees, automata, commutative, architecture/block, UML, network, mind
   maps, neural networks…) — charts, tables, plots, pictures, Venn diagrams and circuits
   are not, and an untyped picture is unknown (:data:`UNTYPED`);
2. **its graph has at least one edge, and most of its nodes are joined to something** — else
   :data:`NOT_A_GRAPH` (loose labels, whatever the classifier said); nor is a **sequence
   diagram** (participants drawn as lifelines: :data:`SEQUENCE_SHAPES`) — its messages are
   ordered in time down the lifelines, which no node-link graph says (a twin drew "GET" and
   "200 OK" as a 2-cycle between two boxes);
3. **most of its nodes have text** — else :data:`INCOMPLETE`: a node without text is drawn,
   not written (a cloud vendor's icon, a picture, a blank circle), so the graph cannot say
   what it is, and the twin check, which pairs nodes by their text, verifies nothing but
   counts (``MAX_BLANK_SHARE``);
4. **every edge joins two nodes** — an arrow the reader could not attribute (a free arrow,
   an axis, a connector between circles it found no text in) leaves the graph incomplete:
   :data:`INCOMPLETE`;
5. **the graph explains what was drawn** (:func:`text_check`): at least
   ``min_text_share`` of the text runs on the source's own render (its engine's SVG: the PDF
   text layer for TikZ, through PyMuPDF; draw.io's, Graphviz's, Mermaid's SVG text; an SVG's
   own text) are part of a node text or an edge label, and every node text is on the render —
   else :data:`INCOMPLETE`;
6. **no text joined to nothing sits on an edge, no mark is a node** (:func:`label_check`):
   a "yes" by a decision's arrow that the reader took for a node of its own, a "⋮" below a
   column of blocks — else :data:`INCOMPLETE`; **at most a tenth of the nodes are pictures
   without text** (:func:`icon_check`: library icons a twin draws as empty boxes); **no line
   stroked twice** (:func:`stroke_check`: a highlighted path over the plain one);
7. **a TikZ source is one picture** (:func:`code_check`): a ``\\tikz`` or a ``tikzpicture``
   within the picture (a B-tree whose every node is a row of keys drawn as a small picture)
   leaves the reader the outer nodes and their edges only, and pictures side by side (the
   steps of an algorithm) are several diagrams merged into one graph — else
   :data:`INCOMPLETE`; and whatever else the source's format says against its graph
   (:func:`source_check`, its twin capability's ``source_check``: TikZ's fractions, which
   the reader spells ``\\nicefrac{8}{10}`` "810").

Texts are compared by their letters and digits only (:func:`letters`): how a renderer splits
and spaces runs ("Expert1", "q" + "0"), and punctuation or operators drawn as glyphs of their
own (TeX's "−" for a source's "-"), do not say which label a run belongs to; a run with no
letter or digit is not counted.
"""

from __future__ import annotations

from types import ModuleType

from diagramforge.formats import grounding
from diagramforge.formats.grounding import (
    MAX_BLANK_SHARE,
    MAX_LOOSE_SHARE,
    MIN_TEXT_SHARE,
    SEQUENCE_SHAPES,
    Verdict,
    _on_render,
    drawn_texts,
    letters,
)
from diagramforge.formats.twin_base import DRAWN_SHAPES, shape_of
from diagramforge.formats.twin_layout import FRAME_SHAPES, containers
from diagramforge.graphs.model import Graph
from diagramforge.vocabulary import picture_graph_like

__all__ = ["INCOMPLETE", "MAX_BLANK_SHARE", "MAX_LOOSE_SHARE", "MIN_TEXT_SHARE", "NOT_A_GRAPH",
           "SEQUENCE_SHAPES", "UNTYPED", "Verdict", "_on_render", "code_check", "drawn_texts",
           "icon_check", "label_check", "letters", "picture_check", "source_check",
           "stroke_check", "structure_check", "text_check"]

NOT_A_GRAPH = "twin_not_a_graph"
INCOMPLETE = "twin_graph_incomplete"
UNTYPED = "twin_type_unknown"
_REASONS = {grounding.NOT_A_GRAPH: NOT_A_GRAPH, grounding.INCOMPLETE: INCOMPLETE}


def _twin(v: Verdict | None) -> Verdict | None:
    """A shared verdict under the twin's ledger reason."""
    return None if v is None else Verdict(_REASONS[v.reason], v.detail)


def structure_check(graph: Graph, diagram_type: str | None) -> Verdict | None:
    """Points 1–4 (no render needed): ``None`` when the graph may be the diagram.  An
    untyped diagram is judged by its graph alone."""
    return _twin(grounding.kind_check(diagram_type) or grounding.structure_check(graph))


def code_check(fmt: str, code: str | None) -> Verdict | None:
    """Point 6: ``None`` unless a TikZ source draws pictures inside its picture."""
    return _twin(grounding.code_check(fmt, code))


def text_check(graph: Graph, runs: list[str], min_share: float = MIN_TEXT_SHARE
               ) -> Verdict | None:
    """Point 5: ``None`` when the graph's labels explain the render's text ``runs``."""
    return _twin(grounding.text_check(graph, runs, min_share))


def picture_check(record: dict) -> Verdict | None:
    """Point 1, per picture: ``None`` when this picture is its structure graph
    (:func:`~diagramforge.vocabulary.picture_graph_like`: the ``diagram_type`` filter's
    ``graph_like`` column, or the kind for rows typed before it).  An untyped picture is
    unknown, and an unknown picture gets no twins (:data:`UNTYPED`): a Feynman diagram or a
    radar chart whose graph happens to have edges would otherwise be twinned into loose
    boxes.  Used instead of :func:`structure_check`'s kind test (which it is then handed
    ``None``), so a picture the filter judged graph-like is not refused for its kind."""
    if picture_graph_like(record):
        return None
    label = record.get("diagram_type")
    if not label:
        return Verdict(UNTYPED, "untyped: what the picture is is unknown, and an unknown "
                       "picture gets no graph-grounded rows")
    if record.get("graph_like") is not None:
        return Verdict(NOT_A_GRAPH, f"the diagram_type filter judged this picture not "
                       f"graph-like (type {label})")
    return Verdict(NOT_A_GRAPH, f"diagram_type {label} is not a graph-like kind "
                   "(vocabulary.GRAPH_LIKE)")


def _segment_distance(box: list[float], p: tuple[float, float], q: tuple[float, float]
                      ) -> tuple[float, float]:
    """(distance from ``box``'s centre to segment ``p``–``q`` less half the box's smaller
    side, where along the segment the centre projects: 0 at ``p``, 1 at ``q``)."""
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    dx, dy = q[0] - p[0], q[1] - p[1]
    length2 = dx * dx + dy * dy
    t = ((cx - p[0]) * dx + (cy - p[1]) * dy) / length2 if length2 else 0.0
    px, py = p[0] + t * dx, p[1] + t * dy
    gap = ((cx - px) ** 2 + (cy - py) ** 2) ** 0.5 - min(box[2], box[3]) / 2
    return max(gap, 0.0), t


def label_check(graph: Graph) -> Verdict | None:
    """``None`` unless a node joined to nothing sits on an edge — within a line of its own
    text of the line between the edge's two nodes, along its inner nine tenths: a "yes" by
    a decision's arrow, a weight beside its edge, that the reader took for a node of its
    own.  The graph then says the picture has a loose box where it has a labelled edge, and
    every twin would draw it so (:data:`INCOMPLETE`)."""
    boxes = {n.id: n.bbox for n in graph.nodes if n.bbox and len(n.bbox) == 4}
    joined = {i for e in graph.edges for i in (e.source, e.target)}
    joined |= set(containers(graph).values())  # a lane's title is no label of an edge in it
    text = {n.id: n.text for n in graph.nodes}
    on: list[str] = []
    marks = [n.text for n in graph.nodes if n.id not in joined and n.text.strip()
             and not letters(n.text)]
    if marks:  # "⋮" below a column of blocks: a mark of the drawing, not a node
        return Verdict(INCOMPLETE, f"{len(marks)} marks joined to nothing read as nodes "
                       f"(no letter or digit: {', '.join(map(repr, marks[:4]))}): every "
                       "twin would draw each as a box")
    for n in graph.nodes:
        box = boxes.get(n.id)
        if n.id in joined or box is None or not letters(n.text):
            continue
        for e in graph.edges:
            a, b = boxes.get(e.source or ""), boxes.get(e.target or "")
            if a is None or b is None or e.source == e.target:
                continue
            p = (a[0] + a[2] / 2, a[1] + a[3] / 2)
            q = (b[0] + b[2] / 2, b[1] + b[3] / 2)
            gap, t = _segment_distance(box, p, q)
            if 0.05 <= t <= 0.95 and gap <= min(box[2], box[3]):
                on.append(f"{n.text!r} by {text[e.source or '']!r}->{text[e.target or '']!r}")
                break
    if on:
        return Verdict(INCOMPLETE, f"{len(on)} texts joined to nothing sit on edges (edge "
                       "labels the reader did not attach): " + ", ".join(on[:4]))
    return None


MAX_BLANK_ICON_SHARE = 0.1
"""Share of a graph's nodes that may be pictures or symbols without text (a draw.io library
icon, an image, a start state): a router in the middle of a home network is one box a
reader can still place; a third of a network drawn as empty boxes is not the picture."""


def icon_check(graph: Graph) -> Verdict | None:
    """``None`` unless more than :data:`MAX_BLANK_ICON_SHARE` of the nodes are pictures or
    symbols without text — a library shape (``mxgraph.citrix.firewall``), an image, a UML
    start or end state, a fork bar: any shape the writers do not draw as itself
    (:data:`~diagramforge.formats.twin_base.DRAWN_SHAPES`) — which every twin draws as an empty box
    (:data:`INCOMPLETE`).  Point 3 counts every blank node against a half; these are the
    blank nodes that were drawn to be recognised."""
    icons = [n.shape for n in graph.nodes if not n.text.strip()
             and shape_of(n.shape) not in DRAWN_SHAPES | FRAME_SHAPES]
    if graph.nodes and len(icons) > MAX_BLANK_ICON_SHARE * len(graph.nodes):
        return Verdict(INCOMPLETE, f"{len(icons)} of {len(graph.nodes)} nodes are pictures "
                       f"without text ({', '.join(sorted(set(icons))[:3])}): every twin "
                       "would draw each as an empty box")
    return None


def stroke_check(graph: Graph, stroked: bool) -> Verdict | None:
    """``None`` unless, in a drawing read from its strokes (``stroked``: the source format's
    twin capability says ``EDGES_FROM_STROKES`` — the TikZ page, an SVG's paths; draw.io,
    Graphviz and Mermaid state their edges), two undirected, unlabelled edges join the same
    two nodes: a line stroked twice in place (a highlighted path drawn over the plain one, a
    casing under a line), which the picture shows as one line and a twin would draw as two
    curves bent apart (:data:`INCOMPLETE`).  Parallel arrows, or labelled lines, are told
    apart by the picture and stay."""
    if not stroked:
        return None
    seen: dict[frozenset, int] = {}
    for e in graph.edges:
        if not e.directed and not e.both_heads and not e.label.strip() \
                and e.source is not None and e.target is not None:
            key = frozenset((e.source, e.target))
            seen[key] = seen.get(key, 0) + 1
    twice = [k for k, n in seen.items() if n > 1]
    if twice:
        text = {n.id: n.text for n in graph.nodes}
        show = ", ".join("–".join(repr(text.get(i, i)) for i in sorted(k)) for k in twice[:3])
        return Verdict(INCOMPLETE, f"{len(twice)} lines stroked more than once between the "
                       f"same two nodes ({show}): one line in the picture, several in a twin")
    return None


def source_check(twin: ModuleType | None, code: str | None) -> Verdict | None:
    """``None`` unless the source format's twin capability (``formats/<name>/twin.py``)
    finds something in the code against its graph being the diagram (TikZ: fractions its
    reader spells run together); a format with none says nothing."""
    return None if twin is None else _twin(twin.source_check(code))
