"""The engines a document needs, and each engine's sandbox against hostile documents.

Every hostile input here is contained (nothing read outside reaches the output, nothing is
written or run outside) and gets a clear reason: rejected by the compile with the reason
given, or — where the engine carries on without the file — flagged at extraction by
``unsafe_constructs``, which keeps such code out of the dataset.
"""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path

import pymupdf
import pytest

from diagramforge.formats.tikz.pictures import Standalone, unsafe_constructs
from diagramforge.formats.tikz.texcompile import CompileReason, TexCompiler
from diagramforge.formats.tikz.texengines import (
    DEFAULT_ORDER,
    Engine,
    allowed,
    choose_engines,
    lua_sandbox_source,
)
from tests.conftest import needs_landlock, needs_lualatex, needs_tex, needs_xelatex

L, X, P = Engine.LUALATEX, Engine.XELATEX, Engine.PDFLATEX


@pytest.mark.parametrize("preamble, magic, first", [
    (r"\usepackage{tikz}", None, [P, L, X]),
    (r"\usepackage{fontspec}\setmainfont{DejaVu Sans}", None, [L, X]),
    (r"\usepackage[math-style=ISO]{unicode-math}", None, [L, X]),
    (r"\usepackage{tikz}\setmainfont{Libertinus Serif}", None, [L, X]),
    (r"\usepackage{mathspec}", None, [X, L]),  # TeX Live files it under tex/xelatex
    (r"\usepackage{lua-ul}", None, [L, X]),  # … and this under tex/lualatex
    (r"\usepackage{tikz}\XeTeXlinebreaklocale ""zh""", None, [X, L]),
    (r"\usepackage{fontspec}", "% !TEX program = xelatex\n\\documentclass{article}", [X, P, L]),
    (r"\usepackage{tikz}", "%!TeX TS-program = lualatex", [L, P, X]),
])
def test_the_preamble_names_the_engine(preamble, magic, first):
    if shutil.which("kpsewhich") is None and "usepackage{m" in preamble:
        pytest.skip("kpsewhich needed to tell where a package lives")
    assert choose_engines(preamble, magic) == first


def test_params_restrict_the_engines_and_never_leave_none():
    assert allowed([L, X], ["pdflatex", "xelatex"]) == [X]
    assert allowed([L, X], ["pdflatex"]) == [P]
    assert allowed(list(DEFAULT_ORDER), ["xelatex", "pdflatex"]) == [P, X]


def test_the_lua_sandbox_script_carries_the_readable_trees():
    src = lua_sandbox_source(("/usr", '/odd "quoted" dir'))
    assert 'local ROOTS = {"/usr", "/odd \\"quoted\\" dir"}' in src
    assert "{ROOTS}" not in src


# -- hostile documents ------------------------------------------------------------------

def pic(body: str, *blocks: str) -> Standalone:
    return Standalone([r"\usepackage{tikz}", *blocks],
                      r"\begin{tikzpicture}\node{x};" + body + r"\end{tikzpicture}")


@pytest.fixture
def secret(tmp_path) -> Path:
    """A file outside every job directory, with a token no output may contain."""
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text(f"DFSECRET{secrets.token_hex(8)}\n")
    return path


def leaked(res, secret: Path) -> bool:
    token = secret.read_text().strip()
    if not res.pdf:
        return False
    doc = pymupdf.open("pdf", res.pdf)
    streams = b"".join(doc.xref_stream(x) or b"" for x in range(1, doc.xref_length())
                       if doc.xref_is_stream(x))
    return token in "".join(p.get_text() for p in doc) or token.encode() in streams + res.pdf


def compile_(engine: str, doc: Standalone, **kw) -> object:
    return TexCompiler(engine=engine, cache_dir=None, timeout_s=kw.pop("timeout_s", 60),
                       **kw).compile_one(doc)


ENGINES = [pytest.param("pdflatex", marks=needs_tex),
           pytest.param("lualatex", marks=needs_lualatex),
           pytest.param("xelatex", marks=needs_xelatex)]


@pytest.mark.parametrize("engine", ENGINES)
def test_tex_level_reads_and_writes_outside_are_refused_by_every_engine(engine, secret,
                                                                          tmp_path):
    res = compile_(engine, pic(r"\node{\input{" + str(secret) + "}};"))
    assert res.reason == CompileReason.FORBIDDEN_IO and not leaked(res, secret)
    target = tmp_path / "escaped.tex"
    res = compile_(engine, pic(r"\newwrite\f\immediate\openout\f=" + str(target)
                               + r"\immediate\write\f{x}\immediate\closeout\f"))
    assert res.reason == CompileReason.FORBIDDEN_IO, res.error
    assert not target.exists()


@pytest.mark.parametrize("engine", ENGINES)
def test_shell_escape_never_runs(engine, tmp_path):
    marker = tmp_path / "pwned"
    code = pic(r"\immediate\write18{touch " + str(marker) + "}")
    compile_(engine, code)
    assert not marker.exists()
    assert unsafe_constructs(code.code) == ["shell escape"]  # and never kept


@pytest.mark.parametrize("engine", ENGINES)
def test_endless_loops_time_out_and_disk_bombs_hit_the_size_limit(engine):
    res = compile_(engine, pic(r"\def\a{\a}\a"), timeout_s=4)
    assert res.reason == CompileReason.TIMEOUT
    bomb = pic(r"\loop\shipout\hbox{\rule{1cm}{1cm}}\iftrue\repeat")
    res = compile_(engine, bomb, max_output_mb=1, timeout_s=60)
    assert res.reason == CompileReason.OUTPUT_TOO_LARGE, res.error


@needs_landlock
@pytest.mark.parametrize("engine, primitive", [
    pytest.param("pdflatex", r"\immediate\pdfobj file {%s}", marks=needs_tex),
    pytest.param("lualatex", r"\immediate\pdfextension obj file {%s}", marks=needs_lualatex),
])
def test_a_file_copied_into_the_pdf_is_refused_by_the_kernel(engine, primitive, secret):
    """``\\pdfobj file`` ignores openin_any: only Landlock stops it."""
    code = pic(primitive % secret)
    res = compile_(engine, code)
    assert res.reason == CompileReason.FORBIDDEN_IO and "Permission denied" in res.error
    assert not leaked(res, secret)
    assert unsafe_constructs(code.code) == ["file read"]


@needs_landlock
@needs_xelatex
def test_xetex_embeds_no_image_or_file_from_outside(secret, tmp_path):
    png = tmp_path / "outside" / "photo.png"
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False)
    pix.set_rect(pix.irect, (200, 10, 10))
    pix.save(str(png))
    code = pic(r"\node{\includegraphics{" + str(png) + "}};", r"\usepackage{graphicx}")
    res = compile_("xelatex", code)
    assert res.reason == CompileReason.FORBIDDEN_IO
    assert unsafe_constructs(code.code) == ["input outside the document"]
    code = pic(r"\special{pdf:fstream @leak (" + str(secret) + r")}"
               r"\special{pdf:put @catalog << /Leak @leak >>}")
    res = compile_("xelatex", code)
    assert not leaked(res, secret)  # xdvipdfmx could not open it, and says nothing
    assert unsafe_constructs(code.code) == ["file read"]


LUA_ESCAPES = {
    "io.open": r"local f = io.open('{s}'); tex.print(f and f:read('*a') or 'none')",
    "io.lines": r"for l in io.lines('{s}') do tex.print(l) end",
    "dofile": r"dofile('{s}')",
    "loadfile": r"local f = loadfile('{s}'); tex.print(tostring(f))",
    "lfs.dir": r"for n in lfs.dir('{d}') do tex.print(n) end",
    "img.scan": r"img.write(img.scan{{filename='{s}'}})",
    "pdf.immediateobj": r"pdf.immediateobj('file', '{s}')",
    "fontloader": r"fontloader.info('{s}')",
    "mplib": r'local mp = mplib.new{{}}; mp:execute([[string s; s = readfrom "{s}";]])',
    "callback": r"luatexbase.add_to_callback('find_read_file', function() return '{s}' end,"
                r" 'x') tex.print('\\input{{anything}}')",
    "write": r"local f = io.open('{d}/written.txt', 'w'); f:write('x')",
    "os.execute": r"os.execute('touch {d}/ran')",
    "io.popen": r"local p = io.popen('touch {d}/ran'); tex.print(p and p:read('*a') or '')",
    "os.rename": r"os.rename('{s}', '{d}/moved.txt')",
    "debug.getupvalue": r"local _, open = debug.getupvalue(io.open, 1)"
                        r" tex.print(open('{s}'):read('*a'))",
    "debug.setupvalue": r"for i = 1, 20 do local _, v = debug.getupvalue(io.open, i)"
                        r" if type(v) == 'function' then debug.setupvalue(v, 1, '/') end end",
}


@needs_lualatex
@pytest.mark.parametrize("name", sorted(LUA_ESCAPES))
def test_lua_cannot_reach_outside(name, secret):
    """Lua's io, os, lfs and the libraries that open files ignore openin_any and --safer
    cannot be used (luaotfload refuses it): the Lua sandbox refuses each, by name."""
    lua = LUA_ESCAPES[name].format(s=secret, d=secret.parent)
    res = compile_("lualatex", pic(r"\node{\directlua{" + lua + "}};"))
    assert not res.ok
    assert res.reason == CompileReason.FORBIDDEN_IO, (res.reason, res.error)
    assert "diagramforge sandbox: not" in res.error
    assert not leaked(res, secret)
    assert sorted(p.name for p in secret.parent.iterdir()) == ["secret.txt"]
    assert unsafe_constructs(pic(r"\directlua{" + lua + "}").code) == ["lua code"]


@needs_lualatex
def test_lua_loops_and_lua_disk_bombs_are_stopped():
    res = compile_("lualatex", pic(r"\directlua{while true do end}"), timeout_s=6)
    assert res.reason == CompileReason.TIMEOUT
    bomb = (r"\directlua{local f = io.open('big.bin', 'w') local s = string.rep('x', 2^20)"
            r" for i = 1, 64 do f:write(s) end f:close()}")
    res = compile_("lualatex", pic(bomb), max_output_mb=8)
    assert res.reason == CompileReason.OUTPUT_TOO_LARGE


@needs_lualatex
def test_lua_has_no_native_code_and_no_foreign_bytecode():
    probe = (r"\node{\directlua{tex.print(tostring(ffi) .. ' ' .. tostring(package.cpath)"
             r" .. ' ' .. tostring((package.loadlib('x', 'y'))))}};")
    res = compile_("lualatex", pic(probe))
    assert res.ok, res.error
    assert pymupdf.open("pdf", res.pdf)[0].get_text().split() == ["x", "nil", "nil"]
    # bytecode made elsewhere (here: this process's, altered by one byte) does not load
    forged = (r"\directlua{local s = string.dump(function() return 1 end)"
              r" local f = load(s:sub(1, -2) .. string.char(bit32.bxor(s:byte(-1), 1)))"
              r" tex.print(tostring(f))}")
    res = compile_("lualatex", pic(r"\node{" + forged + "};"))
    assert res.ok and pymupdf.open("pdf", res.pdf)[0].get_text().split() == ["x", "nil"]


# -- nothing from HOME ----------------------------------------------------------------------

@needs_tex
@needs_landlock
@pytest.mark.parametrize("use_format", [True, False])
def test_a_metafont_only_font_is_made_inside_the_job_whatever_home_holds(
        use_format, tmp_path, monkeypatch):
    """Concrete Roman (ccr10) exists only as METAFONT source: pdflatex makes a bitmap font
    with mktexpk. With kpathsea's trees in HOME and its temp dir in /tmp that write is
    forbidden by the sandbox on a new machine (``mkdir: cannot create directory
    '/tmp/mt1234.tmp'``) and served from ``~/.texlive*`` on a machine that once ran TeX
    unsandboxed. Now the font is made inside the job on every machine, the same bytes each
    time, and HOME is neither read nor written."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    doc = Standalone([r"\usepackage{tikz}"],
                     r"\font\cc=ccr10 \begin{tikzpicture}\node[draw]{\cc Concrete};"
                     r"\end{tikzpicture}")
    runs = [TexCompiler(cache_dir=None, use_format=use_format, batch=False).compile_one(doc)
            for _ in range(2)]
    for res in runs:
        assert res.ok, (res.reason, res.error)
        assert "Concrete" in pymupdf.open("pdf", res.pdf)[0].get_text()
    assert runs[0].pdf == runs[1].pdf
    assert list(home.iterdir()) == []


def test_tex_runs_read_nothing_under_home_and_keep_their_own_trees_in_the_job(tmp_path,
                                                                               monkeypatch):
    from diagramforge.formats.tikz.texengines import tex_env, tex_read_roots

    home = Path.home()
    assert not [r for r in tex_read_roots() if Path(r).is_relative_to(home) and r != "/"]
    env = tex_env(job=tmp_path)
    for var in ("HOME", "TMPDIR", "TEXMFHOME", "TEXMFVAR", "TEXMFCONFIG"):
        assert Path(env[var]).is_relative_to(tmp_path), var
