"""The graph columns as the render stage fills them: built, counted, or null with a reason."""

from __future__ import annotations

import json

from diagramforge.builders.render.stage import RenderStage
from diagramforge.formats.svg.handler import SvgFormat
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.record import GRAPH_COLUMNS, graph_columns
from diagramforge.runner import run_stage
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import RECORD_SCHEMA, empty_record, make_id
from diagramforge.store.shards import ShardSet
from tests.conftest import make_params, needs_tex, seed_stage

# two labelled boxes and an arrow from the first to the second (marker at the end)
FLOW = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="80">'
        '<defs><marker id="m" markerWidth="8" markerHeight="8" refX="8" refY="4" '
        'orient="auto"><path d="M0,0 L8,4 L0,8 z"/></marker></defs>'
        '<rect x="10" y="20" width="80" height="40" fill="none" stroke="black"/>'
        '<text x="25" y="45" font-size="12">Load</text>'
        '<rect x="200" y="20" width="80" height="40" fill="none" stroke="black"/>'
        '<text x="215" y="45" font-size="12">Train</text>'
        '<line x1="90" y1="40" x2="200" y2="40" stroke="black" marker-end="url(#m)"/></svg>')


def _row(code: str, fmt: str = "svg", i: int = 0) -> dict:
    return empty_record(id=make_id(fmt, code), format=fmt, code=code, source_id=f"s{i}",
                        group="g")


def _rendered(params) -> list[dict]:  # noqa: ANN001
    return ShardSet(stage_paths(params, "render").records, RECORD_SCHEMA).read_all().to_pylist()


def test_columns_of_a_built_graph_and_of_failures():
    counts: dict[str, int] = {}
    g = Graph(nodes=[Node(id="a", text="A"), Node(id="b", text="B"), Node(id="c")],
              edges=[Edge(source="a", target="b")])
    cols = graph_columns(lambda: g, counts)
    assert Graph.from_json(cols["graph"]) == g
    assert (cols["graph_nodes"], cols["graph_edges"], cols["graph_components"],
            cols["graph_longest_path"]) == (3, 1, 2, 1)

    def broken() -> Graph:
        raise ValueError("odd drawing")

    assert graph_columns(broken, counts) == dict.fromkeys(GRAPH_COLUMNS)
    assert graph_columns(lambda: None, counts) == dict.fromkeys(GRAPH_COLUMNS)
    assert counts == {"graph_built": 1, "graph_null_error_ValueError": 1,
                      "graph_null_unsupported": 1}


def test_render_fills_the_svg_graph_and_its_stats(tmp_path):
    params = make_params(tmp_path)
    seed_stage(params, "extract", [_row(FLOW)])
    stats = run_stage(RenderStage(params))
    assert stats.n_out == 1 and stats.extra["graph_built"] == 1
    rec = _rendered(params)[0]
    g = json.loads(rec["graph"])
    assert sorted(n["text"] for n in g["nodes"]) == ["Load", "Train"]
    names = {n["id"]: n["text"] for n in g["nodes"]}
    assert [(names[e["source"]], names[e["target"]], e["directed"]) for e in g["edges"]] == [
        ("Load", "Train", True)]
    assert set(g["nodes"][0]) == {"id", "text", "shape", "bbox"}
    assert (rec["graph_nodes"], rec["graph_edges"], rec["graph_components"],
            rec["graph_longest_path"]) == (2, 1, 1, 1)


def test_a_graph_that_cannot_be_built_is_null_not_a_rejection(tmp_path, monkeypatch):
    def boom(self, record, rendered=None):  # noqa: ANN001, ANN202
        raise RecursionError("pathological nesting")

    monkeypatch.setattr(SvgFormat, "to_graph", boom)
    params = make_params(tmp_path)
    seed_stage(params, "extract", [_row(FLOW)])
    stats = run_stage(RenderStage(params))
    assert stats.n_out == 1 and not stats.by_reason
    assert stats.extra["graph_null_error_RecursionError"] == 1
    rec = _rendered(params)[0]
    assert rec["image"] and all(rec[c] is None for c in GRAPH_COLUMNS)


@needs_tex
def test_tikz_graph_comes_from_source_and_the_compiled_page(tmp_path):
    doc = ("\\documentclass{standalone}\n\\usepackage{tikz}\n\\begin{document}\n"
           "\\begin{tikzpicture}\n\\node[draw] (a) {Encoder};\n"
           "\\node[draw] (b) at (3,0) {Decoder};\n\\node[draw] (c) at (6,0) {Loss};\n"
           "\\draw[->] (a) -- (b);\n\\draw[->] (b) -- (c);\n"
           "\\end{tikzpicture}\n\\end{document}\n")
    params = make_params(tmp_path)
    seed_stage(params, "extract", [_row(doc, "tikz")])
    stats = run_stage(RenderStage(params))
    assert stats.n_out == 1 and stats.extra["graph_built"] == 1
    rec = _rendered(params)[0]
    g = Graph.from_json(rec["graph"])
    text = {n.id: n.text for n in g.nodes}
    assert sorted((text[e.source], text[e.target]) for e in g.edges) == [
        ("Decoder", "Loss"), ("Encoder", "Decoder")]
    # boxes come from the page (points), not the source's centimetres
    enc = next(n for n in g.nodes if n.text == "Encoder")
    assert enc.bbox is not None and enc.bbox[2] > 20
    assert rec["graph_longest_path"] == 2
