"""A picture posted without its preamble gets the libraries and packages its keys, shapes,
arrow tips and macros need — from the table generated from TeX Live — and only those its
document lacks (issue 52)."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from diagramforge.builders.extract.settings import ExtractParams
from diagramforge.formats.tikz.extract import extract_paper
from diagramforge.formats.tikz.needs import Needs, loaded_by, needs, table
from diagramforge.formats.tikz.snippet import as_document
from tests.conftest import needs_tex

PLAIN = ["package:tikz"]


def _needs(text: str, loaded=PLAIN, defined=()) -> Needs:
    return needs(text, loaded, defined)


@pytest.mark.parametrize("picture, libraries, packages", [
    # the three TeX.SE answers of the issue: automata states, a quantikz circuit
    (r"\node[state, initial, ball color=black, text=white] (q0) {$q_0$};"
     r"\node[state, accepting, right of=q0] {$q_1$};", ["automata"], []),
    (r"\begin{quantikz}\lstick{$\ket{0}$} & \gate{H} & \qw\end{quantikz}", [], ["quantikz"]),
    (r"\node (b) [right=of a] {B}; \node [below=1cm of b] {C};", ["positioning"], []),
    (r"\draw[-Stealth] (0,0) -- (1,0); \draw[{Latex[length=2mm]}-] (0,1) -- (1,1);",
     ["arrows.meta"], []),
    (r"\draw (a) -- ($(a)!0.5!(b)$);", ["calc"], []),
    (r"\node[diamond, draw] {x}; \node[shape=trapezium] {y};", ["shapes.geometric"], []),
    (r"\draw[decorate, decoration={zigzag, amplitude=2pt}] (0,0) -- (2,0);",
     ["decorations.pathmorphing"], []),
    (r"\draw[decorate, decoration={brace, mirror}] (0,0) -- (2,0);",
     ["decorations.pathreplacing"], []),
    (r"\matrix (m) [matrix of nodes] {a & b \\};", ["matrix"], []),
    (r"\draw (0,0) to[R=$R_1$] (2,0); \ctikzset{bipoles/length=1cm}", [], ["circuitikz"]),
    (r"\begin{tikzcd} A \arrow[r] & B \end{tikzcd}", [], ["tikz-cd"]),
    (r"\begin{axis}\addplot {x^2};\end{axis}", [], ["pgfplots"]),
    (r"\fill[pattern=north east lines] (0,0) rectangle (1,1);", ["patterns"], []),
    # nothing special: core TikZ alone
    (r"\draw[->, thick, red] (0,0) -- node[above] {x} (1,0) circle (2pt);", [], []),
    (r"\draw[-latex] (0,0) -- (1,0); \node[right=2pt] at (0,0) {a};", [], []),
])
def test_a_picture_gets_what_its_names_need(picture, libraries, packages):
    got = _needs(picture)
    assert list(got.libraries) == libraries and list(got.packages) == packages, got.why


def test_only_what_the_document_lacks_is_added():
    pic = r"\node[state, diamond] (a) {}; \node[right=of a] {}; \draw[-Stealth] (a) -- (b);"
    assert set(_needs(pic).libraries) == {"automata", "shapes.geometric", "positioning",
                                          "arrows.meta"}
    # shapes loads shapes.geometric; tikz-cd brings arrows.meta through its library
    loaded = loaded_by([r"\usepackage{tikz}", r"\usetikzlibrary{automata,shapes,positioning}",
                        r"\usepackage{tikz-cd}"])
    assert _needs(pic, loaded) == Needs()


def test_names_the_picture_defines_itself_are_its_own():
    """A style named like a library key, a \\foreach variable named like a package's macro:
    the picture's own, nothing is added."""
    assert _needs(r"\begin{tikzpicture}[state/.style={circle,draw}]\node[state]{};"
                  r"\end{tikzpicture}") == Needs()
    assert _needs(r"\node[state]{};", defined=["state"]) == Needs()
    assert _needs(r"\foreach \qw in {1,2} \node at (\qw,0) {\qw};") == Needs()
    assert _needs(r"\pgfmathsetmacro\lstick{2}\draw (0,0) -- (\lstick,0);") == Needs()


def test_options_are_read_as_the_keys_of_whom_they_belong_to():
    """An axis's options are pgfplots' keys, tikz-cd's \\arrow[r] tikz-cd's, a \\foreach's
    its own: a package that defines a TikZ key of the same name (``grid``, ``r``, ``view``,
    ``evaluate``) is not what they ask for."""
    assert _needs(r"\begin{axis}[grid=major, view={60}{30}, xmin=0]\addplot {x};"
                  r"\end{axis}", ["package:tikz", "package:pgfplots"]) == Needs()
    assert _needs(r"\begin{tikzcd} A \arrow[r] \arrow[d] & B \end{tikzcd}",
                  ["package:tikz", "package:tikz-cd"]) == Needs()
    assert _needs(r"\foreach \x [evaluate=\x as \y using \x*2] in {1,2} \fill (\y,0) "
                  r"circle (1pt);") == Needs()
    # a decoration's own keys are not TikZ keys either (mirror: a brace's side)
    assert _needs(r"\draw[decorate, decoration={brace, mirror, raise=2pt}] (0,0) -- (1,0);"
                  ).libraries == ("decorations.pathreplacing",)


def test_a_short_word_names_a_package_only_with_another_of_its_names():
    """A package's key or shape called ``point`` or ``r`` is no evidence alone; circuitikz's
    ``R`` and ``C`` together are."""
    assert _needs(r"\draw (0,0) to[R=$R_1$] (2,0);") == Needs()
    assert _needs(r"\draw (0,0) to[R=$R_1$] (2,0) to[C=$C_1$] (2,2);").packages == (
        "circuitikz",)
    assert _needs(r"\node at (0,0) {Frame\\of Reference};") == Needs()  # \\ then "of"


def test_a_name_what_is_loaded_serves_is_not_given_to_another_file():
    """circuitikz draws ``node[ground]`` as its shape: circuits.ee's key of the same name
    would change it."""
    pic = r"\draw (0,0) to[R] (0,-1) node[ground] {};"
    assert _needs(pic, ["package:tikz", "package:circuitikz"]) == Needs()


def test_a_library_an_added_one_loads_is_not_added_twice():
    """automata loads shapes.multipart itself: circle split comes with it."""
    got = _needs(r"\node[state with output] {a \nodepart{lower} b}; \node[circle split] {};")
    assert got.libraries == ("automata",)


def _kpse(name: str) -> str:
    return subprocess.run(["kpsewhich", name], capture_output=True, text=True).stdout.strip()


@needs_tex
def test_the_table_is_the_tex_live_installed_here():
    """Versioned with TeX Live: a table made from another TeX Live is regenerated
    (``diagramforge tikz-table``) before it is trusted."""
    from diagramforge.formats.tikz.texcompile import tex_version

    assert table().tex == tex_version("lualatex")


DECLARED = {
    "shape": r"\\pgfdeclareshape\s*\{([^{}#\\]+)\}",
    "decoration": r"\\pgfdeclaredecoration\s*\{([^{}#\\]+)\}",
    "arrow": r"\\pgfdeclarearrow\s*\{\s*name\s*=\s*([^,{}#\\-]+?)\s*,",
    "pattern": r"\\pgfdeclarepattern(?:formonly|inherentlycolored)?\s*(?:\[[^\]]*\]\s*)?"
               r"\{([^{}#\\]+)\}",
    "key": r"(?m)^\s*\\(?:tikzoption\s*\{([^{}#\\]+)\}|tikzset\s*\{\s*([A-Za-z][A-Za-z ]*?)"
           r"/\.(?:style|code)\s*=)",
}


@needs_tex
@pytest.mark.parametrize("kind", sorted(DECLARED))
def test_what_pgf_libraries_declare_in_so_many_words_has_its_row(kind):
    """Read PGF's library files as text, independently of the generator (which asks TeX):
    every shape, decoration, arrow tip, pattern and key a ``tikzlibrary``/``pgflibrary``
    file declares in so many words has its row, naming that library — a key TikZ itself
    defines too (``topaths``' ``bend left``, ``positioning``'s ``above``) has none, and no
    row names another library."""
    root = Path(_kpse("tikz.code.tex")).parents[2]
    exact = none = 0
    wrong = []
    for f in sorted(root.rglob("*library*.code.tex")):
        m = re.fullmatch(r"(?:tikz|pgf)library(.+)\.code\.tex", f.name)
        if not m:
            continue
        for groups in re.findall(DECLARED[kind], f.read_text(errors="replace")):
            name = (groups if isinstance(groups, str) else next(g for g in groups if g)).strip()
            got = table().rows.get(kind, {}).get(name)
            if got == f"library:{m.group(1)}":
                exact += 1
            elif got is None:
                none += 1
            else:
                wrong.append((name, m.group(1), got))
    assert not wrong
    assert exact >= 15 and (none == 0 if kind != "key" else exact >= 0.85 * (exact + none))


def _snippet_record(code: str) -> dict:
    (rec,) = [r for r in extract_paper(as_document(code, ExtractParams()).encode(),
                                       {"id": "se", "version": "1", "authors": "[]"},
                                       ExtractParams()).records]
    return rec


AUTOMATON = r"""\begin{tikzpicture}[shorten >=1pt, node distance=2cm, auto]
\node[state, initial, ball color=black, text=white] (q0) {$q_0$};
\node[state, accepting, ball color=black, text=white] (q1) [right=of q0] {$q_1$};
\path[->] (q0) edge node {a} (q1) (q1) edge[loop above] node {b} ();
\end{tikzpicture}
"""


def test_a_snippet_records_what_was_added_and_its_ladder_ends_as_posted():
    rec = _snippet_record(AUTOMATON)
    meta = json.loads(rec["meta"])
    assert meta["added_libraries"] == ["automata", "positioning"]
    assert meta["added_for"] == {"automata": "key state", "positioning": "syntax of"}
    assert r"\usetikzlibrary{automata,positioning}" in rec["code"]
    assert rec["code"].index(r"\usepackage{tikz}") < rec["code"].index(r"\usetikzlibrary")
    # the last rung is the snippet as it was posted, nothing added
    last = meta["ladder"][-1]
    assert last["mode"] == "source" and "usetikzlibrary" not in last["document"]
    assert "added_libraries" not in last


def test_a_snippet_that_needs_nothing_is_compiled_as_posted():
    rec = _snippet_record(r"\usetikzlibrary{automata,positioning}" + "\n" + AUTOMATON)
    meta = json.loads(rec["meta"])
    assert "added_libraries" not in meta and "added_packages" not in meta
    assert rec["code"].count("usetikzlibrary") == 1


@needs_tex
def test_the_posted_snippets_render_with_what_they_need():
    """The issue's three TeX.SE answers: 0 of 3 rendered; each renders now."""
    from diagramforge.formats.tikz.handler import standalone
    from diagramforge.formats.tikz.texcompile import TexCompiler

    quantikz = (r"\begin{quantikz}" "\n"
                r"\lstick{$\ket{0}$} & \gate{H} & \ctrl{1} & \qw \\" "\n"
                r"\lstick{$\ket{0}$} & \qw & \targ{} & \qw" "\n" r"\end{quantikz}")
    recs = [_snippet_record(AUTOMATON), _snippet_record(quantikz)]
    assert json.loads(recs[1]["meta"])["added_packages"] == ["quantikz"]
    results = TexCompiler(timeout_s=20).compile_many([standalone(r) for r in recs])
    assert [r.ok for r in results] == [True, True], [r.error for r in results]


def test_a_picture_compiled_as_posted_says_nothing_was_added(tmp_path, monkeypatch):
    """When only the ladder's last rung compiles (the snippet as posted), the record is
    that document and its meta no longer claims the loads of the first."""
    from diagramforge.formats.tikz.handler import TikzFormat, rungs
    from diagramforge.formats.tikz.texcompile import CompileResult
    from tests.conftest import make_params

    rec = _snippet_record(AUTOMATON)
    fmt = TikzFormat(make_params(tmp_path), lambda r: r["source_id"])
    last = len(rungs(rec, json.loads(rec["meta"]))) - 1
    monkeypatch.setattr(fmt.compiler(), "compile_ladders",
                        lambda plans, size: [(CompileResult(True, pdf=b"%PDF"), last)])
    (row,), _ = fmt._ladder([rec])
    meta = json.loads(row["meta"])
    assert meta["preamble_mode"] == "source" and "usetikzlibrary" not in row["code"]
    assert not {"added_libraries", "added_packages", "added_for"} & set(meta)


def test_the_extract_stage_is_keyed_by_the_tex_live_of_the_table(tmp_path, monkeypatch,
                                                                 caplog):
    """The stage's environment names the table's TeX Live beside the installed one (a
    change of either re-extracts), and a table made from another TeX Live says so."""
    import dataclasses

    import diagramforge.builders.extract.stage as stage_mod
    import diagramforge.formats.tikz.paper as paper_mod
    from tests.conftest import make_params

    stage = stage_mod.ExtractStage(make_params(tmp_path))
    monkeypatch.setattr(paper_mod, "tex_version", lambda: table().tex)
    env = stage.environment()
    assert env == {"tex": table().tex, "tikz_table": table().tex} and not caplog.records
    other = dataclasses.replace(table(), tex="pdfTeX 3.14 (TeX Live 2019)")
    monkeypatch.setattr(paper_mod, "table", lambda: other)
    with caplog.at_level("WARNING"):
        assert stage.environment()["tikz_table"] == other.tex
    assert "diagramforge tikz-table" in caplog.text


def test_plot_handlers_own_patterns_and_two_letter_macros():
    """Classes the snippet benchmark found left (real figures cut to their pictures):
    ``\\addplot fill between`` is a handler, not a key, and needs pgfplots' fillbetween;
    a pattern of the document's own still needs TikZ's patterns library for the ``pattern``
    key; physics' ``\\vb`` is two letters — evidence in a posted snippet, not in a
    document that loads a package the table does not know (it may define ``\\vb``)."""
    fill = (r"\begin{axis}\addplot[name path=f] {x^2}; \addplot[name path=g] {x};"
            r"\addplot fill between[of=f and g];\end{axis}")
    got = _needs(fill)
    assert got.packages == ("pgfplots",) and got.plot_libraries == ("fillbetween",), got.why
    own = r"\fill[pattern=flexible hatch, pattern color=red] (0,0) rectangle (1,1);"
    assert _needs(own).libraries == ("patterns",)
    assert _needs(own, [*PLAIN, "library:patterns.meta"]) == Needs()
    vec = r"\draw[->] (0,0) -- (1,0) node[right] {$\vb{F}$};"
    assert _needs(vec).packages == ("physics",)
    assert _needs(vec, [*PLAIN, "package:mypaperstyle"]) == Needs()
    quoted = r'\draw (0,0) to["Energy", sloped] (2,1) node["$x$" above] {};'
    assert _needs(quoted).libraries == ("quotes",)
    assert _needs(r'\node[label={[red]above:x}] {a};') == Needs()
