"""The OpenAI backend: chat completions with structured outputs (a strict JSON schema), one
call at a time or many through the Batch API.

Works against any server that speaks the OpenAI wire format via ``params.base_url`` (the
tests use a loopback server).  The ``openai`` client's own retries are off; ``retry.py``
retries 429/5xx/timeouts honouring ``Retry-After``.  The key is read from the environment
and lives only inside the ``openai.OpenAI`` object; error texts are scrubbed.

Batch API: the calls become a JSONL file of ``/v1/chat/completions`` requests (one line per
call, ``custom_id`` = the call's cache key), uploaded with purpose ``batch``; a batch is
created, polled every ``batch_poll_s`` (an injectable sleep and clock) and its output and
error files downloaded and matched back by ``custom_id``. The submitted batch id is written to
a journal (the content cache) under a hash of the JSONL, so a run killed while waiting finds
its batch again on rerun instead of paying for it twice.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from diagramforge.store.cache import ContentCache, content_key
from diagramforge.synth.llm.keys import read_key, scrub
from diagramforge.synth.llm.retry import RETRY_STATUS, call_with_retries, retry_after_s
from diagramforge.synth.llm.settings import LLMParams
from diagramforge.synth.llm.types import BackendCall, Completion, LLMCallError

log = logging.getLogger(__name__)
T = TypeVar("T")
ENDPOINT = "/v1/chat/completions"
DONE = frozenset({"completed", "failed", "expired", "cancelled"})


def _retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code in RETRY_STATUS


def _server_wait(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    return retry_after_s(response.headers) if response is not None else None


def _completion(resp: Any) -> Completion:
    if not resp.choices:
        raise LLMCallError("openai: response without choices")
    choice = resp.choices[0]
    usage = resp.usage
    return Completion(text=choice.message.content or choice.message.refusal or "",
                      input_tokens=usage.prompt_tokens if usage else 0,
                      output_tokens=usage.completion_tokens if usage else 0,
                      finish_reason=choice.finish_reason or "")


class OpenAIBackend:
    name = "openai"

    def __init__(self, params: LLMParams, *,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        import openai

        self.params = params
        self.sleep, self.clock = sleep, clock
        self._key = read_key(params)
        self._client = openai.OpenAI(api_key=self._key, base_url=params.base_url,
                                     timeout=params.timeout_s, max_retries=0)

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self.params.model!r}, base_url={self.params.base_url!r})"

    # -- plumbing -------------------------------------------------------------------------
    def _error(self, what: str, exc: BaseException) -> LLMCallError:
        return LLMCallError(scrub(f"openai {what}: {type(exc).__name__}: {exc}", self._key))

    def _retry(self, what: str, fn: Callable[[], T]) -> T:
        """``fn()`` under the retry policy; a final failure is a scrubbed ``LLMCallError``
        raised outside the ``except`` so no exception holding the key rides along."""

        def on_retry(exc: BaseException, attempt: int, wait: float) -> None:
            log.warning("%s; retry %d in %.2fs", self._error(what, exc), attempt, wait)

        try:
            return call_with_retries(fn, max_retries=self.params.max_retries,
                                     retryable=_retryable, server_wait=_server_wait,
                                     sleep=self.sleep, max_wait_s=self.params.max_wait_s,
                                     on_retry=on_retry)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a ledger reason
            error = self._error(what, exc)
        raise error

    def body(self, call: BackendCall) -> dict[str, Any]:
        """The ``/v1/chat/completions`` request body, the same for a call and a batch line."""
        return {
            "model": self.params.model, "messages": call.messages,
            "temperature": call.sampling["temperature"],
            "max_completion_tokens": call.sampling["max_tokens"],
            "seed": call.sampling["seed"],
            "response_format": {"type": "json_schema", "json_schema": {
                "name": _schema_name(call.task), "schema": call.schema,
                "strict": strict_compatible(call.schema)}},
        }

    # -- one call -------------------------------------------------------------------------
    def complete(self, call: BackendCall) -> Completion:
        resp = self._retry("chat.completions", lambda: self._client.chat.completions.create(
            **self.body(call)))
        return _completion(resp)

    # -- the Batch API --------------------------------------------------------------------
    def batch_jsonl(self, calls: list[BackendCall]) -> bytes:
        """The Batch API input file: one request per line, keyed by ``custom_id``."""
        lines = [json.dumps({"custom_id": c.custom_id, "method": "POST", "url": ENDPOINT,
                             "body": self.body(c)}, sort_keys=True) for c in calls]
        return ("\n".join(lines) + "\n").encode("utf-8")

    def complete_batch(self, calls: list[BackendCall], journal: ContentCache | None = None,
                       ) -> dict[str, Completion | LLMCallError]:
        """Submit every chunk, then wait for each; a chunk that fails as a whole fails each of
        its calls (so the client ledgers them and a rerun retries them)."""
        size = self.params.batch_max_requests
        chunks = [calls[i:i + size] for i in range(len(calls))[::size]]
        results: dict[str, Completion | LLMCallError] = {}
        submitted: list[tuple[list[BackendCall], str, str]] = []
        for chunk in chunks:
            try:
                batch_id, jkey = self._submit(self.batch_jsonl(chunk), journal)
            except LLMCallError as exc:
                results.update({c.custom_id: exc for c in chunk})
                continue
            submitted.append((chunk, batch_id, jkey))
        for chunk, batch_id, jkey in submitted:
            try:
                batch = self._wait(batch_id)
                results.update(self._collect(batch))
                if batch.status == "failed":
                    reason = "; ".join(e.message or e.code or "" for e in
                                       (batch.errors.data or [])) if batch.errors else ""
                    raise LLMCallError(scrub(f"openai batch {batch_id} failed: {reason}",
                                             self._key))
                missing = LLMCallError(f"openai batch {batch_id} {batch.status}: no result")
            except LLMCallError as exc:
                missing = exc
            for c in chunk:
                results.setdefault(c.custom_id, missing)
            if journal is not None:
                journal.put(jkey, None)  # collected: a rerun submits afresh what is left
        return results

    def _submit(self, jsonl: bytes, journal: ContentCache | None) -> tuple[str, str]:
        jkey = content_key("openai-batch", self.params.base_url or "", ENDPOINT, jsonl)
        prior = journal.get(jkey) if journal is not None else None
        if prior:
            try:
                batch = self._retry("batches.retrieve",
                                    lambda: self._client.batches.retrieve(prior))
                if batch.status != "failed":
                    log.info("openai batch %s: resuming (%s)", prior, batch.status)
                    return prior, jkey
            except LLMCallError as exc:
                log.warning("openai batch %s: cannot resume (%s); submitting anew", prior, exc)
        upload = self._retry("files.create", lambda: self._client.files.create(
            file=("diagramforge-batch.jsonl", jsonl, "application/jsonl"), purpose="batch"))
        batch = self._retry("batches.create", lambda: self._client.batches.create(
            input_file_id=upload.id, endpoint=ENDPOINT, completion_window="24h",
            metadata={"source": "diagramforge"}))
        if journal is not None:
            journal.put(jkey, batch.id)
        log.info("openai batch %s: submitted %d requests", batch.id, jsonl.count(b"\n"))
        return batch.id, jkey

    def _wait(self, batch_id: str) -> Any:
        start = self.clock()
        while True:
            batch = self._retry("batches.retrieve",
                                lambda: self._client.batches.retrieve(batch_id))
            if batch.status in DONE:
                return batch
            if self.clock() - start > self.params.batch_timeout_s:
                try:
                    self._retry("batches.cancel", lambda: self._client.batches.cancel(batch_id))
                except LLMCallError as exc:
                    log.warning("openai batch %s: cancel failed (%s)", batch_id, exc)
                raise LLMCallError(f"openai batch {batch_id} not finished after "
                                   f"{self.params.batch_timeout_s:.0f}s ({batch.status})")
            counts = batch.request_counts
            log.info("openai batch %s: %s%s", batch_id, batch.status,
                     f" {counts.completed}/{counts.total}" if counts else "")
            self.sleep(self.params.batch_poll_s)

    def _collect(self, batch: Any) -> dict[str, Completion | LLMCallError]:
        from openai.types.chat import ChatCompletion

        out: dict[str, Completion | LLMCallError] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            content = self._retry("files.content", lambda f=file_id: self._client.files.content(f))
            for line in content.text.splitlines():
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    cid = rec["custom_id"]
                except (ValueError, KeyError, TypeError):
                    log.warning("openai batch %s: unreadable result line skipped", batch.id)
                    continue
                resp = rec.get("response") or {}
                status = resp.get("status_code")
                if rec.get("error") or status != 200:
                    err = rec.get("error") or (resp.get("body") or {}).get("error") or {}
                    message = err.get("message", "") if isinstance(err, dict) else str(err)
                    out[cid] = LLMCallError(scrub(f"openai batch item: {status}: {message}",
                                                  self._key))
                    continue
                try:
                    out[cid] = _completion(ChatCompletion.model_validate(resp["body"]))
                except Exception as exc:  # noqa: BLE001 - a malformed line fails its item only
                    out[cid] = self._error("batch item", exc)
        return out


def strict_compatible(schema: Any) -> bool:
    """Whether OpenAI's strict mode accepts ``schema``: every object closes its properties
    (``additionalProperties: false``) and requires all of them. A schema that does not is
    sent non-strict; the client's own validation and repair still hold it to the schema."""
    if isinstance(schema, list):
        return all(strict_compatible(s) for s in schema)
    if not isinstance(schema, dict):
        return True
    if schema.get("type") == "object" or "properties" in schema:
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            return False
        if set(schema.get("required", [])) != set(props):
            return False
    return all(strict_compatible(v) for k, v in schema.items()
               if k not in ("enum", "const", "required", "default", "examples"))


def _schema_name(task: str) -> str:
    """OpenAI requires ``^[a-zA-Z0-9_-]{1,64}$`` for the schema name."""
    clean = "".join(c if c.isalnum() or c in "_-" else "_" for c in task)
    return clean[:64] or "answer"
