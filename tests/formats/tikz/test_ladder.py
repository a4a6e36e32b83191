"""The ladder end to end on the regression corpus (``tests/fixtures/tex``): one small source
of our own per class of input that once fell below plain pdfLaTeX's yield, or needs another
engine. Each is extracted as an arXiv e-print and rendered by the TikZ handler, the way the
render stage does it; the test checks that it renders, on which rung, with which engine."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pymupdf
import pytest

from diagramforge.builders.extract.settings import ExtractParams
from diagramforge.formats.tikz.extract import extract_paper
from diagramforge.formats.tikz.handler import TikzFormat, attempts, rungs
from diagramforge.formats.tikz.ladder import PreambleMode, source_document, support_files
from diagramforge.formats.tikz.pictures import Picture, Standalone
from diagramforge.formats.tikz.texengines import Engine
from tests.conftest import make_params, needs_lualatex, needs_tex, needs_xelatex

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures" / "tex"
ROW = {"id": "2401.99999", "version": "1", "authors": json.dumps(["A B"]), "title": "T"}


def eprint(name: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for path in sorted((FIXTURES / name).rglob("*")):
            if path.is_file():
                tar.add(path, arcname=path.relative_to(FIXTURES / name).as_posix())
    return buf.getvalue()


def render(tmp_path: Path, name: str, **render: dict) -> tuple[list[dict], list]:
    ex = extract_paper(eprint(name), ROW, ExtractParams())
    assert ex.records, ex.rejections
    params = make_params(tmp_path, render={"tikz": {"timeout_s": 60, **render}})
    fmt = TikzFormat(params, lambda r: r["source_id"])
    out = fmt.render(ex.records)
    return out.records, out.rejections


def meta(rec: dict) -> dict:
    return json.loads(rec["meta"])


def text(rec: dict, tmp_path: Path) -> str:
    """The words on the rendered picture (compiled again from the record's own code)."""
    from diagramforge.formats.tikz.handler import standalone
    from diagramforge.formats.tikz.texcompile import TexCompiler

    res = TexCompiler(engine=rec["render_engine"], timeout_s=60,
                      cache_dir=tmp_path / "again").compile_one(standalone(rec))
    assert res.ok, res.error
    return pymupdf.open("pdf", res.pdf)[0].get_text()


# -- preamble classes (pdfLaTeX) -----------------------------------------------------------

@needs_tex
def test_a_command_cleared_before_it_is_redefined_keeps_its_order(tmp_path):
    """``\\let\\Im\\relax`` then ``\\DeclareMathOperator{\\Im}{Im}``: the batch document used to
    move the declaration (preamble-only) ahead of the ``\\let`` (page-local)."""
    (rec,), rejected = render(tmp_path, "let-relax-redefine")
    assert rejected == []
    assert meta(rec)["preamble_mode"] == PreambleMode.MINIMAL
    assert rec["render_engine"] == Engine.PDFLATEX
    code = rec["code"]
    assert code.index(r"\let\Im\relax") < code.index(r"\DeclareMathOperator{\Im}{Im}")
    assert "Im" in text(rec, tmp_path)


@needs_tex
def test_the_tikz_class_option_and_body_setup_reach_the_minimal_document(tmp_path):
    (rec,), rejected = render(tmp_path, "standalone-tikz-option")
    assert rejected == []
    assert meta(rec)["preamble_mode"] == PreambleMode.MINIMAL
    code = rec["code"]
    # TikZ (from the class option) before tikz-3dplot, which needs it
    assert code.index(r"\usepackage{tikz}") < code.index(r"\usepackage{tikz-3dplot}")
    assert code.index(r"\tdplotsetmaincoords{60}{115}") < code.index(r"\begin{tikzpicture}")


@needs_tex
def test_a_picture_needing_its_papers_own_class_compiles_in_its_source_document(tmp_path):
    """The colours and macros come from a class shipped with the paper: no standalone
    document has them, the paper's own document (class file beside it) does."""
    (rec,), rejected = render(tmp_path, "paper-local-class")
    assert rejected == []
    m = meta(rec)
    assert m["preamble_mode"] == PreambleMode.SOURCE
    assert rec["code"].startswith(r"\documentclass{myconf}")
    assert r"\pagestyle{empty}" in rec["code"] and r"\maketitle" not in rec["code"]
    assert sorted(m["assets"]) == ["myconf.cls"]
    words = text(rec, tmp_path)
    assert "crawl" in words and "publish" in words
    # the page's running head (\pagestyle{headings} in the class) is not in the picture
    assert "PIPELINE" not in words.upper().replace("CRAWL", "")


@needs_tex
def test_preview_pages_each_compile_and_the_class_bound_one_in_its_source(tmp_path):
    recs, rejected = render(tmp_path, "preview-pages")
    assert rejected == []
    first, second = recs
    assert meta(first)["preamble_mode"] == PreambleMode.MINIMAL
    # \chaptername belongs to the report class: only the source document has it
    assert meta(second)["preamble_mode"] == PreambleMode.SOURCE
    assert r"\tikzset{hot/.style" in second["code"]
    assert r"\draw[fill=gray!20]" not in second["code"]  # the other page stays out
    assert "Chapter" in text(second, tmp_path)


@needs_tex
def test_a_pictures_code_given_back_alone_compiles_as_its_record_did(tmp_path):
    """An edit, a variation or a repair comes back as code alone (no meta): its preamble is
    read back into whole constructs — a ``filecontents*`` environment with its data, styles
    over several lines — and compiles on the first rung, the batch's own composition. Read
    line by line, the data lines went into the page and the plot never ended."""
    (rec,), rejected = render(tmp_path, "filecontents-data")
    assert rejected == []
    row = {"id": "again", "format": "tikz", "code": rec["code"], "source_id": "again",
           "meta": None, "group": None}
    first, as_written = rungs(row, {})
    assert as_written.document == rec["code"]
    assert any(b.startswith("\\begin{filecontents*}") and b.endswith("\\end{filecontents*}")
               for b in first.blocks)
    from diagramforge.formats.tikz.texcompile import TexCompiler

    res = TexCompiler(timeout_s=60, cache_dir=tmp_path / "first").compile_one(first)
    assert res.ok, res.error
    assert "falls" in pymupdf.open("pdf", res.pdf)[0].get_text()
    params = make_params(tmp_path, render={"tikz": {"timeout_s": 60}})
    out = TikzFormat(params, lambda r: r["source_id"]).render([row])
    assert out.rejections == [] and len(out.records) == 1


@needs_tex
def test_a_candidate_of_a_picture_with_files_of_its_own_compiles_with_them(tmp_path):
    """An edit or a variation of a picture that needs its paper's class file: the code alone
    cannot compile; the files carried from the picture's row (``carried_meta``) make it."""
    from diagramforge.formats.encoding import carried_meta

    (rec,), rejected = render(tmp_path, "paper-local-class")
    assert rejected == [] and sorted(meta(rec)["assets"]) == ["myconf.cls"]
    params = make_params(tmp_path, render={"tikz": {"timeout_s": 60}})
    row = {"id": "edit", "format": "tikz", "code": rec["code"], "source_id": "edit",
           "meta": carried_meta(rec), "group": None}
    assert json.loads(row["meta"]) == {"assets": meta(rec)["assets"]}
    out = TikzFormat(params, lambda r: r["source_id"]).render([row])
    assert out.rejections == [] and len(out.records) == 1
    bare = {**row, "meta": None}
    out = TikzFormat(params, lambda r: r["source_id"]).render([bare])
    assert out.records == [] and len(out.rejections) == 1  # the class's macros are missing


def test_code_read_back_composes_as_extraction_wrote_it():
    """For every picture of the regression corpus kept with its minimal preamble, the code
    alone (no meta) gives the batch document its extraction blocks give."""
    from diagramforge.formats.tikz.handler import standalone
    from diagramforge.formats.tikz.texbatch import compose

    checked = 0
    for name in sorted(p.name for p in FIXTURES.iterdir()):
        for rec in extract_paper(eprint(name), ROW, ExtractParams()).records:
            m = meta(rec)
            if m.get("document") is not None or m["preamble_mode"] != PreambleMode.MINIMAL:
                continue
            alone = standalone({"code": rec["code"], "meta": None})
            assert alone.blocks == m["blocks"], name
            assert compose([alone], None) == compose([Standalone(m["blocks"], m["body"])],
                                                     None)
            checked += 1
    assert checked >= 8


# -- engines ------------------------------------------------------------------------------

@needs_lualatex
@pytest.mark.parametrize("name, words", [
    ("fontspec-system-font", ["Größe", "Straße", "5 km"]),
    ("unicode-math", ["𝛼", "∑", "≤∞"]),  # math italic alpha
    ("lua-package", ["marked words", "result"]),
])
def test_documents_that_need_lualatex_compile_with_it(tmp_path, name, words):
    (rec,), rejected = render(tmp_path, name)
    assert rejected == []
    assert meta(rec)["engines"][0] == Engine.LUALATEX
    assert rec["render_engine"] == Engine.LUALATEX == meta(rec)["engine"]
    got = text(rec, tmp_path)
    for w in words:
        assert w in got, (w, got)


@needs_xelatex
@pytest.mark.parametrize("name, words", [
    ("xetex-package", ["Größe"]),
    ("magic-comment", ["Ω"]),
])
def test_documents_that_need_xelatex_compile_with_it(tmp_path, name, words):
    (rec,), rejected = render(tmp_path, name)
    assert rejected == []
    assert rec["render_engine"] == Engine.XELATEX == meta(rec)["engines"][0]
    got = text(rec, tmp_path)
    for w in words:
        assert w in got, (w, got)


@needs_lualatex
def test_a_document_pdflatex_cannot_typeset_falls_back_to_lualatex(tmp_path):
    (rec,), rejected = render(tmp_path, "engine-fallback")
    assert rejected == []
    assert meta(rec)["engines"] == ["pdflatex", "lualatex", "xelatex"]
    assert rec["render_engine"] == Engine.LUALATEX
    assert meta(rec)["preamble_mode"] == PreambleMode.MINIMAL  # the smallest document
    assert "Daŋ" in text(rec, tmp_path)


@needs_tex
def test_params_can_keep_a_corpus_to_pdflatex(tmp_path):
    recs, rejected = render(tmp_path, "engine-fallback", engines=["pdflatex"])
    assert recs == [] and [r.reason for r in rejected] == ["compile_latex_error"]


# -- the pieces -----------------------------------------------------------------------------

def test_attempts_climb_every_rung_with_the_first_engine_then_the_ends_with_the_rest():
    docs = [Standalone([], str(k)) for k in range(4)]
    plan = attempts(docs, [Engine.PDFLATEX, Engine.LUALATEX, Engine.XELATEX])
    assert [(docs.index(d), e) for d, e in plan] == [
        (0, "pdflatex"), (1, "pdflatex"), (2, "pdflatex"), (3, "pdflatex"),
        (0, "lualatex"), (3, "lualatex"), (0, "xelatex"), (3, "xelatex")]


def test_code_from_elsewhere_is_also_tried_as_written():
    code = ("\\documentclass[tikz]{standalone}\n\\usepackage{tikz-3dplot}\n"
            "\\begin{document}\n\\tikz\\draw (0,0)--(1,1);\n\\end{document}\n")
    docs = rungs({"code": code, "meta": None}, {})
    assert [d.document for d in docs] == [None, code]
    # also when the parts print the very same text: they compile as a batch composes them
    same = docs[0].code
    assert [d.document for d in rungs({"code": same, "meta": None}, {})] == [None, same]


def test_the_source_document_of_a_paper_picture_is_its_own_preamble_setup_and_picture():
    pic = Picture(env="tikzpicture", text=r"\begin{tikzpicture}\draw[hot] (0,0);"
                  r"\end{tikzpicture}", start=0, end=0)
    pre = "\\documentclass[twocolumn]{article}\n\\usepackage{tikz}\n"
    doc = source_document(pre, pic, [r"\tikzset{hot/.style={red}}"], None)
    assert doc.startswith(pre.strip() + "\n\\begin{document}\n\\tikzset{hot/.style={red}}")
    assert "\\pagestyle{empty}" in doc and doc.rstrip().endswith("\\end{document}")
    # a page of an active preview document goes back into its preview environment
    pv = "\\documentclass{article}\\usepackage[active,tightpage]{preview}\n"
    assert "\\begin{preview}\n\\begin{tikzpicture}" in source_document(pv, pic, [], None, True)
    assert source_document(pre, pic, [], "AS WRITTEN") == "AS WRITTEN"


def test_support_files_are_the_local_classes_packages_and_named_files_only():
    raw = {"p/main.tex": b"x", "p/myconf.cls": b"\\RequirePackage{mystyle}",
           "p/mystyle.sty": b"\\relax", "p/unused.sty": b"u", "p/data.csv": b"1,2",
           "p/figs/road.png": b"png", "secret.txt": b"s"}
    text = r"\documentclass{myconf}\addplot table {data.csv};\includegraphics{figs/road}"
    got = support_files(raw, "p/main.tex", text, 10_000)
    assert sorted(got) == ["data.csv", "figs/road.png", "myconf.cls", "mystyle.sty"]
    assert support_files(raw, "p/main.tex", text, 5) == {}
