"""Tunable numbers of graph extraction and scoring, in one typed place.

Kept here (not in ``diagramforge/params.py``, which other work owns) so the graph layer can be
wired into ``params.yaml`` later by adding one field that holds a :class:`GraphParams`.
Lengths are in the drawing's own units: SVG user units (px) or PDF points; the geometric
extractors (SVG, PDF) scale them by the drawing's median font size over
``svg_default_font_size``, so a drawing scaled up 4× keeps the same tolerances relative to
its text.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


class GraphParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # -- scoring ------------------------------------------------------------------------
    match_threshold: Annotated[float, Field(ge=0, le=1)] = 0.8
    """Minimum similarity of normalised node texts for two nodes to match.  Neither paper
    publishes its number (SciFlow: "a fixed threshold" on embedding cosine; DiagramEval: "a
    predefined threshold"); 0.8 of ``difflib``'s ratio accepts plurals and small OCR slips
    ("train model"/"train models" 0.96) and rejects different words ("evaluate"/
    "evaluation" 0.78)."""
    node_weight: Annotated[float, Field(ge=0, le=1)] = 0.4
    """SciFlow's graph-level score: node F1 weighs 40 %, edge F1 the other 60 %."""

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
