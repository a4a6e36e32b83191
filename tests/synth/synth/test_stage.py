"""The synth stage end to end on seeded diagrams: offline, through the loopback OpenAI and
Gemini servers (the real client packages), with faults, and under a budget."""

from __future__ import annotations

import json
import random
import re

import networkx as nx
import pyarrow as pa
import pytest

from diagramforge.runner import run_stage
from diagramforge.store.paths import metrics_path, stage_paths
from diagramforge.store.records import REJECTION_SCHEMA
from diagramforge.store.shards import ShardSet
from diagramforge.synth.synth.checks import forbidden_references, quoted_spans
from diagramforge.synth.synth.facts import facts_of, norm
from diagramforge.synth.synth.stage import SYNTH_SCHEMA, SynthStage
from tests.synth.llm.loopback import (
    Reply,
    gemini_error,
    gemini_reply,
    openai_error,
    openai_reply,
)
from tests.synth.synth.conftest import diagrams
from tests.synth.synth.fake_model import ModelServer

KEY = "sk-loopback-synth-0000"
LANGUAGE = {"caption", "description", "question", "instruction"}
"""Columns the model words; every other column is computed by code."""


def run(params) -> tuple[list[dict], list[dict], dict]:  # noqa: ANN001
    run_stage(SynthStage(params))
    rows = ShardSet(stage_paths(params, "synth").records, SYNTH_SCHEMA).read_all().to_pylist()
    rej = ShardSet(stage_paths(params, "synth").rejections,
                   REJECTION_SCHEMA).read_all().to_pylist()
    return rows, rej, json.loads(metrics_path(params, "synth").read_text())


def computed(rows: list[dict]) -> dict[str, dict]:
    """Each row without the language columns and the provenance of the call."""
    drop = LANGUAGE | {"backend", "model", "input_tokens", "output_tokens", "cost_usd"}
    return {r["id"]: {k: v for k, v in r.items() if k not in drop} for r in rows}


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)


def test_offline_items_are_grounded_and_every_diagram_is_accounted(seeded):
    params = seeded()
    rows, rej, metrics = run(params)
    by = {c: [r for r in rows if r["config"] == c] for c in ("captioning", "qa", "editing")}
    assert {r["diagram_id"] for r in by["captioning"]} == {"flow", "pipe", "tikz"}
    # the blank picture has no labels: ledgered, never captioned from nothing
    assert {(r["reason"], r["unit"]) for r in rej if r["id"] == "blank"} == {
        ("synth_no_graph", "candidate"), ("synth_no_items", "input")}
    assert metrics["in"] == 4 and metrics["inputs_with_output"] == 3
    assert metrics["rejected_inputs"] == 1
    # an author's caption is kept; a missing one is generated and quotes only real labels
    flow = next(r for r in by["captioning"] if r["diagram_id"] == "flow")
    assert (flow["caption"], flow["caption_source"]) == ("Sign-up flow.", "author")
    pipe = next(r for r in by["captioning"] if r["diagram_id"] == "pipe")
    assert pipe["caption_source"] == "generated"
    tikz = next(r for r in by["captioning"] if r["diagram_id"] == "tikz")
    assert tikz["grounding"] == "parse" and pipe["grounding"] == "graph"
    for r in by["captioning"]:
        labels = {norm(x) for x in facts_of(next(d for d in diagrams()
                                                  if d["id"] == r["diagram_id"]))[0].labels}
        assert {norm(q) for q in quoted_spans(r["caption"] + r["description"])} <= labels
        assert r["split"] and r["prompt_version"].startswith("captioning-v1+")
    # QA rows carry the diagram's split and image; the choices hold the answer
    assert {r["qa_type"] for r in by["qa"]} == {"counting", "identification", "relationship",
                                                "reachability"}
    for r in by["qa"]:
        assert json.loads(r["choices"])["ABCD".index(r["answer_option"])] == r["answer"]
        assert r["split"] == next(d["split"] for d in diagrams() if d["id"] == r["diagram_id"])
    assert all(r["image"] == b"\x89PNG flow" for r in by["qa"] if r["diagram_id"] == "flow")
    # editing: the good edits phrased, the unreadable one ledgered; no ids in instructions
    assert sorted(r["id"] for r in by["editing"]) == ["e-easy", "e-med"]
    assert any(r["reason"] == "edit_unreadable" and r["id"] == "e-bad" for r in rej)
    med = next(r for r in by["editing"] if r["id"] == "e-med")
    assert '"Decoder"' in med["instruction"] and med["source_image"] == b"s"
    for r in by["editing"]:
        assert not forbidden_references(r["instruction"], {"s1", "n_enc", "n_out", "n_in"},
                                        set())
        assert r["template_instruction"] != r["instruction"]
    # tokens per task in the metrics; offline costs nothing
    extra = metrics["extra"]
    assert extra["llm_qa_calls"] > 0 and extra["llm_total_cost_usd"] == 0.0
    assert extra["items_editing"] == 2


def test_qa_answers_are_what_the_graph_says(seeded):
    rows, _, _ = run(seeded(with_edits=False))
    facts = {d["id"]: facts_of(d)[0] for d in diagrams() if d["id"] != "blank"}
    checked = 0
    for r in (r for r in rows if r["config"] == "qa"):
        f = facts[r["diagram_id"]]
        ids = {n.text: n.id for n in f.nodes}
        refs = json.loads(r["referents"])
        t = r["template_question"]
        if t.startswith("How many elements"):
            assert int(r["answer"]) == len(f.nodes)
        elif t.startswith("How many connections does the diagram"):
            assert int(r["answer"]) == len(f.edges)
        elif t.startswith("Following the arrows"):
            reach = nx.has_path(f.digraph, ids[refs[0]], ids[refs[1]])
            assert r["answer"] == ("Yes" if reach else "No")
        elif t.startswith("Is there a direct arrow"):
            assert r["answer"] == ("Yes" if f.digraph.has_edge(ids[refs[0]], ids[refs[1]])
                                   else "No")
        else:
            continue
        checked += 1
    assert checked >= 4


def test_rerun_is_served_from_the_cache(seeded):
    params = seeded()
    rows1, _, first = run(params)
    rows, _, again = run(params)
    assert first["extra"]["llm_total_calls"] > 0
    assert again["extra"]["llm_total_calls"] == 0
    assert again["extra"]["llm_cache_hit_rate"] == 1.0
    assert rows == rows1  # the same table, usage included: a rerun writes the same bytes
    assert all(r["input_tokens"] > 0 for r in rows)


def test_dry_run_counts_calls_and_cost_and_sends_nothing(seeded):
    params = seeded(backend="openai", model="gpt-x", base_url="http://127.0.0.1:9/v1",
                    price_in_per_mtok=2.0, price_out_per_mtok=8.0)
    est = SynthStage(params).dry_run()
    assert est["items"] == {"captioning": 3, "qa": est["items"]["qa"], "editing": 2}
    assert est["calls"] + est["cached"] == sum(est["items"].values())
    assert est["est_cost_usd"] > 0 and est["backend"] == "openai"
    assert not stage_paths(params, "synth").records.exists()


@pytest.mark.parametrize("vendor", ["openai", "gemini"])
def test_loopback_vendor_gives_the_same_tables_modulo_wording(seeded, tmp_path, key_env,
                                                              vendor):
    offline, offline_rej, _ = run(seeded())
    with ModelServer(vendor) as srv:
        url = srv.url + "/v1" if vendor == "openai" else srv.url
        params = seeded(backend=vendor, model=f"{vendor}-loopback", base_url=url,
                        cache_dir=str(tmp_path / f"cache-{vendor}"), price_in_per_mtok=1.0,
                        price_out_per_mtok=4.0, timeout_s=5.0)
        rows, rej, metrics = run(params)
        assert srv.requests  # the vendor really was asked
    assert computed(rows) == computed(offline)
    assert sorted((r["id"], r["reason"]) for r in rej) == \
        sorted((r["id"], r["reason"]) for r in offline_rej)
    words = {(r["id"], k): r[k] for r in offline for k in LANGUAGE if r.get(k)}
    theirs = {(r["id"], k): r[k] for r in rows for k in LANGUAGE if r.get(k)}
    changed = [k for k in words if words[k] != theirs[k]]
    assert len(changed) >= len(words) - 3  # authors' captions are the same, little else
    assert all(r["backend"] == vendor and r["model"] == f"{vendor}-loopback" for r in rows)
    calls = metrics["extra"]["llm_total_calls"]
    assert calls == len(srv.requests)
    # 120 input + 30 output tokens per call at $1/$4 per million
    assert metrics["extra"]["llm_total_cost_usd"] == pytest.approx(calls * 240e-6)
    assert all(r["cost_usd"] == pytest.approx(240e-6) for r in rows)  # each answer's price


def test_ungrounded_caption_and_changed_paraphrase_are_ledgered(seeded, tmp_path, key_env):
    def liar(n: int, user: str) -> Reply | None:
        if "Element texts:" in user:
            return openai_reply(json.dumps({"caption": 'A figure about "Kafka".',
                                            "description": 'It links "Kafka" to "Redis".'}))
        if "Question type:" in user and "Is there a direct arrow" in user:
            q = user.split("Question: ", 1)[1].splitlines()[0]
            return openai_reply(json.dumps({"question": q.replace("Is there", "Is there not")}))
        return None

    with ModelServer("openai", faults=liar) as srv:
        params = seeded(backend="openai", model="m", base_url=srv.url + "/v1")
        rows, rej, _ = run(params)
    reasons = {r["reason"] for r in rej}
    assert {"caption_ungrounded", "qa_paraphrase_changed"} <= reasons
    assert not [r for r in rows if r["config"] == "captioning"]
    assert not [r for r in rows if r["qa_type"] == "relationship"
                and r["template_question"].startswith("Is there a direct arrow")]


@pytest.mark.parametrize("vendor", ["openai", "gemini"])
def test_faulty_vendor_every_item_kept_or_ledgered_rerun_asks_only_the_failures(
        seeded, tmp_path, key_env, vendor):
    rng = random.Random(7)
    error, reply = (openai_error, openai_reply) if vendor == "openai" else \
        (gemini_error, gemini_reply)
    faults = [error(429, "slow down", {"Retry-After": "0"}), error(500, "boom"),
              Reply(body=reply('{"instruction": ').body),  # malformed JSON
              Reply(body=reply("{}").body, delay_s=0.5)]   # slower than the timeout
    failed_first: set[str] = set()
    served: list[Reply] = []

    def flaky(n: int, user: str) -> Reply | None:
        if rng.random() < 0.3:
            failed_first.add(user)
            served.append(faults[len(served) % len(faults)])  # every kind, in turn
            return served[-1]
        return None

    with ModelServer(vendor, faults=flaky) as srv:
        over = {"backend": vendor, "model": "m", "max_retries": 0, "timeout_s": 0.25,
                "base_url": srv.url + "/v1" if vendor == "openai" else srv.url}
        params = seeded(**over)
        rows, rej, m1 = run(params)
        planned = m1["extra"]["items_planned"]
        item_rej = [r for r in rej if r["unit"] == "candidate" and r["reason"].startswith("llm")]
        assert item_rej, "the faults really hit some items"
        # every planned item is a row or an item rejection; every diagram is accounted
        planning = [r for r in rej if r["unit"] == "candidate"
                    and r["reason"] in ("synth_no_graph", "edit_unreadable")]
        assert len(rows) + len(item_rej) == planned
        assert m1["inputs_with_output"] + m1["rejected_inputs"] == m1["in"]
        assert len(served) >= len(faults)  # 429, 500, malformed and timeout all happened
        n = len(srv.outcomes)
        ok_first = {u for u, ok in srv.outcomes if ok} - failed_first
        srv.faults = None
        rows2, rej2, m2 = run(params)
        asked_again = {u for u, _ in srv.outcomes[n:]}
    assert asked_again and asked_again.isdisjoint(ok_first)
    assert asked_again <= failed_first
    assert len(rows2) == planned
    assert not [r for r in rej2 if r["reason"].startswith("llm")]
    assert [r for r in rej2 if r["unit"] == "candidate"] == planning
    assert m2["extra"]["llm_total_cache_hits"] >= len(rows)


def test_budget_stops_cleanly_and_ledgers_the_rest(seeded, tmp_path, key_env):
    with ModelServer("openai") as srv:
        # a call reserves its worst case (input + its max_tokens) at $1000/M and pays
        # 150 tokens ($0.15): about a dozen calls fit in $2
        params = seeded(backend="openai", model="m", base_url=srv.url + "/v1",
                        price_in_per_mtok=1000.0, price_out_per_mtok=1000.0, budget_usd=2.0)
        rows, rej, metrics = run(params)
    exhausted = [r for r in rej if r["reason"] == "budget_exhausted"]
    assert rows and exhausted
    assert len(srv.requests) == metrics["extra"]["llm_total_calls"] == len(rows)
    assert metrics["extra"]["llm_total_cost_usd"] <= 2.0
    assert len(rows) + len(exhausted) == metrics["extra"]["items_planned"]


def test_synth_works_without_the_edit_stage(seeded):
    rows, rej, _ = run(seeded(with_edits=False))
    assert rows and not [r for r in rows if r["config"] == "editing"]
    assert SynthStage.task_configs == ("captioning", "qa", "editing")
    assert isinstance(SYNTH_SCHEMA, pa.Schema) and SYNTH_SCHEMA.field("id").nullable is False


def test_cli_dry_run_prints_the_estimate(seeded, tmp_path, monkeypatch):
    import yaml
    from typer.testing import CliRunner

    from diagramforge.cli import app

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # an estimate needs no key
    seeded()
    cfg = tmp_path / "params.yaml"
    cfg.write_text(yaml.safe_dump({
        "project": {"data_dir": str(tmp_path / "data"), "metrics_dir": str(tmp_path / "m")},
        "synth": {"cache_dir": str(tmp_path / "cache"), "backend": "openai",
                  "price_in_per_mtok": 0.75, "price_out_per_mtok": 4.5}}))
    res = CliRunner().invoke(app, ["-p", str(cfg), "synth", "--dry-run"])
    assert res.exit_code == 0, res.output
    est = json.loads(res.output)
    assert est["calls"] > 0 and est["est_cost_usd"] > 0 and est["key_missing"] is True
    assert not (tmp_path / "data" / "synth").exists()


def test_max_diagrams_ledgers_the_rest_with_their_edits(seeded):
    rows, rej, metrics = run(seeded(max_diagrams=2))  # blank, flow (sorted by id)
    assert {r["diagram_id"] for r in rows} == {"flow"}
    limited = {(r["id"], r["unit"]) for r in rej if r["reason"] == "synth_max_diagrams"}
    assert limited == {("pipe", "input"), ("tikz", "input"), ("e-med", "candidate")}
    assert metrics["inputs_with_output"] + metrics["rejected_inputs"] == 4


def test_openai_batch_api_gives_the_same_tables_at_the_batch_price(seeded, tmp_path, key_env):
    from tests.synth.llm.loopback import OpenAIBatchServer
    from tests.synth.synth.fake_model import answer

    def model(custom_id: str, body: dict) -> tuple[int, dict]:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return 200, openai_reply(json.dumps(answer(user)), 120, 30).body

    offline, _, _ = run(seeded())
    with OpenAIBatchServer(answer=model) as srv:
        params = seeded(backend="openai", model="m", base_url=srv.url + "/v1", batch=True,
                        batch_poll_s=0.01, cache_dir=str(tmp_path / "cache-batch"),
                        price_in_per_mtok=1.0, price_out_per_mtok=4.0)
        rows, _, metrics = run(params)
        assert len(srv.batches) == 1  # every item in one batch file
    assert computed(rows) == computed(offline)
    extra = metrics["extra"]
    assert extra["llm_total_batch_calls"] == extra["llm_total_calls"] > 0
    assert extra["llm_total_cost_usd"] == pytest.approx(extra["llm_total_calls"] * 120e-6)


def test_configs_take_only_their_kinds_and_the_rest_is_counted_not_ledgered(tmp_path):
    """`select.captioning` / `select.qa` keep lists: a diagram neither takes gets no item and
    no rejection (it stays in the other configs); the books still balance."""
    from diagramforge.config import parse_params
    from tests.conftest import seed_stage
    from tests.synth.synth.conftest import diagrams

    params = parse_params({
        "project": {"data_dir": str(tmp_path / "data"), "metrics_dir": str(tmp_path / "m")},
        "synth": {"cache_dir": str(tmp_path / "cache")},
        "select": {"captioning": {"types": ["flowchart"]}, "qa": {"types": ["flowchart"]}}})
    rows = diagrams()
    for r, kind in zip(rows, ["flowchart", "line_chart", "tree", None], strict=True):
        r["diagram_type"] = kind
    seed_stage(params, "split", rows)
    items, rej, metrics = run(params)
    assert {r["diagram_id"] for r in items} == {"flow"}
    assert {r["id"] for r in rej} == {"blank"}  # untyped: taken, then ledgered (no labels)
    assert metrics["not_selected_inputs"] == 2 and metrics["rejected_inputs"] == 1
    assert metrics["inputs_with_output"] == 1 and metrics["in"] == 4
    assert metrics["extra"]["not_selected.captioning.type"] == 2
    assert metrics["extra"]["not_selected.qa.type"] == 2
def test_a_rewording_that_no_longer_singles_out_its_targets_is_ledgered(seeded, tmp_path,
                                                                        key_env):
    def vague(n: int, user: str) -> Reply | None:
        if "Operations, in order:" not in user:
            return None
        steps = re.findall(r"^\d+\. (.+)$", user, re.M)
        # a model that shortens every description to "the node"
        text = "; then ".join(re.sub(r'the (box|oval|circle|diamond) "[^"]+"', "the node", s)
                              for s in steps)
        return openai_reply(json.dumps({"instruction": text[0].upper() + text[1:] + "."}))

    with ModelServer("openai", faults=vague) as srv:
        params = seeded(backend="openai", model="m", base_url=srv.url + "/v1")
        rows, rej, _ = run(params)
    assert not [r for r in rows if r["config"] == "editing"]
    lost = {r["id"]: r["detail"] for r in rej if r["reason"] == "instruction_unresolved"}
    assert set(lost) == {"e-easy", "e-med"}
    assert "vague: 'the node'" in lost["e-easy"] and "no description singles out" in \
        lost["e-med"]
