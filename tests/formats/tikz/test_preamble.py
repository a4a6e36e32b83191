from diagramforge.formats.tikz.preamble import Kind, closure, parse_preamble

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


def test_definition_kinds_found_in_real_preambles():
    defs = parse_preamble(r"""
\tikzset{pics/.cd, cell/.style={code={\draw (0,0) rectangle (1,1);}}}
\tikzstyle{a+b}=[draw]
\tikzstyle{a-b}=[dashed]
\newcounter{balls}
\pgfmathdeclarerandomlist{hues}{{red}{blue}}
\pgfdeclareradialshading[tikz@ball]{glow}{\pgfpoint{0cm}{0cm}}{color(0cm)=(white)}
\pgfdeclarepatternformonly[\step]{hatch}{\pgfpointorigin}{\pgfpoint{1pt}{1pt}}{}{}
\pgfplotscreateplotcyclelist{mylist}{red\\blue\\}
\tikzfading[name=fade out, inner color=transparent!0, outer color=transparent!100]
\newcommand\loop{\foreach \k in {1,2} {\pgfmathparse{\k+1}}}
""")
    texts = [d.text for d in defs]
    assert any(t.startswith(r"\tikzset{pics/.cd,") and "cell/.style" in t for t in texts)
    pic = (r"\draw[a+b] (0,0) -- (1,0); \shade[shading=glow] (0,0) circle (1);"
           r"\node {\arabic{balls}}; \pgfmathrandomitem{\c}{hues};"
           r"\fill[pattern=hatch] (0,0) rectangle (1,1);"
           r"\begin{axis}[cycle list name=mylist]\end{axis}")
    chosen = "\n".join(d.text for d in closure(defs, pic))
    for needed in ("{a+b}", r"\newcounter{balls}", "{hues}", "{glow}", "{hatch}", "{mylist}",
                   r"\tikzfading", "pics/.cd"):
        assert needed in chosen, needed
    assert "{a-b}" not in chosen and r"\loop" not in chosen
    # a statement inside a macro's body is not a top-level setting of its own
    assert not any(t.startswith(r"\pgfmathparse") for t in texts)
