"""The LLM client: cache, budget, rate limits, schema validation with one repair, metering.

Every call is keyed by ``content_key(backend, model, messages, schema, sampling)`` in the
shared content cache (namespace ``llm``), so a rerun or a resume never pays twice.  Only
schema-valid answers are cached: a transient error or an invalid output is retried on the
next run rather than frozen in.  The cache holds answers and usage, never a key.

A task module uses it like this::

    llm = LLM.from_params(params.synth.llm, cache_dir=params.cache_dir)
    outcome = llm.complete(Request(task="captioning", system=..., user=...,
                                   json_schema=SCHEMA, context=facts, templates=OFFLINE))
    if outcome.ok: row.update(outcome.data)
    else: ledger(item, outcome.reason, outcome.detail)   # budget_exhausted, llm_error, …
    metrics["llm"] = llm.meter.as_dict()
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import jsonschema

from diagramforge.store.cache import ContentCache, content_key
from diagramforge.synth.llm.base import Backend, BatchBackend
from diagramforge.synth.llm.limits import RateLimiter
from diagramforge.synth.llm.meter import Meter
from diagramforge.synth.llm.settings import LLMParams
from diagramforge.synth.llm.tokens import count_tokens
from diagramforge.synth.llm.types import (
    BUDGET_EXHAUSTED,
    LLM_ERROR,
    LLM_INVALID_OUTPUT,
    BackendCall,
    Completion,
    LLMCallError,
    Message,
    Outcome,
    Reason,
    Request,
)

log = logging.getLogger(__name__)


def validate(text: str, schema: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
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


class _Paid:
    """What one request has paid so far (its answer and, maybe, its repair)."""

    def __init__(self) -> None:
        self.input_tokens = self.output_tokens = self.calls = 0
        self.cost_usd = 0.0

    def fields(self) -> dict[str, Any]:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost_usd": self.cost_usd, "calls": self.calls}


class LLM:
    """Structured-output calls through one backend, with cache, budget and metrics.

    Thread-safe: ``complete_many`` runs ``params.concurrency`` calls at once, and a stage may
    share one client between threads; the budget counts calls in flight.
    """

    def __init__(self, params: LLMParams, backend: Backend, *,
                 cache: ContentCache | None = None, meter: Meter | None = None,
                 limiter: RateLimiter | None = None,
                 journal: ContentCache | None = None) -> None:
        self.params = params
        self.backend = backend
        self.cache = cache if cache is not None else ContentCache(params.cache_dir, "llm")
        self.journal = (journal if journal is not None
                        else ContentCache(self.cache.directory, "llm-batch"))
        self.meter = meter or Meter()
        self.limiter = limiter or RateLimiter(params.rpm, params.tpm)
        self._lock = threading.Lock()
        self._reserved_usd = 0.0

    @classmethod
    def from_params(cls, params: LLMParams, cache_dir: Path | str | None = ...,  # type: ignore[assignment]
                    **kwargs: Any) -> LLM:
        """The client for ``params.backend``; vendor packages are imported only when chosen.
        ``cache_dir`` (when given; ``None`` disables caching) overrides ``params.cache_dir``.
        A missing key raises ``LLMCallError`` naming the variable."""
        if cache_dir is not ...:
            params = params.model_copy(
                update={"cache_dir": None if cache_dir is None else str(cache_dir)})
        return cls(params, make_backend(params), **kwargs)

    def __repr__(self) -> str:
        return f"LLM(backend={self.params.backend!r}, model={self.params.model!r})"

    # -- keys and estimates -------------------------------------------------------------
    def key(self, req: Request) -> str:
        """The cache key: everything that changes the answer, nothing secret. The offline
        backend answers from ``context``/``templates`` too, so for it they are part of it."""
        parts: list[Any] = [self.params.backend, self.params.model, req.messages(),
                            req.json_schema, req.sampling(self.params)]
        if self.params.backend == "offline" and (req.context or req.templates):
            parts.append({"context": req.context, "templates": req.templates})
        return content_key(*parts)

    def estimate(self, messages: list[Message], max_tokens: int, *,
                 batch: bool = False) -> tuple[int, float]:
        """``(input_tokens, worst-case dollars)`` for one round trip."""
        n_in = count_tokens(messages)
        return n_in, self.params.cost(n_in, max_tokens, batch=batch)

    def _reserve(self, est_usd: float) -> bool:
        """Book ``est_usd`` against the budget if it fits beside what is spent and in flight."""
        budget = self.params.budget_usd
        with self._lock:
            if budget is not None and (self.meter.total_usd + self._reserved_usd + est_usd
                                       > budget + 1e-12):
                return False
            self._reserved_usd += est_usd
            return True

    def _release(self, est_usd: float) -> None:
        with self._lock:
            self._reserved_usd -= est_usd

    @property
    def budget_left_usd(self) -> float | None:
        """Dollars left of ``budget_usd`` (``None``: no cap); a stage may stop early at 0."""
        if self.params.budget_usd is None:
            return None
        with self._lock:
            return max(self.params.budget_usd - self.meter.total_usd - self._reserved_usd, 0.0)

    def _budget_detail(self, est: float) -> str:
        return (f"next call est. ${est:.6f}; spent ${self.meter.total_usd:.6f} "
                f"of ${self.params.budget_usd}")

    # -- calls --------------------------------------------------------------------------
    def complete(self, req: Request) -> Outcome:
        """One structured answer for ``req``, or a ledger reason — never an exception."""
        key = self.key(req)
        hit = self.cache.get(key)
        if hit is not None:
            return self._hit(req, hit)
        outcome = self._run(req)
        self._settle(req, key, outcome)
        return outcome

    call = complete  # the earlier name

    def _hit(self, req: Request, hit: dict[str, Any]) -> Outcome:
        self.meter.add_hit(req.task)
        log.debug("llm %s: cache hit", req.task)
        return Outcome(ok=True, data=hit["data"], cached=True, backend=self.params.backend,
                       model=self.params.model)

    def _settle(self, req: Request, key: str, outcome: Outcome) -> None:
        if outcome.ok:
            self.cache.put(key, {"data": outcome.data, "input_tokens": outcome.input_tokens,
                                 "output_tokens": outcome.output_tokens,
                                 "cost_usd": outcome.cost_usd})
        else:
            self.meter.add_failure(req.task, outcome.reason)
            log.info("llm %s: %s (%s)", req.task, outcome.reason, outcome.detail[:200])

    def _outcome(self, paid: _Paid, reason: Reason = "", data: dict[str, Any] | None = None,
                 detail: str = "", batch: bool = False) -> Outcome:
        return Outcome(ok=data is not None, data=data, reason=reason, detail=detail[:500],
                       backend=self.params.backend, model=self.params.model, batch=batch,
                       **paid.fields())

    def _backend_call(self, req: Request, messages: list[Message],
                      custom_id: str = "") -> BackendCall:
        return BackendCall(task=req.task, messages=messages, schema=req.json_schema,
                           sampling=req.sampling(self.params), context=req.context,
                           templates=req.templates, custom_id=custom_id)

    def _run(self, req: Request, first: Completion | None = None,
             paid: _Paid | None = None) -> Outcome:
        """The answer (``first`` when a batch already brought it), then at most one repair."""
        max_tokens = req.sampling(self.params)["max_tokens"]
        messages = req.messages()
        paid = paid or _Paid()
        error = ""
        for attempt in range(2):
            if attempt == 0 and first is not None:
                done = first
            else:
                n_in, est = self.estimate(messages, max_tokens)
                if not self._reserve(est):
                    return self._outcome(paid, BUDGET_EXHAUSTED,
                                         detail=self._budget_detail(est), batch=first is not None)
                try:
                    self.limiter.acquire(n_in + max_tokens)
                    try:
                        done = self.backend.complete(self._backend_call(req, messages))
                    except LLMCallError as exc:
                        self.limiter.settle(n_in + max_tokens, n_in)
                        return self._outcome(paid, LLM_ERROR, detail=str(exc))
                    self._pay(req.task, done, n_in, paid)
                    self.limiter.settle(n_in + max_tokens, done.input_tokens + done.output_tokens)
                finally:
                    self._release(est)
            data, error = validate(done.text, req.json_schema)
            if data is not None:
                log.debug("llm %s: ok in %d call(s), $%.6f", req.task, paid.calls, paid.cost_usd)
                return self._outcome(paid, data=data, batch=first is not None)
            if attempt == 0:
                messages = [*messages, {"role": "assistant", "content": done.text},
                            repair_message(error)]
        return self._outcome(paid, LLM_INVALID_OUTPUT, detail=error, batch=first is not None)

    def _pay(self, task: str, done: Completion, est_in: int, paid: _Paid,
             batch: bool = False) -> None:
        n_in = done.input_tokens or est_in  # a backend that reports no usage: our estimate
        n_out = done.output_tokens
        cost = self.params.cost(n_in, n_out, batch=batch)
        self.meter.add_call(task, n_in, n_out, cost, batch=batch)
        paid.input_tokens += n_in
        paid.output_tokens += n_out
        paid.cost_usd += cost
        paid.calls += 1

    # -- many calls ---------------------------------------------------------------------
    def complete_many(self, requests: Iterable[Request], *,
                      batch: bool | None = None) -> list[Outcome]:
        """Outcomes in the order of ``requests``. Through the vendor's batch API when
        ``batch`` (default ``params.batch``) and the backend has one, else ``concurrency``
        threads of ``complete``. A request repeated in the list is paid for once."""
        reqs = list(requests)
        use_batch = self.params.batch if batch is None else batch
        if use_batch and isinstance(self.backend, BatchBackend):
            return self._complete_batch(reqs)
        firsts: dict[str, int] = {}
        for i, req in enumerate(reqs):
            firsts.setdefault(self.key(req), i)
        unique = sorted(firsts.values())
        if self.params.concurrency > 1 and len(unique) > 1:
            with ThreadPoolExecutor(self.params.concurrency,
                                    thread_name_prefix="llm") as pool:
                done = dict(zip(unique, pool.map(lambda i: self.complete(reqs[i]), unique),
                                strict=True))
        else:
            done = {i: self.complete(reqs[i]) for i in unique}
        return [done[i] if i == firsts[self.key(r)] else self._again(r, done[firsts[self.key(r)]])
                for i, r in enumerate(reqs)]

    def _again(self, req: Request, first: Outcome) -> Outcome:
        """A repeat of a request in the same run: the first one's answer, paid once."""
        if not first.ok:
            return first
        self.meter.add_hit(req.task)
        return first.model_copy(update={"cached": True, "input_tokens": 0, "output_tokens": 0,
                                        "cost_usd": 0.0, "calls": 0})

    def _complete_batch(self, reqs: list[Request]) -> list[Outcome]:
        backend: Any = self.backend
        outcomes: list[Outcome | None] = [None] * len(reqs)
        pending: dict[str, list[int]] = {}
        for i, req in enumerate(reqs):
            key = self.key(req)
            if key in pending:
                pending[key].append(i)
                continue
            hit = self.cache.get(key)
            if hit is not None:
                outcomes[i] = self._hit(req, hit)
                continue
            pending[key] = [i]
        calls: list[BackendCall] = []
        booked: dict[str, float] = {}
        for key, idx in pending.items():
            req = reqs[idx[0]]
            _, est = self.estimate(req.messages(), req.sampling(self.params)["max_tokens"],
                                   batch=True)
            if not self._reserve(est):
                outcomes[idx[0]] = self._outcome(_Paid(), BUDGET_EXHAUSTED, batch=True,
                                                 detail=self._budget_detail(est))
                continue
            booked[key] = est
            calls.append(self._backend_call(req, req.messages(), custom_id=key))
        results: dict[str, Completion | LLMCallError] = {}
        if calls:
            try:
                results = backend.complete_batch(calls, journal=self.journal)
            except LLMCallError as exc:
                results = {c.custom_id: exc for c in calls}
        for call in calls:
            key = call.custom_id
            req = reqs[pending[key][0]]
            res = results.get(key) or LLMCallError(f"{self.params.backend} batch: no result")
            paid = _Paid()
            try:
                if isinstance(res, LLMCallError):
                    outcome = self._outcome(paid, LLM_ERROR, detail=str(res), batch=True)
                else:
                    self._pay(req.task, res, count_tokens(call.messages), paid, batch=True)
            finally:
                self._release(booked[key])
            if not isinstance(res, LLMCallError):
                outcome = self._run(req, first=res, paid=paid)  # validation, maybe a repair
            outcomes[pending[key][0]] = outcome
        for key, idx in pending.items():
            first = outcomes[idx[0]]
            assert first is not None
            if key in booked:
                self._settle(reqs[idx[0]], key, first)
            elif first.reason == BUDGET_EXHAUSTED:
                self.meter.add_failure(reqs[idx[0]].task, first.reason)
            for i in idx[1:]:
                outcomes[i] = self._again(reqs[i], first)
        return [o for o in outcomes if o is not None]

    # -- estimates ----------------------------------------------------------------------
    def dry_run(self, requests: Iterable[Request], *, batch: bool | None = None,
                ) -> dict[str, Any]:
        """How many calls a run would make (cache hits and repeats excluded) and their
        estimated cost, with output priced at ``max_tokens`` — an upper bound, repairs not
        counted; at the batch price when the run would use the batch API."""
        use_batch = (self.params.batch if batch is None else batch) and isinstance(
            self.backend, BatchBackend)
        seen: set[str] = set()
        by_task: dict[str, dict[str, Any]] = {}
        for req in requests:
            row = by_task.setdefault(req.task, {"calls": 0, "cached": 0, "est_input_tokens": 0,
                                                "est_max_output_tokens": 0, "est_cost_usd": 0.0})
            key = self.key(req)
            if key in seen or key in self.cache:
                row["cached"] += 1
                continue
            seen.add(key)
            max_tokens = req.sampling(self.params)["max_tokens"]
            tokens, est = self.estimate(req.messages(), max_tokens, batch=use_batch)
            row["calls"] += 1
            row["est_input_tokens"] += tokens
            row["est_max_output_tokens"] += max_tokens
            row["est_cost_usd"] += est
        total = {k: sum(r[k] for r in by_task.values())
                 for k in ("calls", "cached", "est_input_tokens", "est_max_output_tokens",
                           "est_cost_usd")}
        for row in [*by_task.values(), total]:
            row["est_cost_usd"] = round(row["est_cost_usd"], 6)
        return {**total, "backend": self.params.backend, "model": self.params.model,
                "batch": use_batch, "by_task": by_task}


def make_backend(params: LLMParams) -> Backend:
    """The backend object ``params.backend`` names."""
    if params.backend == "openai":
        # lazy: loads openai
        from diagramforge.synth.llm.openai_backend import OpenAIBackend

        return OpenAIBackend(params)
    if params.backend == "gemini":
        # lazy: loads google
        from diagramforge.synth.llm.gemini_backend import GeminiBackend

        return GeminiBackend(params)
    # lazy: loads tiktoken
    from diagramforge.synth.llm.offline import OfflineBackend

    return OfflineBackend(params)
