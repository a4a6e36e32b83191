"""``extract_figures``: one PDF in, captioned figures (SVG or PNG) and reasons out.

This is what the extract stage calls for a ``pdf`` source.  A bad PDF never raises: it
comes back as drops (``pdf_unreadable``, ``pdf_encrypted``, ``pdf_too_many_pages``, …).
Only a misconfigured extractor raises (:class:`ExtractorUnavailable`), because that is
the same for every PDF and should stop the stage at once, not fill the ledger.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from diagramforge.builders.pdffigures import pdffigures2
from diagramforge.builders.pdffigures.captions import referenced_numbers, split_captions
from diagramforge.builders.pdffigures.detect import Region, area, intersect
from diagramforge.builders.pdffigures.export import (
    ExportError,
    checked_svg,
    clipped_svg,
    raster_png,
)
from diagramforge.builders.pdffigures.find import find_regions
from diagramforge.builders.pdffigures.model import Extraction, FigureCandidate, PdfReason
from diagramforge.builders.pdffigures.page import Block, join_lines, read_page
from diagramforge.builders.pdffigures.settings import PdfFigureParams

ExtractorUnavailable = pdffigures2.ExtractorUnavailable


def _open(pdf_path: Path, params: PdfFigureParams, out: Extraction) -> pymupdf.Document | None:
    loc = Path(pdf_path).name
    try:
        size = Path(pdf_path).stat().st_size
    except OSError as exc:
        out.drop(loc, PdfReason.UNREADABLE, str(exc))
        return None
    if size > params.max_file_bytes:
        out.drop(loc, PdfReason.TOO_LARGE, f"{size} bytes > {params.max_file_bytes}")
        return None
    try:
        doc = pymupdf.open(pdf_path, filetype="pdf")
    except Exception as exc:  # noqa: BLE001 - MuPDF's errors are FileDataError, RuntimeError…
        out.drop(loc, PdfReason.UNREADABLE, repr(exc)[:300])
        return None
    if doc.needs_pass and not doc.authenticate(""):
        doc.close()
        out.drop(loc, PdfReason.ENCRYPTED, "a password is needed to open it")
        return None
    if doc.page_count == 0:
        doc.close()
        out.drop(loc, PdfReason.UNREADABLE, "no pages")
        return None
    if doc.page_count > params.max_pages:
        out.drop(loc, PdfReason.TOO_MANY_PAGES, f"{doc.page_count} pages > {params.max_pages}")
        doc.close()
        return None
    return doc


def _paragraphs(doc: pymupdf.Document, regions: list[Region], params: PdfFigureParams
                ) -> list[tuple[int, Block]]:
    """Non-caption text blocks outside figures (for the pdffigures2 path)."""
    out = []
    for page in doc:
        _, blocks = split_captions(read_page(page), params.caption_patterns)
        inside = [r.bbox for r in regions if r.page == page.number]
        out.extend((page.number, b) for b in blocks
                   if not any(area(intersect(b.bbox, r)) > 0.5 * area(b.bbox) for r in inside))
    return out


def _references(number: str, paragraphs: list[tuple[int, Block]]) -> list[str]:
    key = number.rstrip("abcdefghijklmnopqrstuvwxyz")
    texts = (join_lines(ln.text for ln in b.lines) for _, b in paragraphs)
    return [t for t in texts if key in referenced_numbers(t)]


def _image_share(page: pymupdf.Page, region: Region) -> float:
    boxes = [tuple(i["bbox"]) for i in page.get_image_info()]
    return min(1.0, sum(area(intersect(b, region.bbox)) for b in boxes) / max(
        1e-6, area(region.bbox)))


def _candidate(doc: pymupdf.Document, region: Region, params: PdfFigureParams,
               paragraphs: list[tuple[int, Block]], out: Extraction) -> None:
    cap = region.caption
    pad = params.pad_pt
    page = doc[region.page]
    x0, y0, x1, y1 = region.bbox
    bbox = tuple(pymupdf.Rect(x0 - pad, y0 - pad, x1 + pad, y1 + pad) & page.rect)
    fig = FigureCandidate(region.page, bbox, cap.text if cap else None,
                          cap.label if cap else None, caption_bbox=cap.bbox if cap else None,
                          source=region.source)
    w, h = x1 - x0, y1 - y0
    if w < params.min_figure_pt or h < params.min_figure_pt:
        out.drop(fig.locator, PdfReason.FIGURE_TOO_SMALL,
                 f"{w:.0f}x{h:.0f} pt < {params.min_figure_pt:g} pt")
        return
    if cap is not None:
        fig.references = _references(cap.number, paragraphs)
    share = region.image_share if region.source != "pdffigures2" else _image_share(page, region)
    try:
        if share >= params.raster_image_share:
            fig.kind = "raster"
            fig.png = raster_png(page, bbox, params.dpi, params.max_render_pixels)
        else:
            fig.svg = checked_svg(clipped_svg(doc, region.page, bbox), params.max_svg_bytes)
    except ExportError as exc:
        out.drop(fig.locator, exc.reason, exc.detail)
        return
    out.figures.append(fig)


def extract_figures(pdf_path: Path, params: PdfFigureParams | None = None) -> Extraction:
    """Captioned figures of one PDF with their references, and drops for everything lost."""
    params = params or PdfFigureParams()
    if params.extractor == "pdffigures2":
        pdffigures2.check_available(params)  # a setup error: raise before touching the PDF
    out = Extraction()
    doc = _open(Path(pdf_path), params, out)
    if doc is None:
        return out
    try:
        if params.extractor == "pdffigures2":
            try:
                regions, loose = pdffigures2.run(Path(pdf_path), params)
            except pdffigures2.Pdffigures2Error as exc:
                out.drop(Path(pdf_path).name, exc.reason, exc.detail)
                return out
            regions = [r for r in regions if r.caption and r.caption.kind == "Figure"]
            for c in loose:
                out.drop(f"p{c.page + 1}:{c.label}", PdfReason.REGION_NOT_FOUND, c.text[:200])
            paragraphs = _paragraphs(doc, regions, params)
        else:
            found = find_regions(doc, params, out)
            regions, paragraphs = found.regions, found.paragraphs
        for region in regions:
            try:
                _candidate(doc, region, params, paragraphs, out)
            except Exception as exc:  # noqa: BLE001 - one odd figure must not sink the paper
                out.drop(f"p{region.page + 1}", PdfReason.PAGE_UNREADABLE, repr(exc)[:300])
    except Exception as exc:  # noqa: BLE001 - a broken PDF is a reason, never a crash
        out.drop(Path(pdf_path).name, PdfReason.UNREADABLE, repr(exc)[:300])
    finally:
        doc.close()
    return out
