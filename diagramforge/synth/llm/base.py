"""The backend protocol: one round trip of chat messages to raw text plus reported usage.

Backends own transport concerns (HTTP, retries, ``Retry-After``, timeouts, keys); the client
owns everything shared (cache, validation, repair, budget, metering), so each backend is small.
"""

from __future__ import annotations

from typing import Any, Protocol

from diagramforge.synth.llm.types import Completion, Message


class Backend(Protocol):
    name: str

    def complete(self, messages: list[Message], schema: dict[str, Any], task: str,
                 sampling: dict[str, Any]) -> Completion:
        """Return the model's text for ``messages``; raise ``LLMCallError`` on final failure."""
        ...
