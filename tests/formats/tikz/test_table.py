"""The table of what TikZ libraries and picture packages define: how a scan's control
sequences become rows, and how a name several files define is given to one of them.  The
shipped table itself is checked against TeX Live's files in ``test_tikz_needs.py``."""

import pytest

from diagramforge.formats.tikz.table import Provider, Scan, attribute, classify_name, scan
from tests.conftest import needs_lualatex


@pytest.mark.parametrize("cs, row", [
    ("pgfk@/tikz/state/.@cmd", ("key", "state")),
    ("pgfk@/pgf/regular polygon sides", ("key", "regular polygon sides")),
    ("pgfk@/pgfplots/fill between/.@cmd", ("pgfplots_key", "fill between")),
    ("pgfk@/tikz/pics/cube/.@cmd", ("pic", "cube")),
    ("pgf@sh@s@diamond", ("shape", "diamond")),
    ("pgf@ar@code@Stealth", ("arrow", "Stealth")),
    ("pgf@decorate@@zigzag@initial", ("decoration", "zigzag")),
    ("pgf@pattern@name@north east lines", ("pattern", "north east lines")),
    ("pgf@plot@mark@triangle*", ("mark", "triangle*")),
    ("tikz@parse@cs@tangent", ("cs", "tangent")),
    ("lstick", ("macro", "lstick")),
    # internals, handlers and keys under a family's own path are not rows
    ("pgfk@/tikz/state/.@body", None), ("pgfk@/tikz/graphs/simple/.@cmd", None),
    ("tikz@lib@place@of", None), ("pgf@sh@bg@diamond", None), ("__hook tikz-cd", None),
])
def test_control_sequences_become_rows(cs, row):
    assert classify_name(cs) == row


def _scan(kind, name, names, path=""):
    return Scan(Provider(kind, name, path), {n: "x" for n in names})


def test_a_name_belongs_to_the_file_every_other_provider_loads():
    """amsmath's \\Bmatrix is amsmath's, not quantikz's which loads it; a name two
    unrelated packages define is ambiguous and has no row."""
    scans = [
        _scan("package", "amsmath", ["Bmatrix", "ver@amsmath.sty"]),
        _scan("package", "quantikz", ["Bmatrix", "ver@amsmath.sty", "ver@quantikz.sty",
                                      "lstick", "clash"]),
        _scan("package", "other", ["clash", "ver@other.sty"]),
    ]
    table = attribute(scans, base={})
    assert table["rows"]["macro"]["Bmatrix"] == "package:amsmath"
    assert table["rows"]["macro"]["lstick"] == "package:quantikz"
    assert "clash" not in table["rows"]["macro"] and table["ambiguous"]["macro"] == 1
    assert table["providers"]["package:quantikz"] == ["package:amsmath"]


def test_a_package_is_preferred_to_the_library_of_its_own_directory():
    """tikz-cd's environment is defined by its library ``cd``, which tikz-cd.sty loads: the
    row says the package, as people write it; a library of PGF itself stays a library."""
    tl = "/usr/share/texlive/texmf-dist/tex"
    scans = [
        _scan("library", "cd", ["tikzcd", "endtikzcd", "tikz@library@cd@loaded"],
              f"{tl}/generic/tikz-cd/tikzlibrarycd.code.tex"),
        _scan("package", "tikz-cd", ["tikzcd", "endtikzcd", "tikz@library@cd@loaded",
                                     "ver@tikz-cd.sty"], f"{tl}/latex/tikz-cd/tikz-cd.sty"),
        _scan("library", "matrix", ["pgfk@/tikz/matrix of nodes/.@cmd",
                                    "tikz@library@matrix@loaded"],
              f"{tl}/generic/pgf/frontendlayer/tikz/libraries/tikzlibrarymatrix.code.tex"),
        _scan("package", "mymatrix", ["pgfk@/tikz/matrix of nodes/.@cmd",
                                      "tikz@library@matrix@loaded", "ver@mymatrix.sty"],
              f"{tl}/latex/mymatrix/mymatrix.sty"),
    ]
    rows = attribute(scans, base={})["rows"]
    assert rows["environment"]["tikzcd"] == "package:tikz-cd"
    assert rows["key"]["matrix of nodes"] == "library:matrix"


def test_syntax_belongs_to_the_file_that_redefines_its_stub():
    """``($…$)`` needs calc: TikZ defines a stub that says so, calc redefines it."""
    base = {"tikz@parse@calculator": "stub"}
    scans = [Scan(Provider("library", "calc"), {"tikz@parse@calculator": "real"}),
             Scan(Provider("library", "fit"), {})]
    assert attribute(scans, base)["rows"]["syntax"] == {"calc": "library:calc"}


@needs_lualatex
def test_a_scan_reads_what_a_library_defines_from_tex_itself():
    """One real scan: the automata library, loaded by sandboxed LuaLaTeX after TikZ."""
    from pathlib import Path

    from diagramforge.formats.tikz.texengines import LuaSetup

    lua = LuaSetup(Path(__import__("tempfile").gettempdir()) / "diagramforge-tex" / "lua")
    lua.prepare(2048)
    base, err = scan("", lua)
    names, err2 = scan(r"\usetikzlibrary{automata}", lua)
    assert not err and not err2
    new = {classify_name(n) for n in set(names) - set(base)} - {None}
    assert {("key", "state"), ("key", "initial"), ("key", "accepting"),
            ("shape", "circle split")} <= new
    assert scan(r"\usepackage{nosuchpackage}", lua)[1].startswith("!")
