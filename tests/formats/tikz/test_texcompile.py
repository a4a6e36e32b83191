"""Real pdflatex: sandboxing, the failure taxonomy, batching and the cache."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from diagramforge.formats.tikz.pictures import Standalone
from diagramforge.formats.tikz.texbatch import PAGE_MARK
from diagramforge.formats.tikz.texcompile import (
    CompileReason,
    TexCompiler,
    batch_key,
    classify,
    compose,
    split_preloadable,
)
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


def test_a_cached_result_is_reused_only_under_limits_that_give_it_again(tmp_path):
    """The cache key is the document, engine and TeX Live, not the limits: a success is
    reused with as much room or more; a timeout only under its own budget, so that a run at
    2 CPU-s never writes a cold run's "killed after 1 CPU-s" (its data would depend on what
    ran before it). Before the limits were recorded, both were reused under any limits."""
    cache = tmp_path / "cache"
    endless = pic(r"\def\a{\a}\a")
    first = TexCompiler(timeout_s=1, cache_dir=cache).compile_one(endless)
    assert first.reason == CompileReason.TIMEOUT and "1 CPU-s" in first.error
    again = TexCompiler(timeout_s=1, cache_dir=cache).compile_one(endless)
    assert again.cached and again.error == first.error
    longer = TexCompiler(timeout_s=2, cache_dir=cache).compile_one(endless)
    assert not longer.cached and "2 CPU-s" in longer.error

    TexCompiler(timeout_s=5, cache_dir=cache).compile_one(BOX)
    assert TexCompiler(timeout_s=9, cache_dir=cache).compile_one(BOX).cached
    assert not TexCompiler(timeout_s=4, cache_dir=cache).compile_one(BOX).cached
    assert not TexCompiler(timeout_s=9, max_output_mb=8,
                           cache_dir=cache).compile_one(BOX).cached


def test_package_options_are_never_preempted_by_the_format(tex):
    # xcolor with options must load before tikz: the format holds the prefix in source
    # order, options and all (a format per exact head), so the options still arrive first
    for first in (r"\usepackage[dvipsnames]{xcolor}",
                  r"\PassOptionsToPackage{dvipsnames}{xcolor}"):
        doc = Standalone(blocks=[first, r"\usepackage{tikz}"],
                         body=r"\begin{tikzpicture}\fill[ForestGreen] (0,0) circle (1);"
                              r"\end{tikzpicture}")
        assert split_preloadable(doc.blocks) == (tuple(doc.blocks), [])
        res = tex.compile_one(doc)
        assert res.ok and res.mode == "format/single", res.error
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

    from diagramforge.formats.rasterize import rasterize_pdf

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


def _counting(tex):
    runs = []
    orig = tex._run

    def run(docs, use_format, timeout_s, engine):
        res, pages = orig(docs, use_format, timeout_s, engine)
        runs.append((len(docs), res.ok))
        return res, pages

    tex._run = run
    return runs


def test_sources_share_a_run_with_their_definitions_kept_local(tex):
    import numpy as np

    def doc(colour: str, setting: str) -> Standalone:
        return Standalone([r"\usepackage{tikz}", rf"\newcommand\tint{{{colour}}}", setting],
                          r"\begin{tikzpicture}\fill[\tint] (0,0) rectangle (1,1);"
                          r"\node at (2,0) {a};\end{tikzpicture}")

    # the same macro name, defined differently by two sources; one source's `every node`
    # must not reach the other's page
    a = doc("red", r"\tikzset{every node/.style={draw}}")
    b = doc("blue", r"\tikzset{unused/.style={}}")
    assert batch_key(a) == batch_key(b)
    runs = _counting(tex)
    ra, rb = tex.compile_many([a, b])
    assert runs == [(2, True)] and ra.mode == rb.mode == "format/batch"

    def pixels(pdf: bytes) -> np.ndarray:
        pix = pymupdf.open("pdf", pdf)[0].get_pixmap(dpi=72)
        return np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width, pix.n)

    alone = TexCompiler(cache_dir=None).compile_one(b)
    assert np.array_equal(pixels(rb.pdf), pixels(alone.pdf))  # a's node frame did not leak
    pa, pb = pixels(ra.pdf), pixels(rb.pdf)
    assert pa[..., 0].mean() > pa[..., 2].mean() and pb[..., 2].mean() > pb[..., 0].mean()


def test_a_bad_page_costs_one_extra_run_not_one_per_neighbour(tex):
    good = [Standalone([r"\usepackage{tikz}"],
                       rf"\begin{{tikzpicture}}\node {{{k}}};\end{{tikzpicture}}")
            for k in range(5)]
    bad = Standalone([r"\usepackage{tikz}"],
                     r"\begin{tikzpicture}\node[no such key] {x};\end{tikzpicture}")
    runs = _counting(tex)
    res = tex.compile_many([*good[:2], bad, *good[2:]])
    assert [r.ok for r in res] == [True, True, False, True, True, True]
    assert res[2].reason == CompileReason.TIKZ_ERROR and "no such key" in res[2].error
    batches = [n for n, _ in runs if n > 1]
    assert batches == [6, 5]  # the batch, then the batch without the page the log blamed


def test_documents_that_differ_in_packages_or_defaults_do_not_share_a_run():
    tikz = Standalone([r"\usepackage{tikz}", r"\usetikzlibrary{calc}"], "x")
    other_lib = Standalone([r"\usepackage{tikz}", r"\usetikzlibrary{arrows.meta}"], "y")
    sans = Standalone([r"\usepackage{tikz}", r"\renewcommand\familydefault{\sfdefault}"], "z")
    plots = Standalone([r"\usepackage{pgfplots}"], "w")
    assert batch_key(tikz) == batch_key(other_lib)  # libraries are unioned
    assert len({batch_key(d) for d in (tikz, sans, plots)}) == 3


def test_ladders_climb_only_where_the_first_document_fails(tex):
    pic = r"\begin{tikzpicture}\draw[mine] (0,0) -- (1,0);\end{tikzpicture}"
    fixed = Standalone([r"\usepackage{tikz}", r"\tikzset{mine/.style={red}}"], pic)
    ok = Standalone([r"\usepackage{tikz}"], r"\begin{tikzpicture}\draw (0,0);\end{tikzpicture}")
    broken = Standalone([r"\usepackage{tikz}"], pic)
    (a, ra), (b, rb), (c, rc) = tex.compile_ladders(
        [[broken, fixed], [ok, fixed], [broken, broken]])
    assert (a.ok, ra) == (True, 1) and (b.ok, rb) == (True, 0)
    assert (c.ok, rc) == (False, 0) and "mine" in c.error


def test_a_page_broken_by_its_neighbour_is_compiled_alone_not_rejected(tex):
    """Page 0 leaks a global change that breaks page 1 inside the batch (a neighbour's
    error, blamed on page 1 by the log): page 1 is compiled alone before any verdict."""
    leaky = pic(r"\draw (0,0) -- (1,0);\global\let\tikzpicture\undefined")
    victim = pic(r"\draw (0,0) circle (1);")
    runs = _counting(tex)
    a, b = tex.compile_many([leaky, victim])
    assert a.ok and b.ok, (a.error, b.error)
    assert b.mode.endswith("/single") and runs[0] == (2, False)


def test_a_hard_failure_skips_to_the_source_document_of_the_same_engine(tex):
    loop = pic(r"\def\a{\a}\a")
    fixed = pic(r"\draw (0,0) -- (1,1);")
    source = Standalone([], "", document="\\documentclass{standalone}\\usepackage{tikz}"
                        "\\begin{document}\\tikz\\draw (0,0) -- (1,0);\\end{document}")
    runs = _counting(tex)
    tex.timeout_s = 2
    ((res, step),) = tex.compile_ladders([[(loop, "pdflatex"), (fixed, "pdflatex"),
                                           (source, "pdflatex"), (fixed, "lualatex")]])
    assert res.ok and step == 2 and res.mode == "document/single"
    assert [n for n, _ in runs] == [1, 1]  # the loop, then the source: nothing between


def test_classify_names_kernel_refusals_and_lua_errors():
    reason, err = classify("x\npdflatex: /home/a/secret.txt: Permission denied\n")
    assert reason == CompileReason.FORBIDDEN_IO and "secret.txt" in err
    log = ("[\\directlua]:1: attempt to call a nil value (global 'nope')\n"
           "!  ==> Fatal error occurred, no output PDF file produced!\n")
    assert classify(log) == (CompileReason.TEX_ERROR,
                             "[\\directlua]:1: attempt to call a nil value (global 'nope')")
    assert classify("! Unable to load picture or PDF file '/home/a/x.png'.\nl.3 x")[0] == \
        CompileReason.FORBIDDEN_IO


def test_a_command_cleared_before_it_is_redefined_compiles_in_a_shared_run(tex):
    """``\\let\\Im\\relax`` then ``\\DeclareMathOperator{\\Im}{Im}`` (issue 21's class): in a
    batch the page-local ``\\let`` used to land after the preamble-only declaration."""
    ops = [r"\usepackage{amsmath}", r"\usepackage{tikz}", r"\let\Re\relax",
           r"\DeclareMathOperator{\Re}{Re}", r"\let\Im\relax",
           r"\DeclareMathOperator{\Im}{Im}"]
    a = pic(r"\node {$\Im z$};", ops)
    b = pic(r"\node {$\Re z + \cc$};", [*ops, r"\newcommand{\cc}{c}"])
    assert batch_key(a) == batch_key(b)
    runs = _counting(tex)
    ra, rb = tex.compile_many([a, b])
    assert ra.ok and rb.ok, (ra.error, rb.error)
    assert runs == [(2, True)] and ra.mode == rb.mode == "format/batch"
    assert "Im" in pymupdf.open("pdf", ra.pdf)[0].get_text()


def test_an_endless_page_stops_its_batch_after_its_own_budget_and_is_named(tex):
    """Each page of a batch gets the per-document budget: the watchdog sees the page marks
    live (``\\message`` flushes them), so the batch is stopped at the endless page, which
    is then tried alone; its neighbours before and after finish in one rerun. (The marks
    used to reach the log one page late: the page *before* the loop was blamed, and the
    batch after it timed out a second time.)"""
    docs = [pic(rf"\node{{{k}}};") for k in range(6)]
    docs[2] = pic(r"\def\a{\a}\a")
    runs = _counting(tex)
    tex.timeout_s = 2
    res = tex.compile_many(docs)
    assert [r.ok for r in res] == [True, True, False, True, True, True]
    assert res[2].reason == CompileReason.TIMEOUT
    assert runs == [(6, False), (5, True), (1, False)]  # singles come last


def test_a_batch_has_a_deadline_per_page_not_four_pages(tex, monkeypatch):
    """Sixteen pages of a picture that takes most of its deadline must not be stopped for
    the batch's size: the run's deadline grows with its pages (and its preamble), and what
    stops it is one page running past its own deadline (the watchdog's step)."""
    from diagramforge.formats.tikz import texcompile

    tex.format_dir()  # the shared format, built once before any picture
    seen = []
    real = texcompile.run_sandboxed

    def spy(*args, **kw):
        seen.append((kw["timeout_s"], kw.get("step")))
        return real(*args, **kw)

    monkeypatch.setattr(texcompile, "run_sandboxed", spy)
    tex.compile_many([pic(rf"\node {{{k}}};") for k in range(16)], batch_size=16)
    tex.compile_one(pic(r"\node {alone};"))
    assert seen == [(5 * 17, (PAGE_MARK.encode(), 5)), (5, None)]


def test_a_batch_whose_shared_preamble_never_ends_is_tried_page_by_page_not_halved(tex):
    """No page began: the preamble the pages share ran out of time. Each page then runs
    alone once (as it would unbatched); halving ran the preamble again at every level
    (7 timeouts for 4 pages instead of 1 + 4)."""
    blocks = [r"\usepackage{tikz}", r"\AtBeginDocument{\def\a{\a}\a}"]
    docs = [pic(rf"\node{{{k}}};", blocks) for k in range(4)]
    runs = _counting(tex)
    tex.timeout_s = 1
    res = tex.compile_many(docs)
    assert all(r.reason == CompileReason.TIMEOUT for r in res)
    assert runs == [(4, False)] + [(1, False)] * 4


def test_good_pages_are_typeset_at_most_twice_however_many_bad_pages_share_them(tex):
    """Issue 42: a batch of copies of one broken picture among good pages. Rerunning
    "everything but the bad page" typeset the good pages before it once per bad page; the
    rerun now puts them last, behind the pages not yet tried."""
    good = [pic(rf"\node {{good {k}}};") for k in range(4)]
    bad = [pic(rf"\node[no such key {k}] {{x}};") for k in range(4)]
    order = [good[0], good[1], bad[0], bad[1], good[2], bad[2], bad[3], good[3]]
    typeset: list[int] = []  # every page each run got through (up to its error)
    orig = tex._run

    def run(docs, use_format, timeout_s, engine):
        res, pages = orig(docs, use_format, timeout_s, engine)
        upto = len(docs) if res.ok or res.page is None else res.page + 1
        typeset.extend(order.index(d) for d in docs[:upto])
        return res, pages

    tex._run = run
    res = tex.compile_many(order, batch_size=8)
    assert [r.ok for r in res] == [True, True, False, False, True, False, False, True]
    assert all(r.reason == CompileReason.TIKZ_ERROR for r in res if not r.ok)
    for k in (0, 1, 4, 7):  # the good pages
        assert typeset.count(k) <= 2, (k, typeset)


def test_page_marks_take_none_of_the_documents_write_streams(tex):
    """TeX has sixteen write streams; a page's mark must not take one from a picture that
    allocates many (``\\typeout`` writes to the terminal through LaTeX's never-opened
    ``\\@unused``; a mark file of its own would need a stream)."""
    def blocks(n: int) -> list[str]:
        return [r"\usepackage{tikz}", "".join(rf"\newwrite\w{chr(97 + k)}" for k in range(n))]

    def whole(n: int) -> Standalone:  # as written: no page marks in it
        return Standalone([], "", document="\\documentclass{standalone}\n"
                          + "\n".join(blocks(n)) + "\n\\begin{document}\\tikz\\draw (0,0)--(1,1);"
                          "\\end{document}\n")

    most = max(n for n in range(6, 17) if tex.compile_one(whole(n)).ok)
    assert tex.compile_one(pic(r"\draw (0,0) -- (1,1);", blocks(most))).ok


@pytest.mark.parametrize("preamble, words", [
    # a definition before the packages: the preamble, read as one block, went into the
    # page because of its first line, and \usepackage failed there
    ("\\newcommand{\\who}{Alice}\n\\usepackage{tikz}", "Alice"),
    # data the document writes itself, over several lines
    ("\\usepackage{pgfplots}\n\\pgfplotsset{compat=1.18}\n"
     "\\begin{filecontents*}[overwrite]{pts.csv}\nx,y\n0,0\n1,{1}\n\\end{filecontents*}", "Alice"),
])
def test_compile_tikz_keeps_a_documents_preamble_constructs_whole(preamble, words):
    from diagramforge.formats.tikz.texcompile import compile_tikz

    body = "\\begin{tikzpicture}\\node[draw] {Alice};\\end{tikzpicture}"
    if "pgfplots" in preamble:
        body = ("\\begin{tikzpicture}\\begin{axis}\\addplot table[col sep=comma] {pts.csv};"
                "\\end{axis}\\node {Alice};\\end{tikzpicture}")
    pdf = compile_tikz(f"\\documentclass{{standalone}}\n{preamble}\n\\begin{{document}}\n"
                       f"{body}\n\\end{{document}}\n", timeout_s=60)
    assert pdf is not None
    assert words in pymupdf.open("pdf", pdf)[0].get_text()


def test_compile_tikz_falls_back_to_the_document_as_written():
    """A colour the class's options define (dvipsnames reaches xcolor through the class): the
    parts lose the class, the document as written has it."""
    from diagramforge.formats.tikz.texcompile import compile_tikz

    pdf = compile_tikz("\\documentclass[dvipsnames]{article}\n\\usepackage{tikz}\n"
                       "\\begin{document}\n\\begin{tikzpicture}\\node[text=Maroon] {Bob};"
                       "\\end{tikzpicture}\n\\end{document}\n", timeout_s=60)
    assert pdf is not None and "Bob" in pymupdf.open("pdf", pdf)[0].get_text()
