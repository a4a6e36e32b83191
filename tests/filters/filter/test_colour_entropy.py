"""Colour entropy: exact values on drawn images, background exclusion, thresholds."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageDraw

from diagramforge.filters.filter.base import build
from diagramforge.filters.filter.colour_entropy import colour_entropy
from diagramforge.params import ParamsError
from tests.conftest import make_params


def png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def boxes(colours: list[str], bg: str | tuple = "white", mode: str = "RGB") -> bytes:
    """Equal-area boxes, one per colour, on a background (no anti-aliasing)."""
    img = Image.new(mode, (40 * len(colours) + 20, 60), bg)
    d = ImageDraw.Draw(img)
    for i, c in enumerate(colours):
        d.rectangle([10 + 40 * i, 10, 10 + 40 * i + 39, 49], fill=c)
    return png(img)


@pytest.mark.parametrize(("colours", "bits"), [
    (["black"], 0.0),
    (["black", "red"], 1.0),
    (["black", "red", "blue", "#00ff00"], 2.0),
])
def test_entropy_of_equal_areas_is_log2_of_the_colour_count(colours, bits):
    assert colour_entropy(boxes(colours)) == pytest.approx(bits, abs=1e-9)


def test_background_is_excluded_whatever_its_colour():
    # the same two boxes on white, on dark blue and on a transparent canvas
    assert colour_entropy(boxes(["black", "red"], bg="#000080")) == pytest.approx(1.0)
    clear = boxes(["black", "red"], bg=(0, 0, 0, 0), mode="RGBA")
    assert colour_entropy(clear) == pytest.approx(1.0)  # transparent → white → background


def test_quantisation_merges_near_colours():
    near = boxes(["#000000", "#050505"])  # differ only below 4 bits per channel
    assert colour_entropy(near, bits=4) == 0.0
    assert colour_entropy(near, bits=8) == pytest.approx(1.0)


def test_noise_is_high_and_flat_fill_is_zero():
    rng = np.random.default_rng(0)
    noise = png(Image.fromarray(rng.integers(0, 256, (128, 128, 3), dtype=np.uint8)))
    assert colour_entropy(noise) > 11.5  # close to the 12-bit maximum of 4 bits × 3
    assert colour_entropy(png(Image.new("RGB", (50, 50), "red"))) == 0.0


def _run(params, record):
    return build("colour_entropy", params)(record)


def test_filter_rejects_outside_the_window_and_writes_the_column(tmp_path):
    params = make_params(tmp_path, filter={"colour_entropy": {"min": 0.5, "max": 1.5}})
    v = _run(params, {"image": boxes(["black", "red"])})
    assert v.keep and v.metrics == {"colour_entropy": 1.0}
    v = _run(params, {"image": png(Image.new("RGB", (50, 50), "red"))})
    assert (v.keep, v.reason, v.metrics["colour_entropy"]) == (False, "colour_entropy_low", 0.0)
    v = _run(params, {"image": boxes(["black", "red", "blue", "#00ff00"])})
    assert (v.keep, v.reason) == (False, "colour_entropy_high")
    assert "2.000 > 1.5" in v.detail


def test_missing_or_broken_images_are_reasons_not_crashes(tmp_path):
    params = make_params(tmp_path)
    assert _run(params, {"image": None}).reason == "no_image"
    assert _run(params, {"image": b"\x89PNG\r\n\x1a\nnot really"}).reason == "image_unreadable"


def test_min_above_max_is_a_params_error(tmp_path):
    with pytest.raises(ParamsError, match="must not exceed"):
        make_params(tmp_path, filter={"colour_entropy": {"min": 3, "max": 2}})


def test_entropy_histogram_lands_in_the_filter_metrics(tmp_path):
    from diagramforge.runner import run_named
    from diagramforge.store.records import empty_record
    from tests.conftest import seed_stage

    params = make_params(tmp_path, filter={"order": ["colour_entropy"]})
    images = [boxes(["black"]), boxes(["black", "red"]), boxes(["black", "red"]),
              boxes(["black", "red", "blue", "#00ff00"])]  # 0, 1, 1, 2 bits
    seed_stage(params, "render", [empty_record(id=f"r{i}", format="svg", image=img,
                                               source_id=f"r{i}")
                                  for i, img in enumerate(images)])
    stats = run_named("filter", params)
    assert {k: v for k, v in stats.extra.items() if k.startswith("colour_entropy:")} == {
        "colour_entropy:0": 1, "colour_entropy:1": 2, "colour_entropy:2": 1}
    assert stats.by_reason == {"colour_entropy_low": 1}  # counted even when rejected
