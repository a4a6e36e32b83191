"""A twin must be readable as published: its smallest text large enough on its raster, no
two text runs on top of each other — measured on its engine's own drawing."""

from __future__ import annotations

import io

from PIL import Image

from diagramforge.builders.twin.readable import OVERLAP, TOO_SMALL, measure, unreadable, user_width
from diagramforge.formats.mxgraph.twin import write as to_mxgraph
from diagramforge.formats.registry import instantiate
from diagramforge.graphs.model import Edge, Graph, Node
from tests.conftest import make_params, needs_browser


def raster(width: int, height: int = 100) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buf, "PNG")
    return buf.getvalue()


def svg(texts: list[tuple[float, float, float, str]], width: float = 400) -> str:
    body = "".join(f'<text x="{x}" y="{y}" font-size="{size}">{t}</text>'
                   for x, y, size, t in texts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} 100" '
            f'width="{width}" height="100">{body}</svg>')


def test_text_size_is_measured_at_the_published_raster() -> None:
    drawing = svg([(10, 30, 12, "Load"), (200, 30, 8, "next")])
    assert user_width(drawing) == 400
    # the raster as wide as the drawing: 8 px; twice as wide: 16 px
    assert measure(drawing, 400).smallest_px == 8.0
    assert measure(drawing, 800).smallest_px == 16.0
    why = unreadable(drawing, raster(400))
    assert why is not None and why[0] == TOO_SMALL and "8.0 px" in why[1]
    assert unreadable(drawing, raster(800)) is None
    # runs of punctuation only (an arrow glyph) are not text a reader needs
    assert measure(svg([(10, 30, 12, "Load"), (100, 30, 2, "→")]), 400).smallest_px == 12.0


def test_text_runs_on_top_of_each_other_are_unreadable() -> None:
    # "Process step 1" set over "Process step 2" (a layout twin's text larger than its box)
    clash = svg([(10, 30, 12, "Process step 1"), (60, 30, 12, "Process step 2")])
    why = unreadable(clash, raster(800))
    assert why is not None and why[0] == OVERLAP and "'Process step 1'" in why[1]
    # side by side, or a line apart: readable
    apart = svg([(10, 30, 12, "Process step 1"), (150, 30, 12, "Process step 2"),
                 (10, 46, 12, "Process step 3")])
    assert measure(apart, 800).overlaps == [] and unreadable(apart, raster(800)) is None


@needs_browser
def test_an_org_chart_shrunk_to_a_thumbnail_is_refused(tmp_path) -> None:
    """An org chart's 25 regional managers, each over a line of four: laid out in layers,
    the managers side by side make a drawing far wider than the raster's largest side, and
    draw.io's render shrinks it to fit — its text to a few pixels.  (Graphviz refuses such
    a drawing outright: ``extreme_scale_large``.)"""
    hs = instantiate(make_params(tmp_path), lambda r: r["id"])
    try:
        nodes, edges = [], []
        for m in range(25):
            nodes.append(Node(id=f"m{m}", text=f"Regional manager number {m}"))
            for k in range(4):
                nodes.append(Node(id=f"m{m}r{k}", text=f"R{m}.{k}"))
                edges.append(Edge(source=f"m{m}" if k == 0 else f"m{m}r{k - 1}",
                                  target=f"m{m}r{k}"))
        g = Graph(nodes=nodes, edges=edges)
        small = Graph(nodes=g.nodes[:5], edges=g.edges[:4])
        for graph, ok in ((g, False), (small, True)):
            row = {"id": "t", "code": to_mxgraph(graph), "format": "mxgraph", "meta": None,
                   "group": None, "source_id": "t"}
            out = hs["mxgraph"].render([row])
            assert not out.rejections, out.rejections
            rec = out.records[0]
            drawing = hs["mxgraph"].export_svg([rec])[0]
            assert isinstance(drawing, str)
            why = unreadable(drawing, rec["image"])
            assert (why is None) == ok, why
            if not ok:
                assert why is not None and why[0] == TOO_SMALL
    finally:
        for h in hs.values():
            h.close()


def test_what_is_one_label_is_no_overlap() -> None:
    """A label drawn twice in place (a halo under it), the lines of one ``<text>``; and
    estimated widths (no ``textLength``) are given more room than measured ones."""
    twice = svg([(10, 30, 12, "Gateway"), (10, 30, 12, "Gateway")])
    assert measure(twice, 800).overlaps == []
    lines = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 100" width="400">'
             '<text x="10" y="30" font-size="12"><tspan x="10" dy="1.1em">BibTeX/</tspan>'
             '<tspan x="10" dy="1.1em">biber</tspan></text></svg>')
    assert measure(lines, 800).overlaps == []
    # "Process step 1" a fifth over "Process step 2": estimated widths (0.6 em a character,
    # a little wide), let be; the advance the drawing states (100 each), an overlap
    near = [(10, 30, 12, "Process step 1"), (90, 30, 12, "Process step 2")]
    assert measure(svg(near), 800).overlaps == []
    measured = svg(near).replace('font-size="12">', 'font-size="12" textLength="100">')
    assert measure(measured, 800).overlaps == [("Process step 1", "Process step 2", 0.2)]
