"""The ``augment`` section of ``params.yaml``: sketches, image degradations, code variations,
the LLM that writes them — and ``augment.repair``, which the ``repair`` stage reads: it is a
sub-section of ``augment`` (the two stages share the variation LLM), so it is defined with
the section it belongs to, below the repair stage.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from diagramforge.params import Section
from diagramforge.synth.llm.settings import LLMParams


class SketchParams(Section):
    """Hand-drawn versions from the real engines (config ``sketch``: sketch image → code)."""

    enabled: bool = True
    mxgraph_style: str = "sketch=1;curveFitting=1;jiggle=2;"
    """draw.io's own rough style, added to every vertex and edge."""
    tikz_segment_pt: Annotated[float, Field(gt=0)] = 5.0
    tikz_amplitude_pt: Annotated[float, Field(ge=0)] = 0.7
    tikz_font: str = "\\fontfamily{pzc}\\selectfont"
    """Zapf Chancery (TeX Live's base fonts): the handwriting-like face available offline."""
    svg_roughness: Annotated[float, Field(ge=0)] = 1.0
    """Standard deviation (px) of the jitter of a roughened SVG outline."""
    svg_step: Annotated[float, Field(gt=0)] = 8.0
    svg_double_stroke: bool = True


class DegradeParams(Section):
    """Scan/photo-like degradations (albumentations; config ``degraded``: image → code)."""

    enabled: bool = True
    per_diagram: Annotated[int, Field(ge=0)] = 1
    rotate_limit: Annotated[float, Field(ge=0, le=45)] = 3.0
    perspective_scale: Annotated[list[float], Field(min_length=2, max_length=2)] = [0.01, 0.04]
    blur_limit: Annotated[int, Field(ge=3)] = 5
    blur_p: Annotated[float, Field(ge=0, le=1)] = 0.5
    noise_std: Annotated[list[float], Field(min_length=2, max_length=2)] = [0.01, 0.04]
    jpeg_quality: Annotated[list[int], Field(min_length=2, max_length=2)] = [40, 85]
    paper_texture: Annotated[float, Field(ge=0, le=1)] = 0.08


class VariationParams(Section):
    """AugTikZ variations through the LLM layer (the offline backend answers with rule-based
    style, colour and layout variations; config ``variation``: image → code)."""

    enabled: bool = True
    per_diagram: Annotated[int, Field(ge=0)] = 2
    max_tokens: Annotated[int, Field(ge=1)] = 8000
    """A variation longer than this (cl100k tokens) leaves the training window: dropped."""
    min_image_change: Annotated[float, Field(ge=0, le=1)] = 0.002
    """A variation whose render differs from the original's (or a kept sibling's) in fewer
    than this share of pixels is a near-duplicate."""
    prompt_version: str = "augtikz-variation-v1"


class RepairParams(Section):
    """AugTikZ repair of failed TikZ compiles through the LLM (the ``repair`` stage)."""

    enabled: bool = True
    min_text_overlap: Annotated[float, Field(ge=0, le=1)] = 0.8
    """A repair must keep this share (multiset Jaccard) of the broken code's node texts."""
    prompt_version: str = "augtikz-repair-v1"


class AugmentParams(Section):
    """The ``augment`` stage: sketches, image degradations and code variations."""

    seed: int = 1234
    sketch: SketchParams = SketchParams()
    degrade: DegradeParams = DegradeParams()
    variation: VariationParams = VariationParams()
    repair: RepairParams = RepairParams()
    llm: LLMParams = LLMParams(max_tokens=4096)
    """The model that writes variations (offline: rule-based, no key); room for a diagram's
    code in the answer."""
