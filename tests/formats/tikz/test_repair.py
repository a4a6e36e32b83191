"""TikZ's repair capability: the rule-based fixes the offline backend answers with, and
the contract every format's ``repair.py`` states."""

from __future__ import annotations

from diagramforge.formats.registry import with_capability
from diagramforge.formats.tikz.repair import fix, texts

DOC = ("\\documentclass{standalone}\n\\usepackage{tikz}\n\\begin{document}\n{body}\n"
       "\\end{document}\n")


def doc(body: str) -> str:
    return DOC.replace("{body}", body)


def test_rules():
    broken = doc("\\begin{tikzpicture}\n  \\draw (0,0) -- (1,1)\n  \\node at (1,0) {A};\n"
                 "\\end{tikzpicture}")
    fixed, what = fix(broken, "! Package tikz Error: Giving up on this path. Did you "
                             "forget a semicolon?. | l.5 ")
    assert what == "semicolon" and "(1,1);\n" in fixed and fixed.count(";") == 2
    fixed, what = fix(doc("\\node {\\SI{3}{m}};"),
                      "! Undefined control sequence. | l.4 \\node {\\SI")
    assert what == "package siunitx" and "\\usepackage{siunitx}\n\\begin{document}" in fixed
    fixed, what = fix(doc("\\node {\\foo{x}};"), "! Undefined control sequence. | "
                                                "l.4 \\node {\\foo")
    assert "\\providecommand{\\foo}[1]{#1}" in fixed
    fixed, what = fix(doc("\\draw[-Stealth] (0,0) -- (1,0);"),
                      "! Package pgfkeys Error: I do not know the key '/tikz/Stealth'")
    assert what == "library arrows.meta"
    fixed, what = fix(doc("\\draw[wobbly=3, red] (0,0) -- (1,0);"),
                      "! Package pgfkeys Error: I do not know the key '/tikz/wobbly'")
    assert "\\draw[ red]" in fixed and what == "drop key wobbly"
    assert fix(doc("x"), "! Emergency stop.") == (doc("x"), "")


def test_texts_are_the_node_texts_of_the_source():
    code = doc("\\begin{tikzpicture}\n  \\node (a) {Alpha};\n  \\node (b) at (2,0) {Beta};\n"
               "  \\draw (a) -- (b);\n\\end{tikzpicture}")
    assert sorted(texts(code)) == ["Alpha", "Beta"]


def test_every_repair_capability_states_the_contract():
    """What the stage reads of a ``repair`` module (``formats/repairs.py``); a format's
    failures it cannot fix are among the failures it claims."""
    repairs = with_capability("repair")
    assert repairs
    for name, m in repairs.items():
        assert m.LANGUAGE and m.SYSTEM and m.FAILURES, name
        assert all(u.startswith(m.FAILURES) for u in m.UNFIXABLE), name
        assert callable(m.ask) and callable(m.fix) and callable(m.texts), name
