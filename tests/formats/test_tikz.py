from diagramforge.formats.preamble import parse_preamble
from diagramforge.formats.tikz import attach_context, find_pictures, standalone

BODY = r"""
Intro text mentioning Figure~\ref{fig:a} and \cref{fig:b,fig:a}.

Unrelated paragraph.

\begin{figure}
\begin{tikzpicture}
  \node {outer};
  \begin{tikzpicture}\node{nested};\end{tikzpicture}
\end{tikzpicture}
\caption[short]{The \emph{first} figure.}\label{fig:a}
\end{figure}

Inline \tikz[baseline]{\draw (0,0) circle (1pt);} and \tikz \draw (0,0) -- (1,0); done.
\tikzset{not=a picture}

\begin{figure}\[\begin{tikzcd} A \arrow[r] & B \end{tikzcd}\]\caption{CD}\label{fig:b}
\end{figure}
"""


def test_find_outermost_pictures_and_commands():
    pics = find_pictures(BODY, ["tikzpicture", "tikzcd"], tikz_commands=True)
    assert [p.env for p in pics] == ["tikzpicture", "tikz", "tikz", "tikzcd"]
    assert "nested" in pics[0].text and pics[0].text.count(r"\begin{tikzpicture}") == 2
    assert pics[1].text == r"\tikz[baseline]{\draw (0,0) circle (1pt);}"
    assert pics[2].text == r"\tikz \draw (0,0) -- (1,0);"
    assert [p.env for p in find_pictures(BODY, ["tikzpicture"], tikz_commands=False)] == [
        "tikzpicture"]


def test_caption_label_and_context():
    pics = find_pictures(BODY, ["tikzpicture", "tikzcd"], tikz_commands=False)
    attach_context(BODY, pics, max_paragraphs=3)
    a, b = pics
    assert a.caption == r"The \emph{first} figure." and a.label == "fig:a"
    assert b.caption == "CD" and b.label == "fig:b"
    assert len(a.context) == 1 and a.context[0].startswith("Intro text")
    assert b.context == a.context


def test_standalone_adds_packages_the_environment_needs():
    defs = parse_preamble(r"\usepackage{amsmath}")
    pic = find_pictures(BODY, ["tikzcd"], False)[0]
    doc = standalone(pic, defs)
    assert r"\usepackage{tikz-cd}" in doc.blocks
    assert doc.code.startswith(r"\documentclass[border=2pt]{standalone}")
    assert doc.code.rstrip().endswith(r"\end{document}")


def test_standalone_drops_unavailable_packages():
    defs = parse_preamble(r"\usepackage{tikz,privatemacros}\usepackage{alsoprivate}")
    pic = find_pictures(r"\begin{tikzpicture}\draw (0,0)--(1,1);\end{tikzpicture}",
                        ["tikzpicture"], False)[0]
    doc = standalone(pic, defs, available=lambda p: not p.endswith("private") and
                     p != "privatemacros")
    assert doc.dropped == ["privatemacros", "alsoprivate"]
    assert r"\usepackage{tikz}" in doc.blocks
    assert not any("private" in b for b in doc.blocks)
