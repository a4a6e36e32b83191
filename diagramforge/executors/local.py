"""Local executors: inline (``workers: 0``, debugging) and a pebble process pool.

pebble, not ``concurrent.futures``: a unit over its deadline has its worker process killed
(a runaway pdflatex or an endless regex stops), and a worker that dies (OOM, segfault) fails
only its unit.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterable, Iterator
from concurrent.futures import TimeoutError as FutureTimeout

from pebble import ProcessPool
from pebble.common import ProcessExpired

from diagramforge.executors.base import Executor, Failure, run_unit, submitted
from diagramforge.stage import Outcome, Reason, Stage, WorkUnit

_WORKER_STAGE: Stage | None = None


def _init_worker(stage: Stage) -> None:
    global _WORKER_STAGE
    gc.freeze()  # what the driver made before the fork: see PoolExecutor.open
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

    def run(self, units: Iterable[WorkUnit], timeouts: Iterable[float]
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
        # Workers are forked: the driver's modules and objects are shared with them page by
        # page until someone writes to a page. The cyclic GC writes to every object it
        # scans, so without this each process soon holds a private copy of all of them
        # (augment: ≈ 0.2 GB per process). Frozen objects are never scanned; they are what
        # the driver holds at this point (modules, the stage), which lives as long as it.
        gc.freeze()
        self.pool = ProcessPool(max_workers=self.workers, initializer=_init_worker,
                                initargs=(stage,))

    def run(self, units: Iterable[WorkUnit], timeouts: Iterable[float]
            ) -> Iterator[Outcome | Failure]:
        assert self.pool is not None
        pool = self.pool
        for u, t, fut in submitted(units, timeouts, self.workers,
                                   lambda u, t: pool.schedule(_run_unit, args=(u,),
                                                              timeout=t)):
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
