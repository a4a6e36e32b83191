"""Folders of real documents and draw.io files laid out as sources the crawl stage reads."""

from __future__ import annotations

import gzip
import tarfile

from diagramforge.builders.crawl.arxiv import parse_listing
from diagramforge.runner import run_named
from diagramforge.tools.realdata import (
    documents,
    git_repository,
    merge,
    project_params,
    write_arxiv_layout,
)

ROOT = rb"""\documentclass{article}\usepackage{tikz}\begin{document}
\input{fig}\end{document}"""
FIG = rb"\begin{tikzpicture}\draw (0,0) -- (1,1);\end{tikzpicture}"


def test_documents_bundle_inputs_and_data_not_other_roots(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "examples").mkdir(parents=True)
    (pkg / "manual.tex").write_bytes(ROOT)
    (pkg / "fig.tex").write_bytes(FIG)
    (pkg / "data.csv").write_text("1,2\n")
    (pkg / "manual.pdf").write_bytes(b"%PDF")
    (pkg / "examples" / "ex1.tex.gz").write_bytes(gzip.compress(ROOT))
    (pkg / "examples" / "ex1.png").write_bytes(b"png")  # the author's own render
    docs = {d.id: d for d in documents(pkg, "texlive:pkg", prefix="tl-")}
    assert set(docs) == {"tl-manual", "tl-examples-ex1"}
    assert set(docs["tl-manual"].files) == {"manual.tex", "fig.tex", "data.csv"}
    assert docs["tl-examples-ex1"].files == {"ex1.tex": ROOT}
    assert {d.group for d in docs.values()} == {"texlive:pkg"}


def test_arxiv_layout_is_what_the_crawl_reads(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.tex").write_bytes(ROOT)
    (pkg / "fig.tex").write_bytes(FIG)
    out = write_arxiv_layout(documents(pkg, "corpus"), tmp_path / "arxiv",
                             "http://creativecommons.org/licenses/by/4.0/")
    entries, _ = parse_listing((out / "listing.xml").read_bytes())
    assert [(e.id, e.licence) for e in entries] == [("a", "CC-BY-4.0")]
    with tarfile.open(out / "src" / "av1.tar.gz") as t:
        assert sorted(t.getnames()) == ["a.tex", "fig.tex"]
    params = project_params(tmp_path / "project", arxiv=out, workers=0)
    assert params.crawl.arxiv.source == str(out) and not params.crawl.arxiv.download_pdfs
    stats = run_named("crawl", params)
    assert stats.n_out == 1


def test_git_repository_pins_a_folder(tmp_path):
    src = tmp_path / "templates"
    src.mkdir()
    (src / "a.drawio").write_text("<mxfile/>")
    repo = git_repository(src, tmp_path / "repo")
    assert (repo / ".git").is_dir() and (repo / "a.drawio").is_file()
    params = project_params(tmp_path / "p", repos=[repo])
    assert [(r.url, r.ref) for r in params.crawl.repos.repositories] == [(str(repo), "v1")]


def test_merge_is_recursive_and_sections_override():
    assert merge({"a": {"b": 1, "c": 2}, "d": 1}, {"a": {"b": 3}}) == {"a": {"b": 3, "c": 2},
                                                                      "d": 1}
