"""Hostile predictions are contained by the rendering path itself, each with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagramforge.cards.evaluate.compile import Compiler, CompileReason
from tests.cards.evaluate.conftest import GENERATION
from tests.conftest import make_params, needs_tex

LAUGHS = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' + "".join(
    f'<!ENTITY lol{k} "{("&lol%s;" % (k - 1 or "")) * 10}">' for k in range(1, 9)) + "]>"
MX_BOMB = LAUGHS + ('<mxfile><diagram id="a" name="p"><mxGraphModel><root><mxCell id="0"/>'
                    '<mxCell id="1" parent="0"/><mxCell id="2" value="&lol8;" vertex="1" '
                    'parent="1"><mxGeometry width="80" height="40" as="geometry"/></mxCell>'
                    '</root></mxGraphModel></diagram></mxfile>')
SVG_BOMB = LAUGHS + ('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="40">'
                     '<rect width="50" height="20"/><text y="30">&lol8;</text></svg>')
PIC = r"\begin{tikzpicture}\node[draw] (a) {A};%s\end{tikzpicture}"


@pytest.fixture
def compiler(tmp_path: Path):
    with Compiler(make_params(tmp_path, render={"tikz": {"timeout_s": 3}})) as c:
        yield c


@pytest.mark.parametrize(("fmt", "code"), [("mxgraph", MX_BOMB), ("svg", SVG_BOMB)])
def test_xml_bombs_do_not_expand(compiler: Compiler, fmt: str, code: str) -> None:
    """The extractors refuse them before any parser or renderer sees them, with the same
    reason in both formats (the SVG parser used to meet the amplification first)."""
    got = compiler.compile("x", fmt, code)
    assert not got.ok and got.image is None
    assert got.reason == "xml_doctype_forbidden" and "ENTITY" in got.detail


@needs_tex
@pytest.mark.parametrize(("name", "code", "reason"), [
    ("write18", PIC % r"\immediate\write18{touch %(flag)s}", "unsafe_code"),
    ("document", r"\documentclass{standalone}\usepackage{tikz}\begin{document}"
                 r"\immediate\write18{touch %(flag)s}" + PIC % "" + r"\end{document}",
     "unsafe_code"),
    ("openout", PIC % r"\immediate\openout5=%(flag)s \immediate\write5{x}", "unsafe_code"),
    ("endless", PIC % r"\def\x{\x}\x", "compile_timeout"),
    ("loop", PIC % r"\loop\iftrue\repeat", "compile_timeout"),
])
def test_hostile_tex_is_contained(compiler: Compiler, tmp_path: Path, name: str, code: str,
                                  reason: str) -> None:
    flag = tmp_path / f"{name}.flag"
    got = compiler.compile(name, "tikz", code % {"flag": flag})
    assert not got.ok and got.reason == reason, got
    assert not flag.exists()


def test_empty_and_missing_predictions(compiler: Compiler) -> None:
    assert compiler.compile("x", "svg", None).reason == CompileReason.NO_PREDICTION
    assert compiler.compile("x", "svg", "  \n").reason == CompileReason.EMPTY
    assert compiler.compile("x", "nope", "x").reason == CompileReason.UNSUPPORTED


def test_a_handler_crash_is_one_items_reason(compiler: Compiler, monkeypatch) -> None:
    h = compiler.formats()["svg"]

    def boom(rows: list[dict]) -> None:
        raise MemoryError("renderer blew up")

    monkeypatch.setattr(h, "render", boom)
    got = compiler.compile("x", "svg", GENERATION["g1"])
    assert got.reason == CompileReason.CRASH and "MemoryError" in got.detail


def test_external_entities_are_not_read(compiler: Compiler) -> None:
    """An SVG naming a local file as an entity is refused with a reason, never rendered
    with the entity silently dropped (which scored it as a success)."""
    xxe = ('<?xml version="1.0"?><!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
           '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50">'
           '<rect width="80" height="30"/><text y="40">&x;</text></svg>')
    got = compiler.compile("x", "svg", xxe)
    assert not got.ok and got.code is None and got.image is None
    assert got.reason == "xml_doctype_forbidden"
