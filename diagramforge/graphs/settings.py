"""The ``graph`` section and the scorers' ``evaluate.scores``: the tunable numbers of
structure-graph extraction (read by the graph readers, the formats' ``to_graph`` in render,
the edit checks) and of the reference scorers (``graphs/score.py``).  Here, in the lowest
package that reads them; ``cards/evaluate/settings.py`` composes the scorers' part into its
section.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from diagramforge.params import Section


class GraphParams(Section):
    """``graph``: tunable numbers of structure-graph extraction (``diagramforge.graphs``, run
    in ``render``) and of the reference scorers.  Lengths are in the drawing's own units (SVG
    px, PDF pt), scaled by its median font size over ``svg_default_font_size``."""

    # -- matching a TikZ picture's source nodes to its compiled page ----------------------
    match_threshold: Annotated[float, Field(ge=0, le=1)] = 0.8
    """Minimum similarity of normalised node texts for a source node and a page node to be
    candidates for each other (the TikZ extractor; the scorers' thresholds are
    ``evaluate.scores``)."""

    # -- geometry (mxGraph, SVG, PDF) ---------------------------------------------------
    attach_tolerance: Annotated[float, Field(ge=0)] = 10.0
    """An edge end this close to a node box is attached to that node."""
    svg_line_merge_k: Annotated[float, Field(gt=0)] = 1.5
    """DiagramEval K: text lines merge when their baselines differ by < K × font size."""
    svg_overlap_tau: Annotated[float, Field(ge=0, le=1)] = 0.2
    """DiagramEval τ: …and their x spans overlap by more than τ (of the shorter span)."""
    svg_default_font_size: Annotated[float, Field(gt=0)] = 12.0
    """SVG text without a font size is taken to be this size (px), as browsers do (16) or
    draw.io (12); 12 fits diagram exports."""
    svg_char_width_em: Annotated[float, Field(gt=0)] = 0.6
    """Estimated advance of one character, in em (no font metrics for SVG text)."""
    arrow_tip_em: Annotated[float, Field(gt=0)] = 1.5
    """A path whose bbox is at most this many font sizes across (the drawing's median font
    size) and sits on the end of a line is that line's arrowhead, not a shape."""
    join_tolerance: Annotated[float, Field(ge=0)] = 1.0
    """Line pieces whose free ends are this close are one connector (polylines drawn as
    several segments)."""
    container_share: Annotated[float, Field(gt=0, le=1)] = 0.5
    """A shape covering this share of the drawing or more is a frame, never a node box."""

    # -- TikZ -----------------------------------------------------------------------------
    tikz_max_statements: Annotated[int, Field(gt=0)] = 5000
    """Cap on statements after expanding ``\\foreach`` loops (a loop bomb stops here)."""
    tikz_source_share: Annotated[float, Field(ge=0)] = 0.5
    """The source graph is kept when it has edges and at least this share of the edges the
    compiled page shows; below that the source is too macro-heavy and geometry serves."""


class GraphScoreParams(Section):
    """``evaluate.scores``: the structure-graph scorers (``diagramforge score``, the graph
    metrics of ``diagramforge evaluate``).  Nodes match one-to-one when their text
    similarity (``difflib`` ratio of normalised texts, spaces left out) *exceeds* a
    metric's threshold: both papers define the match that way and neither publishes the
    number (SciFlow: "exceeds a fixed threshold", on sentence-embedding cosine;
    DiagramEval: "surpasses a predefined threshold").  0.8 of ``difflib``'s ratio accepts
    plurals and small OCR slips ("train model"/"train models" 0.95) and rejects different
    words ("evaluate"/"evaluation" 0.78); near-identical labels ("Expert 1"/"Expert 2",
    0.857) pass it, and the one-to-one matching is what keeps them apart."""

    diagrameval_threshold: Annotated[float, Field(ge=0, lt=1)] = 0.8
    """Node, edge and path alignment (``node_*``, ``edge_*``, ``path_*``, ``graph_score``)."""
    sciflow_threshold: Annotated[float, Field(ge=0, lt=1)] = 0.8
    """SciFlow-Bench's scores (``sciflow_*``)."""
    node_weight: Annotated[float, Field(ge=0, le=1)] = 0.4
    """Both graph scores: node F1 weighs 40 %, edge F1 the other 60 % (SciFlow's weights)."""
    matching: Literal["hungarian", "greedy", "sequential"] = "hungarian"
    """``hungarian``: the one-to-one matching of greatest total similarity; ``sequential``:
    DiagramEval's procedure as written (each predicted node in order takes its most similar
    unmatched reference node); ``greedy``: the most similar pair first."""
