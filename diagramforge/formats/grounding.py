"""Whether a structure graph is a faithful reading of its picture: the one check every
graph-grounded writer asks (issue 50).

QA about connections, counts and reachability, edit referents, twins and the evaluation's
graph references all say things *about the graph* as if they were true of the picture.  They
are only when the picture is a graph (:func:`~diagramforge.vocabulary.picture_graph_like`)
and its graph explains what was drawn:

1. **structure** (:func:`structure_check`, no render needed): the graph has at least one
   edge and most of its nodes are joined to something (else :data:`NOT_A_GRAPH`: loose
   labels, whatever the classifier said — a line chart's tick labels, a geometry figure's
   annotations); it is not a **sequence diagram** (participants drawn as lifelines,
   :data:`SEQUENCE_SHAPES`: its messages are ordered in time down the lifelines, which no
   node-link graph says); most of its nodes have text (else :data:`INCOMPLETE`: a node
   without text is drawn, not written — an icon, a picture, a blank circle —
   :data:`MAX_BLANK_SHARE`); every edge joins two nodes (an arrow the reader could not
   attribute — a free arrow, an axis — leaves the graph incomplete);
2. **one picture** (:func:`code_check`): what the source's format knows makes its graph
   untrustworthy — its ``grounding`` capability (``formats/<name>/grounding.py``,
   ``code_check(code) -> Verdict | None``; TikZ: a ``\\tikz`` or a ``tikzpicture`` inside
   its picture, or pictures side by side, read as one graph of the outer nodes, or several
   diagrams merged into one), none when the format has no such capability;
3. **text** (:func:`text_check`): at least ``min_share`` of the text runs on the picture's
   own render (its engine's SVG, :func:`drawn_texts`) are part of a node text or an edge
   label, and every node text is on the render.

Texts are compared by their letters and digits only (:func:`letters`): how a renderer splits
and spaces runs ("Expert1", "q" + "0"), and punctuation or operators drawn as glyphs of their
own (TeX's "−" for a source's "-"), do not say which label a run belongs to; a run with no
letter or digit is not counted.

The twin gate (``builders/twin/gate.py``) is these checks with the twin's own reason names; synth
(QA) and the edit stage (referents) ask :func:`picture_check` and :func:`text_check`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from diagramforge.formats import capabilities
from diagramforge.formats.svg.graph import svg_primitives
from diagramforge.graphs.geometry import TextItem
from diagramforge.graphs.model import Graph
from diagramforge.graphs.score import normalise_text
from diagramforge.vocabulary import graph_like, picture_graph_like

NOT_A_GRAPH = "not_a_graph"
INCOMPLETE = "graph_incomplete"
MIN_TEXT_SHARE = 0.95
MAX_LOOSE_SHARE = 0.5
"""A graph most of whose nodes touch no edge is labels on a picture (a geometry figure the
classifier took for a graph: "φ", "F = 5N", "s = 3m" and one line), not a node-link
diagram; a legend or a title or two beside a real graph stay well below."""
MAX_BLANK_SHARE = 0.5
"""A graph more than half of whose nodes have no text is icons or pictures joined by lines
(draw.io's cloud templates: rows of vendor icons), which a twin draws as empty boxes."""
MAX_BARE_SHARE = 0.5
"""A graph read off a drawing (the geometric reading: TikZ's page when its source does not
resolve, an SVG) most of whose nodes are bare texts — no shape around them (``text``) —
joined by lines is labels on a picture (a geometry figure's "r" and "α" at the ends of a
radius, a plot's axis labels), not boxes and arrows.  Asked by the writers of
graph-grounded rows (:func:`picture_check`), not by the twin gate."""
SEQUENCE_SHAPES = frozenset({"actor", "umlLifeline"})
"""Node shapes that mark a sequence diagram's participants: Mermaid's sequence reader gives
each participant the shape ``actor``; draw.io draws a lifeline as ``shape=umlLifeline``."""


@dataclass(frozen=True)
class Verdict:
    """Why a graph is not a faithful reading of its picture: a reason and what was found."""

    reason: str
    detail: str


def letters(text: str) -> str:
    """Letters and digits of ``text``, normalised as the scorers normalise (case, Unicode
    form)."""
    return "".join(c for c in normalise_text(text) if c.isalnum())


def is_sequence(graph: Graph) -> bool:
    """Whether the graph is a sequence diagram's: participants drawn as lifelines."""
    return any(n.shape in SEQUENCE_SHAPES for n in graph.nodes)


def kind_check(diagram_type: str | None) -> Verdict | None:
    """The kind alone (the twin gate's point 1): ``None`` for an untyped diagram or a
    graph-like kind."""
    if not diagram_type:
        return None
    try:
        ok = graph_like(diagram_type)
    except ValueError:
        ok = False
    if ok:
        return None
    return Verdict(NOT_A_GRAPH, f"diagram_type {diagram_type} is not a graph-like kind "
                   "(classifier.vocabulary.GRAPH_LIKE)")


def structure_check(graph: Graph) -> Verdict | None:
    """Point 1 (no render needed): ``None`` when the graph's structure may be the
    picture's."""
    if not graph.edges:
        return Verdict(NOT_A_GRAPH, f"{len(graph.nodes)} nodes and no edges: loose labels, "
                       "no structure to translate")
    lifelines = [n.text for n in graph.nodes if n.shape in SEQUENCE_SHAPES]
    if lifelines:
        return Verdict(NOT_A_GRAPH, f"a sequence diagram ({len(lifelines)} lifelines: "
                       + ", ".join(repr(t) for t in lifelines[:3]) + "): its messages' order "
                       "in time is the diagram, which a graph does not say")
    joined = {i for e in graph.edges for i in (e.source, e.target)}
    loose = [n for n in graph.nodes if n.id not in joined]
    if len(loose) > MAX_LOOSE_SHARE * len(graph.nodes):
        return Verdict(NOT_A_GRAPH, f"{len(loose)} of {len(graph.nodes)} nodes are joined to "
                       "nothing: mostly loose labels (a picture's annotations), not a graph")
    blank = [n for n in graph.nodes if not letters(n.text)]
    if len(blank) > MAX_BLANK_SHARE * len(graph.nodes):
        return Verdict(INCOMPLETE, f"{len(blank)} of {len(graph.nodes)} nodes have no text: "
                       "what they are is drawn (icons, pictures), not written, so the graph "
                       "cannot say it")
    ids = {n.id for n in graph.nodes}
    free = [e for e in graph.edges if e.source not in ids or e.target not in ids]
    if free:
        text = {n.id: repr(n.text) for n in graph.nodes}
        show = ", ".join(f"{text.get(e.source or '', '(free)')}->"
                         f"{text.get(e.target or '', '(free)')}" for e in free[:3])
        return Verdict(INCOMPLETE, f"{len(free)} of {len(graph.edges)} edges have a free end "
                       f"(the reader could not attribute them to two nodes): {show}")
    return None


def code_check(fmt: str, code: str | None) -> Verdict | None:
    """Point 2: ``None`` unless the source's format, reading its ``code``, says the graph
    cannot be a faithful reading of it (its ``grounding`` capability)."""
    if not code:
        return None
    module = capabilities.of(fmt, "grounding")
    return None if module is None else module.code_check(code)


def picture_check(record: Mapping, graph: Graph) -> Verdict | None:
    """Everything but the render's text: the picture is graph-like
    (:func:`~diagramforge.vocabulary.picture_graph_like`: its per-picture ``graph_like``, or
    its kind; an untyped picture is not), its graph's structure holds, some node joins two
    edges (else the edges are segments between labels: a figure's axes and sides), most of
    its nodes are more than bare texts (:data:`MAX_BARE_SHARE`), and its source is one
    picture.
    ``None``: ask :func:`text_check` of its render next."""
    if not picture_graph_like(record):
        kind = record.get("diagram_type")
        return Verdict(NOT_A_GRAPH, "the picture is not graph-like ("
                       + (f"diagram_type {kind}" if kind else "untyped: no evidence it is a "
                          "graph") + ")")
    found = structure_check(graph)
    if found is not None:
        return found
    degree: dict[str, int] = {}
    for e in graph.edges:
        for end in {e.source, e.target}:
            degree[str(end)] = degree.get(str(end), 0) + 1
    if max(degree.values(), default=0) <= 1 and len(graph.nodes) > 2:
        return Verdict(NOT_A_GRAPH, f"{len(graph.edges)} edges, none sharing a node, among "
                       f"{len(graph.nodes)} nodes: segments between labels (axes, a geometry "
                       "figure's sides), not a network of connections")
    bare = [n for n in graph.nodes if n.shape == "text"]
    if len(bare) > MAX_BARE_SHARE * len(graph.nodes):
        return Verdict(NOT_A_GRAPH, f"{len(bare)} of {len(graph.nodes)} nodes are bare texts "
                       "(no shape around them) the drawing's lines end at: labels on a "
                       "picture, not boxes and arrows")
    return code_check(str(record.get("format") or ""), record.get("code"))


def text_check(graph: Graph, runs: list[str], min_share: float = MIN_TEXT_SHARE
               ) -> Verdict | None:
    """Point 3: ``None`` when the graph's labels explain the render's text ``runs``."""
    labels = [k for k in (letters(t) for t in [*(n.text for n in graph.nodes),
                                                 *(e.label for e in graph.edges)]) if k]
    counted = [r for r in runs if letters(r)]
    unexplained = [r for r in counted if not any(letters(r) in k for k in labels)]
    share = 1.0 - len(unexplained) / len(counted) if counted else 1.0
    drawn = "".join(letters(r) for r in counted)
    absent = [n.text for n in graph.nodes if letters(n.text) and not _on_render(n.text, drawn)]
    why = []
    if share < min_share:
        why.append(f"{len(counted) - len(unexplained)} of {len(counted)} text runs on the "
                   f"render are in a node or edge label ({share:.0%} < {min_share:.0%}); not: "
                   + ", ".join(repr(r) for r in unexplained[:5]))
    if absent:
        why.append(f"{len(absent)} node texts are not on the render: "
                   + ", ".join(repr(t) for t in absent[:5]))
    return Verdict(INCOMPLETE, "; ".join(why)) if why else None


def _on_render(text: str, drawn: str) -> bool:
    """A node text is on the render when its letters are, in one piece or line by line (a
    renderer draws each line of a label as a run of its own, in order or not)."""
    if letters(text) in drawn:
        return True
    lines = [letters(ln) for ln in text.split("\n")]
    return all(ln in drawn for ln in lines if ln)


def drawn_runs(drawing: str) -> list[TextItem]:
    """The text runs an engine's drawing (its SVG export) sets, each with its box and font
    size (each ``<text>`` line; a ``<foreignObject>`` label), as the SVG graph reader sees
    them: what the twin's readability is measured on (``builders/twin/readable.py``)."""
    texts, _ = svg_primitives(drawing)
    return texts


def drawn_texts(svg: str) -> list[str]:
    """The text runs an SVG draws (each ``<text>`` line; a ``<foreignObject>`` label), as the
    SVG graph reader sees them."""
    return [t.text for t in drawn_runs(svg)]
