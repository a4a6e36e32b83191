"""A picture drawn through the document's own environment or macro is a picture: the use with
its definition, never ``no_diagrams`` (issue 52: TeX.SE timelines drawn through
``\\newenvironment{timeline}{\\begin{tikzpicture}…}``)."""

import json

from diagramforge.builders.extract.settings import ExtractParams
from diagramforge.formats.tikz.extract import extract_paper
from diagramforge.formats.tikz.pictures import find_pictures
from diagramforge.formats.tikz.preamble import parse_preamble
from diagramforge.formats.tikz.wrappers import find_wrappers
from tests.conftest import needs_tex

ROW = {"id": "se", "version": "1", "authors": "[]"}

TIMELINE = r"""\documentclass{article}
\usepackage{tikz}
\newenvironment{timeline}[1][4mm]{%
  \begin{tikzpicture}[yscale=-1, every node/.style={font=\small}]
  \draw[thick, ->] (0,0) -- (0,#1*20);
}{%
  \end{tikzpicture}%
}
\newcommand\event[2]{\fill (0,#1) circle (2pt) node[right=4pt] {#2};}
\begin{document}
Here is the timeline you asked for:

\begin{timeline}
\event{1}{Founded}
\event{3}{First release}
\event{6}{Version 2}
\end{timeline}
\end{document}
"""

MACRO = r"""\documentclass{article}
\usepackage{tikz}
\newcommand{\gauge}[2][blue]{%
  \begin{tikzpicture}
    \draw[#1, line width=3pt] (0,0) arc (180:{180-#2*1.8}:1);
    \draw (-1,0) arc (180:0:1);
    \node at (0,0.3) {#2\,\%};
  \end{tikzpicture}}
\newcommand{\gaugerow}{\gauge{30}\quad\gauge[red]{80}}
\begin{document}
Usage: \gauge{42} and \gauge[green]{90}.

\gaugerow
\end{document}
"""


def _records(doc: str) -> tuple[list[dict], list]:
    ex = extract_paper(doc.encode(), ROW, ExtractParams())
    return [r for r in ex.records if r["format"] == "tikz"], ex.rejections


def test_an_environment_around_a_tikzpicture_draws_a_picture():
    recs, rejections = _records(TIMELINE)
    assert len(recs) == 1 and not rejections
    meta = json.loads(recs[0]["meta"])
    assert meta["env"] == "timeline"
    assert meta["body"].startswith(r"\begin{timeline}") and r"\event{6}" in meta["body"]
    # the definitions travel with it, as any macro the picture uses
    assert any(b.startswith(r"\newenvironment{timeline}") for b in meta["blocks"])
    assert any(b.startswith(r"\newcommand\event") for b in meta["blocks"])


def test_a_macro_drawing_a_picture_is_a_picture_at_each_use():
    recs, _ = _records(MACRO)
    bodies = [json.loads(r["meta"])["body"] for r in recs]
    # \gaugerow draws through \gauge: a wrapper of a wrapper; the uses take their arguments
    assert bodies == [r"\gauge{42}", r"\gauge[green]{90}", r"\gaugerow"]
    assert all(any(b.startswith(r"\newcommand{\gauge}") for b in json.loads(r["meta"])["blocks"])
               for r in recs)


def test_a_definition_in_the_body_is_not_a_picture_its_uses_are():
    body = (r"\newcommand\badge[1]{\tikz\node[draw,rounded corners]{#1};}"
            "\nText \\badge{new} and \\badge{old}.\n")
    defs = [d for d in parse_preamble(body)]
    wrappers = find_wrappers(defs, ["tikzpicture"], ["tikz"])
    assert wrappers.macros == {"badge": 1}
    pics = find_pictures(body, ["tikzpicture"], True, ["tikz"], wrappers)
    assert [p.text for p in pics] == [r"\badge{new}", r"\badge{old}"]
    # without the wrappers (as before), the half-defined \tikz inside the definition was taken
    assert [p.text for p in find_pictures(body, ["tikzpicture"], True, ["tikz"])] == [
        r"\tikz\node[draw,rounded corners]{#1};"]


def test_a_wrapper_never_used_draws_nothing():
    doc = TIMELINE.replace(r"""\begin{timeline}
\event{1}{Founded}
\event{3}{First release}
\event{6}{Version 2}
\end{timeline}""", "No picture after all.")
    recs, rejections = _records(doc)
    assert recs == [] and [r.reason for r in rejections] == ["no_diagrams"]


@needs_tex
def test_the_pictures_drawn_through_definitions_render():
    from diagramforge.formats.tikz.handler import standalone
    from diagramforge.formats.tikz.texcompile import TexCompiler

    recs = _records(TIMELINE)[0] + _records(MACRO)[0]
    results = TexCompiler(timeout_s=20).compile_many([standalone(r) for r in recs])
    assert [r.ok for r in results] == [True] * 4, [r.error for r in results]


CHRONOLOGY = r"""\documentclass{beamer}
\usepackage{chronology}
\begin{document}
\begin{frame}{Milestones}
\begin{chronology}[5]{1990}{2020}{\textwidth}
\event{1994}{\LaTeXe}
\event[2005]{2010}{TikZ 2}
\end{chronology}
\end{frame}
\end{document}
"""


def test_a_package_environment_that_opens_a_picture_is_a_picture():
    """beamer's chronology: the environment draws a tikzpicture itself (the generated
    table's ``picture_environment`` rows), so the use is the picture."""
    recs, rejections = _records(CHRONOLOGY)
    assert len(recs) == 1 and not rejections
    meta = json.loads(recs[0]["meta"])
    assert meta["env"] == "chronology" and r"\usepackage{chronology}" in meta["blocks"]


@needs_tex
def test_the_chronology_renders_as_plain_pdflatex_renders_its_document():
    from diagramforge.formats.tikz.handler import standalone
    from diagramforge.formats.tikz.texcompile import TexCompiler

    (rec,) = _records(CHRONOLOGY)[0]
    (res,) = TexCompiler(timeout_s=20).compile_many([standalone(rec)])
    assert res.ok, res.error


ENVIRON = r"""\documentclass{article}
\usepackage{tikz}
\usepackage{environ}
\NewEnviron{timeline}[1][2]{%
  \begin{tikzpicture}[yscale=-1]
  \draw[thick, ->] (0,0) -- (0,#1*3);
  \BODY
  \end{tikzpicture}}
\DeclareDocumentEnvironment{steps}{O{1cm}}{\begin{tikzpicture}[x=#1]}{\end{tikzpicture}}
\begin{document}
A timeline:

\begin{timeline}
\fill (0,1) circle (2pt) node[right=4pt] {Founded};
\fill (0,3) circle (2pt) node[right=4pt] {Version 2};
\end{timeline}

\begin{steps}[2cm]
\draw (0,0) node[draw] {plan} -- (1,0) node[draw] {build};
\end{steps}
\end{document}
"""


def test_environments_of_the_environ_package_and_xparse_draw_pictures():
    """``\\NewEnviron`` (a TeX.SE idiom: the body as ``\\BODY``) and
    ``\\DeclareDocumentEnvironment`` around a tikzpicture: each use is a picture whose
    document carries the definition — before, the document was ledgered ``no_diagrams``."""
    recs, rejections = _records(ENVIRON)
    assert not rejections
    metas = [json.loads(r["meta"]) for r in recs]
    assert [m["env"] for m in metas] == ["timeline", "steps"]
    assert any(b.startswith(r"\NewEnviron{timeline}") for b in metas[0]["blocks"])
    assert any(b.startswith(r"\DeclareDocumentEnvironment{steps}") for b in metas[1]["blocks"])


@needs_tex
def test_the_environ_pictures_render():
    from diagramforge.formats.tikz.handler import standalone
    from diagramforge.formats.tikz.texcompile import TexCompiler

    results = TexCompiler(timeout_s=20).compile_many([standalone(r)
                                                      for r in _records(ENVIRON)[0]])
    assert [r.ok for r in results] == [True, True], [r.error for r in results]


SAVEBOX = r"""\documentclass{article}
\usepackage{tikz}
\newsavebox{\logo}
\sbox{\logo}{\begin{tikzpicture}
  \draw[thick, fill=blue!20] (0,0) circle (1);
  \node at (0,0) {DF};
\end{tikzpicture}}
\begin{document}
Our logo: \usebox{\logo}
\end{document}
"""


def test_a_picture_that_cannot_be_delimited_is_the_document_as_written():
    """A tikzpicture kept in a box and typeset by ``\\usebox``: no environment or macro use
    to cut out, so the body is the picture and its source document the ladder's last
    rung — not ``no_diagrams``; a wrapper defined and never used still draws nothing."""
    recs, rejections = _records(SAVEBOX)
    assert not rejections and len(recs) == 1
    meta = json.loads(recs[0]["meta"])
    assert meta["env"] == "document" and r"\usebox{\logo}" in meta["body"]
    last = meta["ladder"][-1]
    assert last["mode"] == "source" and r"\sbox{\logo}" in last["document"]


@needs_tex
def test_the_document_taken_whole_renders_its_picture():
    from diagramforge.formats.tikz.handler import standalone
    from diagramforge.formats.tikz.texcompile import TexCompiler

    (rec,) = _records(SAVEBOX)[0]
    assert r"\sbox{\logo}" in rec["code"]  # the box is filled where the picture is drawn
    (res,) = TexCompiler(timeout_s=20).compile_many([standalone(rec)])
    assert res.ok and res.pdf, res.error
    import fitz

    page = fitz.open(stream=res.pdf, filetype="pdf")[0]
    assert page.get_drawings(), "the logo's circle is drawn, not only the text"
