"""extract_figures on real arXiv samples and on PDFs with known figure boxes."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

from diagramforge.builders.pdffigures.evaluate import (
    norm_caption,
    score_boxes,
    score_captions,
    source_captions,
)
from diagramforge.builders.pdffigures.extract import extract_figures
from diagramforge.builders.pdffigures.settings import PdfFigureParams
from diagramforge.formats.svg import document as svgfmt
from tests.builders.pdffigures.conftest import SAMPLES


def test_arxiv_samples_every_source_caption_found(sample_pdfs: list[Path]) -> None:
    total_pred = total_truth = found = 0
    for pdf in sample_pdfs:
        truth = source_captions(SAMPLES / "src" / f"{pdf.stem}.tar.gz")
        result = extract_figures(pdf, PdfFigureParams())
        s = score_captions(result.figures, truth)
        total_pred, total_truth, found = (total_pred + s.predicted, total_truth + s.truth,
                                          found + s.matched)
        assert result.drops == []
    assert (total_pred, total_truth, found) == (9, 9, 9)


def test_arxiv_svgs_are_clipped_renderable_and_keep_text(sample_pdfs: list[Path]) -> None:
    pdf = next(p for p in sample_pdfs if p.stem == "2401.00102v2")
    figs = {f.label: f for f in extract_figures(pdf).figures}
    assert list(figs) == ["Figure 1", "Figure 2", "Figure 3", "Figure 4"]
    tree = figs["Figure 1"]
    assert tree.kind == "vector" and tree.png is None
    w, h = svgfmt.declared_size(tree.svg)
    assert (w, h) == pytest.approx((tree.bbox[2] - tree.bbox[0], tree.bbox[3] - tree.bbox[1]),
                                   abs=0.01)
    words = re.findall(r"<tspan[^>]*>([^<]*)</tspan>", tree.svg)
    assert {"root", "left", "right"} <= set(words)  # labels stay text, not paths
    text = " ".join(words)
    assert "binary" not in text and "Trees" not in text  # caption and heading cut away
    # Figure 2's SVG holds none of the tree's labels (other figure, same page)
    assert "root" not in figs["Figure 2"].svg
    png = svgfmt.render_png(tree.svg)
    _, _, ink = svgfmt.png_ink(png)
    assert 0.01 < ink < 0.6


def test_arxiv_references(sample_pdfs: list[Path]) -> None:
    pdf = next(p for p in sample_pdfs if p.stem == "2401.00102v2")
    figs = {f.label: f for f in extract_figures(pdf).figures}
    assert figs["Figure 1"].references == ["A decision tree is drawn in Figure 1.",
                                           "Figure 2 shows the processing flow; see also "
                                           "Figure 1."]
    assert figs["Figure 3"].references == ["The network in Figure 3 has 3 layers."]


def test_synthetic_precision_recall_and_captions(synthetic) -> None:  # noqa: ANN001
    folder, truth = synthetic
    totals = [0, 0, 0, 0, 0]
    for name, figs in truth.items():
        s = score_boxes(extract_figures(folder / f"{name}.pdf").figures, figs, min_iou=0.8)
        for i, v in enumerate((s.predicted, s.truth, s.matched, s.caption_ok, s.kind_ok)):
            totals[i] += v
    predicted, n_truth, matched, caption_ok, kind_ok = totals
    assert n_truth == 13
    assert matched / predicted >= 0.9 and matched / n_truth >= 0.9
    assert caption_ok == matched and kind_ok == matched


def test_raster_caption_above_gives_png_crop(synthetic) -> None:  # noqa: ANN001
    folder, truth = synthetic
    params = PdfFigureParams(dpi=100)
    (fig,) = extract_figures(folder / "raster_above.pdf", params).figures
    assert fig.kind == "raster" and fig.svg is None
    assert fig.caption_bbox[3] <= fig.bbox[1] + 1  # the caption sits above the picture
    assert norm_caption(fig.caption) == norm_caption(truth["raster_above"][0].caption)
    im = Image.open(io.BytesIO(fig.png))
    assert im.format == "PNG"
    want_w = (fig.bbox[2] - fig.bbox[0]) * 100 / 72
    assert abs(im.width - want_w) <= 2
    assert fig.references and fig.references[0].startswith("The photo in Fig. 1")


def test_table_is_not_a_figure(synthetic) -> None:  # noqa: ANN001
    folder, _ = synthetic
    for name in ("raster_above", "plot_table"):
        labels = [f.label for f in extract_figures(folder / f"{name}.pdf").figures]
        assert labels == ["Figure 1"]


def test_two_column_and_subfigures(synthetic) -> None:  # noqa: ANN001
    folder, truth = synthetic
    figs = extract_figures(folder / "two_column.pdf").figures
    assert [(f.page, f.label, f.kind) for f in sorted(figs, key=lambda f: f.label)] == [
        (0, "Figure 1", "vector"), (0, "Figure 2", "raster"), (2, "Figure 3", "vector")]
    wide = next(f for f in figs if f.label == "Figure 3")
    assert "(a)" in wide.svg and "(b)" in wide.svg  # both panels, one figure
    assert any("Figs. 3" in r for r in wide.references)


def test_multi_reference_paragraph(synthetic) -> None:  # noqa: ANN001
    folder, _ = synthetic
    figs = {f.label: f for f in extract_figures(folder / "vector_below.pdf").figures}
    both = [r for r in figs["Figure 2"].references if "Figs. 1 and 2" in r]
    assert both and both[0] in figs["Figure 1"].references
    assert figs["Figure 1"].caption.endswith("as real captions often do.")  # three lines


def test_records(synthetic) -> None:  # noqa: ANN001
    from diagramforge.builders.pdffigures.records import candidate_record
    from diagramforge.store.records import RECORD_COLUMNS

    folder, _ = synthetic
    figs = {f.kind: f for f in extract_figures(folder / "two_per_page.pdf").figures}
    vec = candidate_record(figs["vector"], "pdf", "two_per_page", licence="CC-BY-4.0")
    ras = candidate_record(figs["raster"], "pdf", "two_per_page")
    assert set(vec) == set(RECORD_COLUMNS)
    assert vec["format"] == "svg" and vec["code"].startswith("<svg") and vec["image"] is None
    assert ras["format"] == "raster" and ras["code"] is None and ras["image"][:4] == b"\x89PNG"
    assert ras["width"] > 100 and vec["licence"] == "CC-BY-4.0"
    assert vec["label"] == "Figure 1" and "Figure 1 shows a cycle" in vec["context"]
    assert vec["id"] != ras["id"]
