"""A diagram's structure graph laid over its render, for the gallery: what the graph-grounded
rows (QA about connections, edit referents, twins) were written from, where a person can see
at a glance whether it explains the picture — node boxes on the drawn shapes, edges between
them, each edge's label on it.

The graph's boxes are in its reader's units (:attr:`~diagramforge.formats.registry.
DiagramFormat.graph_unit_pt`: pt for TikZ and Graphviz, px for draw.io, Mermaid and SVG) and
in its page's frame; the render is the drawing cropped to its ink, rasterised at
``render.raster.dpi`` (and shrunk to ``max_side_px`` when larger).  The scale follows from
the unit and the dpi; where the crop put the graph's origin is not stored, so it is found
on the render: the offset at which the node boxes cover the most ink — their outlines and
their insides (weighted to their centres), scored apart so a drawn frame pins the boxes
exactly and a frameless label still counts — preferring the offsets that put the graph's
outermost boxes on the ink's edge (where a diagram's outermost nodes usually are) unless
another fits clearly better.
"""

from __future__ import annotations

import io
import math

import numpy as np
from PIL import Image, ImageDraw
from scipy.signal import fftconvolve

from diagramforge.graphs.model import Graph

INK = 160
"""Grey level below which a pixel is ink (a light fill is not; its frame and text are)."""
SEARCH_SIDE = 640
"""Longest side the offset is searched at (larger renders are searched shrunk)."""
ARGMAX_MARGIN = 1.15
"""How much better than every edge-aligned offset the best offset overall must fit."""


def _masks(boxes: list[list[float]], s: float, w: int, h: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """Each box's inside as a tent (1 at its centre, 0 at its border: a label centred in
    its box scores best where it is centred, not anywhere inside) and its outline."""
    fill = np.zeros((h, w), dtype=np.float32)
    line = Image.new("L", (w, h), 0)
    dl = ImageDraw.Draw(line)
    for x, y, bw, bh in boxes:
        x0, y0, x1, y1 = x * s, y * s, (x + bw) * s, (y + bh) * s
        dl.rectangle([x0, y0, x1, y1], outline=255, width=2)
        i0, i1 = int(y0), min(int(math.ceil(y1)) + 1, h)
        j0, j1 = int(x0), min(int(math.ceil(x1)) + 1, w)
        if i1 <= i0 or j1 <= j0:
            continue
        ty = 1.0 - np.abs(2 * (np.arange(i0, i1) + 0.5 - (y0 + y1) / 2) / max(y1 - y0, 1.0))
        tx = 1.0 - np.abs(2 * (np.arange(j0, j1) + 0.5 - (x0 + x1) / 2) / max(x1 - x0, 1.0))
        tent = np.clip(ty, 0, 1)[:, None] * np.clip(tx, 0, 1)[None, :]
        fill[i0:i1, j0:j1] = np.maximum(fill[i0:i1, j0:j1], tent)
    return fill, np.asarray(line, dtype=np.float32) / 255.0


def _offset(ink: np.ndarray, boxes: list[list[float]], s: float
            ) -> tuple[int, int, float] | None:
    """Where the boxes (graph units × ``s`` = pixels of ``ink``, origin at the boxes'
    corner) fit the ink best: ``(dx, dy, score)``, or ``None`` when they do not fit in."""
    H, W = ink.shape
    w = int(math.ceil(max(b[0] + b[2] for b in boxes) * s)) + 3
    h = int(math.ceil(max(b[1] + b[3] for b in boxes) * s)) + 3
    if w > W + 6 or h > H + 6:
        return None
    fill, line = _masks(boxes, s, w, h)
    score = (fftconvolve(ink, fill[::-1, ::-1], mode="full") / max(float(fill.sum()), 1.0)
             + fftconvolve(ink, line[::-1, ::-1], mode="full") / max(float(line.sum()), 1.0))
    # the box set inside the render, give or take 3 px
    inside = np.full(score.shape, -np.inf, dtype=np.float32)
    inside[max(h - 4, 0):H + 3, max(w - 4, 0):W + 3] = 0.0
    score = score + inside
    ys, xs = np.nonzero(ink)
    if not len(xs):
        return None
    best = np.unravel_index(int(np.argmax(score)), score.shape)
    bw, bh = max(b[0] + b[2] for b in boxes) * s, max(b[1] + b[3] for b in boxes) * s
    edge = []
    for cx in (xs.min(), xs.max() + 1 - bw):
        for cy in (ys.min(), ys.max() + 1 - bh):
            for ddx in (-1, 0, 1):
                for ddy in (-1, 0, 1):
                    i, j = int(round(cy)) + h - 1 + ddy, int(round(cx)) + w - 1 + ddx
                    if 0 <= i < score.shape[0] and 0 <= j < score.shape[1]:
                        edge.append((i, j))
    pick, value = best, float(score[best]) / ARGMAX_MARGIN
    for i, j in edge:
        if score[i, j] > value:
            pick, value = (i, j), float(score[i, j])
    if not np.isfinite(value):
        return None
    return pick[1] - (w - 1), pick[0] - (h - 1), value


def overlay(graph: Graph, image: bytes, unit_pt: float, dpi: float) -> dict | None:
    """The graph in the render's pixels: ``{"size": [w, h], "nodes": [[x, y, w, h, text]],
    "edges": [[x1, y1, x2, y2, label, arrow]]}`` (``arrow``: ``">"`` directed, ``"<>"``
    a head at each end, ``""`` a line; a loop is ``x1 == x2``, ``y1 == y2``), or ``None``
    when the graph has no boxes or they cannot be placed on the render."""
    boxed = [n for n in graph.nodes if n.bbox and len(n.bbox) == 4]
    if not boxed:
        return None
    with Image.open(io.BytesIO(image)) as im:
        grey = im.convert("L")
    W, H = grey.size
    x0 = min(n.bbox[0] for n in boxed)  # type: ignore[index]
    y0 = min(n.bbox[1] for n in boxed)  # type: ignore[index]
    rel = [[n.bbox[0] - x0, n.bbox[1] - y0, n.bbox[2], n.bbox[3]]  # type: ignore[index]
           for n in boxed]
    s = dpi / 72.0 * unit_pt
    ext_w = max(b[0] + b[2] for b in rel)
    ext_h = max(b[1] + b[3] for b in rel)
    k = min(1.0, SEARCH_SIDE / max(W, H))
    small = grey.resize((max(1, round(W * k)), max(1, round(H * k)))) if k < 1 else grey
    ink = (np.asarray(small, dtype=np.float32) < INK).astype(np.float32)
    if ext_w * s > W + 2 or ext_h * s > H + 2:
        # a render shrunk to max_side_px: the graph spans the ink, at the shrunk scale
        ys, xs = np.nonzero(ink)
        if not len(xs):
            return None
        s = min((xs.max() + 1 - xs.min()) / k / max(ext_w, 1e-6),
                (ys.max() + 1 - ys.min()) / k / max(ext_h, 1e-6))
    found = _offset(ink, rel, s * k)
    if found is None:
        return None
    dx, dy = found[0] / k, found[1] / k
    place = {n.id: [round(b[0] * s + dx, 1), round(b[1] * s + dy, 1), round(b[2] * s, 1),
                    round(b[3] * s, 1)] for n, b in zip(boxed, rel, strict=True)}
    edges = []
    for e in graph.edges:
        a, b = place.get(e.source or ""), place.get(e.target or "")
        if a is None or b is None:
            continue
        (ax, ay), (bx, by) = _ends(a, b)
        arrow = ">" if e.directed else "<>" if e.both_heads else ""
        edges.append([ax, ay, bx, by, e.label, arrow])
    return {"size": [W, H], "edges": edges,
            "nodes": [[*place[n.id], n.text] for n in boxed]}


def _ends(a: list[float], b: list[float]) -> tuple[tuple[float, float], tuple[float, float]]:
    """The segment between two boxes' centres, cut at their borders (a loop: the top of
    its box, twice)."""
    ca = (a[0] + a[2] / 2, a[1] + a[3] / 2)
    cb = (b[0] + b[2] / 2, b[1] + b[3] / 2)
    if a == b:
        top = (round(ca[0], 1), round(a[1], 1))
        return top, top

    def cut(c: tuple[float, float], box: list[float], to: tuple[float, float]
            ) -> tuple[float, float]:
        dx, dy = to[0] - c[0], to[1] - c[1]
        t = min(box[2] / 2 / abs(dx) if dx else math.inf,
                box[3] / 2 / abs(dy) if dy else math.inf, 1.0)
        return round(c[0] + dx * t, 1), round(c[1] + dy * t, 1)

    return cut(ca, a, cb), cut(cb, b, ca)
