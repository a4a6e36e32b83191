"""The OpenAI backend: chat completions with structured outputs (a strict JSON schema).

Works against any server that speaks the OpenAI wire format via ``params.base_url`` (the
tests use a loopback server).  The ``openai`` client's own retries are off; ``retry.py``
retries 429/5xx/timeouts honouring ``Retry-After``.  The key is read from the environment
and lives only inside the ``openai.OpenAI`` object; error texts are scrubbed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from diagramforge.synth.llm.keys import read_key, scrub
from diagramforge.synth.llm.params import LLMParams
from diagramforge.synth.llm.retry import RETRY_STATUS, call_with_retries, retry_after_s
from diagramforge.synth.llm.types import Completion, LLMCallError, Message


def _retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code in RETRY_STATUS


def _server_wait(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    return retry_after_s(response.headers) if response is not None else None


class OpenAIBackend:
    name = "openai"

    def __init__(self, params: LLMParams, *,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        import openai

        self.params = params
        self.sleep = sleep
        self._key = read_key(params)
        self._client = openai.OpenAI(api_key=self._key, base_url=params.base_url,
                                     timeout=params.timeout_s, max_retries=0)

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self.params.model!r}, base_url={self.params.base_url!r})"

    def complete(self, messages: list[Message], schema: dict[str, Any], task: str,
                 sampling: dict[str, Any]) -> Completion:
        def once() -> Any:
            return self._client.chat.completions.create(
                model=self.params.model, messages=messages,  # type: ignore[arg-type]
                temperature=sampling["temperature"],
                max_completion_tokens=sampling["max_tokens"],
                seed=sampling["seed"],
                response_format={"type": "json_schema", "json_schema": {
                    "name": _schema_name(task), "schema": schema, "strict": True}})

        try:
            resp = call_with_retries(once, max_retries=self.params.max_retries,
                                     retryable=_retryable, server_wait=_server_wait,
                                     sleep=self.sleep)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a ledger reason
            raise LLMCallError(scrub(f"openai: {type(exc).__name__}: {exc}", self._key)) from None
        if not resp.choices:
            raise LLMCallError("openai: response without choices")
        choice = resp.choices[0]
        usage = resp.usage
        return Completion(text=choice.message.content or choice.message.refusal or "",
                          input_tokens=usage.prompt_tokens if usage else 0,
                          output_tokens=usage.completion_tokens if usage else 0,
                          finish_reason=choice.finish_reason or "")


def _schema_name(task: str) -> str:
    """OpenAI requires ``^[a-zA-Z0-9_-]{1,64}$`` for the schema name."""
    clean = "".join(c if c.isalnum() or c in "_-" else "_" for c in task)
    return clean[:64] or "answer"
