"""The Gemini backend through the real ``google-genai`` client against a loopback server."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import diskcache
import pytest

from diagramforge.synth.llm.client import LLM
from diagramforge.synth.llm.gemini_backend import GeminiBackend
from diagramforge.synth.llm.settings import LLMParams
from tests.synth.llm.conftest import GOOD, SCHEMA, Sleeps, make_request
from tests.synth.llm.loopback import Loopback, Reply, gemini_error, gemini_reply


@pytest.fixture
def server() -> Iterator[Loopback]:
    with Loopback(default=gemini_reply(GOOD)) as srv:
        yield srv


def make_llm(tmp_path: Path, server: Loopback, sleeps: Sleeps, **over: object) -> LLM:
    fields = {"backend": "gemini", "model": "gemini-loopback", "base_url": server.url,
              "cache_dir": str(tmp_path / "cache"), "timeout_s": 5.0, "max_retries": 3,
              "price_in_per_mtok": 1.0, "price_out_per_mtok": 4.0, **over}
    params = LLMParams(**fields)
    return LLM(params, GeminiBackend(params, sleep=sleeps))


def test_success_sends_json_schema_request(tmp_path, server, sleeps, key_env):
    out = make_llm(tmp_path, server, sleeps).complete(make_request())
    assert out.ok and out.data == {"caption": "A login flow", "kind": "flowchart", "nodes": 4}
    assert (out.input_tokens, out.output_tokens) == (100, 20)
    [seen] = server.requests
    assert seen.path.endswith("/models/gemini-loopback:generateContent")
    assert seen.headers["x-goog-api-key"] == key_env
    body = seen.body
    gen = body["generationConfig"]
    assert gen["responseMimeType"] == "application/json"
    assert gen["responseJsonSchema"] == SCHEMA
    assert (gen["temperature"], gen["maxOutputTokens"], gen["seed"]) == (0.0, 1024, 1234)
    assert body["systemInstruction"]["parts"][0]["text"] == "Caption the diagram."
    assert body["contents"][0]["role"] == "user"


def test_429_with_retry_after_then_success(tmp_path, server, sleeps, key_env):
    server.script = [gemini_error(429, "quota", {"Retry-After": "0"})]
    out = make_llm(tmp_path, server, sleeps).complete(make_request())
    assert out.ok and len(server.requests) == 2 and sleeps == [0.0]


def test_500_then_success(tmp_path, server, sleeps, key_env):
    server.script = [gemini_error(500, "internal")]
    out = make_llm(tmp_path, server, sleeps).complete(make_request())
    assert out.ok and len(server.requests) == 2 and len(sleeps) == 1


def test_slow_response_times_out_then_retries(tmp_path, server, sleeps, key_env):
    server.script = [Reply(body=gemini_reply(GOOD).body, delay_s=0.6)]
    out = make_llm(tmp_path, server, sleeps, timeout_s=0.2).complete(make_request())
    assert out.ok and len(server.requests) == 2 and len(sleeps) == 1


def test_truncated_json_repaired_as_model_turn(tmp_path, server, sleeps, key_env):
    server.script = [gemini_reply('{"caption": "A lo', finish_reason="MAX_TOKENS")]
    out = make_llm(tmp_path, server, sleeps).complete(make_request())
    assert out.ok and len(server.requests) == 2
    turns = server.requests[1].body["contents"]
    assert [t["role"] for t in turns] == ["user", "model", "user"]
    assert "rejected" in turns[-1]["parts"][0]["text"]


def test_still_invalid_is_ledgered(tmp_path, server, sleeps, key_env):
    server.default = gemini_reply('{"caption": "A flow", "kind": "pie", "nodes": 3}')
    out = make_llm(tmp_path, server, sleeps).complete(make_request())
    assert (out.ok, out.reason) == (False, "llm_invalid_output") and len(server.requests) == 2


def test_cache_hit_on_rerun(tmp_path, server, sleeps, key_env):
    make_llm(tmp_path, server, sleeps).complete(make_request())
    again = make_llm(tmp_path, server, sleeps).complete(make_request())
    assert again.cached and len(server.requests) == 1


def test_budget_exhausted_makes_no_call(tmp_path, server, sleeps, key_env):
    out = make_llm(tmp_path, server, sleeps, budget_usd=0.001).complete(make_request())
    assert out.reason == "budget_exhausted" and server.requests == []


def test_key_never_leaks(tmp_path, server, sleeps, key_env, caplog):
    caplog.set_level(logging.DEBUG)
    server.script = [gemini_error(400, f"API key not valid: {key_env}")]
    llm = make_llm(tmp_path, server, sleeps)
    bad, good = llm.complete(make_request(user="one")), llm.complete(make_request(user="two"))
    assert bad.reason == "llm_error" and "400" in bad.detail and good.ok
    texts = [bad.detail, repr(bad), repr(good), repr(llm), repr(llm.backend),
             llm.params.model_dump_json(), caplog.text]
    with diskcache.Cache(str(tmp_path / "cache")) as raw:
        texts += [f"{k!r} {raw[k]!r}" for k in raw.iterkeys()]
    for text in texts:
        assert key_env not in text and key_env[-4:] not in text


def test_google_api_key_variable_is_the_fallback(tmp_path, server, sleeps, monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "AIzaLoopbackGoogleKey0123456789abcdef")
    out = make_llm(tmp_path, server, sleeps).complete(make_request())
    assert out.ok and (out.backend, out.model) == ("gemini", "gemini-loopback")
    assert server.requests[0].headers["x-goog-api-key"] == "AIzaLoopbackGoogleKey0123456789abcdef"


def test_concurrent_calls_and_cache_files(tmp_path, server, sleeps, key_env):
    llm = make_llm(tmp_path, server, sleeps, concurrency=3)
    outs = llm.complete_many([make_request(user=f"diagram {i}") for i in range(6)])
    assert all(o.ok for o in outs) and len(server.requests) == 6
    on_disk = b"".join(p.read_bytes() for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert on_disk and key_env.encode() not in on_disk


def test_faulty_server_every_item_kept_or_ledgered_and_rerun_skips_successes(
        tmp_path, server, sleeps, key_env):
    import random

    rng = random.Random(3)
    faults = [gemini_error(429, "quota", {"Retry-After": "0"}), gemini_error(500, "internal"),
              gemini_reply('{"caption": "A'), Reply(body=gemini_reply(GOOD).body, delay_s=0.3)]
    server.script = [rng.choice(faults) if rng.random() < 0.3 else gemini_reply(GOOD)
                     for _ in range(40)]
    reqs = [make_request(user=f"diagram {i}") for i in range(16)]
    first = make_llm(tmp_path, server, sleeps, max_retries=0, timeout_s=0.15).complete_many(reqs)
    assert all(o.ok or o.reason in ("llm_error", "llm_invalid_output") for o in first)
    kept = {r.user for r, o in zip(reqs, first, strict=True) if o.ok}
    assert 0 < len(kept) < len(reqs)
    n = len(server.requests)
    server.script = []
    second = make_llm(tmp_path, server, sleeps).complete_many(reqs)
    assert all(o.ok for o in second)
    asked = {s.body["contents"][0]["parts"][0]["text"] for s in server.requests[n:]}
    assert asked.isdisjoint(kept) and len(server.requests) - n == len(reqs) - len(kept)
