"""Figure regions of one page: graphics clustered, then paired with captions.

Like pdffigures2, only captioned figures count, and running text is never part of one.
Paint boxes and non-body text lines are drawn into a coarse occupancy mask, dilated by
half of ``merge_gap``; each connected component holding at least one painted box is a
candidate piece (a plot with its tick labels, a sub-figure).  Each piece then goes to the
nearest caption in its column with nothing but other pieces in between (a caption above
costs a little more: most figures carry theirs below), so sub-figures end up under one
caption and two stacked figures keep their own.  Pieces taken by a "Table" caption are
tables, not figures.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage

from diagramforge.builders.pdffigures.model import BBox, Caption
from diagramforge.builders.pdffigures.page import Block, PageContent

MERGE_GAP = 8.0  # pt: painted items and labels closer than this belong together
ABOVE_PENALTY = 6.0  # pt: a caption above its figure is allowed, just less usual
CHAIN_GAP = 24.0  # pt: a row of sub-figures joins the row nearer the caption


@dataclass(slots=True)
class Piece:
    bbox: BBox
    graphic: bool = False


@dataclass(slots=True)
class Region:
    page: int
    bbox: BBox
    caption: Caption | None
    image_share: float = 0.0
    source: str = "pymupdf"
    pieces: list[BBox] = field(default_factory=list)


def union(boxes) -> BBox:  # noqa: ANN001 - iterable of boxes
    bs = list(boxes)
    return (min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs),
            max(b[3] for b in bs))


def area(b: BBox) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def intersect(a: BBox, b: BBox) -> BBox:
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


def iou(a: BBox, b: BBox) -> float:
    inter = area(intersect(a, b))
    return inter / (area(a) + area(b) - inter) if inter else 0.0


def body_size(pages: list[PageContent]) -> float:
    """The font size most characters are set in: running text, the yardstick for labels."""
    sizes: Counter[float] = Counter()
    for p in pages:
        for b in p.blocks:
            for ln in b.lines:
                sizes[round(ln.size, 1)] += len(ln.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _components(rect: BBox, items: list[BBox], gap: float) -> np.ndarray:
    """Connected-component label of every item (items within ``gap`` pt share one)."""
    w, h = int(rect[2] - rect[0]) + 2, int(rect[3] - rect[1]) + 2
    mask = np.zeros((h, w), dtype=bool)
    r = gap / 2
    for x0, y0, x1, y1 in items:
        mask[max(0, int(y0 - rect[1] - r)):max(0, int(y1 - rect[1] + r) + 1),
             max(0, int(x0 - rect[0] - r)):max(0, int(x1 - rect[0] + r) + 1)] = True
    labels, _ = ndimage.label(mask)
    out = np.empty(len(items), dtype=int)
    for i, (x0, y0, x1, y1) in enumerate(items):
        cy = min(h - 1, max(0, int((y0 + y1) / 2 - rect[1])))
        cx = min(w - 1, max(0, int((x0 + x1) / 2 - rect[0])))
        out[i] = labels[cy, cx]
    return out


def _inside(b: BBox, boxes: list[BBox], share: float = 0.8) -> bool:
    a = area(b)
    return a > 0 and any(area(intersect(b, o)) >= share * a for o in boxes)


def classify_body(blocks: list[Block], graphic_boxes: list[BBox], size: float) -> None:
    """Mark running-text blocks: body-sized, several words, not inside a drawing."""
    for b in blocks:
        words = len(b.text.split())
        sized = abs(b.lines[0].size - size) <= 1.0
        wordy = words >= 6 and words / len(b.lines) >= 3.5  # tick-label columns are not
        b.body = sized and wordy and not _inside(b.bbox, graphic_boxes)


def pieces(content: PageContent, blocks: list[Block], size: float) -> list[Piece]:
    """Components of a page: graphics with the labels that hug them, and text-only ones
    (``graphic=False``: a listing or a text diagram, used only for a caption left bare)."""
    glabels = _components(content.rect, content.graphics, MERGE_GAP) if content.graphics else []
    gboxes = [union(g for g, lab in zip(content.graphics, glabels, strict=True) if lab == k)
              for k in set(np.asarray(glabels).tolist())]
    classify_body(blocks, gboxes, size)
    # larger text (headings) joins only when it lies on a drawing
    texts = [ln.bbox for b in blocks if not b.body for ln in b.lines
             if ln.size <= size + 0.5 or _inside(ln.bbox, gboxes)]
    items = list(content.graphics) + texts
    labels = _components(content.rect, items, MERGE_GAP)
    out = []
    graphic = set(labels[:len(content.graphics)].tolist())
    for k in sorted(set(labels.tolist())):
        members = [items[i] for i in range(len(items)) if labels[i] == k]
        out.append(Piece(union(members), graphic=k in graphic))
    return out


def x_overlap(a: BBox, b: BBox) -> float:
    ov = min(a[2], b[2]) - max(a[0], b[0])
    return ov / max(1e-6, min(a[2] - a[0], b[2] - b[0]))


def blocked(a: BBox, b: BBox, blockers: list[BBox]) -> bool:
    """Something in ``blockers`` lies in the vertical gap between a and b (same columns)."""
    top, bottom = (a[3], b[1]) if a[1] < b[1] else (b[3], a[1])
    x0, x1 = max(a[0], b[0]), min(a[2], b[2])
    for o in blockers:
        if o[1] >= top - 1 and o[3] <= bottom + 1 and o[2] > x0 + 1 and o[0] < x1 - 1:
            return True
    return False


def vertical_cost(piece: BBox, cap: BBox) -> float | None:
    """Gap between a piece and a caption above or below it, or None when side by side."""
    if cap[1] >= piece[3] - 2:
        return cap[1] - piece[3]
    if cap[3] <= piece[1] + 2:
        return piece[1] - cap[3] + ABOVE_PENALTY
    return None


def assign(found: list[BBox], captions: list[Caption], blocks: list[Block],
           max_gap: float) -> dict[int, list[int]]:
    """Caption index → piece indices (nearest feasible caption; chains for stacked parts)."""
    body = [b.bbox for b in blocks if b.body] + [c.bbox for c in captions]
    options: list[tuple[float, int, int]] = []
    for i, p in enumerate(found):
        for j, c in enumerate(captions):
            cost = vertical_cost(p, c.bbox)
            overlap = min(p[2], c.bbox[2]) - max(p[0], c.bbox[0])
            if cost is None or overlap < min(2.0, 0.5 * (p[2] - p[0])):
                continue  # any overlap will do: sub-figures sit off a centred caption
            # among equal gaps, the caption straight below/above wins (two columns)
            cost += 0.02 * abs((p[0] + p[2]) - (c.bbox[0] + c.bbox[2])) / 2
            blockers = [o for k, o in enumerate(body) if k != len(body) - len(captions) + j]
            if blocked(p, c.bbox, blockers):
                continue
            options.append((cost, i, j))
    options.sort()
    taken: dict[int, int] = {}
    result: dict[int, list[int]] = {}
    side: dict[int, bool] = {}  # caption → its figure lies above it; a figure never wraps
    for cost, i, j in options:
        above = found[i][1] < captions[j].bbox[1]
        if i in taken or side.get(j, above) != above:
            continue
        near = cost <= max_gap or any(
            (vc := vertical_cost(found[i], found[k])) is not None and vc <= CHAIN_GAP
            for k in result.get(j, []))
        if near:
            taken[i] = j
            side[j] = above
            result.setdefault(j, []).append(i)
    return result
