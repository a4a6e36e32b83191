"""Generated negatives: same seed → same bytes, stable prefixes, real decodable images."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from diagramforge.filters.classifier.images import prepare, to_rgb
from diagramforge.filters.classifier.negatives import negatives
from diagramforge.vocabulary import Family, family

COUNTS = {"chart": 4, "table": 3, "natural_image": 3, "screenshot": 2}


@pytest.fixture(scope="module")
def first() -> list[tuple[str, bytes]]:
    return negatives(COUNTS, seed=11)


def test_same_seed_same_bytes(first: list[tuple[str, bytes]]) -> None:
    assert negatives(COUNTS, seed=11) == first


def test_other_seed_other_images(first: list[tuple[str, bytes]]) -> None:
    other = negatives(COUNTS, seed=12)
    assert [family(lab) for lab, _ in other] == [family(lab) for lab, _ in first]
    assert all(a != b for (_, a), (_, b) in zip(first, other, strict=True))


def test_growing_a_count_keeps_earlier_images(first: list[tuple[str, bytes]]) -> None:
    more = negatives({**COUNTS, "chart": 6}, seed=11)
    charts = [b for lab, b in first if family(lab) == Family.CHART]
    assert [b for lab, b in more if family(lab) == Family.CHART][:4] == charts
    assert [b for lab, b in more if family(lab) != Family.CHART] == \
        [b for lab, b in first if family(lab) != Family.CHART]


def test_labels_and_images(first: list[tuple[str, bytes]]) -> None:
    assert [family(lab) for lab, _ in first] == [Family.CHART] * 4 + [Family.TABLE] * 3 + \
        [Family.IMAGE] * 5
    assert [lab for lab, _ in first][7:] == ["natural_image"] * 3 + ["screenshot"] * 2
    assert len({b for _, b in first}) == len(first)
    for label, data in first:
        img = Image.open(io.BytesIO(data))
        assert img.format == "PNG" and min(img.size) >= 32
        arr = np.asarray(to_rgb(data), dtype=float)
        if label == "natural_image":  # a photograph is busy: many distinct colours, little white
            assert len(np.unique(arr.reshape(-1, 3), axis=0)) > 200
            assert (arr.min(axis=2) > 245).mean() < 0.5
        elif label != "screenshot":  # charts and tables are mostly white paper
            assert (arr.min(axis=2) > 245).mean() > 0.4


def test_unknown_kind_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown negative kinds"):
        negatives({"sunset": 1}, seed=0)


def test_transparency_becomes_white_and_images_become_square() -> None:
    rgba = Image.new("RGBA", (40, 10), (0, 0, 0, 0))
    buf = io.BytesIO()
    rgba.save(buf, format="PNG")
    img = prepare(buf.getvalue())
    assert img.size == (40, 40)
    assert np.asarray(img).min() == 255
