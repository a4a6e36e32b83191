"""The offline backend and the client's shared logic, with no network at all."""

from __future__ import annotations

import random

import jsonschema
import pytest
from pydantic import ValidationError

from diagramforge.synth.llm import LLM, Completion, LLMParams, Request
from diagramforge.synth.llm.limits import RateLimiter
from diagramforge.synth.llm.offline import fill
from diagramforge.synth.llm.retry import retry_after_s
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
    assert (p.backend, p.budget_usd, p.key_env()) == ("offline", None, None)
    assert LLMParams(backend="gemini").key_env() == "GEMINI_API_KEY"
    assert LLMParams(backend="openai", api_key_env="K").key_env() == "K"
    assert LLMParams(price_in_per_mtok=2, price_out_per_mtok=8).cost(1000, 500) == 0.006
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
    a = llm.call(req)
    assert a.ok, a.detail
    jsonschema.validate(a.data, RICH)
    assert a.data["level"] == "easy" and a.data["count"] == 2 and a.data["nested"] == {"k": "v"}
    assert len(a.data["tags"]) == 2 and 30 <= len(a.data["title"]) <= 40
    words = set(req.user.split())
    assert any(w in words for w in a.data["title"].split())  # built from the request's text
    b = offline(tmp_path / "other").call(req)  # a fresh cache: computed again, same answer
    assert not b.cached and b.data == a.data
    assert a.input_tokens > 0 and a.output_tokens > 0 and a.cost_usd == 0.0


def test_offline_varies_with_the_request(tmp_path):
    llm = offline(tmp_path)
    user = " ".join(f"w{i}" for i in range(40))
    answers = {llm.call(Request(task="t", user=user, seed=s, json_schema=SCHEMA)).data["caption"]
               for s in range(8)}
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
    llm.call(reqs[0])
    after = llm.dry_run(reqs)
    assert (after["calls"], after["cached"]) == (2, 1)
    assert llm.meter.tasks["captioning"].calls == 1  # a dry run calls nothing


class _Scripted:
    """A backend that returns scripted texts and records the messages it saw."""

    name = "scripted"

    def __init__(self, *texts: str) -> None:
        self.texts, self.seen = list(texts), []

    def complete(self, messages, schema, task, sampling) -> Completion:
        self.seen.append(messages)
        return Completion(text=self.texts.pop(0), input_tokens=10, output_tokens=5)


def test_repair_quotes_the_validation_error(tmp_path):
    backend = _Scripted('{"caption": "ab", "kind": "flowchart", "nodes": 1}',
                        '{"caption": "abc", "kind": "flowchart", "nodes": 1}')
    llm = LLM(LLMParams(cache_dir=None), backend)
    out = llm.call(make_request())
    assert out.ok and out.data["caption"] == "abc"
    assert "caption" in backend.seen[1][-1]["content"]
    assert "too short" in backend.seen[1][-1]["content"]


def test_non_object_json_is_invalid(tmp_path):
    llm = LLM(LLMParams(cache_dir=None), _Scripted("[1]", "42"))
    out = llm.call(make_request())
    assert out.reason == "llm_invalid_output" and "object" in out.detail


def test_rate_limiter_waits_for_the_window():
    now = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    lim = RateLimiter(rpm=2, tpm=1000, clock=lambda: now[0], sleep=sleep)
    assert lim.acquire(100) == 0 and lim.acquire(100) == 0
    assert lim.acquire(100) == pytest.approx(60.0)  # third request in a minute waits
    now[0] = 200.0
    assert lim.acquire(900) == 0
    assert lim.acquire(200) == pytest.approx(60.0)  # tokens over the tpm wait too
    assert RateLimiter(tpm=10, sleep=sleep).acquire(50) == 0  # oversize alone still goes


def test_retry_after_parsing():
    assert retry_after_s({"retry-after": "3"}) == 3.0
    assert retry_after_s({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_s({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"},
                         now=1445412480.0) == 10.0
    assert retry_after_s({"retry-after": "soon"}) is None
    assert retry_after_s({}) is None
