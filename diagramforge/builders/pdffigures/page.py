"""One PDF page as the detector sees it: text lines grouped in blocks, and graphic boxes.

PyMuPDF gives text as blocks → lines → spans and every painting operation as a box
(``get_bboxlog``).  Both are reduced here to plain rectangles with the few attributes the
detector needs (font size, bold label), so the geometry code stays free of PyMuPDF.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pymupdf

from diagramforge.builders.pdffigures.model import BBox

_BOLD = 16  # span flag bit for bold
_SHADE_OPS = {"fill-shade"}
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP


@dataclass(slots=True)
class Line:
    bbox: BBox
    text: str
    size: float
    bold_start: bool  # the first span is bold (captions like "**Figure 3** Title")


@dataclass(slots=True)
class Block:
    bbox: BBox
    lines: list[Line]
    body: bool = False  # running text: never part of a figure

    @property
    def text(self) -> str:
        return join_lines(ln.text for ln in self.lines)


@dataclass(slots=True)
class PageContent:
    number: int
    rect: BBox
    blocks: list[Block]
    graphics: list[BBox]  # painted paths, shadings and images
    images: list[BBox] = field(default_factory=list)  # the image subset of graphics


def join_lines(lines) -> str:  # noqa: ANN001 - any iterable of str
    """Lines to one string, undoing end-of-line hyphenation ("Fig-" + "ure" → "Figure")."""
    out = ""
    for raw in lines:
        t = " ".join(raw.split())
        if not t:
            continue
        joined = out.endswith("-") and t[:1].islower()  # "Fig-" + "ure" → "Figure"
        out = out[:-1] + t if joined else (f"{out} {t}" if out else t)
    return out


def read_page(page: pymupdf.Page) -> PageContent:
    """Text blocks (split into lines) and graphic boxes of one page, clipped to the page."""
    prect = page.rect
    blocks: list[Block] = []
    # no TEXT_PRESERVE_LIGATURES: "ﬁ" comes out as "fi", as captions should read
    for b in page.get_text("dict", flags=_TEXT_FLAGS)["blocks"]:
        if b.get("type") != 0:
            continue
        lines = []
        for ln in b["lines"]:
            spans = [s for s in ln["spans"] if s["text"].strip()]
            if not spans:
                continue
            text = "".join(s["text"] for s in ln["spans"])  # spaces are spans of their own
            size = max(s["size"] for s in spans)
            lines.append(Line(tuple(ln["bbox"]), text, size, bool(spans[0]["flags"] & _BOLD)))
        if lines:
            blocks.append(Block(tuple(b["bbox"]), lines))
    page_area = prect.width * prect.height
    graphics: list[BBox] = []
    images: list[BBox] = []

    def keep(r: pymupdf.Rect, into: list[BBox]) -> None:
        if not all(math.isfinite(v) for v in r):
            return  # shadings report an infinite box; their clip path is drawn anyway
        r = r & prect
        if not r.is_empty and r.width * r.height <= 0.8 * page_area:
            into.append(tuple(r))  # page backgrounds/frames would swallow everything

    # paths from get_drawings: get_bboxlog pads strokes by the miter limit (~4 pt)
    for d in page.get_drawings():
        fill, stroke = d.get("fill"), d.get("color")
        if stroke is None and (fill is None or min(fill) >= 0.98):
            continue  # white-on-white backgrounds (plot canvases, boxes) have no ink
        half = (d.get("width") or 0) / 2 if stroke is not None else 0
        r = pymupdf.Rect(d["rect"])
        keep(pymupdf.Rect(r.x0 - half, r.y0 - half, r.x1 + half, r.y1 + half), graphics)
    for op, box in page.get_bboxlog():
        if op in _SHADE_OPS:
            keep(pymupdf.Rect(box), graphics)
    for info in page.get_image_info():
        keep(pymupdf.Rect(info["bbox"]), images)
    graphics.extend(images)
    return PageContent(page.number, tuple(prect), blocks, graphics, images)
