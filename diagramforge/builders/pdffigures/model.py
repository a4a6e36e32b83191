"""What figure extraction returns: candidates, captions, and the reasons for drops.

Boxes are PDF points in PyMuPDF's page space (origin top-left of the page's cropbox, y
down), the same convention pdffigures2 uses at 72 dpi, so both extractors agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from diagramforge.store.records import Rejection

BBox = tuple[float, float, float, float]


class PdfReason(StrEnum):
    """Why a PDF, a page or a figure candidate did not become a record."""

    UNREADABLE = "pdf_unreadable"
    ENCRYPTED = "pdf_encrypted"
    TOO_LARGE = "pdf_too_large"
    TOO_MANY_PAGES = "pdf_too_many_pages"
    PAGE_UNREADABLE = "page_unreadable"
    IMAGE_BOMB = "image_bomb"
    FIGURE_TOO_SMALL = "figure_too_small"
    FIGURE_TOO_LARGE = "figure_too_large"
    REGION_NOT_FOUND = "figure_region_not_found"
    UNCAPTIONED = "figure_uncaptioned"
    SVG_INVALID = "svg_invalid"
    SVG_BLANK = "svg_blank"
    RASTER_FAILED = "raster_failed"
    EXTRACTOR_MISSING = "extractor_missing"
    EXTRACTOR_FAILED = "extractor_failed"


@dataclass(frozen=True, slots=True)
class Caption:
    """A caption paragraph: ``kind`` is "Figure" or "Table", ``label`` e.g. "Figure 3"."""

    page: int
    bbox: BBox
    text: str
    kind: str
    number: str

    @property
    def label(self) -> str:
        return f"{self.kind} {self.number}"


@dataclass(slots=True)
class FigureCandidate:
    """One figure found in a PDF, ready to become an ``svg`` or ``raster`` record."""

    page: int
    bbox: BBox
    caption: str | None
    label: str | None
    kind: str = "vector"  # "vector" | "raster"
    caption_bbox: BBox | None = None
    references: list[str] = field(default_factory=list)
    svg: str | None = None
    png: bytes | None = None
    source: str = "pymupdf"  # which extractor found it ("pymupdf", "layout", "pdffigures2")

    @property
    def locator(self) -> str:
        return f"p{self.page + 1}:{self.label or 'figure'}"


@dataclass(slots=True)
class Extraction:
    """Figures and drops of one PDF: the drops account for everything not returned."""

    figures: list[FigureCandidate] = field(default_factory=list)
    drops: list[Rejection] = field(default_factory=list)

    def drop(self, locator: str, reason: str, detail: str = "") -> None:
        self.drops.append(Rejection(locator, str(reason), detail[:2000]))
