#!/usr/bin/env python3
"""Figures from PDFs: detection quality on ground-truth PDFs and throughput in pages/s.

1. ``diagramforge.builders.pdffigures.evaluate``: the synthetic PDFs whose figure boxes and captions
   are known (``pdffigures.synthetic``: vector and raster figures, one and two columns,
   captions above and below, sub-figures, a plot, a text-only figure) — precision and
   recall at IoU ≥ 0.8, caption accuracy (label and text exact after normalisation), kind
   (vector/raster) accuracy, pages/s; then the sample arXiv PDFs against the captions in
   their own LaTeX sources.
2. pages/s of :func:`extract_figures` on the sample arXiv PDFs and on a long generated PDF,
   with and without the layout model (the ONNX detector is most of the cost).

Usage: .venv/bin/python benchmarks/pdf_figures.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import pymupdf  # noqa: E402

from diagramforge.builders.pdffigures.evaluate import main as evaluate  # noqa: E402
from diagramforge.builders.pdffigures.extract import extract_figures  # noqa: E402
from diagramforge.builders.pdffigures.settings import PdfFigureParams  # noqa: E402


def pages_per_s(pdfs: list[Path], params: PdfFigureParams) -> tuple[float, int, int]:
    pages = figures = 0
    t0 = time.perf_counter()
    for p in pdfs:
        figures += len(extract_figures(p, params).figures)
        with pymupdf.open(p) as doc:
            pages += doc.page_count
    return pages / (time.perf_counter() - t0), pages, figures


def long_pdf(src: Path, out: Path, copies: int) -> Path:
    """``copies`` × the pages of ``src`` in one document (a thesis-length PDF)."""
    doc = pymupdf.open()
    with pymupdf.open(src) as one:
        for _ in range(copies):
            doc.insert_pdf(one)
    doc.save(out)
    doc.close()
    return out


def main() -> None:
    samples = REPO / "samples" / "arxiv"
    print("== detection on ground-truth PDFs (IoU >= 0.8) ==")
    evaluate([str(samples)])
    pdfs = sorted((samples / "pdf").glob("*.pdf"))
    extract_figures(pdfs[0])  # warm-up: load the layout model once
    print("\n== throughput ==")
    with tempfile.TemporaryDirectory() as tmp:
        big = long_pdf(pdfs[1], Path(tmp) / "long.pdf", 40)
        for layout in (True, False):
            params = PdfFigureParams(layout_model=layout)
            for label, files in (("sample arXiv PDFs", pdfs), ("80-page PDF", [big])):
                r, pages, figs = pages_per_s(files, params)
                print(f"{label:18s} layout_model={str(layout):5s} {r:6.1f} pages/s "
                      f"({pages} pages, {figs} figures)")


if __name__ == "__main__":
    main()
