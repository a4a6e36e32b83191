"""Rasterize a one-page PDF with PyMuPDF, cropped to what was actually drawn.

Blank pages and extreme scales are rejected here with a reason: a diagram that renders to
nothing, or to a 3-pixel sliver, is not a diagram (SKETikZ drops "extreme scale" renders).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np
import pymupdf

from diagramforge.measure.timing import CHECKS, RASTERISE, in_phase
from diagramforge.store.records import Rejection

if TYPE_CHECKING:
    from collections.abc import Callable

    from diagramforge.formats.picture import Picture
    from diagramforge.formats.settings import RasterParams
    from diagramforge.stage import Outcome


class RasterReason(StrEnum):
    BLANK = "blank_render"
    TOO_SMALL = "extreme_scale_small"
    TOO_LARGE = "extreme_scale_large"
    EXTREME_ASPECT = "extreme_aspect"
    BAD_PDF = "bad_pdf"


@dataclass
class Raster:
    png: bytes | None
    width: int = 0
    height: int = 0
    ink: float = 0.0
    reason: str | None = None
    detail: str = ""
    pixels: np.ndarray | None = None
    """The page's RGB pixels, (height, width, 3), when they were asked for instead of a
    PNG (``rasterize_pdf(..., png=False)``)."""

    @property
    def ok(self) -> bool:
        return self.png is not None or self.pixels is not None


INK_BLOCK_PX = 1 << 22
"""Pixels per block when counting ink: the count's temporaries stay ≈ 8 MB whatever the
page (issue 42: whole-page temporaries took a worker to 800 MB on a 9,223-pixel page)."""


@in_phase(CHECKS)
def ink_fraction(samples: bytes | memoryview, width: int, height: int, channels: int) -> float:
    """Share of pixels that are not (near) white. Counted block of rows by block of rows
    over the samples as given (a view of the pixmap's memory, never a copy): a page up to
    ``max_side`` on each side is drawn (50 MB of samples at 4,096), and its verdict needs
    only the count.
    ``count / pixels`` is the mean the whole-page count gave, to the last bit (a float64
    sum of 0s and 1s is exact)."""
    if width * height == 0:
        return 0.0
    arr = np.frombuffer(samples, dtype=np.uint8).reshape(height, width, channels)
    rows = max(1, INK_BLOCK_PX // width)
    inked = sum(int(np.count_nonzero(arr[y:y + rows, :, :3].min(axis=2) < 245))
                for y in range(0, height, rows))
    return inked / (width * height)


@in_phase(CHECKS)
def check_extremes(width: int, height: int, ink: float, *, min_side: int, max_side: int,
                   max_aspect: float, min_ink: float) -> tuple[str, str] | None:
    """The shared size/scale/blank policy for every format's renders. Too large comes
    first: it is known before a page is drawn, and :func:`rasterize_pdf` refuses such a
    page without drawing it (a 9,223-pixel page is 255 MB of pixels to count for a
    verdict its size already gave), so every format names the same reason for it."""
    if max(width, height) > max_side:
        return RasterReason.TOO_LARGE, f"{width}x{height}px, max side {max_side}"
    if ink < min_ink:
        return RasterReason.BLANK, f"ink fraction {ink:.5f} < {min_ink}"
    if min(width, height) < min_side:
        return RasterReason.TOO_SMALL, f"{width}x{height}px, min side {min_side}"
    aspect = max(width, height) / max(1, min(width, height))
    if aspect > max_aspect:
        return RasterReason.EXTREME_ASPECT, f"aspect {aspect:.1f} > {max_aspect}"
    return None


def check_render(width: int, height: int, ink: float, rp: RasterParams,
                 *, ink_checked: bool = True) -> tuple[str, str] | None:
    """:func:`check_extremes` with the limits of ``render.raster``: every format's render
    handler checks its pictures against the same params, so they are read in one place.
    ``ink_checked=False`` skips the blank check (a filter re-checking sizes only)."""
    return check_extremes(width, height, ink if ink_checked else 1.0,
                          min_side=rp.min_side_px, max_side=rp.max_side_px,
                          max_aspect=rp.max_aspect,
                          min_ink=rp.min_ink_fraction if ink_checked else 0.0)


def keep_render(out: Outcome, locator: str, row: dict, bad: tuple[str, str] | None,
                width: int, height: int, engine: str, image: bytes | Picture | None = None,
                more: Callable[[dict], dict] | None = None) -> dict | None:
    """One render's verdict on ``out``, written the same way by every format's handler:
    the rejection ``bad`` names (:func:`check_render`'s, or the rasteriser's), else the row
    as a rendered record — with ``image`` when the render made it (a raster figure keeps
    its own) and the columns ``more`` computes from it (the graph) — which is returned."""
    if bad is not None:
        out.rejections.append(Rejection(locator, bad[0], bad[1], id=row["id"]))
        return None
    rec = {**row, **({} if image is None else {"image": image}), "width": width,
           "height": height, "render_status": "ok", "render_engine": engine,
           "render_error": None}
    if more is not None:
        rec.update(more(rec))
    out.records.append(rec)
    return rec


def drawn_clip(page: pymupdf.Page, margin_pt: float) -> pymupdf.Rect | None:
    """What was drawn on the page plus a margin (the crop of every render and of the SVG
    twin), or None for a blank page."""
    log = [pymupdf.Rect(b[1]) for b in page.get_bboxlog()]
    # a picture may draw outside the bounding box it declares (``\useasboundingbox`` at a
    # point, an overlay): the page is that box and would be blank, so grow it to what is
    # drawn. Only then: a page with drawing on it is the author's choice (plain pdfLaTeX
    # shows it so), and the log's boxes ignore clipping — a clipped 3D plot's paths reach
    # far past its page, and growing to them gave 68,000-pixel renders of small figures
    drawn = [b for b in log if not b.is_empty and not b.is_infinite]
    tiny = min(page.rect.width, page.rect.height) < DEGENERATE_PAGE_PT
    on_page = any(b.intersects(page.rect) for b in drawn)
    if (tiny or not on_page) and \
            any(b not in page.rect + (-0.01, -0.01, 0.01, 0.01) for b in drawn):
        grown = pymupdf.Rect(page.rect)
        for b in drawn:
            grown |= b
        page.set_mediabox(grown * page.transformation_matrix)
        log = [pymupdf.Rect(b[1]) for b in page.get_bboxlog()]
    # a shading (`fill-shade`) is logged with an infinite box: it paints up to its clip
    # path, which PyMuPDF does not report, so it may reach any edge of the page; the page
    # of a standalone document is the picture's own bounding box (plus border), so it is
    # the safe crop then, where dropping the box would cut shaded shapes at the edge
    if any(b.is_infinite for b in log):
        log.append(pymupdf.Rect(page.rect))
    boxes = [b & page.rect for b in log if not b.is_empty and not b.is_infinite]
    boxes = [b for b in boxes if not b.is_empty]
    if not boxes:
        return None
    clip = boxes[0]
    for b in boxes[1:]:
        clip |= b
    return (clip + (-margin_pt, -margin_pt, margin_pt, margin_pt)) & page.rect


DEGENERATE_PAGE_PT = 8.0
"""A page narrower than this (in pt) holds no picture: a bounding box declared at a point or
a line, plus the standalone border; what the picture draws decides its page instead."""


@in_phase(RASTERISE)
def rasterize_pdf(pdf: bytes, *, dpi: int, margin_pt: float, min_side: int, max_side: int,
                  max_aspect: float, min_ink: float, png: bool = True) -> Raster:
    """The PDF's first page cropped to what was drawn, at ``dpi``, checked; as a PNG, or with
    ``png=False`` as the pixmap's pixels (a caller that compares or stores them itself:
    no PNG is encoded here to be decoded there)."""
    try:
        doc = pymupdf.open("pdf", pdf)
        page = doc[0]
    except Exception as exc:  # noqa: BLE001 - a corrupt PDF is a reason, not a crash
        return Raster(None, reason=RasterReason.BAD_PDF, detail=repr(exc))
    clip = drawn_clip(page, margin_pt)
    if clip is None:
        return Raster(None, reason=RasterReason.BLANK, detail="nothing drawn on the page")
    # a page too large is refused before its pixmap exists: the pixmap's size is the clip
    # scaled and rounded out, as PyMuPDF sizes it (the same to the pixel: tested)
    scale = dpi / 72.0
    box = (clip * pymupdf.Matrix(scale, scale)).round()
    if max(box.width, box.height) > max_side:
        return Raster(None, box.width, box.height, reason=RasterReason.TOO_LARGE,
                      detail=f"{box.width}x{box.height}px, max side {max_side}")
    pix = page.get_pixmap(dpi=dpi, clip=clip, alpha=False)
    ink = ink_fraction(pix.samples_mv, pix.width, pix.height, pix.n)  # a view, no copy
    bad = check_extremes(pix.width, pix.height, ink, min_side=min_side, max_side=max_side,
                         max_aspect=max_aspect, min_ink=min_ink)
    if bad:
        return Raster(None, pix.width, pix.height, ink, reason=bad[0], detail=bad[1])
    if not png:  # a copy: the pixmap's memory goes with it
        pixels = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width,
                                                                    pix.n)
        return Raster(None, pix.width, pix.height, ink, pixels=pixels)
    return Raster(pix.tobytes("png"), pix.width, pix.height, ink)
