import json

from diagramforge.builders.extract.settings import ExtractParams
from diagramforge.formats.tikz.extract import extract_paper
from tests.conftest import SAMPLES


def paper(pid: str, version: str = "1", **kw) -> tuple[bytes, dict]:
    path = next((SAMPLES / "arxiv" / "src").glob(f"{pid}v{version}*"))
    row = {"id": pid, "version": version, "title": "T", "authors": json.dumps(["A B"]),
           "licence": "CC-BY-4.0", "licence_url": "u", **kw}
    return path.read_bytes(), row


def test_inputs_flattened_captions_and_context():
    ex = extract_paper(*paper("2401.00101"), ExtractParams())
    assert ex.rejections == []
    pipe, attn = ex.records
    assert pipe["source_id"] == "2401.00101v1/sections/intro.tex#1"
    assert attn["source_id"] == "2401.00101v1/figures/attention.tex#2"
    assert pipe["caption"] == "The processing pipeline from input to output."
    assert pipe["label"] == "fig:pipeline"
    assert "Our pipeline is shown in Figure" in pipe["context"]
    assert pipe["group"] == "arxiv:2401.00101" and pipe["licence"] == "CC-BY-4.0"
    code = pipe["code"]
    for needed in (r"\vect", r"\R", r"\definecolor{accent}", "block/.style", "arrow/.style",
                   r"\usetikzlibrary"):
        assert needed in code
    for unused in ("unusedgreen", "unusedmacro", "unusedstyle"):
        assert unused not in code
    assert "diamond" in attn["code"] and "Expert 1" in attn["code"]


def test_one_paper_many_figures():
    ex = extract_paper(*paper("2401.00102", "2"), ExtractParams())
    assert [r["label"] for r in ex.records] == ["fig:tree", "fig:flow", "fig:net", "fig:venn"]
    net = ex.records[2]
    assert r"\newcommand{\neuron}" in net["code"] and r"\def\nlayers" not in net["code"]
    assert r"\tikzstyle{box}" in ex.records[0]["code"]


def test_include_subfile_import_paper():
    ex = extract_paper(*paper("2401.00110"), ExtractParams())
    assert [r["label"] for r in ex.records] == ["fig:curve", "fig:bars"]
    assert r"\lossname" in ex.records[0]["code"] and "pgfplots" in ex.records[0]["code"]
    assert ex.records[0]["source_id"].endswith("chapters/figs/curve.tex#1")


def test_single_file_eprint_and_tikz_command():
    ex = extract_paper(*paper("2401.00107"), ExtractParams())
    envs = [json.loads(r["meta"])["env"] for r in ex.records]
    assert envs == ["tikz", "tikzpicture"]
    assert r"\tikzstyle{every state}" in ex.records[1]["code"]


def test_unavailable_package_is_dropped_and_listed():
    ex = extract_paper(*paper("2401.00108"), ExtractParams())
    meta = json.loads(ex.records[0]["meta"])
    assert meta["dropped_packages"] == ["nonexistentfancypkg"]
    assert "nonexistentfancypkg" not in ex.records[0]["code"]


def test_bad_papers_get_reasons():
    for pid, reason in [("2401.00112", "archive_unsafe_member"),
                        ("2401.00114", "archive_ratio_exceeded"),
                        ("2401.00113", "no_diagrams")]:
        ex = extract_paper(*paper(pid), ExtractParams())
        assert ex.records == [] and [r.reason for r in ex.rejections] == [reason], pid


def test_small_pictures_are_candidate_rejections():
    params = ExtractParams(tikz={"min_chars": 60})
    ex = extract_paper(*paper("2401.00107"), params)
    assert len(ex.records) == 1
    assert [(r.reason, r.unit) for r in ex.rejections] == [("picture_too_small", "candidate")]


def _tar(files: dict[str, str]) -> bytes:
    import gzip
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(buf.getvalue(), mtime=0)


PIC = (r"\begin{tikzpicture}\node[draw] (a) {A}; \node[draw,right=of a] (b) {B};"
       r"\draw[->] (a) -- (b);\end{tikzpicture}")
ROW = {"id": "2401.99999", "version": "1", "authors": "[]", "licence": "CC-BY-4.0"}


def _compiles(records) -> list[bool]:
    from diagramforge.formats.tikz.pictures import Standalone
    from diagramforge.formats.tikz.texcompile import TexCompiler

    docs = [Standalone(json.loads(r["meta"])["blocks"], json.loads(r["meta"])["body"])
            for r in records if r["format"] == "tikz"]
    return [r.ok for r in TexCompiler(timeout_s=10).compile_many(docs)]


def test_commented_verbatim_and_standalone_inputs():
    main = (r"\documentclass{article}\usepackage{standalone}\usepackage{tikz}"
            "\\usetikzlibrary{positioning}\n\\begin{document}\n% \\begin{lstlisting}\n"
            r"\begin{figure}\input{fig1}\caption{One}\end{figure}"
            "\n\\begin{lstlisting}\nx\n\\end{lstlisting}\n"
            r"\begin{figure}\input{fig2}\caption{Two}\end{figure}\end{document}")
    fig = (r"\documentclass{standalone}\usepackage{tikz}\usetikzlibrary{positioning}"
           r"\begin{document}" + PIC + r"\end{document}")
    ex = extract_paper(_tar({"main.tex": main, "fig1.tex": fig, "fig2.tex": fig.replace(
        "{A}", "{Z}")}), ROW, ExtractParams())
    assert [r["caption"] for r in ex.records] == ["One", "Two"]


def test_body_styles_class_colours_pgfmath_functions_and_local_sty_travel():
    import shutil

    main = r"""\documentclass[dvipsnames]{article}
\usepackage{tikz}\usepackage{mymacros}
\pgfmathdeclarefunction{double}{1}{\pgfmathparse{2*#1}}
\begin{document}
\begin{figure}\tikzstyle{box}=[draw, fill=blue!10]
\begin{tikzpicture}\node[box] {styled in the body};\end{tikzpicture}\end{figure}
\begin{tikzpicture}\node[draw, text=ForestGreen] {class option colour};\end{tikzpicture}
\begin{tikzpicture}\draw (0,0) -- ({double(1)},1) node {pgfmath function};\end{tikzpicture}
\begin{tikzpicture}\node {\mylabel{local macro}};\end{tikzpicture}
\end{document}"""
    sty = ("\\ProvidesPackage{mymacros}\n\\newcommand{\\my@fmt}[1]{\\textbf{#1}}\n"
           "\\newcommand{\\mylabel}[1]{\\my@fmt{#1}}\n")
    ex = extract_paper(_tar({"main.tex": main, "mymacros.sty": sty}), ROW, ExtractParams())
    assert len(ex.records) == 4
    codes = [r["code"] for r in ex.records]
    assert r"\tikzstyle{box}" in codes[0]
    assert r"\PassOptionsToPackage{dvipsnames}{xcolor}" in codes[1]
    assert r"\pgfmathdeclarefunction{double}" in codes[2]
    assert r"\newcommand{\mylabel}" in codes[3] and "mymacros" not in codes[3]
    assert "\\makeatletter\n\\newcommand{\\my@fmt}" in codes[3]
    if shutil.which("pdflatex"):
        assert _compiles(ex.records) == [True] * 4


def test_a_paper_whose_pictures_are_all_refused_is_itself_rejected():
    main = (r"\documentclass{article}\usepackage{tikz}\begin{document}"
            r"\tikz\draw (0,0)--(1,0);\end{document}")
    ex = extract_paper(_tar({"main.tex": main}), ROW, ExtractParams())
    assert ex.records == []
    assert [(r.reason, r.unit) for r in ex.rejections] == [
        ("picture_too_small", "candidate"), ("no_diagrams", "input")]


def _meta(rec: dict) -> dict:
    return json.loads(rec["meta"])


def test_real_corpus_classes_extract_with_their_definitions():
    """Sample O reproduces the preamble classes that lost a fifth of a real corpus."""
    ex = extract_paper(*paper("2401.00115"), ExtractParams())
    assert ex.rejections == []
    wires, balls, axes, feyn, net, plot = ex.records
    # class options reach xcolor before anything loads it
    assert wires["code"].index(r"\PassOptionsToPackage{svgnames,dvipsnames}{xcolor}") < \
        wires["code"].index(r"\usepackage{tikz}")
    # a /.cd path keeps its statement whole; names with + and - are found
    assert "pics/.cd,\n  cell/.style" in wires["code"]
    assert r"\tikzstyle{wire+}" in wires["code"] and r"\tikzstyle{wire-}" in wires["code"]
    assert wires["caption"] == "Wires and cells in named colours."  # no \label in it
    assert wires["label"] == "fig:wires"
    for needed in (r"\newcounter{ballcount}", r"\pgfmathdeclarerandomlist{hues}",
                   r"\pgfdeclareradialshading{glow}", r"\tikzfading[name=fade right"):
        assert needed in balls["code"], needed
    assert r"\tikzstyle{wire+}" not in balls["code"]  # still minimal
    # body-level setup made before the picture is in its minimal document too (a picture
    # in tdplot_main_coords means the main coordinates set above it), and on the ladder
    assert axes["code"].index(r"\tdplotsetmaincoords{70}{110}") < axes["code"].index(
        r"\begin{tikzpicture}")
    rungs = _meta(axes)["ladder"]
    assert [g["mode"] for g in rungs] == ["preamble", "setup", "source"]
    assert rungs[1]["body"].startswith(r"\tdplotsetmaincoords{70}{110}")
    # the last rung is the paper's own document: its class, preamble, setup, picture
    assert rungs[2]["document"].startswith(r"\documentclass")
    assert rungs[2]["document"].index(r"\tdplotsetmaincoords{70}{110}") > rungs[2][
        "document"].index(r"\begin{document}")
    assert _meta(feyn)["env"] == "feynmandiagram" and feyn["code"].rstrip().endswith(
        "\\end{document}") and "};" in feyn["code"]
    assert _meta(net)["env"] == "neuralnetwork"
    # the data file travels inside the code
    assert "\\begin{filecontents*}[overwrite]{loss.csv}\nepoch,loss\n1,2.31" in plot["code"]


def test_a_standalone_document_is_taken_page_by_page():
    ex = extract_paper(*paper("2401.00116"), ExtractParams())
    (page,) = ex.records
    assert _meta(page)["env"] == "page"
    assert r"\begin{tabular}" in page["code"] and r"\newcommand\tikzmark" in page["code"]


def test_code_that_reaches_outside_the_picture_is_rejected_unless_kept():
    ex = extract_paper(*paper("2401.00109"), ExtractParams())
    reasons = sorted(r.detail for r in ex.rejections if r.reason == "unsafe_code")
    assert reasons == ["input outside the document", "shell escape, file write"]
    kept = extract_paper(*paper("2401.00109"), ExtractParams(tikz={"keep_unsafe": True}))
    assert sorted(_meta(r).get("unsafe", []) != [] for r in kept.records) == [False, True, True]


def _tar_bytes(files: dict[str, bytes]) -> bytes:
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _render(rec: dict):  # noqa: ANN202 - RasterResult
    """Compile the record as the render stage does (its assets beside it) and rasterise."""
    from diagramforge.formats.rasterize import rasterize_pdf
    from diagramforge.formats.tikz.handler import standalone
    from diagramforge.formats.tikz.texcompile import TexCompiler

    (res,) = TexCompiler(timeout_s=20).compile_many([standalone(rec)])
    assert res.ok, res.error
    return rasterize_pdf(res.pdf, dpi=72, margin_pt=2, min_side=8, max_side=4096,
                         max_aspect=20, min_ink=0.001)


GAUSS = r"""\documentclass{article}
\usepackage{pgfplots}\pgfplotsset{compat=1.10}
\pgfmathdeclarefunction{gauss}{2}{%
  \pgfmathparse{1/(sqrt(2*pi*#2))*exp(-((x-#1)^2)/(2*#2))}%
}
\begin{document}
\begin{tikzpicture}\begin{axis}[width=6cm,height=4cm]
\addplot[domain=0:120,samples=150] {gauss(60,100)};
\end{axis}\end{tikzpicture}
\end{document}
"""


def test_a_comment_that_guards_a_line_end_keeps_guarding_it():
    """`{%` in a function body keeps a space out of every evaluation: with the comment
    stripped whole, 150 samples typeset 150 spaces and the plot left the page (blank)."""
    (rec,) = extract_paper(_tar_bytes({"main.tex": GAUSS.encode()}), ROW,
                           ExtractParams()).records
    # the guarded line ends are joined, as TeX reads them
    assert "gauss}{2}{\\pgfmathparse{" in rec["code"] and "%" not in rec["code"]
    ras = _render(rec)
    assert ras.png is not None, ras.detail
    assert ras.width < 400  # 6 cm wide, not pushed a page-width to the right


def test_precomputed_gnuplot_tables_travel_with_the_picture():
    main = (r"\documentclass{article}\usepackage{pgfplots}\pgfplotsset{compat=1.10}"
            "\n\\begin{document}\n\\begin{tikzpicture}\\begin{axis}\n"
            "\\addplot gnuplot[raw gnuplot] {plot sin(x)};\n"
            "\\addplot gnuplot[id=cosine] {cos(x)};\n\\end{axis}\\end{tikzpicture}\n"
            "\\end{document}\n")
    table = "\n".join(f"{x} {x * x % 7}" for x in range(10)).encode()
    files = {"fig.tex": main.encode(), "fig.pgf-plot.table": table,
             "fig.cosine.table": table.replace(b" ", b"  "), "other.pgf-plot.table": b"9 9"}
    (rec,) = extract_paper(_tar_bytes(files), ROW, ExtractParams()).records
    assert r"\tikzset{prefix=gnuplot-" in rec["code"]
    assert rec["code"].count("\\begin{filecontents*}") == 2  # its own tables, not other.*
    assert _render(rec).png is not None


def test_included_images_travel_with_the_picture_and_only_from_inside_the_archive():
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (40, 20), (200, 30, 30)).save(buf, "PNG")
    main = (r"\documentclass{article}\usepackage{tikz}\usepackage{graphicx}"
            r"\graphicspath{{figs/}}"
            "\n\\begin{document}\n\\begin{tikzpicture}\n"
            r"\node (a) {\includegraphics[width=1cm]{road}};"
            r"\node[right=2cm] {\includegraphics{../secret.png}};"
            "\n\\draw (a) -- ++(1,0);\n\\end{tikzpicture}\n\\end{document}\n")
    files = {"paper/main.tex": main.encode(), "paper/figs/road.png": buf.getvalue(),
             "secret.png": buf.getvalue()}
    (rec,) = extract_paper(_tar_bytes(files), ROW, ExtractParams()).records
    assert sorted(_meta(rec)["assets"]) == ["road.png"]  # ../secret.png is not carried
    too_small = ExtractParams(tikz={"max_asset_bytes": 10})
    (bare,) = extract_paper(_tar_bytes(files), ROW, too_small).records
    assert "assets" not in _meta(bare)
    # the secret stays missing, so the picture with it fails; without it, it compiles
    from diagramforge.formats.tikz.handler import standalone
    from diagramforge.formats.tikz.texcompile import TexCompiler

    (res,) = TexCompiler(timeout_s=20).compile_many([standalone(rec)])
    assert not res.ok and "secret.png" in (res.error or "")
    ok = {**rec, "meta": rec["meta"].replace(r"\\includegraphics{../secret.png}", "x")}
    assert "secret" not in json.loads(ok["meta"])["body"]
    assert _render(ok).png is not None


def test_implicit_styles_set_with_guarded_line_ends_reach_the_picture():
    """`\\tikzset{%` with `every node/.style` on the next line: with a `%` left in front of
    the key, the style was taken for an unused named style and dropped."""
    main = ("\\documentclass{article}\\usepackage{tikz}\n\\begin{document}\n"
            "\\tikzset{%\n    every node/.style={draw,circle,inner sep=1pt},%\n"
            "    every path/.style={red},%\n    unused/.style={blue}%\n}\n"
            "\\begin{tikzpicture}\\node (a) {A}; \\node at (1,0) (b) {B};"
            " \\draw (a) -- (b);\\end{tikzpicture}\n\\end{document}\n")
    (rec,) = extract_paper(_tar_bytes({"main.tex": main.encode()}), ROW,
                           ExtractParams()).records
    assert "every node/.style={draw,circle,inner sep=1pt}" in rec["code"]
    assert "every path/.style={red}" in rec["code"] and "unused" not in rec["code"]
