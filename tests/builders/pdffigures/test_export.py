"""Clipped SVG export: what lies fully outside the region is gone, what reaches in stays."""

from __future__ import annotations

import re

import pymupdf

from diagramforge.builders.pdffigures.export import checked_svg, clipped_svg
from diagramforge.formats.svg import document as svgfmt


def _page() -> pymupdf.Document:
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_rect(pymupdf.Rect(110, 110, 190, 190), color=(1, 0, 0), width=2)  # inside
    page.draw_line((150, 150), (400, 150), color=(0, 0, 1))  # reaches out of the region
    page.draw_circle((450, 600), 30, color=(0, 1, 0))  # fully outside, far corner
    page.draw_line((50, 500), (250, 700), color=(0, 1, 1))  # outside, spans two strips
    page.insert_text((120, 150), "inside", fontsize=10)
    page.insert_text((300, 400), "outside", fontsize=10)
    return doc


def test_clip_drops_outside_content_and_keeps_text() -> None:
    doc = _page()
    svg = clipped_svg(doc, 0, (100, 100, 200, 200))
    assert 'viewBox="0 0 100 100"' in svg
    assert "inside" in svg and "outside" not in svg
    assert re.search(r"<text\b", svg)  # text stays text
    assert 'stroke="#ff0000"' in svg and 'stroke="#0000ff"' in svg
    assert 'stroke="#00ff00"' not in svg and 'stroke="#00ffff"' not in svg
    cleaned = checked_svg(svg, 2_000_000)
    w, h, ink = svgfmt.png_ink(svgfmt.render_png(cleaned))
    assert (w, h) == (100, 100) and ink > 0.01
    assert doc[0].get_text().count("outside") == 1  # the source document is untouched
