"""PDFs whose figure boxes and captions are known: ground truth for the detector.

Each figure's content is wrapped in ``\\gtbox{name}{...}``, which records the box's
position with pdfTeX's ``\\pdfsavepos`` and writes ``name,x,y,wd,ht,dp,page`` to
``<job>.gt`` at shipout (so the numbers are where the float really landed).  Positions
are TeX sp from the bottom-left; they are converted to PDF points from the top-left,
PyMuPDF's convention.  Sub-figures share a figure name and their boxes are united.
"""

from __future__ import annotations

import io
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from diagramforge.builders.pdffigures.model import BBox
from diagramforge.formats.tikz.texcompile import tex_env

SP_PER_BP = 65536 * 72.27 / 72

GTBOX = r"""
\newwrite\gtout\immediate\openout\gtout=\jobname.gt
\newcommand{\gtbox}[2]{\sbox0{#2}\leavevmode\pdfsavepos
  \edef\gtdo{\write\gtout{#1,\noexpand\the\pdflastxpos,\noexpand\the\pdflastypos,%
    \number\wd0,\number\ht0,\number\dp0,\noexpand\thepage}}\gtdo\usebox0}
"""

FLOW = r"""\begin{tikzpicture}[node distance=14mm, every node/.style={draw, minimum height=7mm}]
\node (a) {Load}; \node[right=of a] (b) {Clean}; \node[right=of b] (c) {Train};
\draw[->] (a) -- (b); \draw[->] (b) -- (c);\end{tikzpicture}"""
TREE = r"""\begin{tikzpicture}[level distance=11mm, sibling distance=20mm,
every node/.style={draw, circle}] \node {r} child {node {a} child {node {c}}}
child {node {b}};\end{tikzpicture}"""
CYCLE = r"""\begin{tikzpicture}\foreach \i in {0,...,4} \node[draw, circle] (n\i) at
(\i*72:1.3) {\i}; \foreach \i [evaluate=\i as \j using {int(mod(\i+1,5))}] in {0,...,4}
\draw[->] (n\i) -- (n\j);\end{tikzpicture}"""

PREAMBLE = r"""\usepackage{tikz}\usetikzlibrary{positioning}\usepackage{graphicx}
\usepackage{lipsum}\usepackage{subcaption}"""

DOCS: dict[str, str] = {
    # a TikZ figure, caption below (three lines long); a second one; references
    "vector_below": r"""\documentclass{article}""" + PREAMBLE + GTBOX + r"""
\begin{document}\section{Intro}
Our pipeline is shown in Figure~\ref{fig:flow}. \lipsum[1]
\begin{figure}[h]\centering\gtbox{f1}{""" + FLOW + r"""}
\caption{The processing pipeline. Data is loaded, cleaned and used for training; this
caption is deliberately long so that it runs over more than one line of text in the
final document, as real captions often do.}\label{fig:flow}\end{figure}
\lipsum[2] Both drawings, Figs.~\ref{fig:flow} and~\ref{fig:tree}, are vector art.
\begin{figure}[h]\centering\gtbox{f2}{""" + TREE + r"""}
\caption{A small tree.}\label{fig:tree}\end{figure}
\lipsum[3]\end{document}""",
    # an included PNG with the caption above; a table (not a figure)
    "raster_above": r"""\documentclass{article}""" + PREAMBLE + GTBOX + r"""
\begin{document}\section{Data}
The photo in Fig.~\ref{fig:photo} was taken at noon. \lipsum[1]
\begin{figure}[h]\centering\caption{A raster picture with its caption above.}
\label{fig:photo}\gtbox{f1}{\includegraphics[width=6cm]{photo.png}}\end{figure}
\lipsum[2]
\begin{table}[h]\centering\caption{Numbers, not a figure.}\begin{tabular}{|l|r|}\hline
a & 1\\\hline b & 2\\\hline\end{tabular}\end{table}
\lipsum[3]\end{document}""",
    # two figures on one page, stacked floats: vector then raster
    "two_per_page": r"""\documentclass{article}""" + PREAMBLE + GTBOX + r"""
\begin{document}\section{Two}
Figure~\ref{fig:cyc} shows a cycle and Figure~\ref{fig:img} a picture. \lipsum[1]
\begin{figure}[t]\centering\gtbox{f1}{""" + CYCLE + r"""}
\caption{A directed cycle of five nodes.}\label{fig:cyc}\end{figure}
\begin{figure}[t]\centering\gtbox{f2}{\includegraphics[width=5cm]{photo.png}}
\caption{The same picture again, below the cycle.}\label{fig:img}\end{figure}
\lipsum[2-3]\end{document}""",
    # two columns, "Fig. N." captions, one per column and a wide one with sub-figures
    "two_column": r"""\documentclass[twocolumn]{article}""" + PREAMBLE + r"""
\usepackage[labelsep=period]{caption}\renewcommand{\figurename}{Fig.}""" + GTBOX + r"""
\begin{document}\section{Columns}
As Fig.~\ref{fig:left} shows, flows are simple. \lipsum[1]
\begin{figure}[h]\centering\gtbox{f1}{\resizebox{0.9\linewidth}{!}{""" + FLOW + r"""}}
\caption{A flow in the left column.}\label{fig:left}\end{figure}
\lipsum[2-4] The photo (Fig.~\ref{fig:right}) and the panels in Figs.~\ref{fig:wide}
are discussed next.
\begin{figure}[h]\centering\gtbox{f2}{\includegraphics[width=0.8\linewidth]{photo.png}}
\caption{A photo in a column.}\label{fig:right}\end{figure}
\lipsum[5-6]
\begin{figure*}[t]\centering
\begin{subfigure}{0.45\textwidth}\centering\gtbox{f3}{""" + TREE + r"""}
\caption{Tree}\end{subfigure}
\begin{subfigure}{0.45\textwidth}\centering\gtbox{f3}{""" + CYCLE + r"""}
\caption{Cycle}\end{subfigure}
\caption{Two panels under one caption.}\label{fig:wide}\end{figure*}
\lipsum[7-9]\end{document}""",
}

PLOT = r"""\begin{tikzpicture}\begin{axis}[width=7cm, height=4.5cm, xlabel={epoch},
ylabel={loss}]\addplot coordinates {(0,3) (1,2) (2,1.5) (3,1.2) (4,1.1)};
\end{axis}\end{tikzpicture}"""
BOXES = r"""\begin{tikzpicture}\draw (0,0) rectangle (1.6,1); \draw (2,0) rectangle (3.6,1);
\draw[->] (1.6,.5) -- (2,.5);\end{tikzpicture}"""

DOCS.update({
    # two figures side by side in one float, each with its own caption
    "side_by_side": r"""\documentclass{article}""" + PREAMBLE + GTBOX + r"""
\begin{document}\section{Pairs}
Compare Figure~\ref{fig:l} with Figure~\ref{fig:r}. \lipsum[1]
\begin{figure}[h]\centering
\begin{minipage}{0.45\textwidth}\centering\gtbox{f1}{""" + TREE + r"""}
\caption{Left tree.}\label{fig:l}\end{minipage}\hfill
\begin{minipage}{0.45\textwidth}\centering\gtbox{f2}{""" + BOXES + r"""}
\caption{Right boxes.}\label{fig:r}\end{minipage}\end{figure}
\lipsum[2]\end{document}""",
    # a 2x2 grid of panels under one caption
    "grid": r"""\documentclass{article}""" + PREAMBLE + GTBOX + r"""
\begin{document}\section{Grid}
The four panels of Figure~\ref{fig:grid} differ. \lipsum[1]
\begin{figure}[h]\centering
\begin{subfigure}{0.4\textwidth}\centering\gtbox{f1}{""" + TREE + r"""}\caption{One}
\end{subfigure}\begin{subfigure}{0.4\textwidth}\centering\gtbox{f1}{""" + BOXES + r"""}
\caption{Two}\end{subfigure}\\[4mm]
\begin{subfigure}{0.4\textwidth}\centering\gtbox{f1}{""" + CYCLE + r"""}\caption{Three}
\end{subfigure}\begin{subfigure}{0.4\textwidth}\centering\gtbox{f1}{""" + FLOW + r"""}
\caption{Four}\end{subfigure}
\caption{Four panels in a grid.}\label{fig:grid}\end{figure}
\lipsum[2]\end{document}""",
    # a pgfplots plot (labels outside the axis), bold label, then a booktabs table
    "plot_table": r"""\documentclass{article}""" + PREAMBLE + r"""\usepackage{pgfplots}
\pgfplotsset{compat=1.18}\usepackage{booktabs}\usepackage[labelfont=bf]{caption}""" + GTBOX
    + r"""\begin{document}\section{Training}
Figure~\ref{fig:plot} plots the loss; Table~\ref{tab:t} lists it. \lipsum[1]
\begin{figure}[h]\centering\gtbox{f1}{""" + PLOT + r"""}
\caption{Training loss per epoch.}\label{fig:plot}\end{figure}
\begin{table}[h]\centering\caption{Loss values.}\label{tab:t}
\begin{tabular}{lr}\toprule epoch & loss\\\midrule 0 & 3.0\\ 4 & 1.1\\\bottomrule
\end{tabular}\end{table}
\lipsum[2]\end{document}""",
    # a figure made of text only: no graphics for the geometry, only the layout model
    "text_figure": r"""\documentclass{article}""" + PREAMBLE + GTBOX + r"""
\begin{document}\section{Algorithm}
The steps are listed in Figure~\ref{fig:alg}. \lipsum[1]
\begin{figure}[h]\centering\gtbox{f1}{\small\begin{tabular}{@{}l@{}}\texttt{for each batch:}
\\\texttt{\ \ loss = model(batch)}\\\texttt{\ \ loss.backward()}\\
\texttt{\ \ step()}\end{tabular}}
\caption{Training loop as text.}\label{fig:alg}\end{figure}
\lipsum[2]\end{document}""",
})

CAPTIONS: dict[str, dict[str, tuple[str, str]]] = {
    "side_by_side": {"f1": ("Figure 1", "Left tree."), "f2": ("Figure 2", "Right boxes.")},
    "grid": {"f1": ("Figure 1", "Four panels in a grid.")},
    "plot_table": {"f1": ("Figure 1", "Training loss per epoch.")},
    "text_figure": {"f1": ("Figure 1", "Training loop as text.")},
    "vector_below": {"f1": ("Figure 1", "The processing pipeline. Data is loaded, cleaned "
                            "and used for training; this caption is deliberately long so that "
                            "it runs over more than one line of text in the final document, as "
                            "real captions often do."),
                     "f2": ("Figure 2", "A small tree.")},
    "raster_above": {"f1": ("Figure 1", "A raster picture with its caption above.")},
    "two_per_page": {"f1": ("Figure 1", "A directed cycle of five nodes."),
                     "f2": ("Figure 2", "The same picture again, below the cycle.")},
    "two_column": {"f1": ("Figure 1", "A flow in the left column."),
                   "f2": ("Figure 2", "A photo in a column."),
                   "f3": ("Figure 3", "Two panels under one caption.")},
}
SUBCAPTIONS = {("two_column", "f3"): ("(a) Tree", "(b) Cycle"),
               ("grid", "f1"): ("(a) One", "(b) Two", "(c) Three", "(d) Four")}
"""Sub-captions belong to their figure (as in pdffigures2); found on the page by text."""
KINDS = {("raster_above", "f1"): "raster", ("two_per_page", "f2"): "raster",
         ("two_column", "f2"): "raster"}


@dataclass(frozen=True, slots=True)
class TruthFigure:
    doc: str
    page: int  # 0-based
    bbox: BBox
    label: str
    caption: str  # the caption text after its label
    kind: str


def photo_png() -> bytes:
    """A busy raster image (gradient, shapes): something no vector detector would draw."""
    from PIL import Image, ImageDraw

    im = Image.new("RGB", (400, 260))
    px = im.load()
    for y in range(260):
        for x in range(400):
            px[x, y] = (x * 255 // 400, y * 255 // 260, 160)
    d = ImageDraw.Draw(im)
    d.ellipse((60, 40, 200, 180), fill=(240, 200, 40))
    d.rectangle((230, 90, 360, 220), fill=(30, 90, 30))
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def _parse_gt(text: str, doc: str, pdf: pymupdf.Document) -> list[TruthFigure]:
    page_height = pdf[0].rect.height
    boxes: dict[str, tuple[int, list[BBox]]] = {}
    for line in text.splitlines():
        name, x, y, wd, ht, dp, page = line.split(",")
        x0, yb = int(x) / SP_PER_BP, int(y) / SP_PER_BP
        w, h, d = int(wd) / SP_PER_BP, int(ht) / SP_PER_BP, int(dp) / SP_PER_BP
        box = (x0, page_height - (yb + h), x0 + w, page_height - (yb - d))
        boxes.setdefault(name, (int(page) - 1, []))[1].append(box)
    out = []
    for name, (page, bs) in sorted(boxes.items()):
        for sub in SUBCAPTIONS.get((doc, name), ()):
            bs.extend(tuple(r) for r in pdf[page].search_for(sub))
        u = (min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs),
             max(b[3] for b in bs))
        label, cap = CAPTIONS[doc][name]
        out.append(TruthFigure(doc, page, u, label, cap, KINDS.get((doc, name), "vector")))
    return out


def build(outdir: Path, names: tuple[str, ...] = tuple(DOCS)) -> dict[str, list[TruthFigure]]:
    """Compile each document (twice, for references) into ``outdir/<name>.pdf``."""
    outdir.mkdir(parents=True, exist_ok=True)
    truth: dict[str, list[TruthFigure]] = {}
    for name in names:
        with tempfile.TemporaryDirectory(prefix="pdffig-gt-") as tmp:
            work = Path(tmp)
            (work / "photo.png").write_bytes(photo_png())
            (work / f"{name}.tex").write_text(DOCS[name], encoding="utf-8")
            for _ in range(2):
                proc = subprocess.run(
                    ["pdflatex", "-no-shell-escape", "-interaction=nonstopmode", f"{name}.tex"],
                    cwd=work, env=tex_env(job=work), capture_output=True, text=True, timeout=120)
            pdf = work / f"{name}.pdf"
            if proc.returncode != 0 or not pdf.is_file():
                raise RuntimeError(f"pdflatex failed on {name}: {proc.stdout[-1500:]}")
            (outdir / f"{name}.pdf").write_bytes(pdf.read_bytes())
            with pymupdf.open(pdf) as doc:
                truth[name] = _parse_gt((work / f"{name}.gt").read_text(), name, doc)
    return truth
