"""The model-judged metrics through the synth LLM layer: the offline backend, and a loopback
OpenAI-protocol server returning crafted judgements (scores by hand, cache, budget, dry-run,
malformed answers)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from diagramforge.cards.evaluate.judge import (
    REQUESTS_FILE,
    JudgeReason,
    requirements,
)
from diagramforge.cards.evaluate.report import markdown
from diagramforge.cards.evaluate.run import evaluate
from diagramforge.cards.evaluate.settings import EvaluateParams, JudgeParams
from diagramforge.config import Params
from tests.cards.evaluate.conftest import write_predictions
from tests.synth.llm.conftest import key_env  # noqa: F401 - fixture
from tests.synth.llm.loopback import Loopback, openai_reply

REQ, STYLE = "judge_requirements", "judge_style"


def judged(params: Params, tmp_path: Path, **fields: object) -> Params:
    judge = JudgeParams(**{"enabled": True, "cache_dir": str(tmp_path / "cache"), **fields})
    return params.model_copy(update={"evaluate": EvaluateParams(judge=judge)})


def answers(*verdicts: str) -> str:
    return json.dumps({"answers": [{"requirement": i, "answer": v}
                                   for i, v in enumerate(verdicts, 1)]})


@pytest.fixture
def server() -> Iterator[Loopback]:
    with Loopback(default=openai_reply('{"style": 10, "aesthetic": 10}')) as srv:
        yield srv


def openai(params: Params, tmp_path: Path, server: Loopback, **fields: object) -> Params:
    return judged(params, tmp_path, backend="openai", model="gpt-loopback",
                  base_url=server.url + "/v1", timeout_s=5.0, max_retries=0, **fields)


def by_id(res: dict) -> dict[str, dict]:
    return {r["id"]: r for r in res["items"]}


def test_off_by_default(published: dict, tmp_path) -> None:
    refs = published["refs"]["editing"]
    preds = write_predictions(tmp_path / "p.jsonl", {r["id"]: r["target_code"] for r in refs})
    res = evaluate(published["params"], preds, "editing", "test", published["root"])
    assert "judge" not in res and REQ not in res["items"][0]
    assert any(x.startswith("LLM-judged") for x in res["not_computed"])


def test_offline_judge_answers_from_the_code_evidence(published: dict, tmp_path) -> None:
    """Offline: every requirement 'yes' iff the edit verified; style from style_preserved
    and ssim on the 0–10 scale.  e1 is the reference (verified); e2 returns the source
    unchanged (not verified: its render is the source's)."""
    refs = {r["id"]: r for r in published["refs"]["editing"]}
    assert [len(requirements(r)) for r in refs.values()] == [
        len(json.loads(r["operations"])) for r in refs.values()]
    preds = write_predictions(tmp_path / "p.jsonl", {"e1": refs["e1"]["target_code"],
                                                     "e2": refs["e2"]["source_code"]})
    params = judged(published["params"], tmp_path)
    res = evaluate(params, preds, "editing", "test", published["root"])
    items = by_id(res)
    assert (items["e1"]["edit_verified"], items["e2"]["edit_verified"]) == (1.0, 0.0)
    assert (items["e1"][REQ], items["e2"][REQ]) == (1.0, 0.0)
    assert items["e1"]["judge_answers"] == ["yes"] * len(json.loads(refs["e1"]["operations"]))
    e2 = items["e2"]
    by_hand = (round(10 * e2["style_preserved"], 3) + round(10 * e2["ssim"], 3)) / 20
    assert e2[STYLE] == pytest.approx(by_hand) and e2[STYLE] < 1.0
    assert items["e1"][STYLE] == pytest.approx(1.0)
    agg = res["judge"]["aggregate"]["all"]
    assert agg[REQ] == pytest.approx(0.5) and agg[STYLE] == pytest.approx((1 + by_hand) / 2)
    assert not any(x.startswith("LLM-judged") for x in res["not_computed"])
    assert res["aggregate"]["all"]["edit_verified"] == pytest.approx(0.5)  # untouched
    md = markdown(res)
    assert "Model-judged metrics (LLM judge: offline" in md and f"{REQ} (judged)" in md


def test_loopback_crafted_judgements_then_cache(published: dict, tmp_path, server,
                                                key_env) -> None:  # noqa: F811
    """e1 (the reference) is judged: requirements [yes, no] → 0.5; style 8 and 6 → 14/20.
    e2 does not parse as DOT: judged 0 without a call.  Means: 0.25 and 0.35."""
    refs = {r["id"]: r for r in published["refs"]["editing"]}
    assert len(json.loads(refs["e1"]["operations"])) == 2
    preds = write_predictions(tmp_path / "p.jsonl", {"e1": refs["e1"]["target_code"],
                                                     "e2": "digraph { a -> "})
    server.script = [openai_reply(answers("yes", "no")),
                     openai_reply('{"style": 8, "aesthetic": 6}')]
    params = openai(published["params"], tmp_path, server)
    res = evaluate(params, preds, "editing", "test", published["root"])
    items = by_id(res)
    assert len(server.requests) == 2
    assert (items["e1"][REQ], items["e1"][STYLE]) == (0.5, pytest.approx(0.7))
    assert items["e1"]["judge_answers"] == ["yes", "no"]
    assert items["e1"]["judge_scores"] == {"style": 8.0, "aesthetic": 6.0}
    assert (items["e2"][REQ], items["e2"][STYLE]) == (0.0, 0.0)
    sent = server.requests[0].body
    assert sent["model"] == "gpt-loopback"
    assert sent["response_format"]["json_schema"]["name"] == "judge_requirements"
    user = sent["messages"][1]["content"]
    assert "1. The edited code" in user and "2. The edited code" in user
    assert refs["e1"]["target_code"] in user and refs["e1"]["source_code"] in user
    agg = res["judge"]["aggregate"]["all"]
    assert (agg[REQ], agg[STYLE]) == (pytest.approx(0.25), pytest.approx(0.35))
    assert res["judge"]["llm"]["total"]["calls"] == 2

    again = evaluate(params, preds, "editing", "test", published["root"])
    assert len(server.requests) == 2  # every answer came from the cache
    assert [(r[REQ], r[STYLE]) for r in again["items"]] == \
        [(r[REQ], r[STYLE]) for r in res["items"]]
    assert again["judge"]["llm"]["total"]["cache_hits"] == 2
    assert again["judge"]["llm"]["total"]["calls"] == 0


def test_budget_exhaustion_marks_the_rest(published: dict, tmp_path, server,
                                          key_env) -> None:  # noqa: F811
    """Worst case per call: 100 output tokens at $1000/Mtok = $0.10; a budget of $0.10 pays
    the first call (which costs 20 tokens = $0.02), the next would pass it."""
    refs = published["refs"]["editing"]
    preds = write_predictions(tmp_path / "p.jsonl", {r["id"]: r["target_code"] for r in refs})
    server.script = [openai_reply(answers("yes", "yes"), completion_tokens=20)]
    params = openai(published["params"], tmp_path, server, max_tokens=100,
                    price_out_per_mtok=1000.0, budget_usd=0.1)
    res = evaluate(params, preds, "editing", "test", published["root"])
    items = by_id(res)
    assert len(server.requests) == 1
    assert items["e1"][REQ] == 1.0 and items["e1"][STYLE] is None
    assert items["e2"][REQ] is None and items["e2"][STYLE] is None
    assert {r["judge_reason"] for r in items.values()} == {JudgeReason.BUDGET}
    agg = res["judge"]["aggregate"]
    assert agg["reasons"] == {JudgeReason.BUDGET: 2}
    assert agg["all"][f"{REQ}_scored"] == 1 and agg["all"][REQ] == 1.0
    assert res["aggregate"]["all"]["execution_success"] == 1.0  # the code metrics stand
    assert "judge_budget" in markdown(res)


def test_dry_run_writes_the_exact_requests_and_sends_nothing(published: dict, tmp_path,
                                                             server, key_env) -> None:  # noqa: F811
    refs = published["refs"]["editing"]
    preds = write_predictions(tmp_path / "p.jsonl", {r["id"]: r["target_code"] for r in refs})
    params = openai(published["params"], tmp_path, server, price_in_per_mtok=1.0)
    path = tmp_path / REQUESTS_FILE
    res = evaluate(params, preds, "editing", "test", published["root"], judge_requests=path)
    assert server.requests == []
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [(x["id"], x["metric"]) for x in lines] == [
        ("e1", REQ), ("e1", STYLE), ("e2", REQ), ("e2", STYLE)]
    assert not any(x["cached"] for x in lines)
    assert res["judge"]["dry_run"]["calls"] == 4 and res["judge"]["dry_run"]["est_cost_usd"] > 0
    assert REQ not in res["items"][0]
    assert any(x.startswith("LLM-judged") for x in res["not_computed"])
    assert "dry run" in markdown(res)

    server.script = [openai_reply(answers("yes", "yes")),
                     openai_reply('{"style": 9, "aesthetic": 9}'),
                     openai_reply(answers("yes"))]
    evaluate(params, preds, "editing", "test", published["root"])
    assert [s.body for s in server.requests] == [x["body"] for x in lines]

    evaluate(params, preds, "editing", "test", published["root"], judge_requests=path)
    assert all(json.loads(x)["cached"] for x in path.read_text().splitlines())


def test_dry_run_needs_no_key(published: dict, tmp_path, server,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    refs = published["refs"]["editing"]
    preds = write_predictions(tmp_path / "p.jsonl", {r["id"]: r["target_code"] for r in refs})
    params = openai(published["params"], tmp_path, server)
    path = tmp_path / REQUESTS_FILE
    res = evaluate(params, preds, "editing", "test", published["root"], judge_requests=path)
    assert res["judge"]["dry_run"]["key_missing"] is True
    assert len(path.read_text().splitlines()) == 4 and server.requests == []
    assert json.loads(path.read_text().splitlines()[0])["body"]["model"] == "gpt-loopback"


def test_malformed_answers_are_contained(published: dict, tmp_path, server,
                                         key_env) -> None:  # noqa: F811
    """e1: the requirements answer is schema-valid but names requirement 1 twice; the style
    answer is not JSON, nor is its repair.  e2 answers well."""
    refs = published["refs"]["editing"]
    preds = write_predictions(tmp_path / "p.jsonl", {r["id"]: r["target_code"] for r in refs})
    server.script = [openai_reply(answers("yes", "no").replace('"requirement": 2',
                                                               '"requirement": 1')),
                     openai_reply("The diagram looks lovely."),
                     openai_reply("{'style': ten}"),
                     openai_reply(answers("no")),
                     openai_reply('{"style": 5, "aesthetic": 4}')]
    params = openai(published["params"], tmp_path, server)
    res = evaluate(params, preds, "editing", "test", published["root"])
    items = by_id(res)
    assert len(server.requests) == 5
    assert items["e1"][REQ] is None and items["e1"][STYLE] is None
    assert items["e1"]["judge_reason"] == JudgeReason.UNPARSED
    assert (items["e2"][REQ], items["e2"][STYLE]) == (0.0, pytest.approx(0.45))
    assert res["judge"]["aggregate"]["reasons"] == {JudgeReason.UNPARSED: 1}
    assert "judge_unparsed" in markdown(res)


def test_generation_style_on_the_seed_scale(published: dict, tmp_path, server,
                                            key_env) -> None:  # noqa: F811
    """Generation SCS: (visual + layout + aesthetic) / 30; no requirements metric."""
    refs = published["refs"]["generation"]
    preds = write_predictions(tmp_path / "p.jsonl", {r["id"]: r["code"] for r in refs})
    server.default = openai_reply('{"visual": 9, "layout": 6, "aesthetic": 9}')
    params = openai(published["params"], tmp_path, server)
    res = evaluate(params, preds, "generation", "test", published["root"])
    assert len(server.requests) == len(refs)
    assert res["judge"]["metrics"] == [STYLE]
    assert all(r[STYLE] == pytest.approx(0.8) and REQ not in r for r in res["items"])


def test_cli_flags(published: dict, tmp_path) -> None:
    """``--judge-dry-run`` writes the requests beside the results; ``--judge`` turns the
    (offline) judge on although params leave it off."""
    from typer.testing import CliRunner

    from diagramforge.cli import app

    refs = published["refs"]["editing"]
    preds = write_predictions(tmp_path / "p.jsonl", {r["id"]: r["target_code"] for r in refs})
    yml = tmp_path / "params.yaml"
    yml.write_text(f"evaluate:\n  judge:\n    cache_dir: {tmp_path / 'cache'}\n")
    base = ["--params", str(yml), "evaluate", str(preds), "--config", "editing",
            "--published", str(published["root"])]
    res = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "dry"), "--judge-dry-run"])
    assert res.exit_code == 0, res.output
    assert len((tmp_path / "dry" / REQUESTS_FILE).read_text().splitlines()) == 4
    res = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "on"), "--judge"])
    assert res.exit_code == 0, res.output
    assert f"{REQ} (judged)" in res.output
    on = json.loads((tmp_path / "on" / "results.json").read_text())
    assert on["judge"]["aggregate"]["all"][REQ] == pytest.approx(1.0)
    res = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "off")])
    assert "judge" not in json.loads((tmp_path / "off" / "results.json").read_text())
