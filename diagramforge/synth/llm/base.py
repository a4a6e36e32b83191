"""The backend protocol: one round trip of chat messages to raw text plus reported usage.

Backends own transport concerns (HTTP, retries, ``Retry-After``, timeouts, keys); the client
owns everything shared (cache, validation, repair, budget, rate limits, metering), so each
backend is small. A backend that can also run many calls as one asynchronous job (the OpenAI
Batch API) implements ``BatchBackend`` as well.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from diagramforge.store.cache import ContentCache
from diagramforge.synth.llm.types import BackendCall, Completion, LLMCallError


class Backend(Protocol):
    name: str

    def complete(self, call: BackendCall) -> Completion:
        """Return the model's text for ``call``; raise ``LLMCallError`` on final failure."""
        ...


@runtime_checkable
class BatchBackend(Protocol):
    name: str

    def complete(self, call: BackendCall) -> Completion: ...

    def complete_batch(self, calls: list[BackendCall], journal: ContentCache | None = None,
                       ) -> dict[str, Completion | LLMCallError]:
        """Results by ``custom_id``; a call missing from the result failed. ``journal``
        remembers submitted jobs so a killed run resumes them instead of paying twice.
        Raise ``LLMCallError`` when the whole job failed."""
        ...
