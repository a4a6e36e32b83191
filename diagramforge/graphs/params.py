"""Tunable numbers of graph extraction and scoring, in one typed place.

Kept here (not in ``diagramforge/params.py``, which other work owns) so the graph layer can be
wired into ``params.yaml`` later by adding one field that holds a :class:`GraphParams`.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


class GraphParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    match_threshold: Annotated[float, Field(ge=0, le=1)] = 0.8
    """Minimum ``difflib`` ratio of normalised texts for two nodes to match (SciFlow-style)."""
    attach_tolerance: Annotated[float, Field(ge=0)] = 10.0
    """A floating edge end this close (px) to a vertex box is attached to that vertex."""
    line_merge_k: Annotated[float, Field(gt=0)] = 1.5
    """DiagramEval K: text lines merge when their baselines differ by < K × font size."""
    line_merge_tau: Annotated[float, Field(ge=0, le=1)] = 0.2
    """DiagramEval τ: …and their x spans overlap by more than τ (of the shorter span)."""
    default_font_size: Annotated[float, Field(gt=0)] = 12.0
    """SVG text without a font size is taken to be this size (px)."""
