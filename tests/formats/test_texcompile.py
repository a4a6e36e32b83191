"""Real pdflatex: sandboxing, the failure taxonomy, batching and the cache."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from diagramforge.formats.texcompile import (
    CompileReason,
    TexCompiler,
    classify,
    compose,
    split_preloadable,
)
from diagramforge.formats.tikz import Standalone
from tests.conftest import needs_tex

pytestmark = needs_tex

BOX = Standalone(blocks=[r"\usepackage{tikz}"],
                 body=r"\begin{tikzpicture}\draw (0,0) rectangle (2,1);\end{tikzpicture}")


def pic(body: str, blocks: list[str] | None = None) -> Standalone:
    return Standalone(blocks=blocks or [r"\usepackage{tikz}"],
                      body=r"\begin{tikzpicture}" + body + r"\end{tikzpicture}")


@pytest.fixture
def tex(tmp_path) -> TexCompiler:
    return TexCompiler(timeout_s=5, cache_dir=tmp_path / "cache")


def test_compiles_one_page(tex):
    res = tex.compile_one(BOX)
    assert res.ok and res.reason is None
    assert pymupdf.open("pdf", res.pdf).page_count == 1
    assert res.mode.startswith("format")


@pytest.mark.parametrize("body, blocks, reason", [
    (r"\node {\nosuchmacro};", None, CompileReason.UNDEFINED_CONTROL_SEQUENCE),
    (r"\draw (0,0) -- (1,1) \draw (1,1) -- (2,2);", None, CompileReason.TIKZ_ERROR),
    (r"\draw (0,0) -- (1,1);", [r"\usepackage{tikz}", r"\usepackage{nosuchpkgxyz}"],
     CompileReason.MISSING_PACKAGE),
    (r"\def\a{\a}\a", None, CompileReason.TIMEOUT),
    (r"\node {\input{/etc/passwd}};", None, CompileReason.FORBIDDEN_IO),
])
def test_failure_taxonomy(tmp_path, body, blocks, reason):
    tex = TexCompiler(timeout_s=2, cache_dir=None)
    res = tex.compile_one(pic(body, blocks))
    assert not res.ok
    assert res.reason == reason, res.error
    assert res.error


def test_sandbox_blocks_shell_escape_and_writes_outside(tmp_path, tex):
    marker = Path("/tmp/diagramforge-test-pwned")
    marker.unlink(missing_ok=True)
    res = tex.compile_one(pic(
        r"\immediate\write18{touch " + str(marker) + r"}\draw (0,0) circle (1);"))
    assert res.ok  # the picture is fine; the shell command simply never runs
    assert not marker.exists()
    res = tex.compile_one(pic(
        r"\newwrite\f\immediate\openout\f=../../escaped.tex\immediate\write\f{x}"
        r"\draw (0,0) circle (1);"))
    assert res.reason == CompileReason.FORBIDDEN_IO


def test_secret_never_reaches_output(tex):
    res = tex.compile_one(pic(r"\node[text width=8cm] {\input{/etc/passwd}};"))
    assert res.pdf is None
    secret = Path("/etc/passwd").read_text().split(":")[0]
    assert secret not in (res.error or "").replace("/etc/passwd", "")


def test_batch_splits_pages_and_isolates_a_bad_figure(tex):
    docs = [pic(r"\draw (0,0) circle (1);"), pic(r"\node {\nosuchmacro};"),
            pic(r"\draw (0,0) rectangle (3,1);")]
    res = tex.compile_many(docs)
    assert [r.ok for r in res] == [True, False, True]
    assert res[1].reason == CompileReason.UNDEFINED_CONTROL_SEQUENCE
    ok_docs = [docs[0], docs[2], pic(r"\draw (0,0) -- (2,2);")]
    fresh = TexCompiler(timeout_s=5, cache_dir=None)
    res = fresh.compile_many(ok_docs)
    assert all(r.ok for r in res) and {r.mode for r in res} == {"format/batch"}
    sizes = [pymupdf.open("pdf", r.pdf)[0].rect for r in res]
    assert sizes[0] != sizes[1]  # each page is its own figure


def test_cache_hits_skip_compiling(tex):
    first = tex.compile_one(BOX)
    second = tex.compile_one(BOX)
    assert not first.cached and second.cached and second.pdf == first.pdf
    bad = pic(r"\node {\nosuchmacro};")
    tex.compile_one(bad)
    again = tex.compile_one(bad)
    assert again.cached and again.reason == CompileReason.UNDEFINED_CONTROL_SEQUENCE


def test_package_options_are_never_preempted_by_the_format(tex):
    # xcolor with options must load before tikz: only the option-free prefix is preloaded
    doc = Standalone(blocks=[r"\usepackage[dvipsnames]{xcolor}", r"\usepackage{tikz}"],
                     body=r"\begin{tikzpicture}\fill[ForestGreen] (0,0) circle (1);"
                          r"\end{tikzpicture}")
    assert split_preloadable(doc.blocks) == ((), doc.blocks)
    res = tex.compile_one(doc)
    assert res.ok, res.error
    head, rest = split_preloadable([r"\usepackage{amsmath,tikz}", r"\usepackage{pgfplots}",
                                    r"\usepackage[utf8]{inputenc}", r"\usepackage{tikz}"])
    assert head == (r"\usepackage{amsmath,tikz}", r"\usepackage{pgfplots}")
    assert rest == [r"\usepackage[utf8]{inputenc}", r"\usepackage{tikz}"]


def test_compose_unions_preambles_in_order():
    a = Standalone([r"\usepackage{tikz}", r"\definecolor{c}{RGB}{1,2,3}"], "A")
    b = Standalone([r"\usepackage{tikz}", r"\newcommand{\x}{y}"], "B")
    src = compose([a, b], head=(r"\usepackage{tikz}",))
    assert src.count(r"\definecolor") == 1 and src.count(r"\newcommand") == 1
    assert src.index(r"\endofdump") < src.index(r"\definecolor")
    assert src.count(r"\begin{dfpage}") == 2


def test_classify_reads_first_error_with_line():
    log = "junk\n! Undefined control sequence.\n<recently read> \\foo\nl.12 \\foo\nmore\n! other"
    reason, err = classify(log)
    assert reason == CompileReason.UNDEFINED_CONTROL_SEQUENCE
    assert err == "! Undefined control sequence. | l.12 \\foo"


def test_disk_bomb_is_stopped_by_the_file_size_limit(tmp_path):
    tex = TexCompiler(timeout_s=20, max_output_mb=1, cache_dir=None)
    bomb = pic(r"\draw (0,0) circle (1);\loop\shipout\hbox{\rule{1cm}{1cm}}\iftrue\repeat")
    res = tex.compile_one(bomb)
    assert not res.ok
    assert res.reason == CompileReason.OUTPUT_TOO_LARGE, (res.reason, res.error)


def test_batch_and_single_draw_random_figures_identically():
    import hashlib

    from diagramforge.formats.raster import rasterize_pdf

    blocks = [r"\usepackage{tikz}"]
    a = Standalone(blocks, r"\begin{tikzpicture}\foreach \i in {1,...,20} \fill (rnd*4, rnd*4)"
                           r" circle (2pt);\end{tikzpicture}")
    b = Standalone(blocks, a.body.replace(r"\end{tikzpicture}",
                                          r"\draw (0,0) rectangle (4,4);\end{tikzpicture}"))

    def digest(res):
        png = rasterize_pdf(res.pdf, dpi=100, margin_pt=2, min_side=1, max_side=4096,
                            max_aspect=50, min_ink=0).png
        return hashlib.sha256(png).hexdigest()

    batch = TexCompiler(cache_dir=None).compile_many([a, b])
    alone = TexCompiler(cache_dir=None).compile_many([b])
    assert batch[1].mode == "format/batch" and alone[0].mode == "format/single"
    assert digest(batch[1]) == digest(alone[0])
