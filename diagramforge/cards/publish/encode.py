"""Published images encoded once, as they are published (issue 53).

With ``render.raster.encode_at: publish`` the stages keep each render as its engine made it
(a lossless PNG) and this is the one place it is encoded in ``render.raster.codec``: a
render, an edit's target, a sketch or a twin costs its encoding only if it is published,
and only once — a candidate the stages drew to verify and threw away never paid it, nor did
a kept one that ``select`` or validation leaves out. The pixels and the bytes are those the
stages gave when they encoded (``encode_at: stage``): the same encoder at the same settings
on the same pixels.

libwebp and zlib release the GIL in Pillow, so the images of a row group are encoded on
``runner.workers`` threads (output in row order, so the bytes do not depend on the count).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from diagramforge.formats.encoding import published_image

if TYPE_CHECKING:
    from collections.abc import Iterable

    from diagramforge.formats.settings import RasterParams


class ImageEncoder:
    """Encodes the image columns of published rows in place; ``stage_raster`` overrides the
    encoding for one stage's configs (``augment.webp_effort`` for sketches and variations)."""

    def __init__(self, raster: RasterParams, workers: int = 1,
                 stage_raster: dict[str, RasterParams] | None = None):
        self.raster = raster
        self.stage_raster = stage_raster or {}
        self.active = raster.encode_at == "publish"
        self.pool = ThreadPoolExecutor(max(1, workers)) if self.active and workers > 1 \
            else None

    def encode(self, rows: list[dict], columns: Iterable[str], stage: str | None = None
               ) -> None:
        """Each non-empty ``columns`` value of ``rows`` replaced by its published bytes."""
        if not self.active:
            return
        raster = self.stage_raster.get(stage or "", self.raster)
        cells = [(r, c) for r in rows for c in columns if r.get(c)]

        def one(cell: tuple[dict, str]) -> bytes | None:
            return published_image(cell[0][cell[1]], raster)

        done = self.pool.map(one, cells) if self.pool is not None else map(one, cells)
        for (r, c), data in zip(cells, done, strict=True):
            r[c] = data

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
