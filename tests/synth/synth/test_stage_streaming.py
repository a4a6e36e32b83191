"""The synth stage streams (issue 26, docs/SCALE.md §4 #4): over a split table of several
shards it never reads the whole table, and writes what the whole-table path writes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from diagramforge.config import Params, parse_params
from diagramforge.runner import LEDGER_KEY_COLUMNS, run_stage
from diagramforge.store.paths import metrics_path, read_state, stage_paths
from diagramforge.store.records import REJECTION_SCHEMA
from diagramforge.store.shards import ShardSet
from diagramforge.synth.synth.stage import SYNTH_SCHEMA, SynthStage
from tests.conftest import seed_stage
from tests.synth.synth.conftest import EDIT_SCHEMA, diagrams, edits
from tests.synth.synth.fake_model import ModelServer

KEY = "sk-loopback-synth-0000"
LABELS = ("Save record", "Encoder", "Train")
"""One label of each diagram (flow, pipe, tikz) varied per copy, so copies ask new
questions."""


def vary(value: object, k: int) -> object:
    if isinstance(value, str):
        for label in LABELS:
            value = value.replace(label, f"{label} {k}")
    return value


def corpus(copies: int) -> tuple[list[dict], list[dict]]:
    """``copies`` varied copies of the four diagrams and of their edits (in id order), an
    exact duplicate of one diagram (the same questions, asked in another shard) and an edit
    of a diagram the split does not have."""
    rows, eds = [], []
    for k in range(copies):
        rows += [{key: vary(v, k) for key, v in d.items()} | {"id": f"{d['id']}-{k}"}
                 for d in diagrams()]
        eds += [{key: vary(v, k) for key, v in e.items()}
                | {"id": f"{e['id']}-{k}", "diagram_id": f"{e['diagram_id']}-{k}"}
                for e in edits()]
    rows.append(rows[1] | {"id": "zz-flow-again"})
    eds.append(edits()[0] | {"id": "e-orphan", "diagram_id": "gone"})
    return sorted(rows, key=lambda r: r["id"]), eds


def make(root: Path, shard_size: int, copies: int = 3, **synth: object) -> Params:
    params = parse_params({
        "project": {"data_dir": str(root / "data"), "metrics_dir": str(root / "metrics")},
        "runner": {"shard_size": shard_size},
        "synth": {"cache_dir": str(root / "cache"), **synth}})
    rows, eds = corpus(copies)
    seed_stage(params, "split", rows)
    seed_stage(params, "edit", eds, schema=EDIT_SCHEMA, shard_size=2)
    return params


def outputs(params: Params) -> tuple[list[dict], list[dict], dict]:
    paths = stage_paths(params, "synth")
    rows = ShardSet(paths.records, SYNTH_SCHEMA).read_all().to_pylist()
    rej = ShardSet(paths.rejections, REJECTION_SCHEMA).read_all().to_pylist()
    return rows, rej, json.loads(metrics_path(params, "synth").read_text())


def whole(params: Params, monkeypatch: pytest.MonkeyPatch) -> tuple[list, list, dict]:
    """The reference: the runner hands synth one table of every split row."""
    with monkeypatch.context() as m:
        m.setattr(SynthStage, "streams_input", False)
        run_stage(SynthStage(params))
    return outputs(params)


def ledger(rej: list[dict]) -> Counter:
    return Counter((r["id"], r["reason"], r["unit"], r["locator"]) for r in rej)


def test_streamed_shards_write_what_the_whole_table_writes(tmp_path, monkeypatch):
    ref_rows, ref_rej, ref_metrics = whole(make(tmp_path / "whole", 64), monkeypatch)
    params = make(tmp_path / "streamed", 3)
    assert len(ShardSet(stage_paths(params, "split").records, SYNTH_SCHEMA).indices()) == 5
    real = ShardSet.read_all

    def guarded(self, columns=None):  # noqa: ANN001, ANN202
        if columns is None or not set(columns) <= set(LEDGER_KEY_COLUMNS):
            raise AssertionError(f"read every row of {self.dir} ({columns or 'all columns'})")
        return real(self, columns)

    with monkeypatch.context() as m:
        m.setattr(ShardSet, "read_all", guarded)
        run_stage(SynthStage(params))
    rows, rej, metrics = outputs(params)
    assert len(rows) > 3 * 10 and len(ShardSet(stage_paths(params, "synth").records,
                                               SYNTH_SCHEMA).indices()) > 1
    assert rows == ref_rows  # same rows, same order, same bytes
    # the order the whole-table stage always wrote: by config, diagram, item
    assert rows == sorted(rows, key=lambda r: (r["config"], r["diagram_id"], r["id"]))
    assert ledger(rej) == ledger(ref_rej)
    assert ("e-orphan", "edit_diagram_missing") in {(r["id"], r["reason"]) for r in rej}
    for k in ("in", "out", "inputs_with_output", "rejected_inputs"):
        assert metrics[k] == ref_metrics[k]
    # the same calls and the same cache hits: the duplicate diagram asked in another shard
    # is answered once, whether by the run's dedupe or by the cache
    assert metrics["extra"] == ref_metrics["extra"]
    assert metrics["extra"]["llm_total_cache_hits"] > 0
    assert not (Path(params.project.data_dir) / ".runner" / "synth.spill").exists()


def test_max_diagrams_cut_is_global_across_shards(tmp_path, monkeypatch):
    ref_rows, ref_rej, _ = whole(make(tmp_path / "whole", 64, max_diagrams=5), monkeypatch)
    params = make(tmp_path / "streamed", 2, max_diagrams=5)
    run_stage(SynthStage(params))
    rows, rej, _ = outputs(params)
    assert rows == ref_rows
    assert ledger(rej) == ledger(ref_rej)
    kept = sorted(r["id"] for r in corpus(3)[0])[:5]
    assert {r["diagram_id"] for r in rows} <= set(kept)
    assert {r["id"] for r in rej if r["reason"] == "synth_max_diagrams"
            and r["unit"] == "input"} == {r["id"] for r in corpus(3)[0]} - set(kept)


def test_budget_counts_across_shards(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    # a call pays about $0.15 and reserves its worst case: $6 buys a few shards' worth of
    # the ~60 calls, never all of them
    vendor = {"backend": "openai", "model": "m", "price_in_per_mtok": 1000.0,
              "price_out_per_mtok": 1000.0, "budget_usd": 6.0, "concurrency": 1}
    with ModelServer("openai") as srv:
        ref_rows, ref_rej, ref_metrics = whole(
            make(tmp_path / "whole", 64, base_url=srv.url + "/v1", **vendor), monkeypatch)
    with ModelServer("openai") as srv:
        params = make(tmp_path / "streamed", 3, base_url=srv.url + "/v1", **vendor)
        run_stage(SynthStage(params))
        rows, rej, metrics = outputs(params)
    exhausted = [r for r in rej if r["reason"] == "budget_exhausted"]
    assert rows and exhausted
    assert len(srv.requests) == metrics["extra"]["llm_total_calls"]
    assert metrics["extra"]["llm_total_cost_usd"] <= 6.0
    # one budget for the run, not one per shard: paid for in several shards, then refused,
    # exactly where the whole-table run stopped
    order = sorted(r["id"] for r in corpus(3)[0])
    assert len({order.index(r["diagram_id"]) // 3 for r in rows}) > 1
    assert rows == ref_rows and ledger(rej) == ledger(ref_rej)
    assert metrics["extra"]["llm_total_cost_usd"] == ref_metrics["extra"]["llm_total_cost_usd"]


def test_a_run_killed_mid_way_leaves_no_half_output_and_the_rerun_pays_only_the_rest(
        tmp_path, monkeypatch):
    ref_rows, _, ref_metrics = whole(make(tmp_path / "whole", 64), monkeypatch)
    params = make(tmp_path / "streamed", 3)
    real = SynthStage._run_plan
    shards = {"n": 0}

    def dies_on_the_third(self, *a, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        shards["n"] += 1
        if shards["n"] == 3:
            raise RuntimeError("killed")
        return real(self, *a, **kw)

    with monkeypatch.context() as m:
        m.setattr(SynthStage, "_run_plan", dies_on_the_third)
        with pytest.raises(RuntimeError, match="killed"):
            run_stage(SynthStage(params))
    assert read_state(params, "synth").get("complete") is False
    assert not (Path(params.project.data_dir) / ".runner" / "synth.spill").exists()
    run_stage(SynthStage(params))
    rows, _, metrics = outputs(params)
    assert rows == ref_rows
    paid = ref_metrics["extra"]["llm_total_calls"]
    assert 0 < metrics["extra"]["llm_total_calls"] < paid
    assert metrics["extra"]["llm_total_cache_hits"] > 0
