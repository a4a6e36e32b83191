"""Figures that are not drawn diagrams, generated deterministically: charts, tables,
photographs, screenshots — each labelled with its vocabulary type (``line_chart``,
``bar_chart``… for charts).

A paper's figures include plots, tables typeset as pictures, photographs and screenshots;
diagram corpora rarely contain them, so the training set gets them from here.  Each image is drawn
from its own generator seeded with ``(seed, kind, index)``: the same seed gives the same
bytes, and asking for more images does not change the first ones (a DVC-cached training set
stays stable when a count grows).  Photographs are real ones that scikit-image ships inside
its wheel (no download), cut into random crops.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from diagramforge.filters.classifier.images import png_bytes

KINDS = ("chart", "table", "natural_image", "screenshot")
"""What ``counts`` may ask for; a chart's label is the kind drawn (line, bar, scatter…)."""
CHART_LABELS = {"line": "line_chart", "area": "line_chart", "bar": "bar_chart",
                "scatter": "scatter_plot", "hist": "histogram", "pie": "pie_chart"}
PHOTOS = ("astronaut", "camera", "coffee", "chelsea", "rocket", "immunohistochemistry",
          "retina", "hubble_deep_field", "grass", "gravel", "brick", "coins", "moon")
"""``skimage.data`` images shipped in the wheel (verified offline; ``scipy.datasets`` would
need a download)."""

_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#17becf",
            "black", "grey"]
_WORDS = ["model", "acc", "loss", "BLEU", "F1", "time", "ours", "base", "data", "size",
          "train", "test", "mean", "std", "p", "n", "ratio", "score", "GPU", "epoch"]


def _rng(seed: int, kind: str, index: int) -> np.random.Generator:
    return np.random.default_rng([seed, KINDS.index(kind), index])


def chart(rng: np.random.Generator) -> tuple[str, bytes]:
    """A matplotlib line, bar, scatter, histogram or pie chart with random data and styling."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    w, h = rng.uniform(2.5, 6.0), rng.uniform(2.0, 4.5)
    fig = Figure(figsize=(w, h), dpi=int(rng.integers(50, 90)))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    kind = rng.choice(["line", "bar", "scatter", "hist", "pie", "area"])
    series = int(rng.integers(1, 4))
    x = np.sort(rng.uniform(0, 10, int(rng.integers(8, 60))))
    for s in range(series):
        c = _COLOURS[(s + int(rng.integers(0, 9))) % len(_COLOURS)]
        y = np.cumsum(rng.normal(0, 1, x.size)) + rng.uniform(-3, 3)
        if kind == "line":
            ax.plot(x, y, color=c, marker=rng.choice(["", "o", "s", "^"]), label=f"s{s}")
        elif kind == "scatter":
            ax.scatter(x, y, s=rng.uniform(4, 30), color=c, label=f"s{s}")
        elif kind == "area":
            ax.fill_between(x, y, y.min() - 1, color=c, alpha=0.4, label=f"s{s}")
        elif kind == "hist":
            ax.hist(rng.normal(s, 1, 300), bins=int(rng.integers(8, 30)), color=c, alpha=0.6)
    if kind == "bar":
        n = int(rng.integers(3, 10))
        ax.bar(range(n), rng.uniform(1, 10, n), color=rng.choice(_COLOURS[:7], n))
        ax.set_xticks(range(n), [_WORDS[i % len(_WORDS)] for i in range(n)], fontsize=7)
    elif kind == "pie":
        n = int(rng.integers(2, 7))
        ax.pie(rng.uniform(1, 5, n), labels=[_WORDS[i] for i in range(n)], colors=_COLOURS[:n])
    if kind != "pie":
        ax.grid(bool(rng.integers(0, 2)))
        ax.set_xlabel(rng.choice(_WORDS))
        ax.set_ylabel(rng.choice(_WORDS))
        if series > 1 and kind in ("line", "scatter", "area") and rng.integers(0, 2):
            ax.legend(fontsize=7)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return CHART_LABELS[str(kind)], buf.getvalue()


@cache
def _font(size: int, serif: bool) -> ImageFont.FreeTypeFont:
    import matplotlib

    name = "DejaVuSerif.ttf" if serif else "DejaVuSans.ttf"
    return ImageFont.truetype(str(Path(matplotlib.get_data_path(), "fonts", "ttf", name)), size)


def table(rng: np.random.Generator) -> tuple[str, bytes]:
    """A results table: header row, text and numbers, booktabs rules or a full grid."""
    rows, cols = int(rng.integers(3, 12)), int(rng.integers(2, 7))
    font = _font(int(rng.integers(10, 16)), bool(rng.integers(0, 2)))
    cw, rh = int(rng.integers(50, 90)), int(font.size * 1.6)
    pad = 10
    img = Image.new("RGB", (cols * cw + 2 * pad, (rows + 1) * rh + 2 * pad), "white")
    d = ImageDraw.Draw(img)
    grid = bool(rng.integers(0, 2))
    for r in range(rows + 1):
        for c in range(cols):
            if r == 0:
                text = str(rng.choice(_WORDS))
            elif c == 0:
                text = f"{rng.choice(_WORDS)}-{int(rng.integers(1, 99))}"
            else:
                text = f"{rng.uniform(0, 100):.{int(rng.integers(0, 3))}f}"
            d.text((pad + c * cw + 4, pad + r * rh + 3), text, fill="black", font=font)
    x0, x1 = pad, pad + cols * cw
    rules = range(rows + 2) if grid else (0, 1, rows + 1)
    for r in rules:
        y = pad + r * rh
        d.line([(x0, y), (x1, y)], fill="black", width=2 if r in (0, rows + 1) else 1)
    if grid:
        for c in range(cols + 1):
            d.line([(pad + c * cw, pad), (pad + c * cw, pad + (rows + 1) * rh)], fill="black")
    return "table", png_bytes(img)


@cache
def _photo(name: str) -> np.ndarray:
    import skimage.data

    arr = getattr(skimage.data, name)()
    return np.stack([arr] * 3, axis=-1) if arr.ndim == 2 else arr[..., :3]


def photo(rng: np.random.Generator) -> tuple[str, bytes]:
    """A random crop (30–100 % of the side), maybe mirrored, of a shipped photograph."""
    arr = _photo(str(rng.choice(PHOTOS)))
    h, w = arr.shape[:2]
    ch, cw = int(h * rng.uniform(0.3, 1.0)), int(w * rng.uniform(0.3, 1.0))
    y, x = int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1))
    crop = arr[y:y + ch, x:x + cw]
    if rng.integers(0, 2):
        crop = crop[:, ::-1]
    img = Image.fromarray(np.ascontiguousarray(crop))
    side = int(rng.integers(96, 256))
    img.thumbnail((side, side), Image.Resampling.LANCZOS)
    return "natural_image", png_bytes(img)


_UI = ["#f3f3f3", "#ffffff", "#2b2b2b", "#1e1e1e", "#e8eef7", "#fafafa"]


def screenshot(rng: np.random.Generator) -> tuple[str, bytes]:
    """A desktop or web window: title bar, menu, widgets, text lines, maybe a photo panel."""
    w, h = int(rng.integers(260, 520)), int(rng.integers(180, 380))
    bg = str(rng.choice(_UI))
    dark = bg in ("#2b2b2b", "#1e1e1e")
    ink = "#dddddd" if dark else "#222222"
    img = Image.new("RGB", (w, h), bg)
    d = ImageDraw.Draw(img)
    font = _font(int(rng.integers(9, 13)), False)
    bar = int(rng.integers(16, 28))
    d.rectangle([0, 0, w, bar], fill=str(rng.choice(["#dcdcdc", "#3c3c3c", "#2d6cdf", "#444"])))
    for k in range(3):
        d.ellipse([6 + 14 * k, bar // 2 - 4, 14 + 14 * k, bar // 2 + 4],
                  fill=["#ff5f56", "#ffbd2e", "#27c93f"][k])
    y = bar + 4
    x = 6
    while x < w - 40:  # menu or tab strip
        word = str(rng.choice(_WORDS)).capitalize()
        d.text((x, y), word, fill=ink, font=font)
        x += int(d.textlength(word, font=font)) + int(rng.integers(10, 20))
    y += font.size + 8
    side = int(rng.integers(0, 3)) * int(w * 0.22)
    if side:
        d.rectangle([0, y, side, h], fill="#e4e4e4" if not dark else "#252526")
        for k in range((h - y) // (font.size + 6)):
            d.text((6, y + 4 + k * (font.size + 6)), str(rng.choice(_WORDS)), fill=ink,
                   font=font)
    x0 = side + 10
    while y < h - 20:
        kind = rng.integers(0, 5)
        if kind == 0:  # a button row
            for k in range(int(rng.integers(1, 4))):
                bx = x0 + k * 70
                d.rounded_rectangle([bx, y, bx + 60, y + 20], 4,
                                    fill=str(rng.choice(["#2d6cdf", "#e0e0e0", "#5cb85c"])))
                d.text((bx + 8, y + 4), str(rng.choice(_WORDS)), fill="white", font=font)
            y += 28
        elif kind == 1:  # an input field
            d.rectangle([x0, y, min(w - 10, x0 + 200), y + 18], outline="#999999",
                        fill="#ffffff")
            y += 26
        elif kind == 2 and h - y > 60:  # a picture panel
            arr = _photo(str(rng.choice(PHOTOS)))
            pic = Image.fromarray(np.ascontiguousarray(arr))
            pic.thumbnail((int((w - x0) * 0.6), min(90, h - y - 10)))
            img.paste(pic, (x0, y))
            y += pic.height + 8
        else:  # lines of text
            for _ in range(int(rng.integers(1, 4))):
                line = " ".join(str(rng.choice(_WORDS)) for _ in range(int(rng.integers(3, 9))))
                d.text((x0, y), line, fill=ink, font=font)
                y += font.size + 4
    return "screenshot", png_bytes(img)


MAKERS: dict[str, Callable[[np.random.Generator], tuple[str, bytes]]] = {
    "chart": chart, "table": table, "natural_image": photo, "screenshot": screenshot}


def negatives(counts: dict[str, int], seed: int) -> list[tuple[str, bytes]]:
    """``counts[kind]`` images per kind in ``KINDS`` order, as ``(label, png_bytes)``."""
    unknown = set(counts) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown negative kinds {sorted(unknown)}; known: {KINDS}")
    return [MAKERS[kind](_rng(seed, kind, i))
            for kind in KINDS for i in range(counts.get(kind, 0))]
