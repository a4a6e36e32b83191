"""Local executors: inline (``workers: 0``, debugging) and a pebble process pool.

pebble, not ``concurrent.futures``: a unit over its deadline has its worker process killed
(a runaway pdflatex or an endless regex stops), and a worker that dies (OOM, segfault) fails
only its unit.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from concurrent.futures import TimeoutError as FutureTimeout

from pebble import ProcessPool
from pebble.common import ProcessExpired

from diagramforge.executors.base import Executor, Failure, in_flight, run_unit
from diagramforge.stage import Outcome, Reason, Stage, WorkUnit

_WORKER_STAGE: Stage | None = None


def _init_worker(stage: Stage) -> None:
    global _WORKER_STAGE
    _WORKER_STAGE = stage
    logging.basicConfig(level=logging.WARNING)
    stage.setup()


def _run_unit(unit: WorkUnit) -> Outcome:
    assert _WORKER_STAGE is not None
    return run_unit(_WORKER_STAGE, unit)


class InlineExecutor(Executor):
    """In this process, no timeouts: for debugging and tiny runs."""

    def open(self, stage: Stage) -> None:
        self.stage = stage
        stage.setup()

    def run(self, units: list[WorkUnit], timeouts: list[float]
            ) -> Iterator[Outcome | Failure]:
        for u in units:
            try:
                yield run_unit(self.stage, u)
            except Exception as exc:  # noqa: BLE001 - one bad input must not stop the run
                yield Failure(Reason.ERROR, repr(exc))

    def close(self) -> None:
        if getattr(self, "stage", None) is not None:
            self.stage.teardown()


class PoolExecutor(Executor):
    """A process pool on this machine; each worker sets the stage up once."""

    def __init__(self, workers: int):
        self.workers = workers
        self.pool: ProcessPool | None = None

    def open(self, stage: Stage) -> None:
        self.pool = ProcessPool(max_workers=self.workers, initializer=_init_worker,
                                initargs=(stage,))

    def run(self, units: list[WorkUnit], timeouts: list[float]
            ) -> Iterator[Outcome | Failure]:
        assert self.pool is not None
        pool = self.pool
        futures = in_flight(units, timeouts, self.workers,
                            lambda u, t: pool.schedule(_run_unit, args=(u,), timeout=t))
        for u, t, fut in zip(units, timeouts, futures, strict=True):
            try:
                yield fut.result()
            except FutureTimeout:
                yield Failure(Reason.TIMEOUT, f"unit {u.key} exceeded {t:g}s")
            except ProcessExpired as exc:
                yield Failure(Reason.WORKER_CRASH, str(exc))
            except Exception as exc:  # noqa: BLE001
                yield Failure(Reason.ERROR, repr(exc))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()
            self.pool = None
