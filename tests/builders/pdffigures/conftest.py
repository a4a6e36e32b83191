"""Shared fixtures: the arXiv sample PDFs and the synthetic ground-truth PDFs (built once)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from diagramforge.builders.pdffigures.synthetic import TruthFigure, build

REPO = Path(__file__).resolve().parents[3]
SAMPLES = REPO / "samples" / "arxiv"
DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def synthetic(tmp_path_factory: pytest.TempPathFactory
              ) -> tuple[Path, dict[str, list[TruthFigure]]]:
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed")
    out = tmp_path_factory.mktemp("pdffigures-gt")
    return out, build(out)


@pytest.fixture(scope="session")
def sample_pdfs() -> list[Path]:
    pdfs = sorted((SAMPLES / "pdf").glob("*.pdf"))
    assert len(pdfs) == 4
    return pdfs
