"""End to end over a tiny published dataset: references score perfectly; a crafted set with
known errors scores what is computed by hand."""

from __future__ import annotations

import json

import pytest

from diagramforge.cards.evaluate.compile import CompileReason
from diagramforge.cards.evaluate.inputs import InputError
from diagramforge.cards.evaluate.run import evaluate
from tests.cards.evaluate.conftest import DOT_SOURCE, GENERATION, svg, write_predictions

REFERENCE_COLUMN = {"generation": "code", "editing": "target_code", "qa": "answer",
                    "captioning": "description"}


@pytest.mark.parametrize("config", ["generation", "svg", "editing", "qa", "captioning"])
def test_references_score_perfectly(published: dict, tmp_path, config: str) -> None:
    rows = published["refs"]["generation" if config == "svg" else config]
    col = REFERENCE_COLUMN["generation" if config == "svg" else config]
    preds = write_predictions(tmp_path / "p.jsonl", {r["id"]: r[col] for r in rows})
    res = evaluate(published["params"], preds, config, "test", published["root"])
    agg = res["aggregate"]["all"]
    assert agg["n"] == len(rows) and not res["aggregate"]["reasons"]
    for metric in res["metrics"]:
        if metric == "tokens":
            assert agg[metric] == pytest.approx(
                sum(r["tokens"] for r in rows) / len(rows))
        else:
            assert agg[metric] == pytest.approx(1.0), (metric, res["items"])


def test_generation_crafted_errors(published: dict, tmp_path) -> None:
    """g1 right; g2 draws Load → Save without Parse; g3 is not XML; g4 has no prediction.
    By hand: ES 2/4.  g2: nodes P 2/2, R 2/3 → F1 0.8; its one edge Load → Save is not a
    reference edge → edge F1 0 (SciFlow's node F1 is also 0.8).  Failed items score 0:
    node F1 (1 + 0.8)/4, edge F1 1/4."""
    preds = write_predictions(tmp_path / "p.jsonl", {
        "g1": GENERATION["g1"],
        "g2": svg(["Load", "Save"], [("Load", "Save")]),
        "g3": "<svg><rect",
        "stray": GENERATION["g1"]})
    res = evaluate(published["params"], preds, "generation", "test", published["root"])
    items = {r["id"]: r for r in res["items"]}
    assert [items[k]["execution_success"] for k in ("g1", "g2", "g3", "g4")] == [1, 1, 0, 0]
    assert items["g2"]["node_f1"] == pytest.approx(0.8)
    assert items["g2"]["edge_f1"] == 0.0
    assert items["g2"]["sciflow_node_f1"] == pytest.approx(0.8)
    assert 0.0 < items["g2"]["ssim"] < 1.0 and 0.0 < items["g2"]["pixel"] < 1.0
    assert items["g3"]["reason"] == "svg_malformed"
    assert items["g4"]["reason"] == CompileReason.NO_PREDICTION
    agg = res["aggregate"]["all"]
    assert agg["execution_success"] == pytest.approx(0.5)
    assert agg["node_f1"] == pytest.approx((1 + 0.8) / 4)
    assert agg["edge_f1"] == pytest.approx(1 / 4)
    assert res["aggregate"]["format"]["svg"]["n"] == 4
    assert res["unknown_ids"] == ["stray"]


def test_editing_crafted_errors(published: dict, tmp_path) -> None:
    """The unchanged source renders: for e1 (structural edits) its graph is not the
    target's; for e2 (a colour) the graph cannot tell, but the render is the source's.
    Broken DOT does not render.  By hand: ES 2/2 then 0/2; edit verified 0 throughout."""
    preds = write_predictions(tmp_path / "p.jsonl", {"e1": DOT_SOURCE, "e2": DOT_SOURCE})
    res = evaluate(published["params"], preds, "editing", "test", published["root"])
    items = {r["id"]: r for r in res["items"]}
    assert [items[k]["execution_success"] for k in ("e1", "e2")] == [1.0, 1.0]
    assert [items[k]["edit_verified"] for k in ("e1", "e2")] == [0.0, 0.0]
    assert items["e1"]["reason"] == "edit_graph_mismatch" and items["e1"]["detail"]
    assert items["e2"]["reason"] == "edit_render_unchanged"
    assert items["e2"]["style_preserved"] == 1.0  # it left everything as it was
    assert 0.0 < items["e2"]["ssim"] < 1.0
    assert res["aggregate"]["all"]["edit_verified"] == 0.0
    preds = write_predictions(tmp_path / "p.jsonl", {"e1": "digraph { a -> ", "e2": ""})
    res = evaluate(published["params"], preds, "editing", "test", published["root"])
    assert res["aggregate"]["all"]["execution_success"] == 0.0
    assert res["aggregate"]["reasons"]["empty_prediction"] == 1


def test_qa_crafted_errors(published: dict, tmp_path) -> None:
    """q1 "3" exact; q2 a sentence holding the answer (inclusion only); q3 the letter of the
    wrong option; q4 the right letter in parentheses."""
    preds = write_predictions(tmp_path / "p.jsonl", {
        "q1": "3", "q2": "The node is Parse.", "q3": "B", "q4": "(B)"})
    res = evaluate(published["params"], preds, "qa", "test", published["root"])
    items = {r["id"]: r for r in res["items"]}
    got = {k: (items[k]["exact"], items[k]["inclusion"], items[k]["option"]) for k in items}
    assert got == {"q1": (1, 1, 1), "q2": (0, 1, 0), "q3": (0, 0, 0), "q4": (0, 0, 1)}
    agg = res["aggregate"]
    assert agg["all"]["exact"] == 0.25 and agg["all"]["inclusion"] == 0.5
    assert agg["all"]["option"] == 0.5
    assert agg["qa_type"]["reachability"]["option"] == 1.0
    assert agg["qa_type"]["relationship"]["option"] == 0.0


def test_captioning_grounding(published: dict, tmp_path) -> None:
    """Two quoted labels, one of which the diagram lacks: grounding 1/2."""
    preds = write_predictions(tmp_path / "p.jsonl",
                              {"c1": 'A flow from "Load" to "Compile".'})
    (item,) = evaluate(published["params"], preds, "captioning", "test",
                       published["root"])["items"]
    assert item["grounding"] == 0.5 and item["ungrounded"] == ["Compile"]
    assert 0.0 < item["chrf"] < 1.0


def test_unknown_config_and_split(published: dict, tmp_path) -> None:
    preds = write_predictions(tmp_path / "p.jsonl", {})
    with pytest.raises(InputError, match="no config"):
        evaluate(published["params"], preds, "nope", "test", published["root"])
    with pytest.raises(InputError, match="no split"):
        evaluate(published["params"], preds, "qa", "train", published["root"])


def test_parquet_predictions(published: dict, tmp_path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": ["q1"], "output": ["A"]}), tmp_path / "p.parquet")
    res = evaluate(published["params"], tmp_path / "p.parquet", "qa", "test",
                   published["root"])
    assert json.dumps(res)  # the result is JSON as written
    assert {r["id"]: r["option"] for r in res["items"]}["q1"] == 1.0


def test_cli_writes_json_and_markdown(published: dict, tmp_path) -> None:
    from typer.testing import CliRunner

    from diagramforge.cli import app

    preds = write_predictions(tmp_path / "p.jsonl", {"q1": "3", "q2": "Load"})
    res = CliRunner().invoke(app, ["evaluate", str(preds), "--config", "qa", "--split",
                                   "test", "--published", str(published["root"]),
                                   "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    result = json.loads((tmp_path / "out" / "results.json").read_text())
    assert result["aggregate"]["all"]["exact"] == 0.25  # q1 right of 4 (q3, q4 missing)
    assert result["aggregate"]["reasons"] == {"no_prediction": 2}
    table = (tmp_path / "out" / "results.md").read_text()
    assert "| counting | 1 | 1.000 | 1.000 | 1.000 |" in table
    assert "| identification | 1 | 0.000 | 0.000 | 0.000 |" in table
    bad = CliRunner().invoke(app, ["evaluate", str(preds), "--config", "nope",
                                   "--published", str(published["root"])])
    assert bad.exit_code == 2 and "no config" in bad.output


def test_no_aligned_node_leaves_path_alignment_unscored(published: dict, tmp_path) -> None:
    """g1 predicted as a diagram sharing no label: node and edge F1 0, path F1 undefined
    (left out of the mean, counted in the table)."""
    preds = write_predictions(tmp_path / "p.jsonl", {
        **{k: v for k, v in GENERATION.items() if k != "g1"},
        "g1": svg(["Q", "R"], [("Q", "R")])})
    res = evaluate(published["params"], preds, "generation", "test", published["root"])
    g1 = next(r for r in res["items"] if r["id"] == "g1")
    assert (g1["node_f1"], g1["edge_f1"], g1["path_f1"]) == (0.0, 0.0, None)
    agg = res["aggregate"]["all"]
    assert agg["path_f1"] == 1.0 and agg["path_f1_scored"] == 3
    from diagramforge.cards.evaluate.report import markdown

    assert "| 1.000 (3) |" in markdown(res)


def test_translation_crafted_errors(published: dict, tmp_path) -> None:
    """The SVG diagram Load — Parse — Save in DOT.  t1 drops the second edge: it executes,
    its graph differs (graph_equal 0); node F1 1 (3/3), edge P 1/1, R 1/2, F1 2/3.
    An SVG submitted where DOT is asked does not execute as DOT: 0 throughout."""
    (ref,) = published["refs"]["translation"]
    assert (ref["pair"], ref["target_language"]) == ("svg->dot", "dot")
    lines = ref["target_code"].splitlines()
    dropped = "\n".join(ln for ln in lines if "n1 -> n2" not in ln)
    assert dropped != ref["target_code"]
    preds = write_predictions(tmp_path / "p.jsonl", {ref["id"]: dropped})
    res = evaluate(published["params"], preds, "translation", "test", published["root"])
    (item,) = res["items"]
    assert item["execution_success"] == 1.0 and item["graph_equal"] == 0.0
    assert item["reason"] == "translation_graph_differs" and "edge_count" in item["detail"]
    assert item["node_f1"] == 1.0 and item["edge_f1"] == pytest.approx(2 / 3)
    assert 0.0 < item["ssim"] < 1.0 and item["pixel"] < 1.0
    assert res["aggregate"]["pair"]["svg->dot"]["n"] == 1
    preds = write_predictions(tmp_path / "p.jsonl", {ref["id"]: GENERATION["g2"]})
    (item,) = evaluate(published["params"], preds, "translation", "test",
                       published["root"])["items"]
    assert item["execution_success"] == 0.0 and item["graph_equal"] == 0.0
    assert item["reason"] and item["tokens"] is None


def test_evaluate_help_lists_every_evaluator(published: dict) -> None:
    """`evaluate --help` is generated from the evaluator registry: every evaluator's configs
    and metrics, and every per-format view of generation."""
    from typer.testing import CliRunner

    from diagramforge.cards.evaluate.registry import EVALUATORS, views
    from diagramforge.cli import app

    out = " ".join(CliRunner().invoke(app, ["evaluate", "--help"],
                                      env={"COLUMNS": "200"}).output.split())
    for ev in EVALUATORS.values():
        for name in (*ev.configs, *ev.metrics):
            assert name in out, name
        assert ev.metrics == ev.module().METRICS and ev.group_by == ev.module().GROUP_BY
    assert set(views()) == {"tikz", "mxgraph", "svg", "dot", "mermaid", "plantuml"}
    for view in views():
        assert view in out


def test_translation_compares_renders_drawn_the_same_way(published: dict) -> None:
    """The twin stage may publish a twin's render at another scale (an SVG exported from
    TikZ at its pt size, 4/3 of the SVG handler's); the reference given as the prediction
    must still score SSIM 1: the reference code is drawn on the prediction's path."""
    import io

    from PIL import Image

    from diagramforge.cards.evaluate import translation
    from diagramforge.cards.evaluate.compile import Compiler

    (ref,) = published["refs"]["translation"]
    with Image.open(io.BytesIO(ref["target_image"])) as im:
        big = im.resize((im.width * 4 // 3, im.height * 4 // 3))
        buf = io.BytesIO()
        big.save(buf, "PNG")
    scaled = {**ref, "target_image": buf.getvalue()}
    with Compiler(published["params"]) as c:
        row = translation.score_item(scaled, ref["target_code"], c, published["params"])
    assert (row["ssim"], row["pixel"], row["graph_equal"]) == (1.0, 1.0, 1.0)


def test_graph_scores_only_against_a_reference_that_is_a_graph(published: dict) -> None:
    """A chart's structure graph is its tick labels: no SciFlow or DiagramEval reference
    (issue 50).  The same picture typed a flowchart is scored, perfectly, by itself."""
    from diagramforge.cards.evaluate.compile import Compiler
    from diagramforge.cards.evaluate.generation import score_item

    params = published["params"]
    ref = dict(published["refs"]["generation"][0])
    with Compiler(params) as c:
        as_chart = score_item({**ref, "diagram_type": "bar_chart"}, ref["code"], c, params)
        untyped = score_item({**ref, "id": "u", "diagram_type": None}, ref["code"], c, params)
        as_graph = score_item({**ref, "id": "g"}, ref["code"], c, params)
    for row in (as_chart, untyped):
        assert row["node_f1"] is None and row["sciflow_graph_score"] is None
        assert row["graph_reference"].startswith("not_a_graph")
        assert row["execution_success"] == 1.0 and row["ssim"] == pytest.approx(1.0)
    assert as_graph["node_f1"] == pytest.approx(1.0) and "graph_reference" not in as_graph
