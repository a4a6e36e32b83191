"""How pictures are stored: renders losslessly (lossless WebP by default, or PNG with a palette
only when the colours fit one: the same pixels in fewer bytes), scans as one JPEG; every stage
that keeps a render stores it so."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest
from PIL import Image

from diagramforge.filters.classifier.images import to_rgb
from diagramforge.formats.encoding import (
    kind,
    line_art_png,
    line_art_webp,
    photo_jpeg,
    render_stored,
)
from diagramforge.formats.registry import instantiate
from diagramforge.store.records import empty_record, make_id
from tests.conftest import make_params
from tests.synth.conftest import SVG_RICH


def _png(arr: np.ndarray, **save: object) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, "PNG", **save)
    return buf.getvalue()


def _colour_type(png: bytes) -> int:
    """The IHDR colour type (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA)."""
    assert png[12:16] == b"IHDR"
    return struct.unpack(">BB", png[24:26])[1]


def _pixels(png: bytes, mode: str) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as im:
        return np.asarray(im.convert(mode))


def _same_picture(a: bytes, b: bytes) -> None:
    """Whatever a reader converts to, it sees the same pixels (alpha too, and the colour
    under transparent pixels: RGB conversion drops alpha)."""
    for mode in ("RGBA", "RGB", "L"):
        assert np.array_equal(_pixels(a, mode), _pixels(b, mode)), mode
    assert np.array_equal(np.asarray(to_rgb(a)), np.asarray(to_rgb(b)))


def _line_art(colours: int, alpha: bool = False, size: tuple[int, int] = (90, 120)
              ) -> np.ndarray:
    """Horizontal bands of ``colours`` distinct colours (counted: each band its own)."""
    h, w = max(size[0], colours), size[1]
    rng = np.random.default_rng(colours)
    palette = rng.permutation(256 ** 3)[:colours]
    rgb = np.stack([(palette >> 16) & 255, (palette >> 8) & 255, palette & 255], axis=1)
    rows = rgb[np.arange(h) * colours // h].astype(np.uint8)
    img = np.repeat(rows[:, None, :], w, axis=1)
    if alpha:  # a see-through left margin whose hidden colour varies
        a = np.full((h, w, 1), 255, np.uint8)
        a[:, :10] = 0
        img = np.concatenate([img, a], axis=2)
    return img


@pytest.mark.parametrize("colours,alpha", [(2, False), (200, False), (100, True), (257, False),
                                           (4000, True)])
def test_line_art_keeps_every_pixel_and_uses_a_palette_only_when_colours_fit(colours, alpha):
    arr = _line_art(colours, alpha)
    src = _png(arr, compress_level=1)  # a fast encoder's PNG, as a browser writes one
    out = line_art_png(src, 2)
    assert kind(out) == "png" and len(out) < len(src)
    _same_picture(src, out)
    # colours counted on the pixels (RGBA: a see-through pixel is a colour of its own)
    distinct = len(np.unique(arr.reshape(-1, arr.shape[2]), axis=0))
    assert distinct == colours * (2 if alpha else 1)
    if distinct <= 256:
        assert _colour_type(out) == 3  # exact palette: the colours fit
    else:
        assert _colour_type(out) in (2, 6)  # never quantised: still true colour
    assert line_art_png(src, 2) == out  # a function of the bytes


def test_a_process_forked_after_oxipng_ran_still_stores_the_same_bytes():
    """oxipng's rayon pool does not survive a fork: a worker forked from a process that had
    optimised a render waited forever on its first one (the runner then rejected every unit
    as a timeout). A forked child gets the same bytes, and in time."""
    import multiprocessing

    png = _png(_line_art(7, size=(140, 180)))
    here = line_art_png(png, 2)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        there = pool.apply_async(line_art_png, (png, 2)).get(timeout=120)
    assert there == here and len(here) < len(png)


def test_no_level_and_non_png_bytes_pass_through():
    src = _png(_line_art(3))
    assert line_art_png(src, None) is src
    jpeg = photo_jpeg(_line_art(3), 80)
    assert line_art_png(jpeg, 2) is jpeg


def test_photo_jpeg_is_one_baseline_jpeg_at_its_quality():
    rng = np.random.default_rng(0)
    arr = np.clip(200 + rng.normal(0, 20, (64, 96, 3)), 0, 255).astype(np.uint8)
    out = photo_jpeg(arr, 55)
    assert kind(out) == "jpeg" and photo_jpeg(arr, 55) == out
    with Image.open(io.BytesIO(out)) as im:
        assert im.format == "JPEG" and im.size == (96, 64) and im.mode == "RGB"
        tables = im.quantization
    # the file's quantisation tables are libjpeg's at quality 55: it was encoded once, at
    # that quality (Pillow's own encoder at that quality is the reference)
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, "JPEG", quality=55)
    with Image.open(buf) as ref:
        assert tables == ref.quantization


def test_a_see_through_png_reads_as_white_paper_in_every_form():
    """A render on a transparent background may be stored as grey or RGB with one
    transparent colour (a tRNS chunk): the classifier's input is the same white paper."""
    arr = np.zeros((20, 30, 4), np.uint8)
    arr[5:15, 5:25] = (40, 40, 40, 255)  # a dark box on transparent black
    rgba = _png(arr)
    grey_trns = io.BytesIO()
    Image.fromarray(np.where(arr[..., 3] > 0, 40, 0).astype(np.uint8), "L").save(
        grey_trns, "PNG", transparency=0)
    a, b = np.asarray(to_rgb(rgba)), np.asarray(to_rgb(grey_trns.getvalue()))
    assert (a[0, 0] == 255).all() and np.array_equal(a, b)


@pytest.mark.parametrize("colours,alpha", [(2, False), (200, False), (100, True), (257, False),
                                           (4000, True)])
def test_line_art_webp_keeps_every_pixel(colours, alpha):
    """Lossless WebP: every pixel, alpha and the colour hidden under see-through pixels
    (the left margin's colours vary) decode as they were; the same bytes twice."""
    arr = _line_art(colours, alpha, size=(120, 160))
    src = _png(arr, compress_level=1)
    out = line_art_webp(src, 4)
    assert kind(out) == "webp" and len(out) < len(src)
    _same_picture(src, out)
    if alpha:
        with Image.open(io.BytesIO(out)) as im:
            assert im.mode == "RGBA"
            hidden = np.asarray(im)[:, :10, :3]
        assert np.array_equal(hidden, arr[:, :10, :3])
    assert line_art_webp(src, 4) == out


@pytest.mark.parametrize("mode", ["L", "P", "P-trns", "1"])
def test_line_art_webp_keeps_grey_and_palette_pictures_pixels(mode):
    """A grey, palette (with a transparent index) or bilevel PNG comes back as the same
    pixels in RGB(A) — what every reader converts it to."""
    arr = _line_art(6, size=(60, 80))
    im = Image.fromarray(arr)
    if mode == "L":
        im = im.convert("L")
    elif mode == "1":
        im = im.convert("1")
    else:
        im = im.quantize(6)
    buf = io.BytesIO()
    im.save(buf, "PNG", compress_level=0, **({"transparency": 2} if mode == "P-trns" else {}))
    src = buf.getvalue()
    out = line_art_webp(src, 4)
    assert kind(out) == "webp"
    _same_picture(src, out)


def test_line_art_webp_leaves_what_it_cannot_hold():
    """Not a PNG, 16 bits a sample, or no smaller: the input as it is."""
    jpeg = photo_jpeg(_line_art(3), 80)
    assert line_art_webp(jpeg, 4) is jpeg
    buf = io.BytesIO()
    Image.fromarray((np.arange(64 * 64, dtype=np.uint16) * 13).reshape(64, 64)).save(buf, "PNG")
    deep = buf.getvalue()
    assert line_art_webp(deep, 4) is deep
    tiny = _png(_line_art(2, size=(1, 1)))
    out = line_art_webp(tiny, 4)
    assert len(out) <= len(tiny)


def test_stages_store_renders_optimised_with_the_tools_pixels(tmp_path):
    """``render_stored``: the handler's own render, in fewer bytes, the same pixels — lossless
    WebP by default, oxipng's PNG with ``codec: png``, the tool's PNG with no level — when
    stages encode (``encode_at: stage``); with ``publish`` (the default) the stage keeps the
    tool's PNG and ``published_image`` gives the bytes the stage would have stored."""
    from diagramforge.formats.encoding import published_image

    at_stage = {"encode_at": "stage"}
    params = make_params(tmp_path, render={"raster": at_stage})
    h = instantiate(params, lambda r: r["source_id"])["svg"]
    row = empty_record(id=make_id("svg", SVG_RICH), format="svg", code=SVG_RICH,
                       split="test", source_id="test:svg")
    raw, stored = h.render([row]).records[0], render_stored(h, [row]).records[0]
    h.close()
    assert kind(raw["image"]) == "png" and kind(stored["image"]) == "webp"
    assert len(stored["image"]) < len(raw["image"])
    _same_picture(raw["image"], stored["image"])
    assert (stored["width"], stored["height"]) == (raw["width"], raw["height"])
    later = make_params(tmp_path / "later")
    h = instantiate(later, lambda r: r["source_id"])["svg"]
    kept = render_stored(h, [row]).records[0]["image"]
    h.close()
    assert later.render.raster.encode_at == "publish" and kept == raw["image"]
    assert published_image(kept, later.render.raster) == stored["image"]
    assert published_image(stored["image"], later.render.raster) == stored["image"]  # once
    png = make_params(tmp_path / "png", render={"raster": {"codec": "png", **at_stage}})
    h = instantiate(png, lambda r: r["source_id"])["svg"]
    as_png = render_stored(h, [row]).records[0]["image"]
    h.close()
    assert kind(as_png) == "png" and len(as_png) < len(raw["image"])
    _same_picture(raw["image"], as_png)
    off = make_params(tmp_path / "off", render={"raster": {"codec": "png", "png_level": None,
                                                           **at_stage}})
    h = instantiate(off, lambda r: r["source_id"])["svg"]
    assert render_stored(h, [row]).records[0]["image"] == raw["image"]
    h.close()
