"""A compiled TikZ page as SVG: text stays text, cropped as the render crops."""

from __future__ import annotations

import re

import pymupdf

from diagramforge.formats.rasterize import drawn_clip, rasterize_pdf
from diagramforge.formats.svg import document as svgfmt
from diagramforge.formats.svg.graph import svg_graph
from diagramforge.formats.tikz.pdf_svg import pdf_svg
from diagramforge.formats.tikz.pictures import Standalone
from diagramforge.formats.tikz.texcompile import TexCompiler
from tests.conftest import needs_tex

pytestmark = needs_tex

DOC = Standalone([r"\usepackage{tikz}"], r"""\begin{tikzpicture}
\node[draw] (a) at (0,0) {Hello};
\node[draw] (b) at (3,0) {World};
\draw[->] (a) -- (b);
\end{tikzpicture}""")


def test_the_page_becomes_svg_with_text_as_text(tmp_path):
    res = TexCompiler(cache_dir=str(tmp_path / "tex")).compile_one(DOC)
    assert res.ok, res.error
    svg = pdf_svg(res.pdf)
    assert "<text" in svg and "<script" not in svg
    page = pymupdf.open("pdf", res.pdf)[0]
    clip = drawn_clip(page, 2.0)
    m = re.search(r'<svg[^>]*\swidth="([0-9.]+)pt"[^>]*\sheight="([0-9.]+)pt"', svg)
    assert m, svg[:200]
    w, h = float(m.group(1)), float(m.group(2))
    assert abs(w - clip.width) < 1 and abs(h - clip.height) < 1  # the render's crop, in pt
    g = svg_graph(svg)
    assert sorted(n.text for n in g.nodes) == ["Hello", "World"] and len(g.edges) == 1
    # drawn at the size of the PDF render by the pipeline's scale (px at 96 per inch)
    png = svgfmt.render_png(svg, 150 / 96)
    ras = rasterize_pdf(res.pdf, dpi=150, margin_pt=2.0, min_side=1, max_side=4096,
                        max_aspect=100, min_ink=0)
    assert abs(svgfmt.png_ink(png)[0] - ras.width) <= 2


def test_font_runs_carry_their_advance_so_a_math_label_reads_as_one(tmp_path):
    doc = Standalone([r"\usepackage{tikz}"], r"""\begin{tikzpicture}
\node (a) at (0,0) {$f(x,y)$};
\node (b) at (3,0) {0.25};
\end{tikzpicture}""")
    res = TexCompiler(cache_dir=str(tmp_path / "tex")).compile_one(doc)
    assert res.ok, res.error
    svg = pdf_svg(res.pdf)
    lengths = [float(v) for v in re.findall(r'textLength="([0-9.]+)"', svg)]
    # every run has one, as wide as the PDF draws it (a glyph is under an em of 10 pt)
    assert len(lengths) == svg.count("<tspan") and all(0 < v < 10 * 4 for v in lengths)
    texts = sorted(n.text.replace(" ", "") for n in svg_graph(svg).nodes)
    assert texts == ["0.25", "f(x,y)"]
