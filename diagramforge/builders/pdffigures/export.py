"""A figure region as code: clipped SVG for vector figures, a PNG crop for raster ones.

The SVG comes from PyMuPDF's SVG device run on a one-page copy of the page on which
everything *fully outside* the region has been redacted away (paths wholly covered by one
of four half-planes around the region, text overlapping them, images outside it), then
the cropbox is set to the region so the SVG's viewBox is the figure.  A rectangle is
disjoint from the region exactly when it lies wholly in one of those half-planes, so no
outside path survives and no path reaching into the figure is lost.  Text stays
``<text>`` (``text_as_path=False``).  The result goes through the project's SVG
sanitizer and must render to a non-blank PNG, or the figure is dropped as ``svg_invalid``
/ ``svg_blank``.
"""

from __future__ import annotations

import pymupdf

from diagramforge.builders.pdffigures.model import BBox, PdfReason
from diagramforge.formats.svg import document as svgfmt
from diagramforge.store.records import Refusal


class ExportError(Refusal):
    """A region that could not be turned into a usable SVG or PNG."""


def _outside_strips(page_rect: pymupdf.Rect, r: pymupdf.Rect) -> list[pymupdf.Rect]:
    p = page_rect
    strips = [pymupdf.Rect(p.x0, p.y0, p.x1, r.y0), pymupdf.Rect(p.x0, r.y1, p.x1, p.y1),
              pymupdf.Rect(p.x0, p.y0, r.x0, p.y1), pymupdf.Rect(r.x1, p.y0, p.x1, p.y1)]
    return [s for s in strips if not s.is_empty]


def clipped_svg(doc: pymupdf.Document, pno: int, bbox: BBox) -> str:
    """SVG of ``bbox`` on page ``pno``: viewBox = the region, outside content removed."""
    tmp = pymupdf.open()
    try:
        tmp.insert_pdf(doc, from_page=pno, to_page=pno)
        page = tmp[0]
        region = pymupdf.Rect(bbox) & page.rect
        outside_images = [pymupdf.Rect(i["bbox"]) for i in page.get_image_info()
                          if not pymupdf.Rect(i["bbox"]).intersects(region)]
        if outside_images:
            for r in outside_images:
                page.add_redact_annot(r, fill=False)
            page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_REMOVE,
                                  graphics=pymupdf.PDF_REDACT_LINE_ART_NONE,
                                  text=pymupdf.PDF_REDACT_TEXT_NONE)
        for s in _outside_strips(page.rect, region):
            page.add_redact_annot(s, fill=False)
        page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_NONE,
                              graphics=pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_COVERED,
                              text=pymupdf.PDF_REDACT_TEXT_REMOVE)
        page.set_cropbox(region)
        return page.get_svg_image(text_as_path=False)
    finally:
        tmp.close()


def checked_svg(svg: str, max_bytes: int) -> str:
    """Sanitized SVG that renders with ink, else :class:`ExportError`."""
    try:
        cleaned = svgfmt.clean(svg, svgfmt.Caps(max_bytes=max_bytes)).code
        png = svgfmt.render_png(cleaned, scale=1.0)
    except svgfmt.SvgError as exc:
        raise ExportError(PdfReason.SVG_INVALID, f"{exc.reason}: {exc.detail}") from None
    _, _, ink = svgfmt.png_ink(png)
    if ink <= 0.0:
        raise ExportError(PdfReason.SVG_BLANK, "the clipped SVG renders blank")
    return cleaned


def raster_png(page: pymupdf.Page, bbox: BBox, dpi: int, max_pixels: int) -> bytes:
    """PNG of the region rendered at ``dpi`` (what pdffigures2 saves for every figure)."""
    region = pymupdf.Rect(bbox) & page.rect
    w, h = region.width * dpi / 72, region.height * dpi / 72
    if w * h > max_pixels:
        raise ExportError(PdfReason.FIGURE_TOO_LARGE,
                          f"{w:.0f}x{h:.0f} px at {dpi} dpi > {max_pixels} px")
    try:
        return page.get_pixmap(clip=region, dpi=dpi, alpha=False).tobytes("png")
    except (RuntimeError, ValueError) as exc:
        raise ExportError(PdfReason.RASTER_FAILED, str(exc)[:300]) from None
