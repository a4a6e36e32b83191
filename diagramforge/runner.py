"""Run a stage: parallel map over shards, per-unit timeouts, progress, stats, ledger, resume.

A *mapped* stage turns each input shard into one output shard; the runner gives every unit
of work (a row, or a group of rows such as all figures of one paper) to a process pool with
a timeout, keeps output order deterministic, and commits shard by shard.  A rerun after a
kill skips committed shards, so the result equals an uninterrupted run.  Changing the
stage's params, its input or the package code changes the fingerprint and starts afresh.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pyarrow as pa
import pyarrow.parquet as pq
from pebble import ProcessPool
from pebble.common import ProcessExpired
from tqdm import tqdm

from diagramforge.params import Params
from diagramforge.records import RECORD_SCHEMA, REJECTION_SCHEMA, Rejection, Unit
from diagramforge.shards import ShardSet, clear_dir, write_json_atomic
from diagramforge.stats import StageStats

log = logging.getLogger(__name__)

PACKAGE_DIR = Path(__file__).resolve().parent


TIMING_SUFFIX = "_ms"
"""Counters named ``*_ms`` are timings: reported in metrics, never committed with shards."""


class Reason:
    """Reasons the runner itself assigns (stages define their own next to their logic)."""

    TIMEOUT = "timeout"
    WORKER_CRASH = "worker_crash"
    ERROR = "error"


class ContractError(RuntimeError):
    """The pipeline is mis-wired: a stage reads a column no upstream stage wrote."""


@dataclass
class Outcome:
    """What processing one unit produced: output rows and rejections."""

    records: list[dict] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    extra: dict[str, int] = field(default_factory=dict)


@dataclass
class WorkUnit:
    """Rows processed together (one row, or e.g. all figures of one paper)."""

    rows: list[dict]
    key: str
    timeout_s: float | None = None
    """Overrides ``runner.item_timeout_s × rows`` when the stage knows better."""


def code_fingerprint() -> str:
    """Hash of the package source, so a code change never reuses stale shards."""
    h = hashlib.sha256()
    for p in sorted(PACKAGE_DIR.rglob("*.py")):
        h.update(p.relative_to(PACKAGE_DIR).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _file_digest(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()[:16]


class Stage(ABC):
    """A mapped stage.  Subclasses set the class attributes and implement ``process``."""

    name: ClassVar[str]
    upstream: ClassVar[str | None] = None
    input_schema: ClassVar[pa.Schema] = RECORD_SCHEMA
    output_schema: ClassVar[pa.Schema] = RECORD_SCHEMA
    reads: ClassVar[tuple[str, ...]] = ()
    writes: ClassVar[tuple[str, ...]] = ()
    expands: ClassVar[bool] = False
    param_sections: ClassVar[tuple[str, ...]] = ()

    def __init__(self, params: Params):
        self.params = params

    def prepare(self) -> None:  # noqa: B027 - optional hook
        """Once, in the parent, before workers start (build caches, formats)."""

    def setup(self) -> None:  # noqa: B027 - optional hook
        """Once per worker process (load tokenizers, open browsers)."""

    def units(self, rows: list[dict]) -> list[WorkUnit]:
        """Split a shard's rows into units of work; by default one row per unit."""
        return [WorkUnit([r], str(r.get("id"))) for r in rows]

    @abstractmethod
    def process(self, unit: WorkUnit) -> Outcome:
        """Turn one unit into records and rejections; must account for every row."""

    def locator(self, row: dict) -> str:
        return str(row.get("source_id") or row.get("id"))

    def environment(self) -> dict:
        """Versions of outside tools the output depends on (TeX Live, draw.io, …): part of
        the fingerprint, so an upgrade never reuses shards made by the old tools."""
        return {}

    def fingerprint_params(self) -> dict:
        dumped = self.params.model_dump(by_alias=True)
        return {s: dumped[s] for s in self.param_sections}


@dataclass
class StagePaths:
    root: Path

    @property
    def records(self) -> Path:
        return self.root / "records"

    @property
    def rejections(self) -> Path:
        return self.root / "rejections"

    @property
    def shard_stats(self) -> Path:
        return self.root / "_shard_stats"

    @property
    def state(self) -> Path:
        return self.root / "_state.json"


def stage_paths(params: Params, name: str) -> StagePaths:
    return StagePaths(Path(params.project.data_dir) / name)


def metrics_path(params: Params, name: str) -> Path:
    return Path(params.project.metrics_dir) / f"{name}.json"


def read_state(params: Params, name: str) -> dict:
    p = stage_paths(params, name).state
    return json.loads(p.read_text()) if p.exists() else {}


def check_contract(stage_name: str, reads: Sequence[str], upstream: str | None,
                   params: Params) -> list[str]:
    """Columns the upstream stage has filled; raise if ``reads`` asks for more."""
    if upstream is None:
        return []
    state = read_state(params, upstream)
    if not state.get("complete"):
        raise ContractError(
            f"stage '{stage_name}' needs the output of '{upstream}', which has not completed "
            f"(run `diagramforge {upstream}` or `dvc repro`)"
        )
    provided = state.get("provides", [])
    missing = [c for c in reads if c not in provided]
    if missing:
        raise ContractError(
            f"stage '{stage_name}' reads {missing}, but '{upstream}' only provides {provided}"
        )
    return provided


_WORKER_STAGE: Stage | None = None


def _init_worker(stage: Stage) -> None:
    global _WORKER_STAGE
    _WORKER_STAGE = stage
    logging.basicConfig(level=logging.WARNING)
    stage.setup()


def _run_unit(unit: WorkUnit) -> Outcome:
    assert _WORKER_STAGE is not None
    return _WORKER_STAGE.process(unit)


class StageLog:
    """Collects rejections and stats for one shard (or one whole-table stage)."""

    def __init__(self, stage: str, expands: bool):
        self.stage = stage
        self.stats = StageStats(stage=stage, expands=expands)
        self.rejections: list[dict] = []

    def reject(self, rej: Rejection) -> None:
        self.rejections.append(rej.to_row(self.stage))
        self.stats.by_reason[rej.reason] += 1
        if rej.unit == Unit.CANDIDATE:
            self.stats.rejected_candidates += 1
        else:
            self.stats.rejected_inputs += 1


def run_stage(stage: Stage, *, workers: int | None = None, progress: bool | None = None,
              stop_after_shards: int | None = None) -> StageStats:
    """Run a mapped stage to completion (or resume it) and write its metrics.

    ``stop_after_shards`` exists for tests that simulate a kill after N commits.
    """
    params = stage.params
    rp = params.runner
    workers = rp.workers if workers is None else workers
    progress = rp.progress if progress is None else progress
    t0 = time.perf_counter()

    provided = check_contract(stage.name, stage.reads, stage.upstream, params)
    paths = stage_paths(params, stage.name)
    inputs = ShardSet(stage_paths(params, stage.upstream).records, stage.input_schema) \
        if stage.upstream else None
    in_indices = inputs.indices() if inputs else []

    fingerprint = hashlib.sha256(json.dumps({
        "stage": stage.name,
        "params": stage.fingerprint_params(),
        "inputs": [_file_digest(inputs.path(i)) for i in in_indices] if inputs else [],
        "code": code_fingerprint(),
        "environment": stage.environment(),
    }, sort_keys=True, default=str).encode()).hexdigest()[:16]

    out = ShardSet(paths.records, stage.output_schema)
    rej = ShardSet(paths.rejections, REJECTION_SCHEMA)
    state = json.loads(paths.state.read_text()) if paths.state.exists() else {}
    if state.get("fingerprint") != fingerprint:
        for d in (paths.records, paths.rejections, paths.shard_stats):
            clear_dir(d)
    write_json_atomic({"fingerprint": fingerprint, "complete": False}, paths.state)

    todo = [i for i in in_indices if not out.committed(i)]
    resumed = len(in_indices) - len(todo)
    if resumed:
        log.info("%s: resuming, %d of %d shards already committed", stage.name, resumed,
                 len(in_indices))

    stage.prepare()
    pool = ProcessPool(max_workers=workers, initializer=_init_worker, initargs=(stage,)) \
        if workers > 0 else None
    if pool is None:
        stage.setup()
    bar = tqdm(total=sum(_rows_in(inputs, i) for i in todo) if inputs else 0, desc=stage.name,
               unit="row", disable=None if progress else True, leave=False)
    done = 0
    timings: dict[str, int] = {}
    try:
        for i in todo:
            assert inputs is not None
            rows = inputs.read(i).to_pylist()
            records, log_ = _run_shard(stage, rows, pool, bar)
            rej.write(i, log_.rejections)
            # timings vary run to run: kept out of the committed shard stats (so stage
            # outputs are byte-identical across runs) and added to this run's metrics
            for k in [k for k in log_.stats.extra if str(k).endswith(TIMING_SUFFIX)]:
                timings[k] = timings.get(k, 0) + log_.stats.extra.pop(k)
            write_json_atomic(log_.stats.to_json(), paths.shard_stats / f"{i:05d}.json")
            _fault(stage.name, i, "before_commit")
            out.write(i, records)  # the commit point
            _fault(stage.name, i, "after_commit")
            done += 1
            if stop_after_shards is not None and done >= stop_after_shards:
                return log_.stats
    finally:
        bar.close()
        if pool is not None:
            pool.close()
            pool.join()

    total = StageStats(stage=stage.name, expands=stage.expands)
    for i in in_indices:
        shard = json.loads((paths.shard_stats / f"{i:05d}.json").read_text())
        total.add(StageStats.from_json(stage.name, shard))
    total.seconds = time.perf_counter() - t0
    total.extra["resumed_shards"] = resumed
    total.extra.update(timings)
    _finish(stage.name, params, total, sorted(set(provided) | set(stage.writes)), fingerprint)
    return total


def _fault(stage: str, index: int, point: str) -> None:
    """Fault injection for resume tests: ``DIAGRAMFORGE_FAULT=stage:shard:point`` makes the
    process SIGKILL itself there, exactly as an OOM killer or a pulled plug would."""
    if os.environ.get("DIAGRAMFORGE_FAULT") == f"{stage}:{index}:{point}":
        os.kill(os.getpid(), signal.SIGKILL)


def _finish(name: str, params: Params, stats: StageStats, provides: list[str],
            fingerprint: str) -> None:
    err = stats.balance_error()
    if err:
        raise RuntimeError(f"accounting error, an input vanished: {err}")
    write_json_atomic(stats.to_json(), metrics_path(params, name))
    write_json_atomic({"fingerprint": fingerprint, "complete": True, "provides": provides},
                      stage_paths(params, name).state)


def _unit_failed(stage: Stage, unit: WorkUnit, reason: str, detail: str) -> Outcome:
    return Outcome(rejections=[
        Rejection(locator=stage.locator(r), id=r.get("id"), reason=reason, detail=detail)
        for r in unit.rows
    ])


def _rows_in(shards: ShardSet, index: int) -> int:
    return pq.ParquetFile(shards.path(index)).metadata.num_rows


def _run_shard(stage: Stage, rows: list[dict], pool: ProcessPool | None, bar: tqdm
               ) -> tuple[list[dict], StageLog]:
    units = stage.units(rows)
    timeout = stage.params.runner.item_timeout_s
    outcomes: list[Outcome] = []
    if pool is None:
        for u in units:
            try:
                outcomes.append(stage.process(u))
            except Exception as exc:  # noqa: BLE001 - one bad input must not stop the run
                outcomes.append(_unit_failed(stage, u, Reason.ERROR, repr(exc)))
            bar.update(len(u.rows))
    else:
        futures = [pool.schedule(_run_unit, args=(u,),
                                 timeout=u.timeout_s or timeout * max(1, len(u.rows)))
                   for u in units]
        for u, fut in zip(units, futures, strict=True):
            try:
                outcomes.append(fut.result())
            except FutureTimeout:
                outcomes.append(_unit_failed(stage, u, Reason.TIMEOUT,
                                             f"unit {u.key} exceeded {timeout:g}s per item"))
            except ProcessExpired as exc:
                outcomes.append(_unit_failed(stage, u, Reason.WORKER_CRASH, str(exc)))
            except Exception as exc:  # noqa: BLE001
                outcomes.append(_unit_failed(stage, u, Reason.ERROR, repr(exc)))
            bar.update(len(u.rows))

    log_ = StageLog(stage.name, stage.expands)
    log_.stats.n_in = len(rows)
    records: list[dict] = []
    for u, oc in zip(units, outcomes, strict=True):
        for r in oc.rejections:
            log_.reject(r)
        records.extend(oc.records)
        if oc.records:
            log_.stats.inputs_with_output += len(u.rows) if stage.expands else 0
        for k, v in oc.extra.items():
            log_.stats.extra[k] = log_.stats.extra.get(k, 0) + v
    log_.stats.n_out = len(records)
    err = log_.stats.balance_error()
    if err:
        raise RuntimeError(f"accounting error in stage {stage.name}: {err}")
    return records, log_


def run_table_stage(name: str, params: Params, upstream: str, reads: Sequence[str],
                    writes: Sequence[str], fn: Callable[[pa.Table, StageLog], list[dict]],
                    output_schema: pa.Schema = RECORD_SCHEMA) -> StageStats:
    """Run a whole-table stage (split, dedup): ``fn(table, log) -> list[dict]``.

    Whole-table stages need a global view, so they are not parallel, but they write the same
    shards, ledger and metrics as mapped stages and are checked by the same books.
    """
    t0 = time.perf_counter()
    provided = check_contract(name, reads, upstream, params)
    table = ShardSet(stage_paths(params, upstream).records, RECORD_SCHEMA).read_all()
    log_ = StageLog(name, expands=False)
    log_.stats.n_in = table.num_rows
    rows = fn(table, log_)
    return commit_outputs(name, params, rows, log_, output_schema,
                          sorted(set(provided) | set(writes)), t0)


def commit_outputs(name: str, params: Params, rows: list[dict], log_: StageLog,
                   schema: pa.Schema, provides: list[str], t0: float) -> StageStats:
    """Write a non-mapped stage's records, ledger and metrics in one go."""
    paths = stage_paths(params, name)
    out = ShardSet(paths.records, schema)
    rej = ShardSet(paths.rejections, REJECTION_SCHEMA)
    for d in (paths.records, paths.rejections, paths.shard_stats):
        clear_dir(d)
    size = params.runner.shard_size
    for k in range(max(1, -(-len(rows) // size))):
        out.write(k, rows[k * size:(k + 1) * size])
    rej.write(0, log_.rejections)
    log_.stats.n_out = len(rows)
    log_.stats.seconds = time.perf_counter() - t0
    _finish(name, params, log_.stats, provides, "table")
    return log_.stats
