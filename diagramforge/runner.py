"""Run a stage — the one way any stage runs, mapped or whole-table.

A *mapped* stage turns each input shard into one output shard: its rows are split into units,
an executor (``executors``: a local process pool or Dask) processes them with per-unit
timeouts, and the driver commits shard by shard in input order. A rerun after a kill skips
committed shards, so the result equals an uninterrupted run. A *whole-table* stage sees every
upstream row at once. Both write the same shards, ledger, metrics and state, checked by the
same books. The fingerprint (params sections, input digests, the stage's own code and the
spine, outside tool versions) decides when committed shards are stale.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import logging
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from tqdm import tqdm

from diagramforge.config import Params
from diagramforge.executors import Failure, make_executor, unit_timeouts
from diagramforge.measure.stats import StageStats, metrics_only
from diagramforge.measure.timing import DRIVER, SETUP, WAIT, PhaseTotals, cpu_now
from diagramforge.pipeline import code_fingerprint, stage_classes
from diagramforge.stage import Outcome, Stage, StageLog, TableStage, WorkUnit, check_contract
from diagramforge.store import atomic
from diagramforge.store.paths import (
    ProjectSettings,
    done_path,
    environment_path,
    metrics_path,
    stage_paths,
)
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA, Rejection
from diagramforge.store.shards import (
    ShardSet,
    ShardWriter,
    Upstream,
    clear_dir,
    remove_temporaries,
)

log = logging.getLogger(__name__)

LEDGER_SPILL_ROWS = 10_000
"""A streaming source stage writes a ledger shard whenever this many rejections are pending
(an archive subset whose files are mostly not diagrams rejects far more than it keeps)."""



def _file_digest(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()[:16]


def fingerprint(stage: Stage | TableStage, inputs: ShardSet | None) -> str:
    """What the stage's output is a function of in the repository: params, inputs, code.
    It is written into the output (``_state.json``), so it must not depend on the machine."""
    return _digest({
        "stage": stage.name,
        "params": stage.fingerprint_params(),
        "inputs": [_file_digest(inputs.path(i)) for i in inputs.indices()] if inputs else [],
        "code": code_fingerprint(type(stage)),
    })


def environment_fingerprint(stage: Stage | TableStage) -> str:
    """The outside tools' versions (``Stage.environment``): committed shards made with
    other tools are not reused. Kept beside the output (``paths.environment_path``)."""
    return _digest({"environment": stage.environment()})


def _digest(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()
                          ).hexdigest()[:16]


def run_stage(stage: Stage | TableStage, *, workers: int | None = None,
              progress: bool | None = None, stop_after_shards: int | None = None
              ) -> StageStats:
    """Run a stage to completion (or resume it) and write its metrics and state.

    ``stop_after_shards`` exists for tests that simulate a kill after N commits.
    """
    if isinstance(stage, TableStage):
        return _run_table(stage)
    params = stage.params
    rp = params.runner
    workers = rp.workers if workers is None else workers
    progress = rp.progress if progress is None else progress
    t0, cpu0 = time.perf_counter(), cpu_now()

    provided = check_contract(stage.name, stage.reads, stage.upstream, params)
    paths = stage_paths(params, stage.name)
    inputs = ShardSet(stage_paths(params, stage.upstream).records, stage.input_schema) \
        if stage.upstream else None
    in_indices = inputs.indices() if inputs else []
    fp = fingerprint(stage, inputs)
    env = {"environment": environment_fingerprint(stage)}
    env_path = environment_path(params, stage.name)

    out = ShardSet(paths.records, stage.output_schema or RECORD_SCHEMA)
    rej = ShardSet(paths.rejections, REJECTION_SCHEMA)
    state = json.loads(paths.state.read_text()) if paths.state.exists() else {}
    made_with = json.loads(env_path.read_text()) if env_path.exists() else {}
    if state.get("complete"):
        # a finished output keeps no fingerprint (see _finish): it is reused only if this
        # machine's record says the same fingerprint made exactly these files
        done = done_path(params, stage.name)
        made = json.loads(done.read_text()) if done.exists() else {}
        fresh = made.get("fingerprint") == fp and made.get("files") == _listing(paths.root)
    else:
        fresh = state.get("fingerprint") == fp
    if not fresh or made_with != env:
        for d in (paths.records, paths.rejections, paths.shard_stats):
            clear_dir(d)
    atomic.write_json(paths.state, {"fingerprint": fp, "complete": False})
    atomic.write_json(env_path, env)

    for d in (paths.records, paths.rejections, paths.shard_stats):
        remove_temporaries(d)  # what was being written when the last run was killed
    todo = [i for i in in_indices if not out.committed(i)]
    resumed = len(in_indices) - len(todo)
    if resumed:
        log.info("%s: resuming, %d of %d shards already committed", stage.name, resumed,
                 len(in_indices))

    timings: dict[str, int] = {}
    phases = PhaseTotals()  # where the seconds went: metrics only, never data/
    phases.add(SETUP, time.perf_counter() - t0, cpu_now() - cpu0)  # fingerprints, state
    if todo:
        assert inputs is not None
        with phases.driver(SETUP):
            stage.prepare()
            bar = tqdm(total=sum(_rows_in(inputs, i) for i in todo), desc=stage.name,
                       unit="row", disable=None if progress else True, leave=False)
            ex = make_executor(params.runner, workers)
        try:
            with phases.driver(SETUP):
                ex.open(stage)
            pool = pa.default_memory_pool()
            plan = _Plan(stage, inputs, todo, phases)
            units, for_timeouts = itertools.tee(plan.stream())
            item_s = params.runner.item_timeout_s
            results = iter(ex.run(units, (unit_timeouts([u], item_s)[0]
                                          for u in for_timeouts)))
            for done, i in enumerate(todo, 1):
                with out.writer(i) as sink:  # records go to disk as their units finish
                    log_ = _run_shard(stage, plan, i, results, bar, sink, phases)
                    with phases.driver(DRIVER):
                        rej.write(i, log_.rejections)
                        # timings, cache hits, compile modes vary run to run: kept out of the
                        # committed shard stats (so stage outputs are byte-identical across
                        # runs, cold or warm), added to the metrics
                        for k in [k for k in log_.stats.extra if metrics_only(str(k))]:
                            timings[k] = timings.get(k, 0) + log_.stats.extra.pop(k)
                        atomic.write_json(paths.shard_stats / f"{i:05d}.json",
                                          log_.stats.to_json())
                        _fault(stage.name, i, "before_commit")
                        sink.commit()  # the commit point
                _fault(stage.name, i, "after_commit")
                with phases.driver(DRIVER):
                    pool.release_unused()  # mimalloc keeps the shard's freed pages otherwise
                if stop_after_shards is not None and done >= stop_after_shards:
                    bar.close()
                    return log_.stats
            with phases.driver(WAIT):
                if next(results, None) is not None:
                    raise RuntimeError(f"{stage.name}: more outcomes than units")
        finally:
            with phases.driver(SETUP):
                ex.close()
        bar.close()

    total = StageStats(stage=stage.name, expands=stage.expands)
    with phases.driver(DRIVER):
        for i in in_indices:
            shard = json.loads((paths.shard_stats / f"{i:05d}.json").read_text())
            total.add(StageStats.from_json(stage.name, shard))
    total.seconds = time.perf_counter() - t0
    total.extra["resumed_shards"] = resumed
    total.extra.update(timings)
    total.phases = phases.to_json()
    _finish(stage.name, params, total, sorted(set(provided) | set(stage.writes)), fp)
    return total


def _fault(stage: str, index: int, point: str) -> None:
    """Fault injection for resume tests: ``DIAGRAMFORGE_FAULT=stage:shard:point`` makes the
    process SIGKILL itself there, exactly as an OOM killer or a pulled plug would."""
    if os.environ.get("DIAGRAMFORGE_FAULT") == f"{stage}:{index}:{point}":
        os.kill(os.getpid(), signal.SIGKILL)


def _finish(name: str, params: ProjectSettings, stats: StageStats, provides: list[str],
            fp: str) -> None:
    err = stats.balance_error()
    if err:
        raise RuntimeError(f"accounting error, an input vanished: {err}")
    atomic.write_json(metrics_path(params, name), stats.to_json())
    # The finished output holds no fingerprint: it hashes the stage's code, so a move of
    # code that changes no byte of the data would still change the output's hash in
    # dvc.lock and rebuild every stage below it (issue 39: a refactor is proved by equal
    # data hashes). The fingerprint goes beside the output, in data/.runner/, with the
    # size and mtime of every file it made: a `dvc checkout` of other data under it is
    # then never taken for this run's (an interrupted run keeps its fingerprint in
    # _state.json, inside the output, so a resume is always checked against it).
    root = stage_paths(params, name).root
    atomic.write_json(stage_paths(params, name).state,
                      {"complete": True, "provides": provides})
    atomic.write_json(done_path(params, name), {"fingerprint": fp, "files": _listing(root)})


def _listing(root: Path) -> dict[str, list[int]]:
    """Size and mtime of every file of a stage's output but its state: what a checkout of
    other data would change."""
    return {f.relative_to(root).as_posix(): [f.stat().st_size, f.stat().st_mtime_ns]
            for f in sorted(root.rglob("*")) if f.is_file() and f.name != "_state.json"}


def _unit_failed(stage: Stage, unit: WorkUnit, reason: str, detail: str) -> Outcome:
    return Outcome(rejections=[
        Rejection(locator=stage.locator(r), id=r.get("id"), reason=reason, detail=detail)
        for r in unit.rows
    ])


def _rows_in(shards: ShardSet, index: int) -> int:
    return pq.ParquetFile(shards.path(index)).metadata.num_rows


class _Plan:
    """The shards to run, read and split into units in order, as far as someone needs them:
    the executor (through :meth:`stream`, a bounded window ahead of the outcomes consumed) or
    the driver (through :meth:`take`, the shard it books next).

    Why a stream and not a shard at a time: the executor then starts the next shard's units
    while this shard's last units still run, instead of leaving workers idle at the end of
    every shard — with large units (a TikZ batch of sixteen copies of one figure, as a
    corpus of templates makes them) one worker idled for most of a batch per shard. Only
    the shards the executor's window spans are held (``AHEAD_PER_WORKER`` units per
    worker), and shards are still committed one by one, in order."""

    def __init__(self, stage: Stage, inputs: ShardSet, todo: list[int], phases: PhaseTotals):
        self.stage, self.inputs, self.todo, self.phases = stage, inputs, todo, phases
        self._next = 0
        self._shards: deque[tuple[int, list[dict], list[WorkUnit]]] = deque()
        self._queue: deque[WorkUnit] = deque()
        self.pulled: deque[float] = deque()
        """When each unit given to the executor and not yet booked was pulled (the clock
        ``timing`` uses): no span of a later unit starts before the oldest of these."""

    def _read_next(self) -> bool:
        if self._next >= len(self.todo):
            return False
        i = self.todo[self._next]
        self._next += 1
        with self.phases.driver(DRIVER):
            rows = self.inputs.read(i).to_pylist()
            units = self.stage.units(rows)
        self._shards.append((i, rows, units))
        self._queue.extend(units)
        return True

    def stream(self) -> Iterator[WorkUnit]:
        """Every unit of every shard, in order; a shard is read when the stream reaches it."""
        while True:
            while not self._queue:
                if not self._read_next():
                    return
            self.pulled.append(time.monotonic())
            yield self._queue.popleft()

    def take(self, index: int) -> tuple[list[dict], list[WorkUnit]]:
        """The rows and units of shard ``index`` (the next in order), read if the stream
        has not reached it yet."""
        while not self._shards:
            if not self._read_next():
                raise RuntimeError(f"shard {index} was never planned")
        i, rows, units = self._shards.popleft()
        if i != index:
            raise RuntimeError(f"shards out of order: {i} planned, {index} booked")
        return rows, units

    def booked(self) -> float:
        """A unit was booked; the time before which every span to come is known."""
        self.pulled.popleft()
        return self.pulled[0] if self.pulled else time.monotonic()


def _run_shard(stage: Stage, plan: _Plan, index: int,
               results: Iterator[Outcome | Failure], bar: tqdm, sink: ShardWriter,
               phases: PhaseTotals) -> StageLog:
    """Book shard ``index``'s outcomes as they come from ``results`` (in unit order,
    whatever the executor), handing each unit's records to ``sink`` as the unit finishes;
    the driver's own time and its time waiting for workers go to ``phases`` with the units'
    spans."""
    with phases.driver(DRIVER):
        rows, units = plan.take(index)
        log_ = StageLog(stage.name, stage.expands)
        log_.stats.n_in = len(rows)
    watermark = None
    for u in units:
        with phases.driver(WAIT):
            res = next(results, None)
        if res is None:
            raise RuntimeError(f"{stage.name}: the executor returned fewer outcomes than units")
        with phases.driver(DRIVER):
            oc = _unit_failed(stage, u, res.reason, res.detail) if isinstance(res, Failure) \
                else res
            phases.add_unit(oc.timing)
            _book(stage, u, oc, log_, sink)
            bar.update(len(u.rows))
            watermark = plan.booked()
    if watermark is not None:
        phases.fold(watermark)
    err = log_.stats.balance_error()
    if err:
        raise RuntimeError(f"accounting error in stage {stage.name}: {err}")
    return log_


def _book(stage: Stage, u: WorkUnit, oc: Outcome, log_: StageLog, sink: ShardWriter) -> None:
    """One unit's outcome into the shard: records to ``sink``, rejections to the ledger,
    counters to the shard's stats."""
    for r in oc.rejections:
        log_.reject(_with_source(r, u.rows, stage.locator))
    sink.add(oc.records)
    log_.stats.n_out += len(oc.records)
    log_.stats.not_selected_inputs += oc.not_selected
    if stage.expands and oc.inputs_with_output is not None:
        log_.stats.inputs_with_output += oc.inputs_with_output
    elif oc.records:
        log_.stats.inputs_with_output += len(u.rows) if stage.expands else 0
    for k, v in oc.extra.items():
        log_.stats.extra[k] = log_.stats.extra.get(k, 0) + v


def _kind(row: dict) -> str | None:
    return row.get("source") or row.get("kind")


def _with_source(rej: Rejection, rows: list[dict], locate: Callable[[dict], str]
                 ) -> Rejection:
    """The rejection booked under the source kind of the row it is about — the kind every
    row of the unit shares, else the row with its locator (ids are content hashes: one
    diagram found in two kinds of source has one id), else its id — unless the stage said."""
    if rej.source is not None:
        return rej
    kinds = {_kind(r) for r in rows}
    kind = kinds.pop() if len(kinds) == 1 else next(
        (_kind(r) for r in rows if locate(r) == rej.locator), None) or next(
        (_kind(r) for r in rows if rej.id is not None and r.get("id") == rej.id), None)
    return dataclasses.replace(rej, source=kind) if kind else rej


def _ledger_sources(rows: list[dict], table: pa.Table | Upstream | None) -> None:
    """Fill the source kind of a whole-table stage's rejections from the input table (by
    ``source_id``, the usual locator, else by id)."""
    missing = [r for r in rows if r.get("source") is None]
    if not missing or table is None:
        return
    names = table.column_names
    if isinstance(table, Upstream):  # streamed input: read only the small key columns
        table = table.read([n for n in names if n in LEDGER_KEY_COLUMNS])
    col = "source" if "source" in names else "kind" if "kind" in names else None
    if col is None:
        return
    kinds = table.column(col).to_pylist()
    by: dict[str, str] = {}
    for key in ("id", "source_id"):  # source_id last: it wins where both match
        if key in names:
            by.update(zip(table.column(key).to_pylist(), kinds, strict=True))
    for r in missing:
        r["source"] = by.get(r["locator"]) or by.get(r.get("id"))
LEDGER_KEY_COLUMNS = ("id", "source_id", "source", "kind")
"""Small upstream columns kept in a projected read: a whole-table stage's rejections are
keyed (and their source kind found) by them."""


def _projection(stage: TableStage) -> list[str] | None:
    """The columns a whole-table stage reads: its ``input_columns`` and the ledger's keys,
    in schema order; ``None`` (every column) unless the stage declared them."""
    if stage.input_columns is None:
        return None
    unknown = set(stage.input_columns) - set(stage.input_schema.names)
    if unknown:
        raise ValueError(f"stage '{stage.name}' declares input columns {sorted(unknown)} "
                         f"its input schema does not have")
    want = set(stage.input_columns) | set(LEDGER_KEY_COLUMNS)
    return [n for n in stage.input_schema.names if n in want]


def _run_table(stage: TableStage) -> StageStats:
    """A whole-table stage: read all of upstream (or hand a ``streams_input`` stage the
    shards to read as it goes), run, commit records (if any).

    A stage that returns a list has done its work when ``run_table`` returns; one that
    returns an iterator (a streaming source) works while the runner writes its rows, a shard
    every ``shard_size`` rows and a ledger shard whenever enough rejections are pending."""
    params = stage.params
    t0 = time.perf_counter()
    provided = check_contract(stage.name, stage.reads, stage.upstream, params)
    table: pa.Table | Upstream | None = None
    if stage.upstream:
        upstream = ShardSet(stage_paths(params, stage.upstream).records, stage.input_schema)
        table = Upstream(upstream, _projection(stage)) if stage.streams_input \
            else upstream.read_all(_projection(stage))
    log_ = StageLog(stage.name, expands=stage.expands)
    log_.stats.n_in = table.num_rows if table is not None else 0
    rows = stage.run_table(table, log_)
    paths = stage_paths(params, stage.name)
    rej = ShardSet(paths.rejections, REJECTION_SCHEMA)
    # incomplete until _finish: a stage that dies mid-write never leaves half an output
    # that a downstream stage would take for the whole
    atomic.write_json(paths.state, {"fingerprint": "table", "complete": False})
    for d in (paths.records, paths.rejections, paths.shard_stats):
        clear_dir(d)
    size = params.runner.shard_size
    ledger_shards = 0

    def spill(pending: list[dict]) -> None:
        nonlocal ledger_shards
        _ledger_sources(pending, table)
        rej.write(ledger_shards, pending)
        ledger_shards += 1

    log_.spill_at = max(size, LEDGER_SPILL_ROWS)
    log_.spill = spill
    if stage.output_schema is not None:
        # rows may be a list or a generator (a source stage streaming what it fetches): both
        # are written shard by shard as they come, and so is a long ledger
        out = ShardSet(paths.records, stage.output_schema)
        k = n = 0
        buf: list[dict] = []
        for row in rows:
            buf.append(row)
            if len(buf) >= size:
                out.write(k, buf)
                k, n, buf = k + 1, n + len(buf), []
        if buf or k == 0:
            out.write(k, buf)
            n += len(buf)
        log_.stats.n_out = n
    else:  # a terminal stage (validate, publish): what it did not reject went through
        for _ in rows:
            pass
        log_.stats.n_out = log_.stats.n_in - log_.stats.rejected_inputs
    if log_.rejections or ledger_shards == 0:
        spill(log_.rejections)
        log_.rejections = []
    log_.stats.seconds = time.perf_counter() - t0
    _finish(stage.name, params, log_.stats, sorted(set(provided) | set(stage.writes)),
            "table")
    return log_.stats


def run_named(name: str, params: Params, **kw: object) -> StageStats:
    """Run the stage called ``name`` (as declared in ``pipeline.STAGES``)."""
    return run_stage(stage_classes()[name](params), **kw)  # type: ignore[arg-type]
