"""What a stage is: the contract every stage implements, whichever way it runs.

Two kinds, one runner (``runner.run_stage``):

* :class:`Stage` — *mapped*: each input shard becomes one output shard; its rows are split into
  :class:`WorkUnit` s that an executor (a local process pool or Dask) processes in parallel
  with timeouts, and the runner commits shard by shard (resume after a kill).
* :class:`TableStage` — *whole-table*: needs a global view (dedup, split, validation,
  publishing), so it sees every upstream row at once and runs in the driver.

A stage declares its name, upstream stage, the columns it reads and writes, its params
sections and its code modules once, as class attributes; the CLI, the audit funnel,
``dvc.yaml`` and the rebuild fingerprint are all derived from those declarations
(``diagramforge.pipeline``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import pyarrow as pa

from diagramforge.measure.stats import StageStats
from diagramforge.store.paths import ProjectSettings, read_state
from diagramforge.store.records import RECORD_SCHEMA, Rejection, Unit

if TYPE_CHECKING:
    from diagramforge.params import RunnerParams


class StageSettings(ProjectSettings, Protocol):
    """What the stage base, and the runner that runs a stage, read of the params the stage is
    handed: ``project`` (where outputs are), ``runner`` (workers, shard size, deadlines) and
    the declared sections, dumped for the fingerprint. The runner hands the loaded
    ``Params``; a stage adds what its own code reads in a protocol beside it
    (``CrawlStageSettings``…), its class's ``params`` annotation."""

    @property
    def runner(self) -> RunnerParams: ...
    def model_dump(self, *, by_alias: bool = ...) -> dict[str, Any]: ...


class Reason:
    """Reasons the runner itself assigns (stages define theirs next to their logic)."""

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
    not_selected: int = 0
    """Inputs of the unit that no config of the stage takes (``selection``): counted,
    not ledgered — they stay in the pool and in the configs that do take them."""
    inputs_with_output: int | None = None
    """For an expanding stage whose unit holds several inputs: how many gave records
    (``None``: the whole unit if it gave any, right for a unit of one input)."""
    timing: dict = field(default_factory=dict, compare=False, repr=False)
    """The unit's phase spans (``timing.timed``): seconds for the metrics, never for ``data/``;
    not part of what an outcome *is*, so two runs' outcomes still compare equal."""


@dataclass
class WorkUnit:
    """Rows processed together (one row, or e.g. all figures of one paper)."""

    rows: list[dict]
    key: str
    timeout_s: float | None = None
    """Overrides ``runner.item_timeout_s × rows`` when the stage knows better."""


class StageLog:
    """Collects rejections and stats for one shard (or one whole-table stage)."""

    def __init__(self, stage: str, expands: bool):
        self.stage = stage
        self.stats = StageStats(stage=stage, expands=expands)
        self.rejections: list[dict] = []
        self.source: str | None = None
        """The source kind a rejection without one is booked under (a source stage sets
        it while it lists one kind)."""
        self.spill: Callable[[list[dict]], None] | None = None
        """Where pending rejections go once ``spill_at`` are pending (the runner's ledger
        writer, for a streaming source stage); ``None`` keeps them all in memory."""
        self.spill_at = 0

    def reject(self, rej: Rejection) -> None:
        row = rej.to_row(self.stage)
        if row["source"] is None:
            row["source"] = self.source
        self.rejections.append(row)
        if self.spill is not None and len(self.rejections) >= self.spill_at:
            self.spill(self.rejections)
            self.rejections = []
        self.stats.by_reason[rej.reason] += 1
        if rej.unit == Unit.CANDIDATE:
            self.stats.rejected_candidates += 1
        else:
            self.stats.rejected_inputs += 1


class _Declared:
    """The declarations shared by both kinds of stage."""

    name: ClassVar[str]
    upstream: ClassVar[str | None] = None
    input_schema: ClassVar[pa.Schema] = RECORD_SCHEMA
    output_schema: ClassVar[pa.Schema | None] = RECORD_SCHEMA
    """``None``: the stage writes no records (validate, publish), only its own files."""
    reads: ClassVar[tuple[str, ...]] = ()
    writes: ClassVar[tuple[str, ...]] = ()
    expands: ClassVar[bool] = False
    param_sections: ClassVar[tuple[str, ...]] = ()
    code: ClassVar[tuple[str, ...]] = ()
    """Package-relative modules/packages this stage's output depends on (beyond the spine)."""
    inputs: ClassVar[tuple[str, ...]] = ()
    """Repository paths read besides the upstream's output (the embedded corpus…)."""
    outputs: ClassVar[tuple[str, ...]] = ()
    """Extra output paths (relative to the data dir), e.g. the published dataset."""
    funnel: ClassVar[bool] = True
    """Counted in the audit funnel (every input kept or rejected)."""
    format_capability: ClassVar[str | None] = None
    """What of a format the stage uses: ``"handler"`` (extract, render: every format), a
    capability's name (``"edit"``: the formats with a ``formats/<name>/edit.py``), or
    ``None``. The CLI's help lists the formats that have it, read from the folders."""
    extra_metrics: ClassVar[tuple[str, ...]] = ()
    """Metrics files the stage writes besides ``<name>.json`` (relative to the metrics dir)."""
    plots: ClassVar[tuple[tuple[str, dict], ...]] = ()
    """DVC plots the stage writes: (file relative to the metrics dir, DVC plot properties
    such as ``template``, ``x``, ``y``)."""

    params: StageSettings

    def __init__(self, params: StageSettings):
        self.params = params

    def locator(self, row: dict) -> str:
        return str(row.get("source_id") or row.get("id"))

    def environment(self) -> dict:
        """Versions of outside tools the output depends on (TeX Live, draw.io, …): part of
        the fingerprint, so an upgrade never reuses shards made by the old tools."""
        return {}

    def fingerprint_params(self) -> dict:
        dumped = self.params.model_dump(by_alias=True)
        out = {}
        for s in self.param_sections:
            node = dumped
            for part in s.split("."):
                node = node[part]
            out[s] = node
        return out


class Stage(_Declared, ABC):
    """A mapped stage.  Subclasses set the class attributes and implement ``process``."""

    def prepare(self) -> None:  # noqa: B027 - optional hook
        """Once, in the driver, before workers start (build caches, formats)."""

    def setup(self) -> None:  # noqa: B027 - optional hook
        """Once per worker (load tokenizers, open browsers) — never per item."""

    def teardown(self) -> None:  # noqa: B027 - optional hook
        """When the worker's stage is done (close browsers)."""

    def units(self, rows: list[dict]) -> list[WorkUnit]:
        """Split a shard's rows into units of work; by default one row per unit."""
        return [WorkUnit([r], str(r.get("id"))) for r in rows]

    @abstractmethod
    def process(self, unit: WorkUnit) -> Outcome:
        """Turn one unit into records and rejections; must account for every row."""


class TableStage(_Declared, ABC):
    """A whole-table stage: ``run_table`` sees all upstream rows (``None`` for a source
    stage) and returns the output rows; rejections and counters go to ``log``.

    A source stage may return an *iterator*: the runner then writes a shard (and the
    rejections booked so far) every ``runner.shard_size`` rows, so a source of millions of
    files streams through at flat memory."""

    input_columns: ClassVar[tuple[str, ...] | None] = None
    """The upstream columns ``run_table`` uses, when it uses few: the runner then reads only
    these (plus the small columns the ledger is keyed by) instead of every column of every
    row — a stage that needs three columns of the split table must not hold its PNGs.
    ``None``: every column."""

    streams_input: ClassVar[bool] = False
    """True: ``run_table`` gets a :class:`diagramforge.store.shards.Upstream` (shards read on
    demand) instead of one ``pa.Table`` holding every upstream row — the stage then keeps
    in memory only what it chooses to (issue 26: no stage holds the corpus)."""

    @abstractmethod
    def run_table(self, table: pa.Table | None, log: StageLog) -> Iterable[dict]:
        """Produce the stage's rows (ignored when ``output_schema`` is ``None``): a list, or
        a generator the runner writes shard by shard as it yields."""


def check_contract(stage_name: str, reads: Sequence[str], upstream: str | None,
                   params: ProjectSettings) -> list[str]:
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
