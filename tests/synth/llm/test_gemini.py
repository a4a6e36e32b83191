"""The Gemini backend through the real ``google-genai`` client against a loopback server."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import diskcache
import pytest

from diagramforge.synth.llm import LLM, LLMParams
from diagramforge.synth.llm.gemini_backend import GeminiBackend
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
    out = make_llm(tmp_path, server, sleeps).call(make_request())
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
    out = make_llm(tmp_path, server, sleeps).call(make_request())
    assert out.ok and len(server.requests) == 2 and sleeps == [0.0]


def test_500_then_success(tmp_path, server, sleeps, key_env):
    server.script = [gemini_error(500, "internal")]
    out = make_llm(tmp_path, server, sleeps).call(make_request())
    assert out.ok and len(server.requests) == 2 and len(sleeps) == 1


def test_slow_response_times_out_then_retries(tmp_path, server, sleeps, key_env):
    server.script = [Reply(body=gemini_reply(GOOD).body, delay_s=0.6)]
    out = make_llm(tmp_path, server, sleeps, timeout_s=0.2).call(make_request())
    assert out.ok and len(server.requests) == 2 and len(sleeps) == 1


def test_truncated_json_repaired_as_model_turn(tmp_path, server, sleeps, key_env):
    server.script = [gemini_reply('{"caption": "A lo', finish_reason="MAX_TOKENS")]
    out = make_llm(tmp_path, server, sleeps).call(make_request())
    assert out.ok and len(server.requests) == 2
    turns = server.requests[1].body["contents"]
    assert [t["role"] for t in turns] == ["user", "model", "user"]
    assert "rejected" in turns[-1]["parts"][0]["text"]


def test_still_invalid_is_ledgered(tmp_path, server, sleeps, key_env):
    server.default = gemini_reply('{"caption": "A flow", "kind": "pie", "nodes": 3}')
    out = make_llm(tmp_path, server, sleeps).call(make_request())
    assert (out.ok, out.reason) == (False, "llm_invalid_output") and len(server.requests) == 2


def test_cache_hit_on_rerun(tmp_path, server, sleeps, key_env):
    make_llm(tmp_path, server, sleeps).call(make_request())
    again = make_llm(tmp_path, server, sleeps).call(make_request())
    assert again.cached and len(server.requests) == 1


def test_budget_exhausted_makes_no_call(tmp_path, server, sleeps, key_env):
    out = make_llm(tmp_path, server, sleeps, budget_usd=0.001).call(make_request())
    assert out.reason == "budget_exhausted" and server.requests == []


def test_key_never_leaks(tmp_path, server, sleeps, key_env, caplog):
    caplog.set_level(logging.DEBUG)
    server.script = [gemini_error(400, f"API key not valid: {key_env}")]
    llm = make_llm(tmp_path, server, sleeps)
    bad, good = llm.call(make_request(user="one")), llm.call(make_request(user="two"))
    assert bad.reason == "llm_error" and "400" in bad.detail and good.ok
    texts = [bad.detail, repr(bad), repr(good), repr(llm), repr(llm.backend),
             llm.params.model_dump_json(), caplog.text]
    with diskcache.Cache(str(tmp_path / "cache")) as raw:
        texts += [f"{k!r} {raw[k]!r}" for k in raw.iterkeys()]
    for text in texts:
        assert key_env not in text and key_env[-4:] not in text
