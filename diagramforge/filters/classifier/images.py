"""One way to turn image bytes into what the classifier sees, shared by training and inference.

Renders are often RGBA with a transparent background; ``convert("RGB")`` would turn that
background black and make every diagram look like a photograph, so alpha is composited on
white.  Diagrams come in every aspect ratio; squashing a 5:1 pipeline into a square destroys
its shape, so images are padded to a square (white) before the processor resizes them.
Training and inference must agree on this, hence one module.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image


def to_rgb(data: bytes | Image.Image) -> Image.Image:
    """Decode ``data`` to RGB, compositing any transparency onto white."""
    img = data if isinstance(data, Image.Image) else Image.open(io.BytesIO(data))
    img.load()
    # a tRNS chunk makes any mode transparent (a palette, or grey or RGB with one
    # transparent colour: how an optimised PNG stores a render's see-through background)
    if img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info:
        rgba = img.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return img.convert("RGB")


def square(img: Image.Image, fill: tuple[int, int, int] = (255, 255, 255)) -> Image.Image:
    """Pad ``img`` to a centred square so resizing keeps its aspect ratio."""
    w, h = img.size
    side = max(w, h)
    if w == h:
        return img
    out = Image.new("RGB", (side, side), fill)
    out.paste(img, ((side - w) // 2, (side - h) // 2))
    return out


def prepare(data: bytes | Image.Image, size: int | None = None) -> Image.Image:
    """RGB on white, square; downscaled to ``size`` (if given) to keep batches cheap."""
    img = square(to_rgb(data))
    if size is not None and img.width > size:
        img = img.resize((size, size), Image.Resampling.LANCZOS)
    return img


def png_bytes(img: Image.Image | np.ndarray) -> bytes:
    """Encode to PNG; PIL writes no timestamp, so equal pixels give equal bytes."""
    if isinstance(img, np.ndarray):
        img = Image.fromarray(img)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()
