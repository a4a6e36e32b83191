"""The render stage on its own: dispatch by format, batching, rejections (fast: SVG and one
small TikZ picture; mxGraph rendering is covered in tests/formats/mxgraph/test_engine.py)."""

from __future__ import annotations

import io

from PIL import Image

from diagramforge.builders.render.stage import RenderStage
from diagramforge.runner import run_stage
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA, empty_record, make_id
from diagramforge.store.shards import ShardSet
from tests.conftest import make_params, needs_tex, seed_stage

BOX = ('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60">'
       '<rect x="5" y="5" width="110" height="50" fill="none" stroke="black"/>'
       '<text x="20" y="35">{}</text></svg>')
BLANK = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"></svg>'


def svg_row(i: int, code: str) -> dict:
    return empty_record(id=make_id("svg", code), format="svg", code=code, source_id=f"s{i}",
                        group="g")


def test_svg_rows_render_and_blanks_are_rejected(tmp_path):
    params = make_params(tmp_path)
    rows = [svg_row(i, BOX.format(f"box {i}")) for i in range(3)] + [svg_row(9, BLANK)]
    rows.append(empty_record(id="x", format="vrml", code="", source_id="x", group="g"))
    rows.append(empty_record(id="r", format="raster", source_id="r", group="g",
                             image=b"not a png"))
    seed_stage(params, "extract", rows)
    stats = run_stage(RenderStage(params))
    assert stats.n_out == 3
    assert stats.by_reason == {"blank_render": 1, "unsupported_format": 1,
                               "raster_unreadable": 1}
    out = ShardSet(stage_paths(params, "render").records, RECORD_SCHEMA).read_all().to_pylist()
    for r in out:
        img = Image.open(io.BytesIO(r["image"]))
        assert img.size == (r["width"], r["height"]) and r["render_engine"] == "resvg"
    ledger = ShardSet(stage_paths(params, "render").rejections, REJECTION_SCHEMA).read_all()
    assert "no renderer for vrml" in " ".join(ledger.column("detail").to_pylist())


def test_units_batch_by_format_and_key(tmp_path):
    params = make_params(tmp_path, render={"tikz": {"batch_size": 2}})
    stage = RenderStage(params)
    tikz = [empty_record(id=f"t{i}", format="tikz", source_id=f"p{i}", group=f"p{i}",
                         code="\\documentclass{standalone}\\usepackage{tikz}"
                              "\\begin{document}\\tikz\\draw(0,0)--(1,1);\\end{document}")
            for i in range(5)]
    units = stage.units(tikz + [svg_row(0, BOX.format("a"))])
    sizes = sorted((u.rows[0]["format"], len(u.rows)) for u in units)
    # five pictures from five sources share one preamble: batches of 2 across sources
    assert sizes == [("svg", 1), ("tikz", 1), ("tikz", 2), ("tikz", 2)]


@needs_tex
def test_a_tikz_picture_compiles_and_a_broken_one_is_rejected(tmp_path):
    params = make_params(tmp_path)
    doc = ("\\documentclass{{standalone}}\n\\usepackage{{tikz}}\n\\begin{{document}}\n"
           "\\begin{{tikzpicture}}{}\\end{{tikzpicture}}\n\\end{{document}}\n")
    good = doc.format("\\draw[thick] (0,0) rectangle (2,1) node[midway] {ok};")
    bad = doc.format("\\draw (0,0) -- \\undefinedmacro;")
    seed_stage(params, "extract", [
        empty_record(id=make_id("tikz", c), format="tikz", code=c, source_id=f"p{k}",
                     group=f"p{k}") for k, c in enumerate((good, bad))])
    stats = run_stage(RenderStage(params))
    assert stats.n_out == 1 and list(stats.by_reason) == ["compile_undefined_control_sequence"]
