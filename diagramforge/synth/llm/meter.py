"""Tokens, dollars and outcomes per task, for the stage metrics and the budget check."""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class TaskUsage:
    calls: int = 0
    """Round trips to the backend (a repair is a second call)."""
    batch_calls: int = 0
    """Of ``calls``, those answered through the batch API (billed at the batch price)."""
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    failures: dict[str, int] = field(default_factory=dict)


class Meter:
    """Accumulates what was actually paid; cache hits count, but cost nothing. Thread-safe.

    A stage writes ``as_dict()`` to its metrics file: one row per task plus ``total``.
    """

    def __init__(self) -> None:
        self.tasks: dict[str, TaskUsage] = defaultdict(TaskUsage)
        self._lock = threading.Lock()

    def add_call(self, task: str, input_tokens: int, output_tokens: int, cost: float,
                 *, batch: bool = False) -> None:
        with self._lock:
            u = self.tasks[task]
            u.calls += 1
            u.batch_calls += int(batch)
            u.input_tokens += input_tokens
            u.output_tokens += output_tokens
            u.cost_usd += cost

    def add_hit(self, task: str) -> None:
        with self._lock:
            self.tasks[task].cache_hits += 1

    def add_failure(self, task: str, reason: str) -> None:
        with self._lock:
            f = self.tasks[task].failures
            f[reason] = f.get(reason, 0) + 1

    @property
    def total_usd(self) -> float:
        with self._lock:
            return sum(u.cost_usd for u in self.tasks.values())

    def as_dict(self) -> dict[str, Any]:
        """JSON-able metrics: per task, plus a ``total`` row."""
        with self._lock:
            tasks = {t: asdict(u) for t, u in sorted(self.tasks.items())}
        failures: dict[str, int] = {}
        for u in tasks.values():
            for k, v in u["failures"].items():
                failures[k] = failures.get(k, 0) + v
        total = {k: sum(u[k] for u in tasks.values())
                 for k in ("calls", "batch_calls", "cache_hits", "input_tokens",
                           "output_tokens", "cost_usd")}
        total["failures"] = dict(sorted(failures.items()))
        return {**tasks, "total": total}
