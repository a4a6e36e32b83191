"""How a picture is stored: line art as lossless optimised PNG, photo-like pictures as JPEG.

A render of a diagram is line art — flat fills, strokes, anti-aliased text — and the tasks
compare its pixels (edit verification counts changed pixels, ``evaluate`` scores a
prediction's render against the reference's by SSIM and pixel equality), so it stays
lossless: :func:`line_art_png` hands the tool's PNG to oxipng (``pyoxipng``), which keeps
every pixel and only stores them better — a palette when the render has at most 256 colours
(counted exactly, never quantised), grey when it is grey, fewer bits per sample when they
suffice, the best row filters, and a stronger deflate than the browsers' and PyMuPDF's fast
encoders. The output is a function of the input bytes and the level (the same bytes on every
run, thread count and machine: no timeout, whose cut-off would depend on the machine's
speed).

A degraded scan is a photograph of a page — noise, blur, paper texture — which no PNG
compresses; it is stored as the JPEG its degradation ends in (:func:`photo_jpeg`), encoded
once (before, a JPEG step inside the degradation was followed by a PNG of its output, which
kept the artefacts and paid the noise in full).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from diagramforge.formats.registry import DiagramFormat
    from diagramforge.stage import Outcome

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_SIGNATURE = b"\xff\xd8\xff"


def line_art_png(png: bytes, level: int | None) -> bytes:
    """``png`` stored losslessly in fewer bytes (oxipng at ``level``, 0–6; ``None`` returns
    it as it is). Decoding the result gives exactly the input's pixels — as RGBA, RGB or
    grey, whatever mode it is stored in: a palette only when the colours fit one, grey only
    when it is grey, alpha kept (and the colour under fully transparent pixels). Metadata
    chunks that do not change how the picture looks are dropped."""
    if level is None or not png.startswith(PNG_SIGNATURE):
        return png
    import oxipng

    out = oxipng.optimize_from_memory(png, level=min(level, 6),
                                      strip=oxipng.StripChunks.safe())
    return out if len(out) < len(png) else png


def render_stored(handler: DiagramFormat, rows: list[dict]) -> Outcome:
    """``handler.render(rows)``, each record's ``image`` in the form the pipeline stores and
    publishes renders: the tool's PNG made smaller losslessly (:func:`line_art_png` at
    ``render.raster.png_level``; the same pixels). Every stage that keeps a render calls
    this (render, edit, augment, repair, twin); a scorer that only compares pixels
    (``evaluate``) calls ``render``."""
    out = handler.render(rows)
    level = handler.params.render.raster.png_level
    for rec in out.records:
        if rec.get("image"):
            rec["image"] = line_art_png(rec["image"], level)
    return out


def photo_jpeg(rgb: np.ndarray, quality: int) -> bytes:
    """An RGB ``uint8`` array as a baseline JPEG at ``quality`` (Pillow's libjpeg-turbo,
    4:2:0 chroma subsampling as cameras and scanners write, optimised Huffman tables — a
    lossless saving that changes no pixel of the decoded picture)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(rgb, "RGB").save(buf, "JPEG", quality=int(quality), subsampling="4:2:0",
                                     optimize=True)
    return buf.getvalue()


def kind(data: bytes | None) -> str | None:
    """``"png"``, ``"jpeg"``, ``"webp"`` or ``None``: what an image column's bytes are."""
    if not data:
        return None
    if data.startswith(PNG_SIGNATURE):
        return "png"
    if data.startswith(JPEG_SIGNATURE):
        return "jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return "other"
