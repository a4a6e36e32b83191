"""Renders in memory (issue 53): compared where they are, encoded once where they are kept.

The references here are independent of the code under test: Pillow's own RGB conversion for
what "the same pixels" means, and the bytes of the path every stage took before pictures
(encode the engine's PNG) for what a stored image must be."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from diagramforge.formats import picture as picture_mod
from diagramforge.formats.encoding import kind, photo_jpeg, render_stored, stored_image
from diagramforge.formats.picture import Picture
from diagramforge.formats.registry import instantiate
from diagramforge.store.records import empty_record, make_id
from tests.conftest import make_params, needs_tex
from tests.synth.conftest import SVG_RICH, TIKZ_RICH


def _encoded(arr: np.ndarray, fmt: str = "PNG", mode: str | None = None, **save) -> bytes:
    im = Image.fromarray(arr)
    if mode is not None:
        im = im.convert(mode) if mode != "P" else im.quantize(16)
    buf = io.BytesIO()
    im.save(buf, fmt, **save)
    return buf.getvalue()


def _pil_rgb(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im.convert("RGB"))


def _page(seed: int, size: tuple[int, int] = (90, 140), alpha: bool = False) -> np.ndarray:
    """White paper with a few coloured boxes (and a see-through margin with ``alpha``)."""
    rng = np.random.default_rng(seed)
    h, w = size
    arr = np.full((h, w, 4 if alpha else 3), 255, np.uint8)
    for _ in range(4):
        y, x = rng.integers(0, h - 10), rng.integers(0, w - 10)
        arr[y:y + rng.integers(3, 10), x:x + rng.integers(3, 10), :3] = rng.integers(
            0, 255, 3, dtype=np.uint8)
    if alpha:
        arr[:, :5, 3] = 0
    return arr


@pytest.mark.parametrize("mode_a,mode_b", [(None, None), ("RGBA", None), ("P", "RGBA"),
                                           ("L", None), (None, "WEBP")])
def test_changed_counts_what_pillows_rgb_shows(mode_a, mode_b):
    """Raw pixels against an encoded image of any mode: the pixels whose RGB, as Pillow
    converts each image to RGB, differ."""
    a = _page(1)
    b = a.copy()
    b[10:20, 30:37] = (200, 10, 10)
    b[60, 100] = (254, 255, 255)  # one channel of one pixel
    enc_a = _encoded(a, mode=mode_a)
    enc_b = _encoded(b, "WEBP", lossless=True) if mode_b == "WEBP" \
        else _encoded(b, mode=mode_b)
    want = int(np.count_nonzero((_pil_rgb(enc_a) != _pil_rgb(enc_b)).any(axis=2)))
    assert want > 0
    got = Picture.of_bytes(enc_a).changed(Picture.of_bytes(enc_b))
    assert got == want
    raw_b = Picture.of_pixels(np.asarray(Image.open(io.BytesIO(enc_b)).convert("RGBA")))
    assert Picture.of_bytes(enc_a).changed(raw_b) == want
    assert raw_b.changed(raw_b) == 0


def test_changed_block_by_block_is_the_whole_page_count(monkeypatch):
    """Rows are compared a block at a time (bounded temporaries): any block size gives the
    count of the whole page, RGB against RGBA and RGBA against RGBA."""
    a, b = _page(2, (97, 53), alpha=True), _page(3, (97, 53), alpha=True)
    want = int(np.count_nonzero((a[..., :3] != b[..., :3]).any(axis=2)))
    for block in (1, 53, 60, 1 << 21):
        monkeypatch.setattr(picture_mod, "COMPARE_BLOCK_PX", block)
        assert Picture.of_pixels(a).changed(Picture.of_pixels(b)) == want
        assert Picture.of_pixels(np.ascontiguousarray(a[..., :3])).changed(
            Picture.of_pixels(b)) == want
    c = a.copy()
    c[..., 3] = 7  # alpha alone: RGB conversion drops it, so nothing changed
    assert Picture.of_pixels(a).changed(Picture.of_pixels(c)) == 0


def test_pictures_of_different_sizes_differ_everywhere():
    small, large = Picture.of_pixels(_page(4, (20, 30))), Picture.of_pixels(_page(4, (25, 30)))
    assert small.changed(large) == large.changed(small) == 25 * 30


def test_a_picture_is_stored_as_its_engines_png_was():
    """Encoding the pixels directly gives the bytes the PNG's way gave (WebP of the same
    pixels), which decode to the same pixels; a JPEG figure is kept as it is; the PNG codec
    keeps the pixels too."""
    params = make_params_for_raster("webp")
    for alpha in (False, True):
        arr = _page(5, (120, 160), alpha)
        png = _encoded(arr, compress_level=1)
        direct = stored_image(Picture.of_pixels(arr), params)
        assert kind(direct) == "webp"
        assert direct == stored_image(png, params) == stored_image(Picture.of_bytes(png), params)
        with Image.open(io.BytesIO(direct)) as im:
            assert np.array_equal(np.asarray(im.convert("RGBA" if alpha else "RGB")), arr)
    # an RGB PNG with one transparent colour (tRNS): stored with its alpha, whether its
    # pixels were decoded to compare first or not
    trns = _encoded(_page(8), transparency=(255, 255, 255))
    seen = Picture.of_bytes(trns)
    assert seen.changed(Picture.of_pixels(_page(8))) == 0 and seen.decoded
    assert stored_image(seen, params) == stored_image(trns, params)
    with Image.open(io.BytesIO(stored_image(trns, params))) as im:
        assert im.mode == "RGBA" and np.asarray(im)[0, 0, 3] == 0
    jpeg = photo_jpeg(_page(6), 70)
    assert stored_image(Picture.of_bytes(jpeg), params) == jpeg
    as_png = stored_image(Picture.of_pixels(_page(7)), make_params_for_raster("png"))
    assert kind(as_png) == "png" and np.array_equal(_pil_rgb(as_png), _page(7))


def make_params_for_raster(codec: str):  # noqa: ANN201 - RasterParams
    from diagramforge.formats.settings import RasterParams

    return RasterParams(codec=codec, encode_at="stage")  # encoded as the stage stores it


def test_an_engines_png_is_decoded_once_and_only_when_compared(tmp_path):
    """What ``draw`` hands over from an engine that writes PNG (resvg) is its PNG, decoded
    the first time its pixels are needed."""
    params = make_params(tmp_path)
    h = instantiate(params, lambda r: r["source_id"])["svg"]
    row = empty_record(id=make_id("svg", SVG_RICH), format="svg", code=SVG_RICH,
                       source_id="t:svg")
    seen: list[dict] = []
    drawn = h.draw([row], seen.append).records[0]
    png = h.render([row]).records[0]["image"]
    h.close()
    pic = drawn["image"]
    assert seen == [drawn] and isinstance(pic, Picture) and not pic.decoded
    assert pic.data == png and (pic.width, pic.height) == (drawn["width"], drawn["height"])
    assert pic.changed(Picture.of_bytes(png)) == 0 and pic.decoded


@needs_tex
def test_tikz_draws_pymupdfs_pixels_and_stores_what_its_png_stored(tmp_path):
    """TikZ hands over the pixmap's pixels (no PNG is made): the same pixels as its PNG, and
    the same stored bytes as the PNG's way, the graph built alike: encoded where it is
    stored, or stored as a PNG of those pixels and encoded by publish to the same bytes."""
    from diagramforge.formats.encoding import published_image

    params = make_params(tmp_path, render={"raster": {"encode_at": "stage"}})
    later = make_params(tmp_path / "later").render.raster
    assert later.encode_at == "publish"
    h = instantiate(params, lambda r: r["source_id"])["tikz"]
    row = empty_record(id=make_id("tikz", TIKZ_RICH), format="tikz", code=TIKZ_RICH,
                       source_id="t:tikz")
    rendered = h.render([row]).records[0]
    drawn = h.draw([row]).records[0]
    stored = render_stored(h, [row]).records[0]
    h.close()
    pic = drawn["image"]
    assert isinstance(pic, Picture) and pic.data is None and pic.decoded
    assert np.array_equal(pic.pixels, _pil_rgb(rendered["image"]))
    assert stored["image"] == stored_image(rendered["image"], params.render.raster)
    kept = stored_image(pic, later)
    assert kind(kept) == "png" and np.array_equal(_pil_rgb(kept), pic.pixels)
    assert published_image(kept, later) == stored["image"]
    assert drawn["graph"] == rendered["graph"] == stored["graph"]
