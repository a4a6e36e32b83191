"""A render in memory: the pixels an engine drew, encoded only where the image is kept.

Why (issue 53): edit, augment and twin render candidates only to verify them — does the
edit change the picture, is the variation a near-duplicate, does the twin draw the same
graph — and most verifications need the pixels, not a file. Encoding every candidate as
the pipeline stores images (lossless WebP, ≈ 0.1 CPU-s a draw.io page) and decoding it
again to compare cost more than drawing it. A :class:`Picture` is what a handler's
:meth:`~diagramforge.formats.registry.DiagramFormat.draw` returns: the engine's pixels as
they came (draw.io's canvas, PyMuPDF's pixmap), or the bytes an engine wrote itself (resvg's
PNG, a stored render read back), decoded once, on first use. Pictures are compared here
(:meth:`Picture.changed`); the one that is kept is encoded once, by
:func:`diagramforge.formats.encoding.stored_image`.

Pixels are ``uint8`` arrays of shape ``(height, width, 3)`` (RGB) or ``(…, 4)`` (RGBA);
what is compared is the RGB, as ``PIL.Image.convert("RGB")`` gives it, so a comparison
reads the same numbers whether a side is raw pixels or a decoded PNG or WebP.
"""

from __future__ import annotations

import io

import numpy as np

from diagramforge.measure.timing import COMPARE, in_phase

COMPARE_BLOCK_PX = 1 << 21
"""Pixels per block of rows when comparing: the comparison's temporaries stay a few MB
whatever the page (a 4,096-pixel page is 16.8 Mpx; cf. ``raster.INK_BLOCK_PX``)."""


def decode(data: bytes) -> np.ndarray:
    """An encoded image's pixels: RGB, or RGBA when it can be see-through (an alpha
    channel, a palette or grey with transparency). Grey and palette images come back as
    the RGB(A) they show."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        alpha = im.mode in ("LA", "PA", "RGBA", "La", "RGBa") or "transparency" in im.info
        if im.mode != ("RGBA" if alpha else "RGB"):
            im = im.convert("RGBA" if alpha else "RGB")
        return np.asarray(im)


class Picture:
    """One render: its pixels (``pixels``), and the encoded bytes it came from when an
    engine wrote a file (``data``: PNG from resvg or the browser, a stored WebP)."""

    __slots__ = ("_pixels", "data", "height", "width")

    def __init__(self, width: int, height: int, *, pixels: np.ndarray | None = None,
                 data: bytes | None = None):
        if pixels is None and data is None:
            raise ValueError("a picture needs pixels or encoded bytes")
        self.width, self.height = int(width), int(height)
        self._pixels = pixels
        self.data = data

    @classmethod
    def of_pixels(cls, pixels: np.ndarray) -> Picture:
        """Pixels as an engine drew them: ``uint8`` (height, width, 3 or 4)."""
        if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] not in (3, 4):
            raise ValueError(f"not RGB(A) uint8 pixels: {pixels.dtype} {pixels.shape}")
        return cls(pixels.shape[1], pixels.shape[0], pixels=pixels)

    @classmethod
    def of_bytes(cls, data: bytes) -> Picture:
        """An encoded image (PNG, WebP, JPEG), decoded when its pixels are first needed
        (its size is read from the header now)."""
        from PIL import Image

        with Image.open(io.BytesIO(data)) as im:
            w, h = im.size
        return cls(w, h, data=data)

    @classmethod
    def of(cls, image: Picture | bytes) -> Picture:
        """``image`` as a picture: itself, or encoded bytes (a stored render)."""
        return image if isinstance(image, Picture) else cls.of_bytes(image)

    @property
    def pixels(self) -> np.ndarray:
        """The RGB(A) pixels, decoded from ``data`` once when the picture came encoded."""
        if self._pixels is None:
            assert self.data is not None
            self._pixels = decode(self.data)
        return self._pixels

    @property
    def decoded(self) -> bool:
        """Whether the pixels are in memory (drawn raw, or decoded already)."""
        return self._pixels is not None

    @property
    def area(self) -> int:
        return max(1, self.width * self.height)

    @in_phase(COMPARE)
    def changed(self, other: Picture) -> int:
        """Pixels whose RGB differs between the two pictures (every pixel of the larger when
        their sizes differ): what ``edit.min_changed_pixels`` and augment's near-duplicate
        share count. Counted a block of rows at a time, never a whole-page temporary."""
        a, b = self.pixels, other.pixels
        if a.shape[:2] != b.shape[:2]:
            return max(a.shape[0] * a.shape[1], b.shape[0] * b.shape[1])
        h, w = a.shape[:2]
        step = max(1, COMPARE_BLOCK_PX // max(1, w))
        if a.shape[2] == b.shape[2] == 4 and a.flags.c_contiguous and b.flags.c_contiguous:
            # RGBA on both sides: one 32-bit word a pixel, its alpha byte masked out
            a32, b32 = a.view(np.uint32)[..., 0], b.view(np.uint32)[..., 0]
            mask = np.uint32(0x00FFFFFF if np.little_endian else 0xFFFFFF00)
            return sum(int(np.count_nonzero((a32[y:y + step] ^ b32[y:y + step]) & mask))
                       for y in range(0, h, step))
        # channel by channel (a reduction over the channel axis was 10× slower)
        return sum(int(np.count_nonzero((a[y:y + step, :, 0] ^ b[y:y + step, :, 0])
                                        | (a[y:y + step, :, 1] ^ b[y:y + step, :, 1])
                                        | (a[y:y + step, :, 2] ^ b[y:y + step, :, 2])))
                   for y in range(0, h, step))

    def drop(self) -> None:
        """Forget decoded pixels that can be decoded again (a compared source)."""
        if self.data is not None:
            self._pixels = None
