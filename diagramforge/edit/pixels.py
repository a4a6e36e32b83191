"""How much two renders differ: the edit and augment stages keep a target only when its
image changed. A module of its own so that augment, which only needs this, does not
depend on the edit stage's instruction writing."""

from __future__ import annotations

import io

from PIL import Image, ImageChops


def changed_pixels(a: bytes, b: bytes) -> int:
    """Pixels that differ between two PNGs (every pixel when the sizes differ)."""
    ia, ib = (Image.open(io.BytesIO(x)).convert("RGB") for x in (a, b))
    if ia.size != ib.size:
        return max(ia.size[0] * ia.size[1], ib.size[0] * ib.size[1])
    diff = ImageChops.difference(ia, ib).convert("L")
    return sum(diff.histogram()[1:])
