from diagramforge.formats.tikz.pictures import Picture, attach_context, find_pictures, standalone
from diagramforge.formats.tikz.preamble import parse_preamble

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


def test_options_passed_to_xcolor_precede_tikz_and_libraries_follow_it():
    from diagramforge.formats.tikz.pictures import Picture, standalone
    from diagramforge.formats.tikz.preamble import parse_preamble

    defs = parse_preamble(r"\PassOptionsToPackage{svgnames}{xcolor}"
                          r"\usetikzlibrary{calc}\usepackage{amsmath}"
                          r"\tikzset{x/.style={draw=DarkBlue}}")
    doc = standalone(Picture("tikzpicture", r"\begin{tikzpicture}\draw[x] (0,0);"
                                             r"\end{tikzpicture}", 0, 0), defs)
    blocks = doc.blocks
    assert blocks[0].startswith(r"\PassOptionsToPackage")
    assert blocks.index(r"\usepackage{tikz}") < blocks.index(r"\usetikzlibrary{calc}") < \
        blocks.index(r"\tikzset{x/.style={draw=DarkBlue}}")


def test_pages_of_figure_documents():
    from diagramforge.formats.tikz.pictures import find_pictures, page_spans, pages_as_pictures

    body = "\n\\tdplotsetmaincoords{70}{110}\n\\begin{tikzpicture}\\draw (0,0);\\end{tikzpicture}\n"
    assert page_spans(r"\documentclass[tikz]{standalone}", body) is None
    assert page_spans(r"\documentclass{article}", body) is None
    pages = page_spans(r"\documentclass[border=2pt]{standalone}", body)
    pics = find_pictures(body, ["tikzpicture"], False)
    (only,) = pages_as_pictures(body, pages, pics)
    assert only.env == "tikzpicture"  # setup statements do not make a page of their own
    table = r"\begin{tabular}{l}a \tikz\coordinate(x);\end{tabular}" + body
    (page,) = pages_as_pictures(table, page_spans(r"\documentclass{standalone}", table),
                                find_pictures(table, ["tikzpicture"], True))
    assert page.env == "page" and page.text.startswith(r"\begin{tabular}")
    pre = r"\documentclass{article}\usepackage[active,tightpage]{preview}"
    two = r"\begin{preview}A\end{preview} text \begin{preview}B\end{preview}"
    assert [p.text for p in pages_as_pictures(two, page_spans(pre, two), [])] == ["A", "B"]


def test_unsafe_constructs():
    from diagramforge.formats.tikz.pictures import unsafe_constructs

    assert unsafe_constructs(r"\immediate\write18{rm -rf ~}") == ["shell escape"]
    assert unsafe_constructs(r"\directlua{os.exit()}") == ["lua code"]
    assert unsafe_constructs(r"\input{/etc/passwd}") == ["input outside the document"]
    assert unsafe_constructs(r"\input ../secret") == ["input outside the document"]
    assert unsafe_constructs(r"\read16 to \x") == ["file read"]
    assert unsafe_constructs(r"\newwrite\f\openout\f=x.tex") == ["file write"]
    assert unsafe_constructs(r"\input{figure.tikz}\draw (0,0); \readlist") == []


def test_packages_that_cannot_load_here_are_dropped_and_listed():
    from diagramforge.formats.tikz.pictures import Picture, standalone
    from diagramforge.formats.tikz.preamble import parse_preamble

    installed = {"tikz", "babel", "english.ldf", "amsmath"}
    defs = parse_preamble(r"\usepackage[ngerman]{babel}\usepackage[english]{babel}"
                          r"\usepackage{minted}\usepackage{amsmath,mytheme}")
    doc = standalone(Picture("tikzpicture", r"\begin{tikzpicture}\end{tikzpicture}", 0, 0),
                     defs, lambda name: name in installed)
    assert r"\usepackage[english]{babel}" in doc.blocks
    assert r"\usepackage{amsmath}" in doc.blocks
    assert "minted" not in doc.code  # needs shell escape, which the sandbox never grants
    assert doc.dropped == ["babel", "mytheme"]


def test_a_picture_with_a_pgfplots_axis_loads_pgfplots_and_compiles(tmp_path):
    """An \\input-ed figure file or a TeX.SE answer shows the tikzpicture and its axis, its
    \\usepackage{pgfplots} left elsewhere: the minimal document loads it (a real collection's
    plots failed as "Environment axis undefined"), and pdflatex typesets it."""
    import shutil
    import subprocess

    import pytest

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex missing")
    text = (r"\begin{tikzpicture}\begin{axis}[xlabel=$x$]\addplot[domain=0:2] {x^2};"
            r"\end{axis}\end{tikzpicture}")
    doc = standalone(Picture("tikzpicture", text, 0, 0), [])
    assert r"\usepackage{pgfplots}" in doc.blocks
    (tmp_path / "doc.tex").write_text(doc.code)
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-no-shell-escape", "doc.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                              "TEXMFVAR": str(tmp_path / "var")})
    assert run.returncode == 0, run.stdout[-800:]
    plain = standalone(Picture("tikzpicture", r"\begin{tikzpicture}\draw (0,0)--(1,1);"
                                              r"\end{tikzpicture}", 0, 0), [])
    assert not any("pgfplots" in b for b in plain.blocks)
