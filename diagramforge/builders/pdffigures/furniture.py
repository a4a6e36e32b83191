"""Page furniture: running heads, page numbers and header rules, removed before detection.

A header rule sits a few points above a figure at the top of a page and would be merged
into it (and the running head with it).  Like pdffigures2, furniture is recognised by
repetition: text in the top or bottom band of the page that recurs on other pages at the
same height (digits ignored, so "MakeIndex 5" and "MakeIndex 7" are one head), painted
boxes that recur at the same place, and lone numbers in those bands.
"""

from __future__ import annotations

import re
from collections import Counter

from diagramforge.builders.pdffigures.detect import union
from diagramforge.builders.pdffigures.page import Block, PageContent

BAND = 0.1  # share of the page height at the top and at the bottom
_PAGE_NUMBER = re.compile(r"^\W*(\d+|[ivxlc]+)\W*$", re.I)


def _in_band(box: tuple[float, ...], page: PageContent) -> bool:
    top, bottom = page.rect[1], page.rect[3]
    h = bottom - top
    return box[3] <= top + BAND * h or box[1] >= bottom - BAND * h


def _text_key(text: str, box: tuple[float, ...]) -> tuple[str, int]:
    return re.sub(r"\d+", "#", " ".join(text.split())), round(box[1] / 3)


def _box_key(box: tuple[float, ...]) -> tuple[int, ...]:
    return tuple(round(v) for v in box)


def strip_furniture(pages: list[PageContent]) -> None:
    """Remove running heads/feet, page numbers and repeated band graphics, in place."""
    texts: Counter = Counter()
    boxes: Counter = Counter()
    for p in pages:
        texts.update({_text_key(ln.text, ln.bbox) for b in p.blocks for ln in b.lines
                      if _in_band(ln.bbox, p)})
        boxes.update({_box_key(g) for g in p.graphics if _in_band(g, p)})
    repeated = 2 if len(pages) > 1 else 10**9
    for p in pages:
        blocks = []
        for b in p.blocks:
            keep = [ln for ln in b.lines if not (_in_band(ln.bbox, p) and (
                texts[_text_key(ln.text, ln.bbox)] >= repeated
                or _PAGE_NUMBER.match(ln.text)))]
            if keep:
                blocks.append(b if len(keep) == len(b.lines) else
                              Block(union(ln.bbox for ln in keep), keep))
        p.blocks = blocks
        p.graphics = [g for g in p.graphics
                      if not (_in_band(g, p) and boxes[_box_key(g)] >= repeated)]
