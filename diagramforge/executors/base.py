"""The executor contract."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from diagramforge.measure.timing import timed
from diagramforge.stage import Outcome, Stage, WorkUnit

F = TypeVar("F")
U = TypeVar("U")

AHEAD_PER_WORKER = 4
"""Units submitted ahead of the one the runner waits for, per worker: enough to keep every
worker busy, few enough that finished outcomes waiting their turn stay bounded (a stage of
10,000 bulk chunks holds a handful of outcomes, not all of them)."""


def in_flight(units: Iterable, timeouts: Iterable[float], workers: int,
              submit: Callable[[object, float], F]) -> Iterator[F]:
    """The futures of ``units`` in order, each submitted only when at most
    ``AHEAD_PER_WORKER × workers`` earlier ones are still unconsumed."""
    for _, _, fut in submitted(units, timeouts, workers, submit):
        yield fut


def submitted(units: Iterable[U], timeouts: Iterable[float], workers: int,
              submit: Callable[[U, float], F]) -> Iterator[tuple[U, float, F]]:
    """:func:`in_flight` with each future's unit and deadline. ``units`` may be a lazy
    stream (the runner's units of every shard, read as the window reaches them): it is
    pulled only as the window moves, so the next shard's units start while the driver
    books the last ones of this shard."""
    ahead = max(1, AHEAD_PER_WORKER * workers)
    queue: deque[tuple[U, float, F]] = deque()
    pending = iter(zip(units, timeouts, strict=True))
    for u, t in pending:
        queue.append((u, t, submit(u, t)))
        if len(queue) >= ahead:
            break
    while queue:
        yield queue.popleft()
        nxt = next(pending, None)
        if nxt is not None:
            queue.append((*nxt, submit(*nxt)))


def run_unit(stage: Stage, unit: WorkUnit) -> Outcome:
    """``stage.process(unit)`` with its phase spans on the outcome (``timing``): what every
    executor runs on its workers."""
    out, timing = timed(lambda: stage.process(unit))
    if isinstance(out, Outcome):
        out.timing = timing
    return out


def unit_timeouts(units: list[WorkUnit], item_timeout_s: float) -> list[float]:
    """Each unit's deadline: its own (a format that knows better), else ``item_timeout_s``
    per row — one rule for the runner and for a whole-table stage that spreads work."""
    return [u.timeout_s or item_timeout_s * max(1, len(u.rows)) for u in units]


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
    def run(self, units: Iterable[WorkUnit], timeouts: Iterable[float]
            ) -> Iterator[Outcome | Failure]:
        """Outcomes in the order of ``units`` (a deterministic output needs that). Both may
        be lazy streams, pulled a bounded window ahead of the outcome consumed."""

    @abstractmethod
    def close(self) -> None:
        """Release workers (and the stage's per-worker resources)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
