"""Render similarity: SSIM (scikit-image) and a pixel score between two rendered PNGs.

Both pictures are flattened onto white and made grey (a transparent background is white
paper), and the prediction is resized to the reference's size: a model that draws the
right picture at another scale should not score as a different picture.  The pixel score
is ``1 − mean |a − b| / 255`` — SSIM's complement for large flat regions, where structure
terms say little.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image
from skimage.metrics import structural_similarity


def _grey(png: bytes, size: tuple[int, int] | None = None) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as im:
        rgba = im.convert("RGBA")
    paper = Image.new("RGBA", rgba.size, "white")
    grey = Image.alpha_composite(paper, rgba).convert("L")
    if size is not None and grey.size != size:
        grey = grey.resize(size, Image.Resampling.LANCZOS)
    return np.asarray(grey, dtype=np.float64)


def similarity(pred_png: bytes, ref_png: bytes) -> dict[str, float]:
    """``ssim`` and ``pixel`` of the predicted render against the reference render."""
    ref = _grey(ref_png)
    pred = _grey(pred_png, (ref.shape[1], ref.shape[0]))
    side = min(ref.shape)
    win = min(7, side if side % 2 else side - 1)
    ssim = 1.0 if np.array_equal(pred, ref) else float(
        structural_similarity(pred, ref, data_range=255.0, win_size=max(win, 3)))
    pixel = 1.0 - float(np.abs(pred - ref).mean()) / 255.0
    return {"ssim": ssim, "pixel": pixel}


def image_scores(pred_png: bytes | None, ref_png: bytes | None) -> dict[str, float | None]:
    """``ssim`` and ``pixel`` of a prediction's render: unset when there is no reference
    picture to compare with (nothing to say), 0 when the prediction drew nothing."""
    if not ref_png:
        return {"ssim": None, "pixel": None}
    if pred_png:
        return similarity(pred_png, ref_png)
    return {"ssim": 0.0, "pixel": 0.0}


def same_picture(a_png: bytes, b_png: bytes) -> bool:
    """Whether two renders show the same pixels (on white, in grey): an edit whose render
    is its source's did nothing visible, whatever its code says."""
    a, b = _grey(a_png), _grey(b_png)
    return a.shape == b.shape and bool(np.array_equal(a, b))
