"""The Dask executor: the same units on a ``dask.distributed`` cluster.

* **Where:** a scheduler at ``runner.dask.address``, or a ``LocalCluster`` (processes, one
  thread each, loopback only, no dashboard) started for the run and closed after it.
* **Per-worker resources:** the stage travels once, in a ``WorkerPlugin``; its ``setup``
  (TeX formats, the Chromium page, tokenizers) runs once per worker, ``teardown`` at the end.
* **Timeouts:** units run on the plugin's own thread and one past its deadline is abandoned
  (a fresh copy of the stage is set up on a new thread); the external tools it started are
  bounded by the sandbox's own deadline and process-group kill, so a runaway pdflatex still
  stops. A pure-Python unit that never returns keeps burning a thread — the local executor,
  which kills processes, is the safer choice for untrusted pure-Python work.
* **Lost workers:** Dask reruns a lost worker's tasks elsewhere (``allowed-failures``); results
  come back to the driver, which alone commits shards — redone, never duplicated. A unit
  whose workers keep dying is ledgered ``worker_crash``.
"""

from __future__ import annotations

import logging
import os
import pickle
import signal
import uuid
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

from diagramforge.executors.base import Executor, Failure, in_flight, run_unit
from diagramforge.params import DaskParams
from diagramforge.stage import Outcome, Reason, Stage, WorkUnit

log = logging.getLogger(__name__)


class _StagePlugin:
    """Holds the stage on each worker (a ``distributed.WorkerPlugin`` by duck typing, so this
    module imports without dask until it is used).

    Every unit of the stage runs on one long-lived thread of the plugin: per-worker tools are
    often bound to the thread that made them (Playwright's browser page, resvg options), so
    ``setup`` and every ``process`` share that thread. A unit past its deadline abandons the
    thread; a fresh copy of the stage is set up on a new one."""

    def __init__(self, stage: Stage, name: str):
        self.stage = stage
        self.name = name
        self.pool: ThreadPoolExecutor | None = None

    def _start(self) -> None:
        self.pool = ThreadPoolExecutor(1, thread_name_prefix=self.name)
        self.pool.submit(self.stage.setup).result()

    def setup(self, worker) -> None:  # noqa: ANN001 - distributed.Worker
        self._fresh = pickle.dumps(self.stage)
        self._start()

    def run(self, unit: WorkUnit, timeout_s: float) -> Outcome | Failure:
        assert self.pool is not None
        fut = self.pool.submit(run_unit, self.stage, unit)
        try:
            return fut.result(timeout=timeout_s)
        except FutureTimeout:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.stage = pickle.loads(self._fresh)
            self._start()
            return Failure(Reason.TIMEOUT, f"unit {unit.key} exceeded {timeout_s:g}s")
        except Exception as exc:  # noqa: BLE001 - one bad input must not stop the run
            return Failure(Reason.ERROR, repr(exc))

    def teardown(self, worker) -> None:  # noqa: ANN001
        if self.pool is not None:
            try:
                self.pool.submit(self.stage.teardown).result(timeout=60)
            finally:
                self.pool.shutdown(wait=False, cancel_futures=True)


def _fault(unit: WorkUnit) -> None:
    """Test hook: ``DIAGRAMFORGE_DASK_KILL=<unit key>:<marker file>`` SIGKILLs the worker
    that first runs that unit, as an OOM killer would (once: the marker remembers)."""
    spec = os.environ.get("DIAGRAMFORGE_DASK_KILL")
    if not spec:
        return
    key, _, marker = spec.rpartition(":")
    if unit.key == key and not Path(marker).exists():
        Path(marker).write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)


def _run_unit(plugin_name: str, unit: WorkUnit, timeout_s: float) -> Outcome | Failure:
    from distributed import get_worker

    _fault(unit)
    return get_worker().plugins[plugin_name].run(unit, timeout_s)


class DaskExecutor(Executor):
    def __init__(self, cfg: DaskParams, workers: int):
        self.cfg = cfg
        self.workers = cfg.workers or workers
        self.client = None
        self.cluster = None
        self.plugin_name = ""

    def open(self, stage: Stage) -> None:
        from distributed import Client, LocalCluster

        if self.cfg.address:
            self.client = Client(self.cfg.address, timeout=self.cfg.connect_timeout_s)
            # an external cluster is as wide as its scheduler says (units kept in flight)
            self.workers = max(self.workers, len(self.client.scheduler_info(n_workers=-1)
                                                 .get("workers", {})))
        else:
            self.cluster = LocalCluster(
                n_workers=self.workers, threads_per_worker=1, processes=True,
                host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR,
                memory_limit=self.cfg.memory_limit)
            self.client = Client(self.cluster)
        self.plugin_name = f"diagramforge-{stage.name}-{uuid.uuid4().hex[:8]}"
        from distributed.diagnostics.plugin import WorkerPlugin

        plugin_cls = type("StagePlugin", (_StagePlugin, WorkerPlugin), {})
        self.client.register_plugin(plugin_cls(stage, self.plugin_name), name=self.plugin_name)

    def run(self, units: Iterable[WorkUnit], timeouts: Iterable[float]
            ) -> Iterator[Outcome | Failure]:
        from itertools import count

        from distributed import KilledWorker

        assert self.client is not None
        client, keys = self.client, count()
        futures = in_flight(units, timeouts, self.workers,
                            lambda u, t: client.submit(_run_unit, self.plugin_name, u, t,
                                                       pure=False,
                                                       key=f"{self.plugin_name}-{next(keys)}"))
        for fut in futures:
            try:
                yield fut.result()
            except KilledWorker as exc:
                yield Failure(Reason.WORKER_CRASH, str(exc)[:300])
            except Exception as exc:  # noqa: BLE001
                yield Failure(Reason.ERROR, repr(exc)[:300])
            finally:
                fut.release()

    def close(self) -> None:
        if self.client is not None:
            try:
                self.client.unregister_worker_plugin(self.plugin_name)
            except Exception:  # noqa: BLE001 - a closing cluster may already be gone
                log.debug("plugin teardown failed", exc_info=True)
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        self.client = self.cluster = None
