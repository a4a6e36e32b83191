"""Which diagrams get twins: those whose structure graph *is* the diagram.

The checks are the shared ones of :mod:`diagramforge.graphs.grounding` (QA and edit
referents ask them too), under the twin's own reason names (``twin_not_a_graph``,
``twin_graph_incomplete``); what follows is what they mean for a twin.

A twin written from the structure graph (DOT, Mermaid, TikZ, mxGraph) is the same diagram
only when that graph says everything the drawing says; the twin check (:mod:`.compare`)
cannot see what the graph lacks.  A line chart's graph is its tick labels with no edges — any
writer that copies labels "verifies" — and a graph read with ``ball`` where the page shows
"ball 1" gives a twin that equals the graph, not the picture.  So a diagram is twinned only
when:

1. **its kind is graph-like** (:data:`~diagramforge.vocabulary.GRAPH_LIKE`:
   flowcharts, graphs, trees, automata, commutative, architecture/block, UML, network, mind
   maps, neural networks…) — charts, tables, plots, pictures, Venn diagrams and circuits
   are not (an untyped diagram is judged by its graph alone);
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
6. **a TikZ source is one picture** (:func:`code_check`): a ``\\tikz`` or a ``tikzpicture``
   within the picture (a B-tree whose every node is a row of keys drawn as a small picture)
   leaves the reader the outer nodes and their edges only, and pictures side by side (the
   steps of an algorithm) are several diagrams merged into one graph — else
   :data:`INCOMPLETE`.

Texts are compared by their letters and digits only (:func:`letters`): how a renderer splits
and spaces runs ("Expert1", "q" + "0"), and punctuation or operators drawn as glyphs of their
own (TeX's "−" for a source's "-"), do not say which label a run belongs to; a run with no
letter or digit is not counted.
"""

from __future__ import annotations

from diagramforge.graphs import grounding
from diagramforge.graphs.grounding import (
    MAX_BLANK_SHARE,
    MAX_LOOSE_SHARE,
    MIN_TEXT_SHARE,
    SEQUENCE_SHAPES,
    Verdict,
    _on_render,
    drawn_texts,
    letters,
)
from diagramforge.graphs.model import Graph

__all__ = ["INCOMPLETE", "MAX_BLANK_SHARE", "MAX_LOOSE_SHARE", "MIN_TEXT_SHARE", "NOT_A_GRAPH",
           "SEQUENCE_SHAPES", "Verdict", "_on_render", "code_check", "drawn_texts", "letters",
           "structure_check", "text_check"]

NOT_A_GRAPH = "twin_not_a_graph"
INCOMPLETE = "twin_graph_incomplete"
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
