"""Pairing pieces with captions, and page furniture kept out of figures."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from diagramforge.builders.pdffigures.detect import assign
from diagramforge.builders.pdffigures.extract import extract_figures
from diagramforge.builders.pdffigures.model import Caption


def cap(y: float, n: str) -> Caption:
    return Caption(0, (100, y, 400, y + 10), f"Figure {n}: x.", "Figure", n)


def test_stacked_figures_keep_their_own_captions() -> None:
    # piece 0, caption 1, piece 1, caption 2: piece 1 is nearer caption 1 (below it) but
    # caption 1 already has its figure above, and a figure never wraps around its caption
    pieces = [(120, 40, 380, 95), (120, 115, 380, 160)]
    got = assign(pieces, [cap(100, "1"), cap(175, "2")], [], max_gap=60)
    assert got == {0: [0], 1: [1]}


def test_side_by_side_pieces_go_to_the_caption_below_them() -> None:
    pieces = [(60, 100, 280, 200), (330, 100, 550, 200)]
    caps = [Caption(0, (80, 210, 260, 220), "Figure 1: l.", "Figure", "1"),
            Caption(0, (350, 210, 530, 220), "Figure 2: r.", "Figure", "2")]
    assert assign(pieces, caps, [], max_gap=60) == {0: [0], 1: [1]}


def test_sub_figures_group_under_one_caption() -> None:
    # a 2x2 grid: the top row is far from the caption but chained through the bottom row
    pieces = [(100, 50, 250, 150), (300, 50, 450, 150), (100, 170, 250, 270),
              (300, 170, 450, 270)]
    got = assign(pieces, [Caption(0, (200, 285, 350, 295), "Figure 1: g.", "Figure", "1")],
                 [], max_gap=20)
    assert sorted(got[0]) == [0, 1, 2, 3]


def test_running_head_and_rule_stay_out(tmp_path: Path) -> None:
    doc = pymupdf.open()
    for n in (1, 2):
        page = doc.new_page()
        page.insert_text((72, 50), f"A Paper About Things   {n}", fontsize=9)
        page.draw_line((72, 56), (540, 56), width=0.5)  # header rule, 6 pt above the figure
        page.insert_text((300, 770), str(n), fontsize=9)
        page.draw_rect(pymupdf.Rect(150, 62, 450, 200), width=1)
        page.insert_text((150, 215), f"Figure {n}: A box under a running head.", fontsize=10)
    pdf = tmp_path / "heads.pdf"
    doc.save(pdf)
    figs = extract_figures(pdf).figures
    assert [f.label for f in figs] == ["Figure 1", "Figure 2"]
    for f in figs:
        assert f.bbox[1] > 58 and f.bbox[0] > 140  # neither head nor rule inside
        assert "Paper" not in f.svg
