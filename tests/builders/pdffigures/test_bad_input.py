"""Bad PDFs come back as reasons, never as exceptions."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from diagramforge.builders.pdffigures.extract import extract_figures
from diagramforge.builders.pdffigures.model import PdfReason
from diagramforge.builders.pdffigures.settings import PdfFigureParams


def reasons(path: Path, **params: object) -> list[str]:
    result = extract_figures(path, PdfFigureParams(**params))
    return [d.reason for d in result.drops]


def test_garbage_and_empty_files(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.pdf"
    garbage.write_bytes(b"\x00\xffthis is not a pdf at all" * 100)
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    assert reasons(garbage) == [PdfReason.UNREADABLE]
    assert reasons(empty) == [PdfReason.UNREADABLE]
    assert reasons(tmp_path / "missing.pdf") == [PdfReason.UNREADABLE]


@pytest.mark.parametrize("keep", [0.1, 0.35, 0.6])
def test_truncated_pdf_never_raises(sample_pdfs: list[Path], tmp_path: Path,
                                    keep: float) -> None:
    data = sample_pdfs[1].read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(data[: int(len(data) * keep)])
    # MuPDF's repair finds no page tree in a cut pdfTeX file: a reason, not an exception
    assert reasons(cut) == [PdfReason.UNREADABLE]


def test_encrypted_pdf(sample_pdfs: list[Path], tmp_path: Path) -> None:
    locked = tmp_path / "locked.pdf"
    with pymupdf.open(sample_pdfs[0]) as doc:
        doc.save(locked, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret",
                 owner_pw="owner")
    assert reasons(locked) == [PdfReason.ENCRYPTED]
    # owner password only (no user password): opens, figures come out
    open_pdf = tmp_path / "owner_only.pdf"
    with pymupdf.open(sample_pdfs[0]) as doc:
        doc.save(open_pdf, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner",
                 permissions=0)
    assert len(extract_figures(open_pdf).figures) == 2


def test_caps(sample_pdfs: list[Path]) -> None:
    pdf = sample_pdfs[1]  # 2 pages, 4 vector figures
    assert reasons(pdf, max_pages=1) == [PdfReason.TOO_MANY_PAGES]
    assert reasons(pdf, max_file_bytes=1000) == [PdfReason.TOO_LARGE]
    small = reasons(pdf, min_figure_pt=200)
    assert small and set(small) == {PdfReason.FIGURE_TOO_SMALL}
    assert reasons(pdf, max_svg_bytes=2000).count(PdfReason.SVG_INVALID) >= 3


def test_image_bomb_and_render_cap(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 600, 400), False)
    pix.clear_with(128)
    page.insert_image(pymupdf.Rect(100, 100, 400, 300), pixmap=pix)
    page.insert_text((100, 320), "Figure 1: A grey picture.", fontsize=10)
    path = tmp_path / "img.pdf"
    doc.save(path)
    (fig,) = extract_figures(path).figures
    assert fig.kind == "raster" and fig.label == "Figure 1"
    assert reasons(path, max_image_pixels=100_000) == [PdfReason.IMAGE_BOMB]
    assert reasons(path, max_render_pixels=10_000) == [PdfReason.FIGURE_TOO_LARGE]


def test_uncaptioned_graphics_are_accounted_for(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_rect(pymupdf.Rect(100, 100, 300, 250), color=(0, 0, 0), width=1)
    page.draw_line((120, 120), (280, 230))
    path = tmp_path / "bare.pdf"
    doc.save(path)
    assert reasons(path) == [PdfReason.UNCAPTIONED]
    kept = extract_figures(path, PdfFigureParams(keep_uncaptioned=True)).figures
    assert len(kept) == 1 and kept[0].caption is None and kept[0].svg
