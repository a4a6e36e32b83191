"""Tokens, dollars and outcomes per task, for the stage metrics and the budget check."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class TaskUsage:
    calls: int = 0
    """Round trips to the backend (a repair is a second call)."""
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    failures: dict[str, int] = field(default_factory=dict)


class Meter:
    """Accumulates what was actually paid; cache hits count, but cost nothing."""

    def __init__(self) -> None:
        self.tasks: dict[str, TaskUsage] = defaultdict(TaskUsage)

    def add_call(self, task: str, input_tokens: int, output_tokens: int, cost: float) -> None:
        u = self.tasks[task]
        u.calls += 1
        u.input_tokens += input_tokens
        u.output_tokens += output_tokens
        u.cost_usd += cost

    def add_hit(self, task: str) -> None:
        self.tasks[task].cache_hits += 1

    def add_failure(self, task: str, reason: str) -> None:
        f = self.tasks[task].failures
        f[reason] = f.get(reason, 0) + 1

    @property
    def total_usd(self) -> float:
        return sum(u.cost_usd for u in self.tasks.values())

    def as_dict(self) -> dict[str, Any]:
        """JSON-able metrics: per task, plus a ``total`` row."""
        out: dict[str, Any] = {t: asdict(u) for t, u in sorted(self.tasks.items())}
        out["total"] = {
            "calls": sum(u.calls for u in self.tasks.values()),
            "cache_hits": sum(u.cache_hits for u in self.tasks.values()),
            "input_tokens": sum(u.input_tokens for u in self.tasks.values()),
            "output_tokens": sum(u.output_tokens for u in self.tasks.values()),
            "cost_usd": self.total_usd,
        }
        return out
