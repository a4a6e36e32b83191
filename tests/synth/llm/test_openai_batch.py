"""The OpenAI Batch API through the real ``openai`` client against a loopback Files + Batches
server: JSONL upload, batch creation, polling, download, per-item errors, repair, resume."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from diagramforge.synth.llm.client import LLM
from diagramforge.synth.llm.openai_backend import OpenAIBackend
from diagramforge.synth.llm.settings import LLMParams
from tests.synth.llm.conftest import GOOD, SCHEMA, Sleeps, make_request
from tests.synth.llm.loopback import OpenAIBatchServer, openai_error, openai_reply

POLL_S = 7.0


@pytest.fixture
def server() -> Iterator[OpenAIBatchServer]:
    with OpenAIBatchServer() as srv:
        yield srv


def make_llm(tmp_path: Path, server: OpenAIBatchServer, sleeps: Sleeps, clock: Any = None,
             **over: Any) -> LLM:
    fields = {"backend": "openai", "model": "gpt-loopback", "base_url": server.url + "/v1",
              "cache_dir": str(tmp_path / "cache"), "timeout_s": 5.0, "max_retries": 2,
              "price_in_per_mtok": 1.0, "price_out_per_mtok": 4.0, "batch": True,
              "batch_poll_s": POLL_S, **over}
    params = LLMParams(**fields)
    kw = {"clock": clock} if clock is not None else {}
    return LLM(params, OpenAIBackend(params, sleep=sleeps, **kw))


def routes(server: OpenAIBatchServer) -> list[str]:
    return [f"{s.method} {s.path}" for s in server.requests]


def uploaded_lines(server: OpenAIBatchServer) -> list[dict[str, Any]]:
    [(purpose, content)] = [v for v in server.files.values() if v[0] == "batch"]
    return [json.loads(x) for x in content.splitlines()]


def test_batch_flow_upload_create_poll_download(tmp_path, server, sleeps, key_env):
    llm = make_llm(tmp_path, server, sleeps)
    assert llm.complete_many([make_request(user="cached")], batch=False)[0].ok  # one sync call
    reqs = [make_request(user=u) for u in ("cached", "one", "two", "one", "three")]
    outs = llm.complete_many(reqs)
    assert [o.ok for o in outs] == [True] * 5
    assert [o.cached for o in outs] == [True, False, False, True, False]  # the repeat: paid once
    assert [o.batch for o in outs] == [False, True, True, True, True]
    assert outs[1].data == json.loads(GOOD)
    assert outs[1].cost_usd == pytest.approx((100 * 1.0 + 20 * 4.0) / 1e6 * 0.5)  # half price
    assert routes(server) == [
        "POST /v1/chat/completions", "POST /v1/files", "POST /v1/batches",
        "GET /v1/batches/batch_1", "GET /v1/batches/batch_1", "GET /v1/batches/batch_1",
        "GET /v1/files/file-2/content"]
    assert sleeps == [POLL_S, POLL_S]  # polled, not slept for real
    assert all(s.headers["authorization"] == f"Bearer {key_env}" for s in server.requests)
    lines = uploaded_lines(server)
    assert [line["body"]["messages"][-1]["content"] for line in lines] == ["one", "two", "three"]
    first = lines[0]
    assert (first["method"], first["url"]) == ("POST", "/v1/chat/completions")
    assert first["custom_id"] == llm.key(reqs[1])
    assert first["body"]["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "captioning", "schema": SCHEMA, "strict": True}}
    created = server.requests[2].body
    assert (created["endpoint"], created["completion_window"]) == ("/v1/chat/completions", "24h")
    usage = llm.meter.as_dict()["captioning"]
    assert (usage["calls"], usage["batch_calls"], usage["cache_hits"]) == (4, 3, 2)
    n = len(server.requests)
    again = make_llm(tmp_path, server, sleeps).complete_many(reqs)  # a rerun pays nothing
    assert all(o.ok and o.cached for o in again) and len(server.requests) == n


def test_item_errors_and_invalid_output(tmp_path, server, sleeps, key_env, caplog):
    caplog.set_level(logging.DEBUG)

    def answer(custom_id: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        user = body["messages"][-1]["content"]
        if user == "refused":
            return 400, openai_error(400, f"invalid request for key {key_env}").body
        if user == "garbled" and custom_id:  # the batch answer is truncated JSON…
            return 200, openai_reply('{"caption": "A lo', finish_reason="length").body
        return 200, openai_reply(GOOD).body  # …and the synchronous repair fixes it

    server.answer = answer
    llm = make_llm(tmp_path, server, sleeps)
    ok, refused, garbled = llm.complete_many(
        [make_request(user=u) for u in ("fine", "refused", "garbled")])
    assert ok.ok and ok.calls == 1
    assert (refused.ok, refused.reason) == (False, "llm_error")
    assert "400" in refused.detail and key_env not in refused.detail
    assert garbled.ok and garbled.calls == 2 and garbled.batch
    repair = server.requests[-1]
    assert repair.path == "/v1/chat/completions"
    assert "rejected" in repair.body["messages"][-1]["content"]
    # the batch answer at half price, the repair at full price
    assert garbled.cost_usd == pytest.approx((180 * 0.5 + 180) / 1e6)
    assert llm.meter.as_dict()["total"]["failures"] == {"llm_error": 1}
    assert key_env not in caplog.text
    outs = make_llm(tmp_path, server, sleeps).complete_many(
        [make_request(user=u) for u in ("fine", "refused", "garbled")])
    assert [o.cached for o in outs] == [True, False, True]  # only the failure is asked again
    assert len(last_batch_lines(server)) == 1


def last_batch_lines(server: OpenAIBatchServer) -> list[dict[str, Any]]:
    """The lines of the newest uploaded batch input file."""
    content = [v[1] for v in server.files.values() if v[0] == "batch"][-1]
    return [json.loads(x) for x in content.splitlines()]


def test_failed_batch_is_ledgered_and_retried_on_rerun(tmp_path, sleeps, key_env):
    with OpenAIBatchServer(final="failed") as server:
        reqs = [make_request(user=f"d{i}") for i in range(3)]
        outs = make_llm(tmp_path, server, sleeps).complete_many(reqs)
        assert [o.reason for o in outs] == ["llm_error"] * 3
        assert "failed" in outs[0].detail
        server.final = "completed"
        again = make_llm(tmp_path, server, sleeps).complete_many(reqs)
        assert all(o.ok for o in again)
        assert routes(server).count("POST /v1/batches") == 2


def test_expired_batch_keeps_what_it_finished(tmp_path, sleeps, key_env):
    with OpenAIBatchServer(final="expired", answered=2) as server:
        reqs = [make_request(user=f"d{i}") for i in range(3)]
        outs = make_llm(tmp_path, server, sleeps).complete_many(reqs)
        assert [o.ok for o in outs] == [True, True, False]
        assert outs[2].reason == "llm_error" and "expired" in outs[2].detail
        server.final, server.answered = "completed", None
        make_llm(tmp_path, server, sleeps).complete_many(reqs)
        assert len(last_batch_lines(server)) == 1  # only the unfinished one again


class Killed(BaseException):
    """The process stopping mid-wait (not an ``Exception``: nothing catches it)."""


def test_a_killed_run_resumes_its_batch_instead_of_paying_twice(tmp_path, server, key_env):
    def die(seconds: float) -> None:
        raise Killed

    reqs = [make_request(user=f"d{i}") for i in range(3)]
    with pytest.raises(Killed):
        make_llm(tmp_path, server, die).complete_many(reqs)
    assert routes(server).count("POST /v1/batches") == 1
    outs = make_llm(tmp_path, server, Sleeps()).complete_many(reqs)
    assert all(o.ok and o.batch for o in outs)
    assert routes(server).count("POST /v1/files") == 1  # the same batch, found again
    assert routes(server).count("POST /v1/batches") == 1
    make_llm(tmp_path, server, Sleeps()).complete_many([make_request(user="new")])
    assert routes(server).count("POST /v1/batches") == 2  # a new set is a new batch


def test_batch_timeout_cancels_and_ledgers(tmp_path, server, key_env):
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    llm = make_llm(tmp_path, server, sleep, clock=lambda: now[0], batch_timeout_s=5.0)
    outs = llm.complete_many([make_request(user="slow")])
    assert outs[0].reason == "llm_error" and "not finished" in outs[0].detail
    assert "POST /v1/batches/batch_1/cancel" in routes(server)
    assert server.batches["batch_1"]["status"] == "cancelled"


def test_upload_429_honours_retry_after(tmp_path, server, sleeps, key_env):
    server.script = [openai_error(429, "slow down", {"Retry-After": "1"})]
    outs = make_llm(tmp_path, server, sleeps).complete_many([make_request()])
    assert outs[0].ok
    assert routes(server)[:2] == ["POST /v1/files", "POST /v1/files"]
    assert sleeps[0] == 1.0


def test_batch_budget_submits_only_what_fits(tmp_path, server, sleeps, key_env):
    # worst case at batch price: ~30 input tokens * $1/M + 1024 * $4/M, halved ≈ $0.00206
    llm = make_llm(tmp_path, server, sleeps, budget_usd=0.0045)
    outs = llm.complete_many([make_request(user=f"d{i}") for i in range(4)])
    assert [o.reason for o in outs] == ["", "", "budget_exhausted", "budget_exhausted"]
    assert len(uploaded_lines(server)) == 2
    assert llm.dry_run([make_request(user=f"d{i}") for i in range(4)])["calls"] == 2
    assert llm.meter.as_dict()["total"]["failures"] == {"budget_exhausted": 2}


def test_dry_run_prices_the_batch(tmp_path, server, sleeps, key_env):
    reqs = [make_request(user=f"d{i}") for i in range(3)]
    sync = make_llm(tmp_path, server, sleeps, batch=False).dry_run(reqs)
    batched = make_llm(tmp_path, server, sleeps).dry_run(reqs)
    assert batched["batch"] and not sync["batch"]
    assert batched["est_cost_usd"] == pytest.approx(sync["est_cost_usd"] / 2, abs=1e-6)
    assert server.requests == []
