"""The pdffigures2 adapter: its JSON, a missing JAR, and a real ``java -jar`` call."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from diagramforge.builders.pdffigures.extract import ExtractorUnavailable, extract_figures
from diagramforge.builders.pdffigures.pdffigures2 import Pdffigures2Error, parse_json
from diagramforge.builders.pdffigures.settings import PdfFigureParams
from tests.builders.pdffigures.conftest import DATA, SAMPLES

SAMPLE_JSON = DATA / "pdffigures2_2401.00102v2.json"


def test_parse_list_format() -> None:
    regions, loose = parse_json(json.loads(SAMPLE_JSON.read_text()))
    assert loose == []
    assert [(r.page, r.caption.label) for r in regions] == [
        (0, "Figure 1"), (0, "Figure 2"), (0, "Table 1")]
    first = regions[0]
    assert first.bbox == (219.0, 127.0, 391.0, 216.0)
    assert first.caption.bbox == (195.0, 228.0, 415.0, 239.0)
    assert first.caption.text.startswith("Figure 1: A binary")
    assert first.source == "pdffigures2"


def test_parse_regionless_captions_format() -> None:
    data = {"figures": json.loads(SAMPLE_JSON.read_text())[:1], "regionless-captions": [
        {"name": "7", "figType": "Figure", "page": 3, "text": "Figure 7: Lost.",
         "boundary": {"x1": 1, "y1": 2, "x2": 3, "y2": 4}}]}
    regions, loose = parse_json(data)
    assert len(regions) == 1 and loose[0].label == "Figure 7" and loose[0].page == 3


@pytest.mark.parametrize("bad", [{"figures": [{"name": "1"}]}, "text", [{"page": "x"}]])
def test_parse_rejects_unexpected_json(bad: object) -> None:
    with pytest.raises(Pdffigures2Error):
        parse_json(bad)


def test_missing_jar_is_a_clear_setup_error(tmp_path: Path) -> None:
    pdf = SAMPLES / "pdf" / "2401.00102v2.pdf"
    with pytest.raises(ExtractorUnavailable, match="needs pdffigures2_jar"):
        extract_figures(pdf, PdfFigureParams(extractor="pdffigures2"))
    with pytest.raises(ExtractorUnavailable, match="JAR not found at .*nope.jar"):
        extract_figures(pdf, PdfFigureParams(extractor="pdffigures2",
                                             pdffigures2_jar=tmp_path / "nope.jar"))


@pytest.fixture(scope="module")
def fake_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JAR with pdffigures2's CLI shape, so the subprocess path really runs."""
    if not (shutil.which("javac") and shutil.which("jar") and shutil.which("java")):
        pytest.skip("no JDK")
    work = tmp_path_factory.mktemp("fakejar")
    shutil.copy(DATA / "FakePdffigures2.java", work)
    subprocess.run(["javac", "FakePdffigures2.java"], cwd=work, check=True)
    subprocess.run(["jar", "--create", "--file", "fake.jar", "--main-class",
                    "FakePdffigures2", "FakePdffigures2.class"], cwd=work, check=True)
    return work / "fake.jar"


def test_subprocess_end_to_end(fake_jar: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_PDFFIGURES2_JSON", str(SAMPLE_JSON))
    params = PdfFigureParams(extractor="pdffigures2", pdffigures2_jar=fake_jar)
    result = extract_figures(SAMPLES / "pdf" / "2401.00102v2.pdf", params)
    assert [(f.label, f.kind, f.source) for f in result.figures] == [
        ("Figure 1", "vector", "pdffigures2"), ("Figure 2", "vector", "pdffigures2")]
    assert "root" in result.figures[0].svg and "Load" in result.figures[1].svg
    assert result.figures[0].references[0] == "A decision tree is drawn in Figure 1."
    monkeypatch.setenv("FAKE_PDFFIGURES2_FAIL", "1")
    failed = extract_figures(SAMPLES / "pdf" / "2401.00102v2.pdf", params)
    assert failed.figures == []
    assert [d.reason for d in failed.drops] == ["extractor_failed"]
    assert "End-of-File" in failed.drops[0].detail
