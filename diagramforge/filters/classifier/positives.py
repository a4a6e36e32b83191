"""Diagrams the classifier must learn to keep, generated deterministically.

The corpus's own weakly labelled diagrams are few (a sample corpus has a dozen; a real crawl
is skewed towards a few styles), while the generated negatives are plentiful — a model trained
on that learns "a diagram is one of those twelve pictures".  So the training set also gets
drawn diagrams in the styles papers use: node-link graphs and flowcharts, trees, tikz-cd-like
grids of symbols and arrows, layered networks, Venn diagrams.  Drawn with PIL in Computer
Modern (the font matplotlib ships), supersampled so edges are anti-aliased like a pdflatex
render.  Each image has its own generator seeded with ``(seed, kind, index)`` (see
``negatives.py``): same seed, same bytes; more images never change the first ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from diagramforge.filters.classifier.images import png_bytes

KINDS = ("graph", "tree", "commutative_diagram", "neural_network", "venn_diagram")
"""Labels this module generates, one per drawing style."""

SS = 2
"""Supersampling factor."""

_FILLS = ["white", "white", "#dae8fc", "#fff2cc", "#d5e8d4", "#f8cecc", "#e1d5e7", "#eeeeee"]
_INKS = ["black", "black", "black", "#1f4e79", "#7f0000", "#333333"]
_WORDS = ["Input", "Encoder", "Decoder", "Loss", "Data", "Model", "Output", "Cache", "Query",
          "Server", "Client", "Parse", "Check", "Store", "Train", "Eval", "Start", "Stop",
          "root", "leaf", "x", "y", "h", "z"]


@cache
def _font(size: int, italic: bool) -> ImageFont.FreeTypeFont:
    import matplotlib

    name = "cmmi10.ttf" if italic else "cmr10.ttf"
    return ImageFont.truetype(str(Path(matplotlib.get_data_path(), "fonts", "ttf", name)), size)


class _Canvas:
    def __init__(self, rng: np.random.Generator, w: int, h: int):
        self.rng, self.w, self.h = rng, w, h
        self.img = Image.new("RGB", (w * SS, h * SS), "white")
        self.d = ImageDraw.Draw(self.img)
        self.ink = str(rng.choice(_INKS))
        self.lw = int(rng.integers(1, 3)) * SS
        self.font = _font(int(rng.integers(11, 17)) * SS, bool(rng.integers(0, 3) == 0))

    def text(self, xy: tuple[float, float], s: str) -> None:
        self.d.text((xy[0] * SS, xy[1] * SS), s, fill=self.ink, font=self.font, anchor="mm")

    def node(self, x: float, y: float, shape: str, fill: str, label: str) -> tuple[float, float]:
        tw = self.d.textlength(label, font=self.font) / SS
        rw, rh = max(14.0, tw / 2 + 8), 12.0 + self.font.size / SS / 3
        box = [(x - rw) * SS, (y - rh) * SS, (x + rw) * SS, (y + rh) * SS]
        if shape == "circle":
            r = max(rw, rh)
            box = [(x - r) * SS, (y - r) * SS, (x + r) * SS, (y + r) * SS]
            self.d.ellipse(box, fill=fill, outline=self.ink, width=self.lw)
            rw = rh = r
        elif shape == "diamond":
            rw, rh = rw * 1.4, rh * 1.5
            pts = [(x * SS, (y - rh) * SS), ((x + rw) * SS, y * SS), (x * SS, (y + rh) * SS),
                   ((x - rw) * SS, y * SS)]
            self.d.polygon(pts, fill=fill, outline=self.ink, width=self.lw)
        elif shape == "rounded":
            self.d.rounded_rectangle(box, radius=6 * SS, fill=fill, outline=self.ink,
                                     width=self.lw)
        elif shape != "plain":
            self.d.rectangle(box, fill=fill, outline=self.ink, width=self.lw)
        self.text((x, y), label)
        return rw, rh

    def arrow(self, a: tuple[float, float], b: tuple[float, float], head: bool = True,
              dashed: bool = False) -> None:
        (x0, y0), (x1, y1) = a, b
        n = max(1, int(math.hypot(x1 - x0, y1 - y0) / 6)) if dashed else 1
        for i in range(0, n, 2 if dashed else 1):
            t0, t1 = i / n, min(1.0, (i + 1) / n)
            self.d.line([((x0 + (x1 - x0) * t0) * SS, (y0 + (y1 - y0) * t0) * SS),
                         ((x0 + (x1 - x0) * t1) * SS, (y0 + (y1 - y0) * t1) * SS)],
                        fill=self.ink, width=self.lw)
        if head:
            ang, size = math.atan2(y1 - y0, x1 - x0), 7.0
            pts = [(x1 * SS, y1 * SS)] + [
                ((x1 - size * math.cos(ang + s)) * SS, (y1 - size * math.sin(ang + s)) * SS)
                for s in (0.4, -0.4)]
            self.d.polygon(pts, fill=self.ink)

    def wave(self, a: tuple[float, float], b: tuple[float, float]) -> None:
        (x0, y0), (x1, y1) = a, b
        n, length = 60, math.hypot(x1 - x0, y1 - y0) or 1.0
        nx, ny = -(y1 - y0) / length, (x1 - x0) / length
        turns = max(2, int(length / 10))
        pts = [((x0 + (x1 - x0) * t + 4 * nx * math.sin(2 * math.pi * turns * t)) * SS,
                (y0 + (y1 - y0) * t + 4 * ny * math.sin(2 * math.pi * turns * t)) * SS)
               for t in (k / n for k in range(n + 1))]
        self.d.line(pts, fill=self.ink, width=self.lw)

    def png(self) -> bytes:
        img = self.img.resize((self.w, self.h), Image.Resampling.LANCZOS)
        return png_bytes(img)


def _clip(a: tuple[float, float], b: tuple[float, float], r: tuple[float, float]
          ) -> tuple[float, float]:
    """Point on the segment a→b where it leaves a's box of half-sizes ``r``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = min(r[0] / abs(dx) if dx else math.inf, r[1] / abs(dy) if dy else math.inf, 1.0)
    return a[0] + dx * t, a[1] + dy * t


def graph(rng: np.random.Generator) -> bytes:
    """Boxes, circles or diamonds with labels, joined by arrows (flowcharts, pipelines)."""
    cols, rows = int(rng.integers(2, 5)), int(rng.integers(1, 4))
    c = _Canvas(rng, 40 + cols * int(rng.integers(90, 130)), 30 + rows * int(rng.integers(60, 90)))
    shape, fill = str(rng.choice(["box", "rounded", "circle", "box", "plain"])), \
        str(rng.choice(_FILLS))
    cells = [(i, j) for i in range(rows) for j in range(cols)]
    picked = [cells[k] for k in sorted(rng.choice(len(cells), int(rng.integers(
        min(3, len(cells)), len(cells) + 1)), replace=False))]
    pos = [(30 + (j + 0.5) * (c.w - 60) / cols + rng.uniform(-8, 8),
            20 + (i + 0.5) * (c.h - 40) / rows) for i, j in picked]
    radii = [(0.0, 0.0)] * len(pos)
    edges = [(int(rng.integers(0, k)), k) for k in range(1, len(pos))]
    edges += [(int(a), int(b)) for a, b in rng.integers(0, len(pos), (int(rng.integers(0, 3)), 2))
              if a != b]
    # nodes first for their sizes, edges under them, then nodes again on top
    nodes = [("diamond" if shape == "box" and rng.random() < 0.2 else shape,
              str(rng.choice(_WORDS))) for _ in pos]
    for k, ((x, y), (s, label)) in enumerate(zip(pos, nodes, strict=True)):
        radii[k] = c.node(x, y, s, fill, label)
    dashed = rng.random() < 0.2
    wavy = rng.random() < 0.15
    for a, b in edges:
        p, q = _clip(pos[a], pos[b], radii[a]), _clip(pos[b], pos[a], radii[b])
        if wavy and rng.random() < 0.5:
            c.wave(p, q)
        else:
            c.arrow(p, q, head=rng.random() < 0.85, dashed=dashed)
    for (x, y), (s, label) in zip(pos, nodes, strict=True):
        c.node(x, y, s, fill, label)
    return c.png()


def tree(rng: np.random.Generator) -> bytes:
    """A layered tree (syntax trees, hierarchies), nodes boxed, circled or bare."""
    depth = int(rng.integers(2, 5))
    levels = [[0]]
    parents: dict[tuple[int, int], tuple[int, int]] = {}
    for d in range(1, depth):
        kids = []
        for p in range(len(levels[-1])):
            for _ in range(int(rng.integers(0 if d > 1 else 1, 4))):
                parents[(d, len(kids))] = (d - 1, p)
                kids.append(0)
        if not kids:
            break
        levels.append(kids)
    width = max(len(lv) for lv in levels)
    c = _Canvas(rng, 60 + width * int(rng.integers(50, 80)), 30 + len(levels) * 55)
    shape = str(rng.choice(["plain", "circle", "box", "rounded"]))
    fill = str(rng.choice(_FILLS))
    pos = {(d, k): (30 + (k + 0.5) * (c.w - 60) / len(lv), 25 + d * 55)
           for d, lv in enumerate(levels) for k in range(len(lv))}
    for child, parent in parents.items():
        c.arrow(pos[parent], pos[child], head=False)
    for p in pos.values():
        c.node(*p, shape, fill, str(rng.choice(_WORDS)))
    return c.png()


def grid(rng: np.random.Generator) -> bytes:
    """Symbols on a grid joined by labelled arrows (commutative diagrams, automata)."""
    rows, cols = int(rng.integers(2, 4)), int(rng.integers(2, 5))
    c = _Canvas(rng, 40 + cols * 80, 30 + rows * 65)
    c.font = _font(int(rng.integers(14, 20)) * SS, True)
    pos = {(i, j): (40 + j * 80, 30 + i * 65) for i in range(rows) for j in range(cols)}
    circled = rng.random() < 0.3
    for (i, j), (x, y) in pos.items():
        for di, dj in ((0, 1), (1, 0), (1, 1)):
            q = (i + di, j + dj)
            if q in pos and rng.random() < (0.35 if di and dj else 0.75):
                (x1, y1) = pos[q]
                ang = math.atan2(y1 - y, x1 - x)
                off = 18.0
                c.arrow((x + off * math.cos(ang), y + off * math.sin(ang)),
                        (x1 - off * math.cos(ang), y1 - off * math.sin(ang)))
                c.text(((x + x1) / 2 - 8 * math.sin(ang), (y + y1) / 2 - 8 * math.cos(ang)),
                       str(rng.choice(list("fghpqu"))))
        c.node(x, y, "circle" if circled else "plain", "white",
               str(rng.choice(list("ABCDEGHKLMNPQ"))))
    return c.png()


def layers(rng: np.random.Generator) -> bytes:
    """Columns of circles, every one joined to the next column (neural-network drawings)."""
    sizes = [int(rng.integers(2, 6)) for _ in range(int(rng.integers(3, 5)))]
    c = _Canvas(rng, 60 + len(sizes) * 90, 40 + max(sizes) * 40)
    pos = [[(40 + li * 90, c.h / 2 + (k - (n - 1) / 2) * 40) for k in range(n)]
           for li, n in enumerate(sizes)]
    for a, b in zip(pos, pos[1:], strict=False):
        for p in a:
            for q in b:
                c.arrow((p[0] + 12, p[1]), (q[0] - 12, q[1]), head=rng.random() < 0.5)
    fill = str(rng.choice(_FILLS))
    for col in pos:
        for p in col:
            c.d.ellipse([(p[0] - 12) * SS, (p[1] - 12) * SS, (p[0] + 12) * SS, (p[1] + 12) * SS],
                        fill=fill, outline=c.ink, width=c.lw)
    return c.png()


def venn(rng: np.random.Generator) -> bytes:
    """Two or three translucent circles with set labels."""
    c = _Canvas(rng, int(rng.integers(220, 320)), int(rng.integers(160, 240)))
    n, r = int(rng.integers(2, 4)), min(c.w, c.h) * rng.uniform(0.28, 0.42)
    palette = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (255, 127, 14), (148, 103, 189)]
    colours = [palette[int(k)] for k in rng.permutation(len(palette))[:3]]
    alpha = int(rng.integers(60, 140))
    outline = (0, 0, 0, 255) if rng.random() < 0.5 else None
    centres = [(c.w / 2 + r * 0.6 * math.cos(2 * math.pi * k / n + 0.3),
                c.h / 2 + r * 0.6 * math.sin(2 * math.pi * k / n + 0.3)) for k in range(n)]
    img = c.img.convert("RGBA")
    for (x, y), col in zip(centres, colours, strict=False):  # one layer each: they blend
        layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
        ImageDraw.Draw(layer).ellipse([(x - r) * SS, (y - r) * SS, (x + r) * SS, (y + r) * SS],
                                      fill=(*col, alpha), outline=outline, width=c.lw)
        img = Image.alpha_composite(img, layer)
    c.img = img.convert("RGB")
    c.d = ImageDraw.Draw(c.img)
    for (x, y), s in zip(centres, "ABC", strict=False):
        c.text((x + (x - c.w / 2) * 0.6, y + (y - c.h / 2) * 0.6), s)
    if rng.random() < 0.5:
        c.text((c.w / 2, c.h / 2), str(rng.choice(["A∩B", "A∪B", "both", "x"])))
    return c.png()


STYLES: tuple[Callable[[np.random.Generator], bytes], ...] = (graph, graph, tree, grid, layers,
                                                              venn)


LABELS: dict[Callable[[np.random.Generator], bytes], str] = {
    graph: "graph", tree: "tree", grid: "commutative_diagram", layers: "neural_network",
    venn: "venn_diagram"}
"""The vocabulary type each style draws."""


def diagram(rng: np.random.Generator) -> tuple[str, bytes]:
    style = STYLES[int(rng.integers(0, len(STYLES)))]
    return LABELS[style], style(rng)


def positives(count: int, seed: int) -> list[tuple[str, bytes]]:
    """``count`` generated diagrams as ``(label, png_bytes)``."""
    return [diagram(np.random.default_rng([seed, 100, i])) for i in range(count)]
