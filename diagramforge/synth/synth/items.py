"""One task item: the request the model answers, and what code does with the answer.

Code computes everything that can be computed (the answer, the choices, the operations)
before the call; the model writes only the language, which ``check`` verifies before the
item becomes a row. A check failure is a ledger reason, like an LLM failure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from diagramforge.store import records
from diagramforge.synth.llm.types import Request
from diagramforge.synth.synth.prompt import Prompt

Check = Callable[[dict[str, Any]], tuple[str, str]]
"""The model's answer → ``("", "")`` when it is acceptable, else ``(reason, detail)``."""


def item_id(*parts: str) -> str:
    """A stable id of a task item from what identifies it (diagram, config, key): the
    project's derived-item id, kept at the 16 characters synth ids have always had."""
    return records.item_id(*parts)[:16]


@dataclass
class Item:
    id: str
    config: str
    diagram_id: str
    request: Request
    prompt: Prompt
    base: dict[str, Any]
    """Columns known before the model answers (answers, choices, copied edit columns)."""
    check: Check
    output: Callable[[dict[str, Any]], dict[str, Any]]
    """The model's (checked) answer → the task's language columns."""
    locator: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def row(self, data: dict[str, Any]) -> dict[str, Any]:
        return {**self.base, **self.output(data), "id": self.id, "config": self.config,
                "diagram_id": self.diagram_id, "prompt_version": self.prompt.version}
