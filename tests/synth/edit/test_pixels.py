"""Pixel difference between two renders, on images built here so the count is known."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from diagramforge.synth.edit.pixels import changed_pixels


def png(size=(40, 30), box=None, fill="red", mode="RGB") -> bytes:
    im = Image.new(mode, size, "white")
    if box is not None:
        ImageDraw.Draw(im).rectangle(box, fill=fill)
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def test_changed_pixels_counts_exactly_the_changed_area():
    blank = png()
    assert changed_pixels(blank, blank) == 0
    assert changed_pixels(blank, png(box=(2, 3, 11, 7))) == 10 * 5  # inclusive corners
    assert changed_pixels(png(mode="RGBA"), blank) == 0  # RGBA white and RGB white look the same


def test_different_sizes_count_every_pixel_of_the_larger():
    assert changed_pixels(png((40, 30)), png((50, 10))) == 40 * 30
