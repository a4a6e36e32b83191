"""Images the classifier must learn to reject, generated deterministically: charts, tables,
photographs.

A paper's figures include plots, tables typeset as pictures and photographs; the toolkit's
own corpus rarely labels those, so the training set gets them from here.  Each image is drawn
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

from diagramforge.classifier.images import png_bytes

KINDS = ("plot", "table", "photo")
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


def chart(rng: np.random.Generator) -> bytes:
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
    return buf.getvalue()


@cache
def _font(size: int, serif: bool) -> ImageFont.FreeTypeFont:
    import matplotlib

    name = "DejaVuSerif.ttf" if serif else "DejaVuSans.ttf"
    return ImageFont.truetype(str(Path(matplotlib.get_data_path(), "fonts", "ttf", name)), size)


def table(rng: np.random.Generator) -> bytes:
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
    return png_bytes(img)


@cache
def _photo(name: str) -> np.ndarray:
    import skimage.data

    arr = getattr(skimage.data, name)()
    return np.stack([arr] * 3, axis=-1) if arr.ndim == 2 else arr[..., :3]


def photo(rng: np.random.Generator) -> bytes:
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
    return png_bytes(img)


MAKERS: dict[str, Callable[[np.random.Generator], bytes]] = {
    "plot": chart, "table": table, "photo": photo}


def negatives(counts: dict[str, int], seed: int) -> list[tuple[str, bytes]]:
    """``counts[kind]`` images per kind in ``KINDS`` order, as ``(label, png_bytes)``."""
    unknown = set(counts) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown negative kinds {sorted(unknown)}; known: {KINDS}")
    return [(kind, MAKERS[kind](_rng(seed, kind, i)))
            for kind in KINDS for i in range(counts.get(kind, 0))]
