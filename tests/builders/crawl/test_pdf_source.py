"""The ``pdf`` source kind through crawl → extract → render: figures with captions and
citing paragraphs become svg/raster records with graphs; bad PDFs become reasons; the
books balance at every stage."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pymupdf
import pytest

from diagramforge.builders.crawl.stage import CrawlStage
from diagramforge.builders.extract.stage import ExtractStage
from diagramforge.builders.pdffigures.synthetic import build
from diagramforge.builders.render.stage import RenderStage
from diagramforge.runner import run_stage
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA, SOURCE_SCHEMA
from diagramforge.store.shards import ShardSet
from tests.conftest import WITH_NC, make_params

needs_tex = pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex missing")


def _rows(params, stage: str, schema=RECORD_SCHEMA) -> list[dict]:  # noqa: ANN001
    return ShardSet(stage_paths(params, stage).records, schema).read_all().to_pylist()


def _ledger(params, stage: str) -> list[dict]:  # noqa: ANN001
    return ShardSet(stage_paths(params, stage).rejections, REJECTION_SCHEMA).read_all() \
        .to_pylist()


def test_crawled_arxiv_papers_give_pdf_sources_with_their_licence_and_group(tmp_path):
    params = make_params(tmp_path, licences=WITH_NC)
    stats = run_stage(CrawlStage(params))
    assert stats.balance_error() is None
    rows = _rows(params, "crawl", SOURCE_SCHEMA)
    papers = {r["id"]: r for r in rows if r["kind"] == "arxiv"}
    pdfs = [r for r in rows if r["kind"] == "pdf"]
    assert len(pdfs) == sum(1 for r in papers.values() if r["pdf_path"]) == 4
    for r in pdfs:
        paper = papers[json.loads(r["meta"])["arxiv_id"]]
        assert r["path"] == paper["pdf_path"] and r["licence"] == paper["licence"]
    assert stats.extra["pdf_files"] == 4
    off = make_params(tmp_path / "off", licences=WITH_NC, crawl={"pdf": {"from_arxiv": False}})
    run_stage(CrawlStage(off))
    assert not [r for r in _rows(off, "crawl", SOURCE_SCHEMA) if r["kind"] == "pdf"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two ground-truth PDFs (vector figures, caption below; a raster one, caption above)
    and four bad ones: corrupt, encrypted, 1,000 pages, an image bomb."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex missing")
    d = tmp_path_factory.mktemp("pdfs")
    build(d, ("vector_below", "raster_above"))
    for junk in d.glob("*"):
        if junk.suffix != ".pdf":
            junk.unlink()
    (d / "bad").mkdir()
    (d / "bad" / "corrupt.pdf").write_bytes(b"%PDF-1.4\n" + b"\x00garbage" * 500)
    with pymupdf.open(d / "vector_below.pdf") as doc:
        doc.save(d / "bad" / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256,
                 user_pw="secret", owner_pw="owner")
    long = pymupdf.open()
    for _ in range(1000):
        long.new_page()
    long.save(d / "bad" / "long.pdf")
    long.close()
    bomb = pymupdf.open()  # 600×400 px: a bomb under the test's 200,000-pixel cap
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 600, 400), False)
    pix.clear_with(128)
    page = bomb.new_page()
    page.insert_image(pymupdf.Rect(100, 100, 400, 300), pixmap=pix)
    page.insert_text((100, 320), "Figure 1: A grey picture.", fontsize=10)
    bomb.save(d / "bad" / "bomb.pdf")
    bomb.close()
    return d


@needs_tex
def test_a_folder_of_pdfs_through_crawl_extract_render(tmp_path, folder):
    params = make_params(tmp_path, crawl={"arxiv": {"source": ""},
                                          "repos": {"repositories": []},
                                          "pdf": {"folder": str(folder),
                                                  "licence": "CC-BY-4.0"}},
                         extract={"pdf": {"max_image_pixels": 200_000}})
    crawl = run_stage(CrawlStage(params))
    assert crawl.n_in == crawl.n_out == 6 and crawl.balance_error() is None

    extract = run_stage(ExtractStage(params))
    assert extract.balance_error() is None
    why = {r["locator"]: (r["reason"], r["unit"]) for r in _ledger(params, "extract")}
    assert why["pdf:bad/corrupt.pdf"] == ("pdf_unreadable", "input")
    assert why["pdf:bad/locked.pdf"] == ("pdf_encrypted", "input")
    assert why["pdf:bad/long.pdf"] == ("pdf_too_many_pages", "input")
    assert why["pdf:bad/bomb.pdf"] == ("image_bomb", "input")
    recs = _rows(params, "extract")
    by_label = {(r["source_id"].split("#")[0], r["label"]): r for r in recs}
    flow = by_label[("pdf:vector_below.pdf", "Figure 1")]
    assert flow["format"] == "svg" and flow["code"].startswith("<svg")
    assert flow["caption"].startswith("The processing pipeline.")
    assert "Figure~" not in flow["context"] and "pipeline is shown in Figure" in \
        flow["context"]
    assert flow["licence"] == "CC-BY-4.0" and flow["group"] == "pdf:vector_below.pdf"
    photo = by_label[("pdf:raster_above.pdf", "Figure 1")]
    assert photo["format"] == "raster" and photo["code"] is None and photo["image"]
    assert photo["caption"] == "A raster picture with its caption above."

    render = run_stage(RenderStage(params))
    assert render.balance_error() is None
    out = {r["id"]: r for r in _rows(params, "render")}
    assert flow["id"] in out and photo["id"] in out
    g = json.loads(out[flow["id"]]["graph"])
    assert {"Load", "Clean", "Train"} <= {n["text"] for n in g["nodes"]}
    assert out[flow["id"]]["graph_edges"] >= 2
    assert out[photo["id"]]["render_engine"] == "pdf-crop"
    assert out[photo["id"]]["graph"] is not None  # OCR ran (the photo may hold no text)
    assert render.extra["graph_built"] == render.n_out
