"""Captions ("Figure 3:", "Fig. 3.", bold "Figure 3") and the text that refers to figures.

A caption starts a text line; what tells it from running text that also starts a line
("Figure 2 shows the flow") is the delimiter after the number, or a bold label.  Inside a
PyMuPDF block a caption may follow figure labels, so a block is split where a caption
starts; the caption runs to the end of its block and on through blocks that continue it
(same size, left edges aligned, small gap): multi-line captions stay whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache

from diagramforge.builders.pdffigures.model import Caption
from diagramforge.builders.pdffigures.page import Block, Line, PageContent, join_lines

_KINDS = {"figure": "Figure", "fig.": "Figure", "fig": "Figure", "figs.": "Figure",
          "table": "Table", "tab.": "Table"}
_BOLD_LABEL = re.compile(
    r"(?P<kind>Figure|Fig\.|FIGURE|FIG\.)\s*(?P<num>[A-Z]?\d+(?:\.\d+)*[a-z]?)\b")


@cache
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(r"\s*" + p) for p in patterns)


def caption_start(line: Line, patterns: Sequence[str]) -> tuple[str, str] | None:
    """(kind, number) when ``line`` starts a caption, else None."""
    for rx in _compiled(tuple(patterns)):
        m = rx.match(line.text)
        if m:
            return _KINDS.get(m.group("kind").lower(), m.group("kind").title()), m.group("num")
    if line.bold_start:
        m = _BOLD_LABEL.match(line.text.strip())
        if m:
            return "Figure", m.group("num")
    return None


def _starts_paragraph(block: Block, i: int) -> bool:
    """Line ``i`` of a block begins a paragraph (so "Figure 3." there is not mid-sentence)."""
    if i == 0:
        return True
    prev, cur = block.lines[i - 1], block.lines[i]
    gap = cur.bbox[1] - prev.bbox[3]
    short_prev = prev.bbox[2] < block.bbox[2] - 0.15 * (block.bbox[2] - block.bbox[0])
    return gap > 0.4 * cur.size or short_prev or abs(prev.size - cur.size) > 0.5


def _continues(caption: Block, nxt: Block) -> bool:
    gap = nxt.bbox[1] - caption.bbox[3]
    size = caption.lines[-1].size
    aligned = abs(nxt.bbox[0] - caption.bbox[0]) < 2 * size or (
        nxt.bbox[0] >= caption.bbox[0] - 1 and nxt.bbox[2] <= caption.bbox[2] + 1)
    return -1 <= gap < 0.6 * size and aligned and abs(nxt.lines[0].size - size) < 0.3


def _union(boxes: Iterable[tuple[float, float, float, float]]) -> tuple[float, ...]:
    bs = list(boxes)
    return (min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs),
            max(b[3] for b in bs))


def split_captions(content: PageContent, patterns: Sequence[str]
                   ) -> tuple[list[Caption], list[Block]]:
    """Captions of one page and the other text blocks (caption lines removed)."""
    pieces: list[tuple[Block, tuple[str, str] | None]] = []
    for block in content.blocks:
        start = 0
        label = None
        for i, line in enumerate(block.lines):
            found = caption_start(line, patterns) if _starts_paragraph(block, i) else None
            if found and i > start or found and label is not None:
                lines = block.lines[start:i]
                pieces.append((Block(_union(ln.bbox for ln in lines), lines), label))
                start = i
            if found:
                label = found
        lines = block.lines[start:]
        pieces.append((Block(_union(ln.bbox for ln in lines), lines), label))
    captions: list[Caption] = []
    others: list[Block] = []
    current: Block | None = None
    for block, label in pieces:
        if label is None and current is not None and _continues(current, block):
            merged = current.lines + block.lines
            current = Block(_union(ln.bbox for ln in merged), merged)
            captions[-1] = Caption(content.number, current.bbox, current.text,
                                   captions[-1].kind, captions[-1].number)
            continue
        if label is None:
            current = None
            others.append(block)
            continue
        current = block
        captions.append(Caption(content.number, block.bbox, block.text, *label))
    return captions, others


# -- references from running text ---------------------------------------------------------
_NUM = r"[A-Z]?\d+(?:\.\d+)*[a-z]?(?:\s*\([a-z]\))?"
_REF = re.compile(r"\b(?:Figures?|Figs?\.?)\s*~?\s*(?P<list>" + _NUM
                  + r"(?:\s*(?:,\s*and|,|and|&|\u2013|\u2014|-|to)\s*" + _NUM + r")*)")
_ITEM = re.compile(r"([A-Z]?)(\d+(?:\.\d+)*)[a-z]?|(\u2013|\u2014|-|\bto\b)")


def referenced_numbers(text: str) -> set[str]:
    """Figure numbers a text refers to: "Figs. 2 and 3" → {2, 3}, "Figures 2–4" → {2,3,4}."""
    found: set[str] = set()
    for m in _REF.finditer(text):
        prev: tuple[str, int] | None = None
        ranging = False
        for item in _ITEM.finditer(m.group("list")):
            if item.group(3):
                ranging = prev is not None
                continue
            prefix, number = item.group(1), item.group(2)
            found.add(f"{prefix}{number}")
            if "." in number:  # "Figure 4.1": chapter-numbered, no ranges expanded
                prev, ranging = None, False
                continue
            n = int(number)
            if ranging and prev and prev[0] == prefix and 0 < n - prev[1] <= 50:
                found.update(f"{prefix}{k}" for k in range(prev[1] + 1, n))
            prev, ranging = (prefix, n), False
    return found


def paragraph_text(block: Block) -> str:
    return join_lines(ln.text for ln in block.lines)
