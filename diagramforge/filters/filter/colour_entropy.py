"""Colour entropy of the render: Shannon entropy (bits) of its quantised colour histogram.

VectorGym keeps SVGs with enough colour variation and drops monotonic palettes; the same
number also flags the other end — photographs and gradients, whose pixels spread over
thousands of colours where a diagram uses a handful.  The background would dominate every
histogram (a diagram is mostly paper), so it is excluded: transparency is composited onto
white, and the most frequent quantised colour along the image border is taken as the
background and dropped.  Each channel is quantised to ``bits`` bits so anti-aliasing does not
count as new colours.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Annotated

import numpy as np
from PIL import Image
from pydantic import Field, model_validator

from diagramforge.filters.classifier.images import to_rgb
from diagramforge.filters.filter.base import FilterFn, FilterSection, Verdict, register

if TYPE_CHECKING:
    from diagramforge.filters.filter.base import FilterSettings


class ColourEntropyParams(FilterSection):
    bits: Annotated[int, Field(ge=1, le=8)] = 4
    """Bits kept per RGB channel (4 → 4,096 colour bins; the entropy is at most 3 × bits)."""
    min: Annotated[float, Field(ge=0)] = 0.5
    """Reject below (bits): a flat single-colour fill.  Black line art still scores > 1 bit
    (anti-aliased edges and text), so the usual monochrome TikZ figure stays."""
    max: Annotated[float, Field(ge=0)] = 6.5
    """Reject above (bits): full-colour photographs and dense gradients (scikit-image's
    astronaut scores 7.3, coffee 6.6; the sample corpus's diagrams 1.4–5.7)."""
    max_side: Annotated[int, Field(ge=16)] = 512
    """Renders are downscaled to this side first: the histogram's shape, not its pixel count,
    is what matters, and a 4,096-px render should not cost 60 ms."""

    @model_validator(mode="after")
    def _ordered(self) -> ColourEntropyParams:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) must not exceed max ({self.max})")
        return self


def _rgb(image: bytes, max_side: int) -> np.ndarray:
    img = Image.open(io.BytesIO(image))
    img.draft("RGB", (max_side, max_side))  # cheap JPEG downscale; a no-op for PNG
    if max(img.size) > max_side:  # NEAREST: resampling would invent blended colours
        img.thumbnail((max_side, max_side), Image.Resampling.NEAREST)
    return np.asarray(to_rgb(img))  # transparency on white, as the classifier sees it


def colour_entropy(image: bytes, bits: int = 4, max_side: int = 512) -> float:
    """Entropy in bits of the quantised colours of ``image`` (PNG/JPEG bytes), background
    excluded; 0.0 when nothing but background is left."""
    arr = _rgb(image, max_side).astype(np.uint32) >> (8 - bits)
    codes = (arr[..., 0] << (2 * bits)) | (arr[..., 1] << bits) | arr[..., 2]
    border = np.concatenate([codes[0], codes[-1], codes[:, 0], codes[:, -1]])
    background = np.bincount(border).argmax()
    counts = np.bincount(codes.ravel())
    counts[background] = 0
    total = counts.sum()
    if total == 0:
        return 0.0
    p = counts[counts > 0] / total
    return float(max(0.0, -(p * np.log2(p)).sum()))


@register("colour_entropy", params=ColourEntropyParams, writes=("colour_entropy",))
def make_colour_entropy_filter(cfg: ColourEntropyParams, params: FilterSettings) -> FilterFn:
    """Keep renders whose colour entropy lies in [min, max]."""

    def check(record: dict) -> Verdict:
        image = record.get("image")
        if not image:
            return Verdict.reject("no_image", "colour entropy needs a render")
        try:
            h = round(colour_entropy(image, cfg.bits, cfg.max_side), 4)
        except (OSError, ValueError) as exc:  # PIL: not an image, truncated
            return Verdict.reject("image_unreadable", repr(exc))
        if h < cfg.min:
            return Verdict.reject("colour_entropy_low", f"{h:.3f} < {cfg.min}", colour_entropy=h)
        if h > cfg.max:
            return Verdict.reject("colour_entropy_high", f"{h:.3f} > {cfg.max}",
                                  colour_entropy=h)
        return Verdict.ok(colour_entropy=h)

    check.histogram = ("colour_entropy",)  # type: ignore[attr-defined]  # bits, in metrics
    return check
