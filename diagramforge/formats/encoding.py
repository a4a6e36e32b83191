"""How a picture is stored: line art losslessly (WebP, or optimised PNG), photo-like
pictures as JPEG.

A render of a diagram is line art — flat fills, strokes, anti-aliased text — and the tasks
compare its pixels (edit verification counts changed pixels, ``evaluate`` scores a
prediction's render against the reference's by SSIM and pixel equality), so it stays
lossless. By default (``render.raster.codec: webp``) :func:`line_art_webp` stores it as
lossless WebP (libwebp through Pillow): the same pixels, decoded by any Pillow as RGB or
RGBA, in 46 % of an oxipng-optimised PNG's bytes on draw.io pages (libwebp's lossless
mode predicts each pixel from its neighbours and keeps a cache of recent colours, which
suits anti-aliased strokes and text better than PNG's row filters and deflate; measured in
docs/SCALE.md §5). ``codec: png`` keeps a PNG: :func:`line_art_png` hands the tool's PNG to
oxipng (``pyoxipng``), which keeps
every pixel and only stores them better — a palette when the render has at most 256 colours
(counted exactly, never quantised), grey when it is grey, fewer bits per sample when they
suffice, the best row filters, and a stronger deflate than the browsers' and PyMuPDF's fast
encoders. The output is a function of the input bytes and the level (the same bytes on every
run, thread count and machine: no timeout, whose cut-off would depend on the machine's
speed).

An image is encoded once, where it is published (issue 53; ``render.raster.encode_at``).
Edit, augment and twin draw their candidates as pictures in memory (``formats/picture.py``)
and verify them there; what a stage keeps it stores as its engine made it
(:func:`stored_image` → :func:`engine_image`: the browser's or resvg's PNG as it came,
PyMuPDF's pixels as a fast PNG), and ``publish`` encodes each published image in the codec
(:func:`published_image`, on threads: ``cards/publish/encode.py``). On draw.io pages the
encoding (PNG decode and libwebp, ≈ 0.1 CPU-s a page) had cost render more than Chromium's
drawing and rasterising; a candidate that is verified and dropped, or a kept image that
``select`` leaves out, now never pays it. ``encode_at: stage`` encodes as each stage stores
(:func:`render_stored` for render and repair; pixels go to the encoder as they are, never
through a PNG) — the same pixels and the same published bytes either way.

A degraded scan is a photograph of a page — noise, blur, paper texture — which no PNG
compresses; it is stored as the JPEG its degradation ends in (:func:`photo_jpeg`), encoded
once (before, a JPEG step inside the degradation was followed by a PNG of its output, which
kept the artefacts and paid the noise in full).

oxipng is not fork-safe: it runs on rayon's global thread pool, which a process starts at
its first call, and a child forked after that inherits a pool whose threads do not exist —
its first call waits forever. The runner forks its workers, so a process that stored a
render itself (an inline run, a stage's driver) and then forks would hang every worker's
first render until the unit deadline rejected it as a timeout. :func:`_optimise` therefore
runs oxipng in the process that started rayon, and in any process forked from it asks a
small helper process of its own (the same library, hence the same bytes).
"""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import threading
from typing import TYPE_CHECKING

from diagramforge.measure.timing import ENCODE, in_phase

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

    from diagramforge.formats.picture import Picture
    from diagramforge.formats.registry import DiagramFormat
    from diagramforge.formats.settings import RasterParams
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
    out = _optimise(png, min(level, 6))
    return out if len(out) < len(png) else png


# The process whose rayon pool oxipng started (None: no call yet in this process's lineage).
_RAYON_PID: int | None = None
_HELPER: _OxipngHelper | None = None
_HELPER_LOCK = threading.Lock()

# The helper's whole program: frames of (level: u8, length: u32, png) in, (status: u8,
# length: u32, bytes) out; it imports nothing but oxipng and ends when its stdin closes.
_HELPER_CODE = """
import struct, sys, oxipng
i, o = sys.stdin.buffer, sys.stdout.buffer
while True:
    head = i.read(5)
    if len(head) < 5:
        break
    level, n = struct.unpack('<BI', head)
    data = i.read(n)
    try:
        out, status = oxipng.optimize_from_memory(
            data, level=level, strip=oxipng.StripChunks.safe()), 0
    except Exception as e:
        out, status = repr(e).encode(), 1
    o.write(struct.pack('<BI', status, len(out)) + out)
    o.flush()
"""


class _OxipngHelper:
    """One helper process for a forked process (see the module's docstring)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.proc = subprocess.Popen([sys.executable, "-c", _HELPER_CODE],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def optimise(self, png: bytes, level: int) -> bytes:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(struct.pack("<BI", level, len(png)) + png)
        self.proc.stdin.flush()
        head = self.proc.stdout.read(5)
        if len(head) < 5:
            raise RuntimeError(f"oxipng helper ended (exit {self.proc.poll()})")
        status, n = struct.unpack("<BI", head)
        out = self.proc.stdout.read(n)
        if status:
            raise ValueError(out.decode(errors="replace"))
        return out


def _optimise(png: bytes, level: int) -> bytes:
    """oxipng's bytes for ``png`` at ``level``, safe in a process forked after a call."""
    global _RAYON_PID, _HELPER
    pid = os.getpid()
    if _RAYON_PID is None:
        _RAYON_PID = pid
    if pid == _RAYON_PID:
        import oxipng

        return oxipng.optimize_from_memory(png, level=level,
                                           strip=oxipng.StripChunks.safe())
    with _HELPER_LOCK:
        if _HELPER is None or _HELPER.pid != pid:
            _HELPER = _OxipngHelper()
        return _HELPER.optimise(png, level)


WEBP_EFFORT = 60
"""libwebp's lossless effort when no ``render.raster`` says (``webp_effort``'s default)."""
WEBP_MAX_SIDE = 16383
"""The largest side a WebP can hold; a larger render stays PNG."""
_WEBP_MODES = ("1", "L", "LA", "P", "PA", "RGB", "RGBA")


def _webp(image: np.ndarray | Image.Image, method: int, effort: int = WEBP_EFFORT) -> bytes:
    """RGB(A) pixels (an array, or a decoded RGB/RGBA image) as a lossless WebP (``exact``:
    the colour under fully transparent pixels kept)."""
    from PIL import Image

    im = image if isinstance(image, Image.Image) else \
        Image.fromarray(image, "RGBA" if image.shape[2] == 4 else "RGB")
    buf = io.BytesIO()
    im.save(buf, "WEBP", lossless=True, quality=int(effort), method=int(method), exact=True)
    return buf.getvalue()


def line_art_webp(png: bytes, method: int, pixels: np.ndarray | None = None,
                  effort: int = WEBP_EFFORT) -> bytes:
    """``png`` as a lossless WebP at libwebp's ``method`` (0–6): decoding it gives exactly
    the input's pixels — RGB, or RGBA with the colour under fully transparent pixels kept
    (``exact``); grey and palette pictures come back as the same pixels in RGB. The same
    bytes on every run (libwebp's encoder is single-threaded here and deterministic). The
    input is returned as it is when it is not a PNG, is larger than a WebP can hold, has
    more than 8 bits a sample, or would not get smaller. ``pixels``: the PNG's pixels when
    they are decoded already (``picture.decode``'s, which are these), not decoded again;
    ``effort``: libwebp's lossless effort (``render.raster.webp_effort``)."""
    from PIL import Image

    if not png.startswith(PNG_SIGNATURE):
        return png
    with Image.open(io.BytesIO(png)) as im:
        if max(im.size) > WEBP_MAX_SIDE or im.mode not in _WEBP_MODES:
            return png
        if pixels is None:  # decoded here, as picture.decode would, without an array
            alpha = im.mode in ("LA", "PA", "RGBA") or "transparency" in im.info
            src = im if im.mode == ("RGBA" if alpha else "RGB") \
                else im.convert("RGBA" if alpha else "RGB")
            out = _webp(src, method, effort)
        else:
            out = _webp(pixels, method, effort)
    return out if len(out) < len(png) else png


def pixels_png(pixels: np.ndarray) -> bytes:
    """Pixels as a plain PNG (zlib's fastest level: a PNG made only to be re-compressed by
    oxipng, or one too large for WebP)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(pixels, "RGBA" if pixels.shape[2] == 4 else "RGB").save(
        buf, "PNG", compress_level=1)
    return buf.getvalue()


def engine_image(image: Picture | bytes) -> bytes:
    """A render as its engine made it, losslessly: the engine's own file (the browser's or
    resvg's PNG, a JPEG figure) as it is, or pixels an engine handed over (PyMuPDF's) as a
    fast PNG. What the stages keep when ``render.raster.encode_at`` is ``publish``."""
    if isinstance(image, bytes):
        return image
    if image.data is not None:
        return image.data
    return pixels_png(image.pixels)


def codec_image(data: bytes, raster: RasterParams, pixels: np.ndarray | None = None) -> bytes:
    """Stored image bytes in ``render.raster.codec``: a PNG as lossless WebP (or an
    oxipng-optimised PNG), the same pixels; any other bytes (a WebP already, a JPEG scan or
    figure) as they are, so encoding twice gives the bytes of encoding once. ``pixels``:
    the PNG's, when they are decoded already."""
    if raster.codec == "webp":
        return line_art_webp(data, raster.webp_method, pixels, raster.webp_effort)
    return line_art_png(data, raster.png_level)


@in_phase(ENCODE)
def stored_image(image: Picture | bytes, raster: RasterParams) -> bytes:
    """A render as the pipeline's stages store it. With ``render.raster.encode_at:
    publish`` (the default) that is :func:`engine_image` — encoded once, by ``publish``
    (:func:`published_image`); with ``stage``, the render in ``render.raster.codec``: lossless
    WebP, or optimised PNG, the same pixels either way. ``image`` is a render in memory
    (:class:`~diagramforge.formats.picture.Picture`: encoded straight from its pixels when
    the engine gave pixels, never through a PNG) or the bytes an engine wrote (a PNG is
    re-encoded, other bytes — a JPEG figure — are kept as they are)."""
    if raster.encode_at == "publish":
        return engine_image(image)
    if isinstance(image, bytes):
        data, pixels = image, None
    else:
        data, pixels = image.data, (image.pixels if image.decoded else None)
    if data is not None:
        return codec_image(data, raster, pixels)
    assert pixels is not None
    if raster.codec == "webp" and max(pixels.shape[:2]) <= WEBP_MAX_SIDE:
        return _webp(pixels, raster.webp_method, raster.webp_effort)
    return line_art_png(pixels_png(pixels), raster.png_level if raster.codec == "png" else 0)


def published_image(data: bytes | None, raster: RasterParams) -> bytes | None:
    """A stored image as ``publish`` writes it: in ``render.raster.codec`` when the stages
    kept the engine's bytes (``encode_at: publish``), as stored otherwise."""
    if not data or raster.encode_at != "publish":
        return data
    return codec_image(data, raster)


def carried_meta(row: dict) -> str | None:
    """The ``meta`` of a candidate made from ``row``'s code (an edit, a sketch, a variation):
    the files the picture reads beside its code (``assets``: an image in a node, a class
    file shipped with the paper), which its code does not carry — without them a candidate
    of such a picture cannot compile, whatever it changed. Nothing else: the candidate's
    code is its own document."""
    meta = json.loads(row.get("meta") or "{}")
    return json.dumps({"assets": meta["assets"]}, sort_keys=True) if meta.get("assets") \
        else None


def render_stored(handler: DiagramFormat, rows: list[dict]) -> Outcome:
    """``handler.draw(rows)``, each record's ``image`` encoded as the pipeline stores and
    publishes renders (:func:`stored_image`) as soon as it is drawn: for the stages that
    keep every render they make (render, repair). A stage that verifies candidates first
    (edit, augment, twin) calls ``draw`` and encodes only what it keeps; a scorer that only
    compares pixels (``evaluate``) calls ``render``."""
    raster = handler.params.render.raster

    def store(rec: dict) -> None:
        rec["image"] = stored_image(rec["image"], raster)

    return handler.draw(rows, store)


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
