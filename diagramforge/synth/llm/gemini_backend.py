"""The Gemini backend: ``generate_content`` with a JSON response schema (``google-genai``).

``params.base_url`` points the client at any server speaking the Gemini REST protocol (the
tests use a loopback server).  The client's own retries are off (one attempt) so ``retry.py``
is the one policy: 429/5xx/timeouts retried, ``Retry-After`` honoured.  The key is read from
the environment (``GEMINI_API_KEY``, else ``GOOGLE_API_KEY``), sent only as the
``x-goog-api-key`` header, and scrubbed from error texts.  No batch mode here: bulk runs go
through ``LLM.complete_many`` with ``concurrency`` threads under the rpm/tpm limits.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from diagramforge.synth.llm.keys import read_key, scrub
from diagramforge.synth.llm.retry import RETRY_STATUS, call_with_retries, retry_after_s
from diagramforge.synth.llm.settings import LLMParams
from diagramforge.synth.llm.types import BackendCall, Completion, LLMCallError, Message

log = logging.getLogger(__name__)


def _transport_errors() -> tuple[type[BaseException], ...]:
    """Timeouts and refused connections of whichever httpx google-genai runs on."""
    found: list[type[BaseException]] = []
    for name in ("httpx2", "httpx"):
        with contextlib.suppress(ImportError, AttributeError):
            found.append(__import__(name).TransportError)
    return tuple(found)


def _retryable(exc: BaseException) -> bool:
    from google.genai import errors

    if isinstance(exc, _transport_errors()):
        return True
    return isinstance(exc, errors.APIError) and exc.code in RETRY_STATUS


def _server_wait(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return retry_after_s(headers) if headers is not None else None


def to_contents(messages: list[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """OpenAI-shaped messages as Gemini's ``(system_instruction, contents)``."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system") or None
    contents = [{"role": "model" if m["role"] == "assistant" else "user",
                 "parts": [{"text": m["content"]}]}
                for m in messages if m["role"] != "system"]
    return system, contents


class GeminiBackend:
    name = "gemini"

    def __init__(self, params: LLMParams, *,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        from google import genai
        from google.genai import types

        self.params = params
        self.sleep = sleep
        self._key = read_key(params)
        http = types.HttpOptions(base_url=params.base_url,
                                 timeout=int(params.timeout_s * 1000),
                                 retry_options=types.HttpRetryOptions(attempts=1))
        self._client = genai.Client(api_key=self._key, http_options=http)

    def __repr__(self) -> str:
        return f"GeminiBackend(model={self.params.model!r}, base_url={self.params.base_url!r})"

    def _error(self, exc: BaseException) -> LLMCallError:
        return LLMCallError(scrub(f"gemini: {type(exc).__name__}: {exc}", self._key))

    def complete(self, call: BackendCall) -> Completion:
        from google.genai import types

        system, contents = to_contents(call.messages)
        config = types.GenerateContentConfig(
            system_instruction=system, temperature=call.sampling["temperature"],
            max_output_tokens=call.sampling["max_tokens"], seed=call.sampling["seed"],
            response_mime_type="application/json", response_json_schema=call.schema)

        def once() -> Any:
            return self._client.models.generate_content(
                model=self.params.model, contents=contents, config=config)

        def on_retry(exc: BaseException, attempt: int, wait: float) -> None:
            log.warning("%s; retry %d in %.2fs", self._error(exc), attempt, wait)

        try:
            resp = call_with_retries(once, max_retries=self.params.max_retries,
                                     retryable=_retryable, server_wait=_server_wait,
                                     sleep=self.sleep, max_wait_s=self.params.max_wait_s,
                                     on_retry=on_retry)
            text = resp.text
        except Exception as exc:  # noqa: BLE001 - every failure becomes a ledger reason
            error = self._error(exc)
        else:
            usage = resp.usage_metadata
            finish = resp.candidates[0].finish_reason if resp.candidates else None
            return Completion(text=text or "",
                              input_tokens=(usage.prompt_token_count or 0) if usage else 0,
                              output_tokens=(usage.candidates_token_count or 0) if usage else 0,
                              finish_reason=str(finish or ""))
        raise error  # outside ``except``: no exception holding the key rides along
