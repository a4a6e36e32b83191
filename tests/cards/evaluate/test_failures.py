"""Item-level failure (issue 36): nothing one row or output holds stops a run.  Each bad row
that names an item gives that item a reason and a zero; rows that name no item are counted;
means are reported over all items and over executed items; tokens only over executed
outputs; every format refuses DOCTYPE/ENTITY declarations with one reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diagramforge.cards.evaluate.generation import count_tokens
from diagramforge.cards.evaluate.inputs import InputReason, read_predictions
from diagramforge.cards.evaluate.report import markdown
from diagramforge.cards.evaluate.run import evaluate
from diagramforge.notation.declarations import UNSAFE_XML
from tests.cards.evaluate.conftest import GENERATION, write_predictions


def _hostile(path: Path) -> Path:
    """One row per way a predictions file goes wrong, over the four generation items."""
    rows = [
        json.dumps({"id": "g1", "prediction": GENERATION["g1"]}),   # fine
        json.dumps({"id": "g2", "output_text": GENERATION["g2"]}),  # no prediction field
        '{"id": "g9", "prediction": "<svg',                          # not JSON
        json.dumps({"prediction": GENERATION["g3"]}),               # no id
        json.dumps({"id": "stray", "prediction": GENERATION["g3"]}),  # unknown id
        json.dumps({"id": "g4", "prediction": GENERATION["g4"]}),
        json.dumps({"id": "g4", "prediction": GENERATION["g4"]}),   # the id again
    ]
    raw = [r.encode() for r in rows]
    # g3: the right SVG, with one byte that is not UTF-8 in its text
    raw.append(json.dumps({"id": "g3", "prediction": GENERATION["g3"]}).encode()
               .replace(b">X<", b">X\xff<"))
    path.write_bytes(b"\n".join(raw) + b"\n")
    return path


def test_bad_rows_become_item_reasons_and_the_run_goes_on(published: dict, tmp_path) -> None:
    res = evaluate(published["params"], _hostile(tmp_path / "p.jsonl"), "generation", "test",
                   published["root"])
    items = {r["id"]: r for r in res["items"]}
    assert {k: items[k]["reason"] for k in items} == {
        "g1": None, "g2": InputReason.FIELD_MISSING, "g3": InputReason.NOT_UTF8,
        "g4": InputReason.DUPLICATE}
    # only g1 executed; the others score 0 and were never compiled
    assert [items[k]["execution_success"] for k in ("g1", "g2", "g3", "g4")] == [1, 0, 0, 0]
    assert all(items[k]["node_f1"] == 0.0 and items[k]["tokens"] is None
               for k in ("g2", "g3", "g4"))
    assert res["inputs"] == {"row_malformed": 1, "row_without_id": 1, "unknown_id": 1,
                             "duplicate_rows": 1}
    assert res["unknown_ids"] == ["stray"] and res["duplicate_ids"] == ["g4"]
    assert [r["row"] for r in res["input_rows"]] == [3, 4, 5]
    agg = res["aggregate"]
    # all items: 1 of 4 executed, its scores 1 → means 0.25; executed items: 1 → 1.0
    assert agg["all"]["execution_success"] == 0.25 and agg["all"]["node_f1"] == 0.25
    assert agg["executed"]["n"] == 1 and agg["executed"]["node_f1"] == 1.0
    # tokens: only g1's output, in both sections
    assert agg["all"]["tokens"] == agg["executed"]["tokens"] == items["g1"]["tokens"]
    assert agg["all"]["tokens_scored"] == 1
    assert agg["reasons"] == {InputReason.FIELD_MISSING: 1, InputReason.NOT_UTF8: 1,
                              InputReason.DUPLICATE: 1}
    table = markdown(res)
    assert "## Mean over all 4 items" in table and "## Mean over the 1 executed items" in table
    assert "| row_malformed | 1 |" in table and "| duplicate_id | 1 |" in table


def test_oversized_prediction_is_refused_before_compiling(published: dict, tmp_path) -> None:
    """A 3 MB output: over evaluate.max_prediction_bytes (2 MB), so it scores 0 and adds
    nothing to the token mean (it used to add ~400k tokens to it)."""
    junk = "x" * (3 * 1024 * 1024)
    preds = write_predictions(tmp_path / "p.jsonl", {**GENERATION, "g4": junk})
    res = evaluate(published["params"], preds, "generation", "test", published["root"])
    g4 = next(r for r in res["items"] if r["id"] == "g4")
    assert g4["reason"] == InputReason.TOO_LARGE and g4["execution_success"] == 0.0
    assert "3,145,728 bytes > 2,000,000" in g4["detail"]
    want = sum(count_tokens(GENERATION[k]) for k in ("g1", "g2", "g3")) / 3
    assert res["aggregate"]["all"]["tokens"] == pytest.approx(want)


def test_read_predictions_parquet_bytes_and_json_array(tmp_path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": ["a", "b", "c"],
                             "prediction": [b"ok", b"\xff\xfe", None]}), tmp_path / "p.parquet")
    got = read_predictions(tmp_path / "p.parquet")
    assert got.outputs == {"a": "ok", "c": None}
    assert got.problems["b"][0] == InputReason.NOT_UTF8
    (tmp_path / "p.json").write_text(json.dumps([{"id": 1, "output": 42},
                                                 {"id": 2, "prediction": "\udcff"}]))
    got = read_predictions(tmp_path / "p.json")
    assert got.outputs == {"1": "42"}  # a number is the JSON text of a wrong answer
    assert got.problems["2"][0] == InputReason.NOT_UTF8  # a lone surrogate escape


def test_cli_runs_through_a_hostile_file(published: dict, tmp_path) -> None:
    """The run that used to stop with exit 2 (a row without a prediction field) or a
    traceback (a byte that is not UTF-8) writes its results."""
    from typer.testing import CliRunner

    from diagramforge.cli import app

    res = CliRunner().invoke(app, ["evaluate", str(_hostile(tmp_path / "p.jsonl")),
                                   "--config", "generation", "--published",
                                   str(published["root"]), "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    result = json.loads((tmp_path / "out" / "results.json").read_text())
    assert result["aggregate"]["reasons"][InputReason.NOT_UTF8] == 1


def test_judged_metrics_unset_for_input_problems(published: dict, tmp_path) -> None:
    """With the judge on (offline backend), an item without a usable prediction has its
    judged metric unset (nothing to judge), a missing one scores 0 like every metric."""
    from diagramforge.cards.evaluate.settings import EvaluateParams, JudgeParams

    judge = JudgeParams(enabled=True, cache_dir=str(tmp_path / "cache"))
    params = published["params"].model_copy(update={"evaluate": EvaluateParams(judge=judge)})
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"id": "g1", "prediction": GENERATION["g1"]}) + "\n"
                    + json.dumps({"id": "g2", "output_text": "x"}) + "\n")
    res = evaluate(params, path, "generation", "test", published["root"])
    items = {r["id"]: r for r in res["items"]}
    assert items["g2"]["judge_style"] is None
    assert items["g2"]["judge_reason"] == InputReason.FIELD_MISSING
    assert items["g3"]["judge_style"] == 0.0  # no prediction at all: a skipped item


# -- DOCTYPE/ENTITY: one rule and one reason in every format --------------------------------

ENTITY = '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
HOSTILE = {
    "svg": f'{ENTITY}<svg xmlns="http://www.w3.org/2000/svg" width="90" height="40">'
           '<rect width="80" height="30" fill="none" stroke="black"/><text y="20">&e;</text>'
           "</svg>",
    "mxgraph": f'{ENTITY}<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>'
               '<mxCell id="2" value="&e;" vertex="1" parent="1"><mxGeometry width="80" '
               'height="40" as="geometry"/></mxCell></root></mxGraphModel>',
    "dot": f'digraph {{ a [label=<{ENTITY}&e;>]; a -> b; }}',
    "mermaid": f'flowchart LR\n  A["{ENTITY}"] --> B\n',
    "tikz": "\\documentclass{standalone}\\usepackage{tikz}\\begin{document}"
            f"\\begin{{tikzpicture}}\\node {{{ENTITY}}};\\end{{tikzpicture}}\\end{{document}}",
    "plantuml": f"@startuml\nA -> B : {ENTITY}\n@enduml\n",
}
"""A document declaring an external entity in each format with code; a format added
later without a case here fails the test below."""


def test_every_format_refuses_entity_declarations(published: dict) -> None:
    from diagramforge.formats.registry import format_titles

    assert set(HOSTILE) == set(format_titles(code_only=True))
    from diagramforge.formats.registry import instantiate
    from diagramforge.store.records import Unit

    formats = instantiate(published["params"], lambda r: "x")
    try:
        for fmt, code in HOSTILE.items():
            h = formats[fmt]
            name = f"prediction{h.suffixes[0]}"
            recs, rejs = h.extract_file(code.encode(), name, {
                "source": "test", "source_id": fmt, "group": fmt, "title": name}, fmt,
                Unit.INPUT)
            assert not recs, fmt
            # the first rejection is the refusal (evaluation reports it; TikZ adds the
            # input's own "no picture left")
            assert rejs[0].reason == UNSAFE_XML, (fmt, rejs)
    finally:
        for h in formats.values():
            h.close()


def test_a_bare_doctype_is_inert_and_accepted() -> None:
    """A DOCTYPE naming the SVG DTD declares nothing (no DTD is ever loaded): draw.io and
    editors export it, and SVG and mxGraph both accept it."""
    from diagramforge.formats.mxgraph.notation import parse_xml
    from diagramforge.formats.svg.document import clean

    doc = ('<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
           '"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">'
           '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><rect width="4" '
           'height="4"/></svg>')
    assert "<rect" in clean(doc).code
    assert parse_xml(doc).tag.endswith("svg")
    # the same declarations in UTF-16 (no byte pattern sees them) are refused after parsing
    from diagramforge.store.records import Refusal

    u16 = ('<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE svg [<!ENTITY e "boo">]>'
           '<svg xmlns="http://www.w3.org/2000/svg"><text>&e;</text></svg>').encode("utf-16")
    for read in (clean, parse_xml):
        with pytest.raises(Refusal) as got:
            read(u16)
        assert got.value.reason == UNSAFE_XML
