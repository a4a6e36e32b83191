"""The twin stage: every attempt a verified twin or a ledger row; the twin keeps its
diagram's split; a diagram without code or graph, or whose graph is not the diagram, is
accounted for."""

from __future__ import annotations

import shutil

import pytest

from diagramforge.builders.twin.stage import TWIN_SCHEMA, TwinStage
from diagramforge.formats.dot import engine as dot
from diagramforge.formats.encoding import kind
from diagramforge.formats.mxgraph.graph import mxgraph_graph
from diagramforge.runner import run_stage
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import RECORD_COLUMNS, REJECTION_SCHEMA, empty_record
from diagramforge.store.shards import ShardSet
from tests.conftest import make_params, needs_browser, needs_tex, seed_stage

pytestmark = [needs_browser, needs_tex,
              pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz missing")]

MX = ('<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>'
      '<mxCell id="a" value="Client" style="rounded=1;" vertex="1" parent="1">'
      '<mxGeometry x="0" y="0" width="100" height="40" as="geometry"/></mxCell>'
      '<mxCell id="b" value="Server" style="ellipse;" vertex="1" parent="1">'
      '<mxGeometry x="200" y="0" width="100" height="40" as="geometry"/></mxCell>'
      '<mxCell id="e" value="" style="endArrow=classic;" edge="1" parent="1" source="a" '
      'target="b"><mxGeometry relative="1" as="geometry"/></mxCell></root></mxGraphModel>')
DOT = 'digraph { a [label="Fetch"]; b [label="Build"]; a -> b }'
TITLED = ('digraph { label="Nightly release pipeline"; a [label="Fetch"]; b [label="Build"]; '
          'a -> b }')
"""Graphviz draws the graph's label, which the graph lacks: a third of the drawn text."""


def rows() -> list[dict]:
    png = b"\x89PNG fake"
    return [
        empty_record(id="mx", format="mxgraph", code=MX, image=png, split="test",
                     group="g1", source_id="r@c:a.drawio#page1",
                     graph=mxgraph_graph(MX).to_json(), diagram_type="architecture_diagram"),
        empty_record(id="gv", format="dot", code=DOT, image=png, split="train", group="g2",
                     source_id="r@c:b.dot", graph=dot.render(DOT, dot.Caps()).graph.to_json(),
                     diagram_type="flowchart"),
        # untyped (no classifier): unknown, so no twins, whatever its graph says
        empty_record(id="unknown", format="dot", code=DOT, image=png, split="train",
                     group="g7", source_id="r@c:u.dot",
                     graph=dot.render(DOT, dot.Caps()).graph.to_json()),
        # the same graph typed as a chart: no twin, whatever the graph says
        empty_record(id="chart", format="dot", code=DOT, image=png, split="train",
                     group="g5", source_id="r@c:chart.dot", diagram_type="line_chart",
                     graph=dot.render(DOT, dot.Caps()).graph.to_json()),
        empty_record(id="titled", format="dot", code=TITLED, image=png, split="train",
                     group="g6", source_id="r@c:titled.dot", diagram_type="flowchart",
                     graph=dot.render(TITLED, dot.Caps()).graph.to_json()),
        empty_record(id="svg", format="svg", code="<svg xmlns='http://www.w3.org/2000/svg'/>",
                     image=png, split="train", group="g3", source_id="r@c:c.svg", graph=None),
        empty_record(id="ras", format="raster", code=None, image=png, split="train",
                     group="g4", source_id="p.pdf#p1"),
    ]


def test_twins_are_verified_split_with_their_diagram_and_every_attempt_accounted(tmp_path):
    params = make_params(tmp_path, twin={"targets": ["svg", "dot", "mermaid", "tikz",
                                                     "mxgraph"]})
    seed_stage(params, "split", rows(), provides=list(RECORD_COLUMNS))
    stats = run_stage(TwinStage(params))  # raises if the books do not balance
    twins = ShardSet(stage_paths(params, "twin").records, TWIN_SCHEMA).read_all().to_pylist()
    got = {(t["diagram_id"], t["target_language"]) for t in twins}
    assert got == {("mx", t) for t in ("svg", "dot", "mermaid", "tikz")} | {
        ("gv", t) for t in ("svg", "mermaid", "tikz", "mxgraph")}
    for t in twins:
        assert t["split"] == {"mx": "test", "gv": "train"}[t["diagram_id"]]
        assert t["config"] == "translation" and t["pair"] == f"{t['format']}->" \
            f"{t['target_language']}"
        assert kind(t["target_image"]) == "png" and t["target_code"]  # publish encodes it
    by = {(t["diagram_id"], t["target_language"]): t for t in twins}
    assert by[("mx", "svg")]["method"] == "drawio-getsvg"
    assert by[("mx", "svg")]["preserves"] == "layout+style"
    assert by[("mx", "tikz")]["preserves"] == "layout"
    assert by[("gv", "mermaid")]["preserves"] == "structure"
    assert by[("gv", "mxgraph")]["target_code"].startswith("<mxGraphModel>")
    ledger = ShardSet(stage_paths(params, "twin").rejections, REJECTION_SCHEMA).read_all()
    rows_ = ledger.to_pylist()
    reasons = sorted((r["id"], r["reason"], r["unit"]) for r in rows_)
    # a diagram the gate leaves out is one input row with the gate's reason
    assert reasons == [("chart", "twin_not_a_graph", "input"),
                       ("ras", "twin_unsupported_format", "input"),
                       ("svg", "twin_no_graph", "input"),
                       ("titled", "twin_graph_incomplete", "input"),
                       ("unknown", "twin_type_unknown", "input")]
    detail = {r["id"]: r["detail"] for r in rows_}
    assert "line_chart" in detail["chart"]
    assert "2 of 3 text runs" in detail["titled"] and "Nightly release" in detail["titled"]
    assert stats.extra["attempted.mxgraph.dot"] == stats.extra["verified.mxgraph.dot"] == 1
    # ... and each of its attempts is counted: attempted = verified + failed, per pair
    assert stats.extra["failed.svg.tikz.twin_no_graph"] == 1
    assert stats.extra["attempted.dot.tikz"] == 4
    assert stats.extra["verified.dot.tikz"] == 1
    assert stats.extra["failed.dot.tikz.twin_not_a_graph"] == 1
    assert stats.extra["failed.dot.tikz.twin_type_unknown"] == 1
    assert stats.extra["failed.dot.tikz.twin_graph_incomplete"] == 1
