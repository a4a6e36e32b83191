"""The executor contract."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass

from diagramforge.stage import Outcome, Stage, WorkUnit


@dataclass(frozen=True)
class Failure:
    """A unit that produced no outcome: the runner ledgers each of its rows with ``reason``."""

    reason: str  # stage.Reason.TIMEOUT / WORKER_CRASH / ERROR
    detail: str


class Executor(ABC):
    """Runs units of one stage at a time; ``setup``/``teardown`` once per worker."""

    @abstractmethod
    def open(self, stage: Stage) -> None:
        """Start (or attach to) workers and set the stage up once on each."""

    @abstractmethod
    def run(self, units: list[WorkUnit], timeouts: list[float]
            ) -> Iterator[Outcome | Failure]:
        """Outcomes in the order of ``units`` (a deterministic output needs that)."""

    @abstractmethod
    def close(self) -> None:
        """Release workers (and the stage's per-worker resources)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
