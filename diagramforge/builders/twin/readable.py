"""Whether a twin can be read as it is published: a twin whose graph equals its source's can
still be no use to anyone — a dense graph or an org chart that Graphviz or Mermaid lays out
so wide that its raster shrinks it to a thumbnail, labels a layout twin sets on top of each
other.  So every verified twin is measured on its own engine's drawing (the SVG its handler
exports: Graphviz's, Mermaid's, draw.io's, the TikZ page's text through PyMuPDF), at the size
of its published raster:

* **the smallest text** — a text run's font size in raster pixels (the drawing's user units
  × the raster's width over the drawing's): below :data:`MIN_TEXT_PX` the twin is
  :data:`TOO_SMALL`;
* **overlapping text** — two text runs of different labels whose boxes cover more than
  :data:`MAX_OVERLAP` of the smaller one (:data:`MAX_OVERLAP_ESTIMATED` where the widths are
  estimated): the twin is :data:`OVERLAP` (the lines of one ``<text>`` are one label:
  Mermaid places them in ``em``, which the reader does not resolve; a text drawn twice in
  place is one).  A run's box is its writer's own advance
  where the SVG gives one (``textLength``: the TikZ page's glyphs), else an estimate from its
  font size (``graph.svg_char_width_em``), the reader's own.

Either way the twin is not written and the reason is counted (``failed.<source>.<target>.
<reason>``), like any other twin that is not the source's diagram.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from PIL import Image

from diagramforge.formats.grounding import drawn_runs
from diagramforge.formats.picture import Picture
from diagramforge.graphs.geometry import TextItem

TOO_SMALL = "twin_text_too_small"
OVERLAP = "twin_text_overlaps"
MIN_TEXT_PX = 10.0
"""Smallest font size, in raster pixels, that a twin may set any text at: about 7 px of
capital height, where a label stops being legible without zooming in.  The samples' twins
set their smallest text at 15–30 px (edge labels in TikZ's ``\\scriptsize`` the least)."""
MAX_OVERLAP = 0.1
"""Share of the smaller of two text runs' boxes another may cover, where the drawing gives
each run's advance (``textLength``: the TikZ page's glyphs): a row of labels set larger
than their boxes covered 22–24 % of each other."""
MAX_OVERLAP_ESTIMATED = 0.3
"""The same where a run's width is estimated from its font size (Graphviz's, Mermaid's,
draw.io's SVG): the estimate is a little wider than the glyphs, so two edge labels
Graphviz set side by side measured 14–19 % "overlap"."""


@dataclass(frozen=True)
class Reading:
    """What a drawing's text looks like at its raster: the smallest font size in pixels
    (``None``: no text) and the pairs of text runs that overlap (their texts and share)."""

    smallest_px: float | None
    overlaps: list[tuple[str, str, float]]


def user_width(drawing: str) -> float | None:
    """The drawing's width in its own user units (the ``viewBox``'s, else ``width``)."""
    head = re.search(r"<svg\b[^>]*>", drawing)
    if not head:
        return None
    box = re.search(r'viewBox\s*=\s*"([^"]+)"', head.group(0))
    if box:
        parts = box.group(1).replace(",", " ").split()
        if len(parts) == 4:
            return float(parts[2])
    width = re.search(r'\swidth\s*=\s*"([0-9.]+)', head.group(0))
    return float(width.group(1)) if width else None


def _overlap(a: TextItem, b: TextItem) -> float:
    ax, ay, aw, ah = a.box
    bx, by, bw, bh = b.box
    w = min(ax + aw, bx + bw) - max(ax, bx)
    h = min(ay + ah, by + bh) - max(ay, by)
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min(aw * ah, bw * bh)
    return w * h / smaller if smaller > 0 else 0.0


def measure(drawing: str, raster_width_px: int) -> Reading:
    """The text of ``drawing`` (an engine's SVG) as set on a raster ``raster_width_px``
    wide."""
    units = user_width(drawing)
    texts = [t for t in drawn_runs(drawing) if any(c.isalnum() for c in t.text)]
    if not texts or not units:
        return Reading(None, [])
    scale = raster_width_px / units
    smallest = min(t.size for t in texts) * scale
    limit = MAX_OVERLAP if "textLength" in drawing else MAX_OVERLAP_ESTIMATED
    texts.sort(key=lambda t: t.box[0])
    overlaps = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if b.box[0] >= a.box[0] + a.box[2]:
                break  # sorted by left edge: nothing further starts before a ends
            if a.src and a.src == b.src:
                continue  # lines of one label (a <text>'s tspans, placed in em)
            share = _overlap(a, b)
            if share > 0.9 and a.text == b.text:
                continue  # one label drawn twice in place (a halo, a bold stroke)
            if share > limit:
                overlaps.append((a.text, b.text, round(share, 2)))
    return Reading(round(smallest, 1), overlaps)


def image_width(image: Picture | bytes) -> int:
    """The published raster's width: a render in memory (a twin not encoded yet) or its
    stored bytes."""
    if isinstance(image, Picture):
        return image.width
    with Image.open(io.BytesIO(image)) as im:
        return im.width


def unreadable(drawing: str, image: Picture | bytes, min_px: float = MIN_TEXT_PX
               ) -> tuple[str, str] | None:
    """``(reason, detail)`` when ``drawing`` (the twin engine's SVG), published as
    ``image``, cannot be read; ``None`` when it can."""
    width = image_width(image)
    r = measure(drawing, width)
    if r.overlaps:
        show = "; ".join(f"{a!r} and {b!r} ({s:.0%})" for a, b, s in r.overlaps[:3])
        return OVERLAP, f"{len(r.overlaps)} pairs of text runs overlap: {show}"
    if r.smallest_px is not None and r.smallest_px < min_px:
        return TOO_SMALL, (f"the smallest text is {r.smallest_px:.1f} px at the published "
                           f"{width} px width (< {min_px:g} px)")
    return None
