from diagramforge.formats.preamble import Kind, closure, parse_preamble

PRE = r"""
\usepackage[utf8]{inputenc}
\usepackage{hyperref,tikz}
\usetikzlibrary{arrows.meta}
\definecolor{base}{RGB}{10,20,30}
\colorlet{accent}{base!50}
\definecolor{unused}{HTML}{FFFFFF}
\newcommand{\inner}{x}
\newcommand{\outer}[1]{\textcolor{accent}{#1 \inner}}
\def\lonely{nobody calls me}
\DeclareMathOperator*{\argmax}{arg\,max}
\tikzset{box/.style={draw, fill=accent}, >=Stealth, ghost/.style={opacity=0}}
\tikzstyle{old}=[draw, thick]
\pgfplotsset{compat=1.18}
\newenvironment{wrap}{\begin{center}}{\end{center}}
"""


def test_parse_kinds_and_names():
    defs = parse_preamble(PRE)
    by = {next(iter(d.defines)) if d.defines else d.text: d for d in defs}
    assert by["accent"].kind == Kind.COLOUR and "base" in by["accent"].uses
    assert by["\\outer"].kind == Kind.MACRO and "\\inner" in by["\\outer"].uses
    assert by["box"].kind == Kind.STYLE
    assert by["old"].kind == Kind.STYLE
    assert by["\\argmax"].kind == Kind.MACRO
    assert by["wrap"].kind == Kind.ENVIRONMENT
    pkgs = [d for d in defs if d.kind == Kind.PACKAGE]
    assert [d.packages for d in pkgs] == [("inputenc",), ("tikz",)]  # hyperref skipped


def test_closure_is_transitive_and_minimal():
    defs = parse_preamble(PRE)
    pic = r"\begin{tikzpicture}\node[box] {\outer{$\argmax$}};\end{tikzpicture}"
    texts = "\n".join(d.text for d in closure(defs, pic))
    for needed in (r"\newcommand{\outer}", r"\newcommand{\inner}", r"\colorlet{accent}",
                   r"\definecolor{base}", "box/.style", ">=Stealth", r"\argmax",
                   r"\usetikzlibrary", r"\pgfplotsset"):
        assert needed in texts, needed
    for unneeded in ("unused", r"\lonely", "ghost", "old", "wrap"):
        assert unneeded not in texts, unneeded


def test_closure_keeps_preamble_order():
    defs = parse_preamble(PRE)
    chosen = closure(defs, r"\outer{a}")
    idx = [defs.index(d) for d in chosen]
    assert idx == sorted(idx)


def test_every_styles_apply_implicitly_so_are_always_kept():
    defs = parse_preamble(r"\tikzstyle{every state}=[fill=red]"
                          r"\tikzset{every node/.style={font=\small}, named/.style={draw}}")
    texts = [d.text for d in closure(defs, r"\node[state] {q};")]
    assert any("every state" in t for t in texts)
    assert any("every node" in t for t in texts)
    assert not any("named" in t for t in texts)
