"""What a caller asks of the LLM layer (``Request``) and what it gets back (``Outcome``).

An ``Outcome`` is never an exception: a failure carries a ledger reason so a stage can record
the item as ``llm_invalid_output``, ``budget_exhausted`` or ``llm_error`` and go on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from diagramforge.synth.llm.settings import LLMParams

Reason = Literal["", "llm_invalid_output", "budget_exhausted", "llm_error"]
LLM_INVALID_OUTPUT: Reason = "llm_invalid_output"
BUDGET_EXHAUSTED: Reason = "budget_exhausted"
LLM_ERROR: Reason = "llm_error"
Message = dict[str, str]


class Request(BaseModel):
    """One structured-output call: a task name, prompts and the JSON schema of the answer.

    Sampling fields left ``None`` come from ``LLMParams``, so most callers set none of them.
    ``context`` is the structured data the prompt was written from (node labels, the answer
    code computed, the chosen edit operations…) and ``templates`` are format strings over it
    keyed by schema property name; the offline backend fills the schema from these two, a
    real model reads only the messages. They are part of the cache key for ``offline`` only.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str
    system: str = ""
    user: str
    json_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    context: dict[str, Any] = Field(default_factory=dict)
    templates: dict[str, str | list[str]] = Field(default_factory=dict)

    def messages(self) -> list[Message]:
        """Chat messages in the OpenAI shape; backends translate from this one form."""
        out: list[Message] = []
        if self.system:
            out.append({"role": "system", "content": self.system})
        out.append({"role": "user", "content": self.user})
        return out

    def sampling(self, params: LLMParams) -> dict[str, Any]:
        """The effective sampling params (request overrides, else params) — part of the key."""
        return {
            "temperature": params.temperature if self.temperature is None else self.temperature,
            "max_tokens": params.max_tokens if self.max_tokens is None else self.max_tokens,
            "seed": params.seed if self.seed is None else self.seed,
        }


class Outcome(BaseModel):
    """The result of a call: parsed, schema-valid ``data`` or a ledger ``reason``.

    Tokens and dollars are what *this* call paid (0 on a cache hit); ``calls`` counts round
    trips (2 when the answer needed its repair).
    """

    model_config = ConfigDict(extra="forbid")

    ok: bool
    data: dict[str, Any] | None = None
    reason: Reason = ""
    detail: str = ""
    backend: str = ""
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    cached: bool = False
    batch: bool = False
    """The first answer came from the OpenAI Batch API."""


class Completion(BaseModel):
    """What a backend returns for one round trip: raw text and the usage it reported."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    finish_reason: str = ""


@dataclass(frozen=True)
class BackendCall:
    """One round trip as a backend sees it (messages already include any repair turns)."""

    task: str
    messages: list[Message]
    schema: dict[str, Any]
    sampling: dict[str, Any]
    context: dict[str, Any] = field(default_factory=dict)
    templates: dict[str, Any] = field(default_factory=dict)
    custom_id: str = ""
    """Unique within one batch (the cache key), so batch results find their request."""


class LLMCallError(Exception):
    """A backend failed for good (retries exhausted, auth, bad request); the message is
    already scrubbed of secrets."""
