"""Generated diagrams: seeded, stable prefixes, every style drawn, paper-like images."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from diagramforge.filters.classifier.images import to_rgb
from diagramforge.filters.classifier.positives import KINDS, STYLES, positives
from diagramforge.vocabulary import Family, family


@pytest.fixture(scope="module")
def first() -> list[tuple[str, bytes]]:
    return positives(8, seed=3)


def test_same_seed_same_bytes_and_stable_prefix(first):
    assert positives(8, seed=3) == first
    assert positives(10, seed=3)[:8] == first
    assert all(a != b for (_, a), (_, b) in zip(first, positives(8, seed=4), strict=True))


@pytest.mark.parametrize("style", STYLES, ids=lambda f: f.__name__)
def test_each_style_draws_a_diagram_on_paper(style):
    data = style(np.random.default_rng(7))
    img = Image.open(io.BytesIO(data))
    assert img.format == "PNG" and min(img.size) >= 60
    arr = np.asarray(to_rgb(data), dtype=float)
    white = (arr.min(axis=2) > 245).mean()
    assert 0.3 < white < 0.995  # mostly paper, but something is drawn
    # anti-aliased (supersampled) edges: intermediate greys, like a pdflatex render
    assert len(np.unique(arr.reshape(-1, 3), axis=0)) > 20


def test_labels(first):
    assert {lab for lab, _ in first} <= set(KINDS)
    assert all(family(lab) == Family.DIAGRAM for lab, _ in first)
    assert len({b for _, b in first}) == len(first)
