"""The offline backend and the client's shared logic, with no network at all."""

from __future__ import annotations

import random

import jsonschema
import pytest
from pydantic import ValidationError

from diagramforge.synth.llm.client import LLM
from diagramforge.synth.llm.limits import RateLimiter
from diagramforge.synth.llm.offline import fill
from diagramforge.synth.llm.retry import retry_after_s
from diagramforge.synth.llm.settings import LLMParams
from diagramforge.synth.llm.types import Completion, LLMCallError, Request
from tests.synth.llm.conftest import SCHEMA, make_request

RICH = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 30, "maxLength": 40},
        "level": {"type": "string", "enum": ["easy", "medium", "hard"]},
        "count": {"type": "integer", "minimum": 2, "maximum": 9},
        "score": {"type": "number"},
        "ok": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
        "maybe": {"anyOf": [{"type": "null"}, {"type": "string"}]},
        "nested": {"type": "object", "properties": {"k": {"const": "v"}},
                   "required": ["k"], "additionalProperties": False},
    },
    "required": ["title", "level", "count", "score", "ok", "tags", "maybe", "nested"],
    "additionalProperties": False,
}


def offline(tmp_path, **over) -> LLM:
    return LLM.from_params(LLMParams(cache_dir=str(tmp_path / "cache"), **over))


def test_params_defaults_and_strictness():
    p = LLMParams()
    assert (p.backend, p.budget_usd, p.key_envs()) == ("offline", None, ())
    assert LLMParams(backend="gemini").key_envs() == ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    assert LLMParams(backend="openai").key_envs() == ("OPENAI_API_KEY",)
    assert LLMParams(backend="openai", api_key_env="K").key_envs() == ("K",)
    priced = LLMParams(price_in_per_mtok=2, price_out_per_mtok=8)
    assert priced.cost(1000, 500) == 0.006
    assert priced.cost(1000, 500, batch=True) == pytest.approx(0.003)
    with pytest.raises(ValidationError):
        LLMParams(api_key="sk-x")  # a key is never a param
    with pytest.raises(ValidationError):
        LLMParams(backend="claude")


def test_request_sampling_falls_back_to_params():
    p = LLMParams(temperature=0.3, max_tokens=50, seed=7)
    assert make_request().sampling(p) == {"temperature": 0.3, "max_tokens": 50, "seed": 7}
    assert make_request(max_tokens=9).sampling(p)["max_tokens"] == 9


def test_offline_answers_are_valid_grounded_and_deterministic(tmp_path):
    llm = offline(tmp_path)
    req = Request(task="qa", user="Decide whether Parser reaches Emitter via Optimizer",
                  json_schema=RICH)
    a = llm.complete(req)
    assert a.ok, a.detail
    jsonschema.validate(a.data, RICH)
    assert a.data["level"] == "easy" and a.data["count"] == 2 and a.data["nested"] == {"k": "v"}
    assert len(a.data["tags"]) == 2 and 30 <= len(a.data["title"]) <= 40
    words = set(req.user.split())
    assert any(w in words for w in a.data["title"].split())  # built from the request's text
    b = offline(tmp_path / "other").complete(req)  # a fresh cache: computed again, same answer
    assert not b.cached and b.data == a.data
    assert a.input_tokens > 0 and a.output_tokens > 0 and a.cost_usd == 0.0


def test_offline_varies_with_the_request(tmp_path):
    llm = offline(tmp_path)
    user = " ".join(f"w{i}" for i in range(40))
    answers = {llm.complete(Request(task="t", user=user, seed=s, json_schema=SCHEMA))
               .data["caption"] for s in range(8)}
    assert len(answers) > 1


def test_fill_handles_type_lists_and_bounds():
    rng = random.Random(0)
    assert fill({"type": ["null", "integer"], "minimum": 3}, rng, ["a"]) == 3
    assert fill({"type": "number", "maximum": -2}, rng, ["a"]) == -2.0
    assert fill({"type": "array", "items": {"enum": [5]}, "maxItems": 0}, rng, ["a"]) == []


def test_dry_run_counts_uncached_calls_and_prices_them(tmp_path):
    llm = offline(tmp_path, price_in_per_mtok=1.0, price_out_per_mtok=10.0, max_tokens=100)
    reqs = [make_request(user=f"diagram {i}") for i in range(3)]
    before = llm.dry_run(reqs)
    assert before["calls"] == 3 and before["cached"] == 0
    assert before["est_max_output_tokens"] == 300
    assert before["est_cost_usd"] == pytest.approx(
        (before["est_input_tokens"] * 1.0 + 300 * 10.0) / 1e6, abs=1e-6)
    llm.complete(reqs[0])
    after = llm.dry_run(reqs)
    assert (after["calls"], after["cached"]) == (2, 1)
    assert llm.meter.tasks["captioning"].calls == 1  # a dry run calls nothing


class _Scripted:
    """A backend that returns scripted texts and records the messages it saw."""

    name = "scripted"

    def __init__(self, *texts: str) -> None:
        self.texts, self.seen = list(texts), []

    def complete(self, call) -> Completion:
        self.seen.append(call.messages)
        return Completion(text=self.texts.pop(0), input_tokens=10, output_tokens=5)


def test_repair_quotes_the_validation_error(tmp_path):
    backend = _Scripted('{"caption": "ab", "kind": "flowchart", "nodes": 1}',
                        '{"caption": "abc", "kind": "flowchart", "nodes": 1}')
    llm = LLM(LLMParams(cache_dir=None), backend)
    out = llm.complete(make_request())
    assert out.ok and out.data["caption"] == "abc"
    assert "caption" in backend.seen[1][-1]["content"]
    assert "too short" in backend.seen[1][-1]["content"]


def test_non_object_json_is_invalid(tmp_path):
    llm = LLM(LLMParams(cache_dir=None), _Scripted("[1]", "42"))
    out = llm.complete(make_request())
    assert out.reason == "llm_invalid_output" and "object" in out.detail


def test_rate_limiter_waits_for_the_window():
    now = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    lim = RateLimiter(rpm=2, tpm=1000, clock=lambda: now[0], sleep=sleep)
    assert lim.acquire(100) == 0 and lim.acquire(100) == 0  # a burst up to the limit
    assert lim.acquire(100) == pytest.approx(30.0)  # then one request per 60/2 s
    now[0] = 200.0  # both buckets full again
    assert lim.acquire(900) == 0
    assert lim.acquire(200) == pytest.approx(6.0)  # 100 tokens short at 1000/60 per s
    assert sum(slept) == pytest.approx(36.0)
    tokens = RateLimiter(tpm=1000, clock=lambda: now[0], sleep=sleep)
    assert tokens.acquire(1000) == 0
    tokens.settle(reserved=1000, used=150)  # the call used less than it reserved: refunded
    assert tokens.acquire(850) == 0


def test_rate_limiter_oversize_request_waits_for_a_full_bucket_then_goes():
    now = [0.0]

    def sleep(s: float) -> None:
        now[0] += s

    lim = RateLimiter(tpm=10, clock=lambda: now[0], sleep=sleep)
    assert lim.acquire(50) == 0  # a full bucket: goes, into debt
    assert lim.acquire(1) == pytest.approx(60 * 41 / 10)  # debt repaid before the next


def test_retry_after_parsing():
    assert retry_after_s({"retry-after": "3"}) == 3.0
    assert retry_after_s({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_s({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"},
                         now=1445412480.0) == 10.0
    assert retry_after_s({"retry-after": "soon"}) is None
    assert retry_after_s({}) is None


# -- the offline backend fills the schema from the request's structured context ------------

INSTRUCTIONS = {
    "type": "object",
    "properties": {
        "caption": {"type": "string", "minLength": 10},
        "answer": {"type": "integer", "minimum": 0},
        "kind": {"type": "string", "enum": ["flowchart", "sequence", "tree"]},
        "instructions": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "properties": {
                "difficulty": {"type": "string", "enum": ["Easy", "Medium", "Hard"]},
                "instruction": {"type": "string"},
            },
            "required": ["difficulty", "instruction"], "additionalProperties": False}},
    },
    "required": ["caption", "answer", "kind", "instructions"],
    "additionalProperties": False,
}

CONTEXT = {
    "kind": "tree", "answer": 5, "labels": ["Start", "Check", "Done"],
    "instructions": [{"difficulty": "Easy", "op": "recolour", "target": "Start", "to": "red"},
                     {"difficulty": "Hard", "op": "delete", "target": "Check", "to": ""}],
}
TEMPLATES = {
    "caption": ["A {kind} of {labels}.", "A {kind} diagram from {labels[0]} to {labels[2]}."],
    "instruction": "{op} the '{target}' node {to}",
}


def test_offline_fills_the_schema_from_context_and_templates(tmp_path):
    llm = offline(tmp_path)
    answers = []
    for seed in range(6):
        req = Request(task="editing", user="Write the instructions.", json_schema=INSTRUCTIONS,
                      context=CONTEXT, templates=TEMPLATES, seed=seed)
        out = llm.complete(req)
        assert out.ok, out.detail
        jsonschema.validate(out.data, INSTRUCTIONS)
        assert (out.data["kind"], out.data["answer"]) == ("tree", 5)  # facts code computed
        assert out.data["instructions"] == [
            {"difficulty": "Easy", "instruction": "recolour the 'Start' node red"},
            {"difficulty": "Hard", "instruction": "delete the 'Check' node"}]
        answers.append(out.data["caption"])
    assert set(answers) == {"A tree of Start, Check, Done.", "A tree diagram from Start to Done."}


def test_offline_falls_back_when_context_does_not_fit(tmp_path):
    llm = offline(tmp_path)
    bad = {"kind": "pie", "answer": -3, "labels": ["Only"], "instructions": "not a list"}
    out = llm.complete(Request(task="editing", user="x", json_schema=INSTRUCTIONS, context=bad,
                               templates={"caption": "{missing} {labels}"}))
    assert out.ok, out.detail
    assert (out.data["kind"], out.data["answer"]) == ("flowchart", 0)  # first enum, minimum
    assert len(out.data["caption"]) >= 10 and "Only" in out.data["caption"]  # context words
    assert len(out.data["instructions"]) == 1


def test_context_is_part_of_the_key_for_offline_only(tmp_path):
    req = make_request()
    with_ctx = make_request(context={"labels": ["A"]})
    off = offline(tmp_path)
    assert off.key(req) != off.key(with_ctx)
    real = LLM(LLMParams(backend="openai", cache_dir=None), _Scripted())
    assert real.key(req) == real.key(with_ctx)  # a real model reads only the messages
    assert real.key(req) != off.key(req)  # and the backend is in the key


def test_backend_error_is_ledgered_not_cached(tmp_path):
    class Failing:
        name = "failing"
        calls = 0

        def complete(self, call):
            self.calls += 1
            raise LLMCallError("openai chat.completions: APIStatusError: 503")

    backend = Failing()
    llm = LLM(LLMParams(cache_dir=str(tmp_path / "c")), backend)
    out = llm.complete(make_request())
    assert (out.ok, out.reason, out.calls) == (False, "llm_error", 0)
    assert "503" in out.detail and out.backend == "offline"
    llm.complete(make_request())
    assert backend.calls == 2
    assert llm.meter.as_dict()["total"]["failures"] == {"llm_error": 2}


def test_complete_many_keeps_order_pays_repeats_once_and_runs_concurrently(tmp_path):
    import threading
    import time

    class Slow:
        name = "slow"

        def __init__(self):
            self.active = self.peak = self.calls = 0
            self.lock = threading.Lock()

        def complete(self, call):
            with self.lock:
                self.active += 1
                self.calls += 1
                self.peak = max(self.peak, self.active)
            time.sleep(0.05)
            with self.lock:
                self.active -= 1
            user = call.messages[-1]["content"]
            return Completion(text=f'{{"caption": "{user}", "kind": "flowchart", "nodes": 1}}',
                              input_tokens=10, output_tokens=5)

    backend = Slow()
    llm = LLM(LLMParams(cache_dir=str(tmp_path / "c"), concurrency=4), backend)
    reqs = [make_request(user=f"diagram {i % 6}") for i in range(8)]  # two repeats
    outs = llm.complete_many(reqs)
    assert [o.data["caption"] for o in outs] == [r.user for r in reqs]
    assert backend.calls == 6 and backend.peak > 1
    assert [o.cached for o in outs] == [False] * 6 + [True] * 2
    usage = llm.meter.as_dict()["captioning"]
    assert (usage["calls"], usage["cache_hits"]) == (6, 2)
    assert llm.complete_many(reqs) and backend.calls == 6  # a rerun: all from the cache


def test_budget_counts_calls_in_flight(tmp_path):
    import threading
    import time

    class Exact:
        """Reports usage equal to the estimate so the spend is known in advance."""

        name = "exact"
        calls = 0
        lock = threading.Lock()

        def complete(self, call):
            with self.lock:
                self.calls += 1
            time.sleep(0.05)
            return Completion(text='{"caption": "abc", "kind": "flowchart", "nodes": 1}',
                              input_tokens=0, output_tokens=call.sampling["max_tokens"])

    params = LLMParams(cache_dir=None, concurrency=4, max_tokens=1000, price_out_per_mtok=1.0,
                       budget_usd=0.0025)  # room for two calls of $0.001 (input is free)
    backend = Exact()
    llm = LLM(params, backend)
    outs = llm.complete_many([make_request(user=f"d{i}") for i in range(6)])
    assert backend.calls == 2
    assert sorted(o.reason for o in outs) == [""] * 2 + ["budget_exhausted"] * 4
    assert llm.meter.total_usd == pytest.approx(0.002)
    assert llm.meter.as_dict()["total"]["failures"] == {"budget_exhausted": 4}
    assert llm.budget_left_usd == pytest.approx(0.0005)
    assert LLM(LLMParams(cache_dir=None), backend).budget_left_usd is None


def test_meter_totals_and_dry_run_by_task(tmp_path):
    llm = offline(tmp_path, price_in_per_mtok=1.0, price_out_per_mtok=2.0)
    llm.complete(make_request(user="a"))
    llm.complete(make_request(user="a"))
    llm.complete(Request(task="qa", user="b", json_schema=SCHEMA))
    m = llm.meter.as_dict()
    assert (m["captioning"]["calls"], m["captioning"]["cache_hits"], m["qa"]["calls"]) == (1, 1, 1)
    assert m["total"]["calls"] == 2 and m["total"]["cost_usd"] == pytest.approx(
        m["captioning"]["cost_usd"] + m["qa"]["cost_usd"])
    plan = llm.dry_run([make_request(user="a"), make_request(user="c"), make_request(user="c"),
                        Request(task="qa", user="d", json_schema=SCHEMA)])
    assert (plan["calls"], plan["cached"], plan["backend"], plan["batch"]) == (
        2, 2, "offline", False)
    assert plan["by_task"]["captioning"]["calls"] == 1 and plan["by_task"]["qa"]["calls"] == 1


def test_from_params_cache_dir_override(tmp_path):
    params = LLMParams(cache_dir=str(tmp_path / "ignored"))
    llm = LLM.from_params(params, tmp_path / "shared")
    llm.complete(make_request())
    assert (tmp_path / "shared").is_dir() and not (tmp_path / "ignored").exists()
    assert llm.complete(make_request()).cached
    nocache = LLM.from_params(params, cache_dir=None)
    nocache.complete(make_request())
    assert not nocache.complete(make_request()).cached


def test_keys_come_from_the_environment_only(monkeypatch):
    from diagramforge.synth.llm.keys import read_key, scrub

    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    gemini = LLMParams(backend="gemini")
    with pytest.raises(LLMCallError, match="GEMINI_API_KEY or GOOGLE_API_KEY is not set"):
        read_key(gemini)
    monkeypatch.setenv("GOOGLE_API_KEY", "AIzaFromGoogleVariable0123456789")
    assert read_key(gemini) == "AIzaFromGoogleVariable0123456789"
    monkeypatch.setenv("GEMINI_API_KEY", "AIzaFromGeminiVariable0123456789")
    assert read_key(gemini) == "AIzaFromGeminiVariable0123456789"  # the first set one wins
    assert read_key(LLMParams()) == ""  # offline needs none
    text = scrub("bad key AIzaFromGeminiVariable0123456789 and sk-proj-abcdefghijkl", "s3cr3tvalue")
    assert "AIza" not in text and "sk-proj" not in text
