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
Equal stored images are encoded once (a diagram's render is the ``source_image`` of each of
its ``qa`` rows), and every encoding is kept in ``publish.image_cache_dir``, keyed by the
stored bytes, the codec's settings and the encoders' versions: publish reruns whenever the
card's text, the version or a selection changes, and such a rerun reads what the last one
encoded.
"""

from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from typing import TYPE_CHECKING

from diagramforge.formats.encoding import published_image
from diagramforge.store.cache import ContentCache, content_key

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from diagramforge.formats.settings import RasterParams


@functools.cache
def _encoders() -> dict[str, str | None]:
    """The encoders' versions, part of a kept encoding's key: another libwebp may write
    other bytes for the same pixels."""
    import PIL
    from PIL import features

    try:
        import oxipng

        oxi = getattr(oxipng, "__version__", None) or metadata.version("pyoxipng")
    except Exception:  # noqa: BLE001 - no oxipng: PNGs are not optimised then either
        oxi = None
    return {"pillow": PIL.__version__, "libwebp": features.version("webp"), "oxipng": oxi}


CACHE_BYTES = 64 * 2**20
"""Published bytes kept for images seen again soon (a diagram's render repeated in each of
its ``qa`` rows' ``source_image``): encoded once, not once a row."""


class ImageEncoder:
    """Encodes the image columns of published rows in place; ``stage_raster`` overrides the
    encoding for one stage's configs (``augment.webp_effort`` for sketches and variations).
    Equal stored bytes are encoded once: within a call, and across calls while their result
    is among the last :data:`CACHE_BYTES` of output."""

    def __init__(self, raster: RasterParams, workers: int = 1,
                 stage_raster: dict[str, RasterParams] | None = None,
                 cache_dir: Path | str | None = None):
        self.raster = raster
        self.cache = ContentCache(cache_dir, "published-image") if cache_dir else None
        self.stage_raster = stage_raster or {}
        self.active = raster.encode_at == "publish"
        self.pool = ThreadPoolExecutor(max(1, workers)) if self.active and workers > 1 \
            else None
        self._done: OrderedDict[tuple[str, bytes], bytes] = OrderedDict()
        self._held = 0
        self.encoded = self.reused = 0

    def encode(self, rows: list[dict], columns: Iterable[str], stage: str | None = None
               ) -> None:
        """Each non-empty ``columns`` value of ``rows`` replaced by its published bytes."""
        if not self.active:
            return
        which = stage if stage in self.stage_raster else ""
        raster = self.stage_raster.get(which, self.raster)
        cells = [(r, c) for r in rows for c in columns if r.get(c)]
        keys = [(which, hashlib.blake2b(r[c], digest_size=16).digest()) for r, c in cells]
        todo = {k: r[c] for k, (r, c) in zip(keys, cells, strict=True) if k not in self._done}

        settings = [raster.model_dump(mode="json"), _encoders()]

        def one(item: tuple[tuple[str, bytes], bytes]) -> bytes | None:
            if self.cache is None:
                return published_image(item[1], raster)
            key = content_key(item[0][1], settings)
            got = self.cache.get(key)
            if got is None:
                got = published_image(item[1], raster)
                self.cache.put(key, got)
            return got

        work = list(todo.items())
        done = self.pool.map(one, work) if self.pool is not None else map(one, work)
        fresh = dict(zip(todo, done, strict=True))
        self.encoded += len(fresh)
        self.reused += len(cells) - len(fresh)
        values = [fresh[k] if k in fresh else self._done[k] for k in keys]  # before evicting
        for k, (r, c), data in zip(keys, cells, values, strict=True):
            r[c] = data
            self._keep(k, data)

    def _keep(self, key: tuple[str, bytes], data: bytes) -> None:
        if key in self._done:
            self._done.move_to_end(key)
            return
        self._done[key] = data
        self._held += len(data)
        while self._held > CACHE_BYTES and len(self._done) > 1:
            self._held -= len(self._done.popitem(last=False)[1])

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
