"""The OpenAI backend through the real ``openai`` client against a loopback server."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import diskcache
import pytest

from diagramforge.synth.llm.client import LLM
from diagramforge.synth.llm.openai_backend import OpenAIBackend
from diagramforge.synth.llm.settings import LLMParams
from tests.synth.llm.conftest import GOOD, SCHEMA, Sleeps, make_request
from tests.synth.llm.loopback import Loopback, Reply, openai_error, openai_reply


@pytest.fixture
def server() -> Iterator[Loopback]:
    with Loopback(default=openai_reply(GOOD)) as srv:
        yield srv


def make_llm(tmp_path: Path, server: Loopback, sleeps: Sleeps, **over: object) -> LLM:
    fields = {"backend": "openai", "model": "gpt-loopback", "base_url": server.url + "/v1",
              "cache_dir": str(tmp_path / "cache"), "timeout_s": 5.0, "max_retries": 3,
              "price_in_per_mtok": 1.0, "price_out_per_mtok": 4.0, **over}
    params = LLMParams(**fields)
    return LLM(params, OpenAIBackend(params, sleep=sleeps))


def test_success_sends_structured_output_request(tmp_path, server, sleeps, key_env):
    out = make_llm(tmp_path, server, sleeps).complete(make_request())
    assert out.ok and out.data == {"caption": "A login flow", "kind": "flowchart", "nodes": 4}
    assert (out.input_tokens, out.output_tokens, out.cached) == (100, 20, False)
    assert out.cost_usd == pytest.approx((100 * 1.0 + 20 * 4.0) / 1e6)
    [seen] = server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == f"Bearer {key_env}"
    body = seen.body
    assert body["model"] == "gpt-loopback"
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "captioning", "schema": SCHEMA, "strict": True}}
    assert body["messages"][0] == {"role": "system", "content": "Caption the diagram."}
    assert (body["temperature"], body["max_completion_tokens"], body["seed"]) == (0.0, 1024, 1234)
    assert sleeps == []


def test_429_with_retry_after_then_success(tmp_path, server, sleeps, key_env):
    server.script = [openai_error(429, "slow down", {"Retry-After": "0"}),
                     openai_error(429, "slow down", {"retry-after-ms": "750"})]
    out = make_llm(tmp_path, server, sleeps).complete(make_request())
    assert out.ok
    assert len(server.requests) == 3
    assert sleeps == [0.0, 0.75]  # the server's wait, not our backoff


def test_retry_after_is_capped_by_max_wait(tmp_path, server, sleeps, key_env):
    server.script = [openai_error(429, "slow down", {"Retry-After": "1"})]
    out = make_llm(tmp_path, server, sleeps, max_wait_s=0.25).complete(make_request())
    assert out.ok and sleeps == [0.25]


def test_500_then_success_uses_backoff(tmp_path, server, sleeps, key_env):
    server.script = [openai_error(500, "boom")]
    out = make_llm(tmp_path, server, sleeps).complete(make_request())
    assert out.ok and len(server.requests) == 2
    assert len(sleeps) == 1 and 0 <= sleeps[0] <= 0.5


def test_slow_response_times_out_then_retries(tmp_path, server, sleeps, key_env):
    server.script = [Reply(body=openai_reply(GOOD).body, delay_s=0.6)]
    out = make_llm(tmp_path, server, sleeps, timeout_s=0.2).complete(make_request())
    assert out.ok and len(server.requests) == 2 and len(sleeps) == 1


def test_retries_exhausted_is_llm_error_and_not_cached(tmp_path, server, sleeps, key_env):
    server.script = [openai_error(503, "down")] * 3
    llm = make_llm(tmp_path, server, sleeps, max_retries=2)
    out = llm.complete(make_request())
    assert (out.ok, out.reason) == (False, "llm_error")
    assert "503" in out.detail or "InternalServerError" in out.detail
    assert len(server.requests) == 3
    assert llm.complete(make_request()).ok  # the failure was not cached: a new request is made
    assert len(server.requests) == 4


def test_400_is_not_retried(tmp_path, server, sleeps, key_env):
    server.script = [openai_error(400, "bad schema")]
    out = make_llm(tmp_path, server, sleeps).complete(make_request())
    assert out.reason == "llm_error" and len(server.requests) == 1 and sleeps == []


@pytest.mark.parametrize("bad", ['{"caption": "A login', '{"caption": "x", "kind": "pie"}'])
def test_malformed_output_repaired_on_second_call(tmp_path, server, sleeps, key_env, bad):
    server.script = [openai_reply(bad, finish_reason="length")]
    llm = make_llm(tmp_path, server, sleeps)
    out = llm.complete(make_request())
    assert out.ok and out.data["nodes"] == 4
    assert len(server.requests) == 2
    repair = server.requests[1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": bad}
    assert repair[-1]["role"] == "user" and "rejected" in repair[-1]["content"]
    assert (out.input_tokens, out.output_tokens) == (200, 40)  # both calls are paid
    assert llm.meter.tasks["captioning"].calls == 2


def test_still_invalid_after_repair_is_ledgered(tmp_path, server, sleeps, key_env):
    server.default = openai_reply('{"caption": "ok", "kind": "flowchart", "nodes": 0}')
    llm = make_llm(tmp_path, server, sleeps)
    out = llm.complete(make_request())
    assert (out.ok, out.reason, out.data) == (False, "llm_invalid_output", None)
    assert "nodes" in out.detail and "minimum" in out.detail
    assert len(server.requests) == 2  # one answer, one repair, no more
    assert llm.meter.tasks["captioning"].failures == {"llm_invalid_output": 1}
    llm.complete(make_request())
    assert len(server.requests) == 4  # invalid outputs are not cached


def test_cache_hit_on_rerun(tmp_path, server, sleeps, key_env):
    first = make_llm(tmp_path, server, sleeps).complete(make_request())
    rerun = make_llm(tmp_path, server, sleeps)  # a new process would build a new client
    again = rerun.complete(make_request())
    assert len(server.requests) == 1
    assert again.cached and again.data == first.data and again.cost_usd == 0
    assert rerun.meter.tasks["captioning"].cache_hits == 1
    assert rerun.dry_run([make_request(), make_request(user="other")])["calls"] == 1
    # a sampling change is a different call
    rerun.complete(make_request(temperature=0.7))
    assert len(server.requests) == 2


def test_budget_exhausted_makes_no_call(tmp_path, server, sleeps, key_env):
    # worst case of one call: ~30 input tokens at $1/M + 1024 output at $4/M ≈ $0.0041
    llm = make_llm(tmp_path, server, sleeps, budget_usd=0.004)
    out = llm.complete(make_request())
    assert (out.ok, out.reason) == (False, "budget_exhausted")
    assert server.requests == []


def test_budget_stops_after_spending(tmp_path, server, sleeps, key_env):
    llm = make_llm(tmp_path, server, sleeps, budget_usd=0.0042)
    assert llm.complete(make_request(user="first diagram")).ok
    out = llm.complete(make_request(user="second diagram"))
    assert out.reason == "budget_exhausted"
    assert len(server.requests) == 1
    assert llm.meter.total_usd == pytest.approx(180 / 1e6)


def test_key_never_leaks(tmp_path, server, sleeps, key_env, caplog):
    caplog.set_level(logging.DEBUG)
    server.script = [openai_error(401, f"Incorrect API key provided: {key_env}.")]
    llm = make_llm(tmp_path, server, sleeps)
    bad = llm.complete(make_request(user="one"))
    good = llm.complete(make_request(user="two"))
    assert bad.reason == "llm_error" and good.ok
    assert server.requests[0].headers["authorization"].endswith(key_env)  # it did get sent
    texts = [bad.detail, repr(bad), repr(good), repr(llm), repr(llm.backend), str(llm.params),
             llm.params.model_dump_json(), caplog.text, str(llm.meter.as_dict())]
    with diskcache.Cache(str(tmp_path / "cache")) as raw:
        texts += [f"{k!r} {raw[k]!r}" for k in raw.iterkeys()]
    assert len(texts) > 9  # the cache was written
    for text in texts:
        assert key_env not in text
        assert key_env[-4:] not in text


def test_missing_key_names_the_variable_not_a_value(tmp_path, monkeypatch):
    from diagramforge.synth.llm.types import LLMCallError

    monkeypatch.delenv("MY_KEY", raising=False)
    with pytest.raises(LLMCallError, match="MY_KEY is not set"):
        LLM.from_params(LLMParams(backend="openai", api_key_env="MY_KEY", cache_dir=None))


def test_faulty_server_every_item_kept_or_ledgered_and_rerun_skips_successes(
        tmp_path, server, sleeps, key_env):
    import random

    rng = random.Random(11)
    faults = [openai_error(429, "busy", {"Retry-After": "0"}), openai_error(500, "boom"),
              openai_reply('{"caption": '), Reply(body=openai_reply(GOOD).body, delay_s=0.3)]
    server.script = [rng.choice(faults) if rng.random() < 0.3 else openai_reply(GOOD)
                     for _ in range(40)]
    reqs = [make_request(user=f"diagram {i}") for i in range(20)]
    first = [make_llm(tmp_path, server, sleeps, max_retries=0, timeout_s=0.1).complete(r)
             for r in reqs]
    assert all(o.ok or o.reason in ("llm_error", "llm_invalid_output") for o in first)
    kept = {r.user for r, o in zip(reqs, first, strict=True) if o.ok}
    assert 0 < len(kept) < len(reqs)  # the faults really hit some items
    n = len(server.requests)
    server.script = []
    rerun = make_llm(tmp_path, server, sleeps, max_retries=0).dry_run(reqs)
    assert rerun["calls"] == len(reqs) - len(kept)
    second = [make_llm(tmp_path, server, sleeps).complete(r) for r in reqs]
    assert all(o.ok for o in second)
    asked = {s.body["messages"][-1]["content"] for s in server.requests[n:]}
    assert asked.isdisjoint(kept) and len(server.requests) - n == len(reqs) - len(kept)


def _all_bytes_under(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def test_key_absent_from_exceptions_tracebacks_logs_and_cache_files(
        tmp_path, server, sleeps, key_env, caplog):
    import traceback

    from diagramforge.synth.llm.types import BackendCall, LLMCallError

    caplog.set_level(logging.DEBUG)
    leak = f"Incorrect API key provided: {key_env}"
    server.script = [openai_error(500, leak), openai_error(401, leak)]  # a retry, then auth
    llm = make_llm(tmp_path, server, sleeps, max_retries=1)
    req = make_request()
    call = BackendCall(task=req.task, messages=req.messages(), schema=req.json_schema,
                       sampling=req.sampling(llm.params))
    with pytest.raises(LLMCallError) as caught:
        llm.backend.complete(call)
    exc = caught.value
    assert exc.__cause__ is None and exc.__context__ is None  # no vendor error rides along
    texts = [str(exc), repr(exc), "".join(traceback.format_exception(exc)), caplog.text]
    assert "retry 1" in caplog.text  # the retry was logged, scrubbed
    server.script = [Reply(body=openai_reply(GOOD).body, delay_s=0.5)]
    slow = make_llm(tmp_path, server, sleeps, max_retries=0, timeout_s=0.1).complete(req)
    assert slow.reason == "llm_error" and "Timeout" in slow.detail
    assert llm.complete(req).ok  # something in the cache
    texts += [slow.detail, caplog.text]
    for text in texts:
        assert key_env not in text and key_env[-4:] not in text
    on_disk = _all_bytes_under(tmp_path / "cache")
    assert on_disk and key_env.encode() not in on_disk


def test_concurrent_calls_through_the_real_client(tmp_path, server, sleeps, key_env):
    llm = make_llm(tmp_path, server, sleeps, concurrency=4, rpm=600)
    outs = llm.complete_many([make_request(user=f"diagram {i}") for i in range(12)])
    assert all(o.ok for o in outs) and len(server.requests) == 12
    assert llm.meter.as_dict()["total"]["calls"] == 12


def test_schema_not_fit_for_strict_mode_is_sent_non_strict(tmp_path, server, sleeps, key_env):
    from diagramforge.synth.llm.openai_backend import strict_compatible

    loose = {"type": "object", "properties": {"caption": {"type": "string"}}}
    assert strict_compatible(SCHEMA) and not strict_compatible(loose)
    nested = {"type": "object", "additionalProperties": False, "required": ["items"],
              "properties": {"items": {"type": "array", "items": loose}}}
    assert not strict_compatible(nested)
    server.default = openai_reply('{"caption": "A login flow"}')
    out = make_llm(tmp_path, server, sleeps).complete(make_request(json_schema=loose))
    assert out.ok
    assert server.requests[0].body["response_format"]["json_schema"]["strict"] is False
