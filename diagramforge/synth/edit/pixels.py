"""How much two renders differ: the edit and augment stages keep a target only when its
image changed. A module of its own so that augment, which only needs this, does not
depend on the edit stage's instruction writing."""

from __future__ import annotations

from diagramforge.formats.picture import Picture


def changed_pixels(a: Picture | bytes, b: Picture | bytes) -> int:
    """Pixels whose RGB differs between two renders (every pixel when the sizes differ):
    pictures in memory, or encoded images (PNG, WebP) decoded to compare."""
    return Picture.of(a).changed(Picture.of(b))
