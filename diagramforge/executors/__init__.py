"""Executors: who runs a mapped stage's units. The runner talks only to :class:`Executor`.

``local`` is a process pool on this machine (pebble: per-unit timeouts that kill the worker,
crash isolation); ``dask`` sends units to a ``dask.distributed`` cluster — a scheduler at
``runner.dask.address``, or a ``LocalCluster`` started for the run. Whichever runs the units,
the runner in the driver commits each shard, so a commit is atomic and a unit redone after a
lost worker is never written twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from diagramforge.executors.base import Executor, Failure, unit_timeouts
from diagramforge.executors.local import InlineExecutor, PoolExecutor

if TYPE_CHECKING:
    from diagramforge.params import RunnerParams


def make_executor(runner: RunnerParams, workers: int) -> Executor:
    """The executor ``runner.executor`` names (``workers`` 0 always runs inline)."""
    if workers <= 0:
        return InlineExecutor()
    if runner.executor == "dask":
        # lazy: loads distributed
        from diagramforge.executors.dask import DaskExecutor

        return DaskExecutor(runner.dask, workers)

    return PoolExecutor(workers)


__all__ = ["Executor", "Failure", "make_executor", "unit_timeouts"]
