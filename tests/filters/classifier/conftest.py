"""Test data for the classifier: boxes-and-arrows diagrams drawn with PIL, with matching code.

The code is what a render record carries (round nodes joined by edges with a cycle → graph,
by its code);
it is never compiled here, so these tests need no TeX.
"""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw

from diagramforge.filters.classifier.images import png_bytes
from diagramforge.filters.classifier.settings import ClassifierParams, TrainParams


def diagram(seed: int) -> tuple[bytes, str]:
    """A node-link diagram (PNG) and TikZ code describing it."""
    r = random.Random(seed)
    w, h = r.randint(160, 320), r.randint(100, 220)
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    n = r.randint(3, 5)
    boxes = [(r.randint(5, w - 60), r.randint(5, h - 30)) for _ in range(n)]
    fill = r.choice(["#dae8fc", "#fff2cc", "#d5e8d4", "white"])
    for i in range(1, n):
        (x0, y0), (x1, y1) = boxes[r.randrange(i)], boxes[i]
        d.line([(x0 + 25, y0 + 12), (x1 + 25, y1 + 12)], fill="black", width=2)
    for i, (x, y) in enumerate(boxes):
        d.rectangle([x, y, x + 50, y + 24], outline="black", fill=fill, width=2)
        d.text((x + 6, y + 6), f"n{i}", fill="black")
    nodes = "\n".join(f"\\node[draw, circle] (n{i}) at ({x / 50:.1f},{-y / 50:.1f}) "
                      f"{{$n_{i}$}};" for i, (x, y) in enumerate(boxes))
    # a spanning tree plus one edge closing a cycle: a graph by its code (math in round
    # nodes, not a tree), whatever the random layout
    links = [(r.randrange(i), i) for i in range(1, n)]
    links.append((n - 1, next(j for j in range(n - 1) if (j, n - 1) not in links)))
    edges = "\n".join(f"\\draw[->] (n{a}) -- (n{b});" for a, b in links)
    code = ("\\documentclass{standalone}\\usepackage{tikz}\\begin{document}\n"
            f"\\begin{{tikzpicture}}\n{nodes}\n{edges}\n\\end{{tikzpicture}}\n\\end{{document}}")
    return png_bytes(img), code


def diagram_records(n: int, start: int = 0) -> list[dict]:
    out = []
    for i in range(start, start + n):
        png, code = diagram(i)
        out.append({"id": f"d{i}", "format": "tikz", "code": code, "image": png})
    return out


@pytest.fixture
def tiny_train() -> TrainParams:
    """A model small enough to train in a second or two."""
    return TrainParams(image_size=32, epochs=2, batch_size=8, hidden_sizes=[8, 16],
                       depths=[1, 1], augment_copies=1, min_class_count=3,
                       negatives={"chart": 6, "table": 0, "natural_image": 6,
                                  "screenshot": 0}, positives=0)


@pytest.fixture
def tiny_params(tmp_path) -> ClassifierParams:  # noqa: ANN001
    """Inference params reading the checkpoint a test trains into ``<tmp>/clf``."""
    return ClassifierParams(checkpoint=str(tmp_path / "clf" / "checkpoint"), batch_size=4)
