"""The LLM client: cache, budget, rate limits, schema validation with one repair, metering.

Every call is keyed by ``content_key(backend, model, messages, schema, sampling)`` in the
shared content cache (namespace ``llm``), so a rerun or a resume never pays twice.  Only
schema-valid answers are cached: a transient error or an invalid output is retried on the
next run rather than frozen in.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import jsonschema

from diagramforge.cache import ContentCache, content_key
from diagramforge.synth.llm.base import Backend
from diagramforge.synth.llm.limits import RateLimiter
from diagramforge.synth.llm.meter import Meter
from diagramforge.synth.llm.params import LLMParams
from diagramforge.synth.llm.tokens import count_tokens
from diagramforge.synth.llm.types import Completion, LLMCallError, Message, Outcome, Request


def _validate(text: str, schema: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """``(data, "")`` if ``text`` is a JSON object valid against ``schema``, else the error."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        return None, f"not valid JSON: {exc}"
    if not isinstance(data, dict):
        return None, f"expected a JSON object, got {type(data).__name__}"
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        return None, f"schema violation at {where}: {exc.message}"
    return data, ""


def repair_message(error: str) -> Message:
    """The follow-up that quotes the validation error, for the single repair attempt."""
    return {"role": "user", "content": (
        f"Your previous answer was rejected: {error}\n"
        "Reply again with only a JSON object that conforms exactly to the schema.")}


class LLM:
    """Structured-output calls through one backend, with cache, budget and metrics."""

    def __init__(self, params: LLMParams, backend: Backend, *,
                 cache: ContentCache | None = None, meter: Meter | None = None,
                 limiter: RateLimiter | None = None) -> None:
        self.params = params
        self.backend = backend
        self.cache = cache if cache is not None else ContentCache(params.cache_dir, "llm")
        self.meter = meter or Meter()
        self.limiter = limiter or RateLimiter(params.rpm, params.tpm)

    @classmethod
    def from_params(cls, params: LLMParams, **kwargs: Any) -> LLM:
        """The client for ``params.backend``; vendor packages are imported only when chosen."""
        return cls(params, make_backend(params), **kwargs)

    def __repr__(self) -> str:
        return f"LLM(backend={self.params.backend!r}, model={self.params.model!r})"

    # -- keys and estimates -------------------------------------------------------------
    def key(self, req: Request) -> str:
        """The cache key: everything that changes the answer, nothing secret."""
        return content_key(self.params.backend, self.params.model, req.messages(),
                           req.json_schema, req.sampling(self.params))

    def estimate(self, messages: list[Message], max_tokens: int) -> tuple[int, float]:
        """``(input_tokens, worst-case dollars)`` for one round trip."""
        n_in = count_tokens(messages)
        return n_in, self.params.cost(n_in, max_tokens)

    def _affordable(self, est_cost: float) -> bool:
        budget = self.params.budget_usd
        return budget is None or self.meter.total_usd + est_cost <= budget

    # -- calls --------------------------------------------------------------------------
    def call(self, req: Request) -> Outcome:
        """One structured answer for ``req``, or a ledger reason — never an exception."""
        key = self.key(req)
        hit = self.cache.get(key)
        if hit is not None:
            self.meter.add_hit(req.task)
            return Outcome(ok=True, data=hit["data"], cached=True)
        outcome = self._call_fresh(req)
        if outcome.ok:
            self.cache.put(key, {"data": outcome.data, "input_tokens": outcome.input_tokens,
                                 "output_tokens": outcome.output_tokens,
                                 "cost_usd": outcome.cost_usd})
        else:
            self.meter.add_failure(req.task, outcome.reason)
        return outcome

    def _call_fresh(self, req: Request) -> Outcome:
        sampling = req.sampling(self.params)
        messages = req.messages()
        used = {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}
        error = ""
        for attempt in range(2):  # the answer, then at most one repair
            n_in, est = self.estimate(messages, sampling["max_tokens"])
            if not self._affordable(est):
                return Outcome(ok=False, reason="budget_exhausted", **used, detail=(
                    f"next call est. ${est:.6f}; spent ${self.meter.total_usd:.6f} "
                    f"of ${self.params.budget_usd}"))
            self.limiter.acquire(n_in + sampling["max_tokens"])
            try:
                done = self.backend.complete(messages, req.json_schema, req.task, sampling)
            except LLMCallError as exc:
                return Outcome(ok=False, reason="llm_error", detail=str(exc), **used)
            self._meter_call(req.task, done, n_in, used)
            data, error = _validate(done.text, req.json_schema)
            if data is not None:
                return Outcome(ok=True, data=data, **used)
            if attempt == 0:
                messages = [*messages, {"role": "assistant", "content": done.text},
                            repair_message(error)]
        return Outcome(ok=False, reason="llm_invalid_output", detail=error[:500], **used)

    def _meter_call(self, task: str, done: Completion, est_in: int,
                    used: dict[str, Any]) -> None:
        n_in = done.input_tokens or est_in  # a backend that reports no usage: our estimate
        n_out = done.output_tokens
        cost = self.params.cost(n_in, n_out)
        self.meter.add_call(task, n_in, n_out, cost)
        used["input_tokens"] += n_in
        used["output_tokens"] += n_out
        used["cost_usd"] += cost

    def dry_run(self, requests: Iterable[Request]) -> dict[str, Any]:
        """How many calls a run would make (cache hits excluded) and their estimated cost,
        with output priced at ``max_tokens`` — an upper bound, repairs not counted."""
        calls = cached = n_in = n_out = 0
        cost = 0.0
        for req in requests:
            if self.key(req) in self.cache:
                cached += 1
                continue
            max_tokens = req.sampling(self.params)["max_tokens"]
            calls += 1
            tokens, est = self.estimate(req.messages(), max_tokens)
            n_in += tokens
            n_out += max_tokens
            cost += est
        return {"calls": calls, "cached": cached, "est_input_tokens": n_in,
                "est_max_output_tokens": n_out, "est_cost_usd": round(cost, 6)}


def make_backend(params: LLMParams) -> Backend:
    """The backend object ``params.backend`` names."""
    if params.backend == "openai":
        from diagramforge.synth.llm.openai_backend import OpenAIBackend

        return OpenAIBackend(params)
    if params.backend == "gemini":
        from diagramforge.synth.llm.gemini_backend import GeminiBackend

        return GeminiBackend(params)
    from diagramforge.synth.llm.offline import OfflineBackend

    return OfflineBackend(params)
