"""The ``synth`` stage: captioning, QA and editing-instruction items, written by an LLM and
checked by code.

It reads the split diagrams (and, when the ``edit`` stage has run, its verified edits),
plans every task item — code computes answers, choices and edit steps — asks the configured
backend (``offline`` by default: no key, no network) for the language, checks each answer,
and writes one table whose ``config`` column says which published config a row belongs to.

Every diagram is accounted for: it yields at least one item, or it is ledgered
(``synth_no_items``, naming why its items failed). Every planned item is a row or a
candidate rejection with the LLM layer's reason (``llm_error``, ``llm_invalid_output``,
``budget_exhausted``) or a check's (``caption_ungrounded``, ``qa_paraphrase_changed``,
``instruction_forbidden``…). Calls go through the shared content cache, so a rerun after a
kill or a budget stop pays only for what was not answered yet.
"""

from __future__ import annotations

import contextlib
import heapq
import logging
import shutil
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from diagramforge.formats.registry import UsesFormats
from diagramforge.formats.settings import FormatSettings
from diagramforge.pipeline import STAGES, stage_name
from diagramforge.selection import Selector, SelectSettings
from diagramforge.stage import StageLog, StageSettings, TableStage, check_contract
from diagramforge.store.paths import ProjectSettings, read_state, stage_paths
from diagramforge.store.records import Rejection, Unit
from diagramforge.store.shards import ShardSet, Upstream, rows_to_table
from diagramforge.synth.edit.stage import EDIT_SCHEMA
from diagramforge.synth.llm.client import LLM
from diagramforge.synth.llm.types import LLMCallError, Outcome, Request
from diagramforge.synth.synth import captioning, editing, grounds, qa
from diagramforge.synth.synth.facts import Facts, facts_of
from diagramforge.synth.synth.items import Item

if TYPE_CHECKING:
    from diagramforge.synth.referents.settings import ReferentParams
    from diagramforge.synth.synth.settings import SynthParams

log = logging.getLogger(__name__)

EDIT_STAGE = "edit"
NO_ITEMS = "synth_no_items"
NO_GRAPH = "synth_no_graph"
LIMIT = "synth_max_diagrams"
ORPHAN = "edit_diagram_missing"
DUPLICATE = "synth_duplicate_id"
"""An item whose id another item of its config already has: ids derive from what makes an
item unique, so this never happens by construction — if it did, the row is ledgered here,
never a validation failure of the release."""

SYNTH_SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("diagram_id", pa.string(), nullable=False),
    pa.field("config", pa.string(), nullable=False),
    pa.field("split", pa.string()),
    pa.field("format", pa.string()),
    pa.field("image", pa.binary()),
    pa.field("code", pa.large_string()),
    # captioning
    pa.field("caption", pa.string()),
    pa.field("caption_source", pa.string()),
    pa.field("description", pa.string()),
    # qa
    pa.field("qa_type", pa.string()),
    pa.field("question", pa.string()),
    pa.field("template_question", pa.string()),
    pa.field("answer", pa.string()),
    pa.field("choices", pa.string()),
    pa.field("answer_option", pa.string()),
    pa.field("referents", pa.string()),
    # editing: the edit table's columns as the edit stage declares them, its template
    # instruction kept beside the phrased one
    *(EDIT_SCHEMA.field(c) for c in editing.COPIED if c not in ("format", "split")),
    EDIT_SCHEMA.field("instruction"),
    pa.field("template_instruction", pa.string()),
    # provenance of the language
    pa.field("grounding", pa.string()),
    pa.field("backend", pa.string()),
    pa.field("model", pa.string()),
    pa.field("prompt_version", pa.string()),
    pa.field("input_tokens", pa.int64()),
    pa.field("output_tokens", pa.int64()),
    pa.field("cost_usd", pa.float64()),
])
"""One table for the three configs; a row fills the columns of its own ``config``.
Columns another config leaves empty are nullable strings or binaries (no nullable integers:
pandas would turn them into floats on the way to publishing); QA's answer is ``answer`` and
its letter among ``choices`` is ``answer_option`` (A, B, …).
``input_tokens``, ``output_tokens`` and ``cost_usd`` are what the answer cost when it was
bought — the same on a rerun served from the cache, so a rerun writes the same bytes (what a
run itself paid is in the metrics); items sharing one answer each show its price."""

DIAGRAM_COLUMNS = ("split", "format", "image", "code")
"""Columns captioning and QA rows take from their diagram."""


def _edit_declared() -> bool:
    return any(stage_name(s) == EDIT_STAGE for s in STAGES)


@dataclass
class Plan:
    """One input shard's items to ask for, and what was ledgered while planning them."""

    items: list[Item] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    diagrams: dict[str, dict[str, Any]] = field(default_factory=dict)
    limited: list[str] = field(default_factory=list)
    """Ids of the shard's diagrams past ``max_diagrams``."""
    not_selected: set[str] = field(default_factory=set)
    """Diagrams none of the stage's configs takes (``select``): no item, no rejection."""

    def requests(self) -> list[Request]:
        return [i.request for i in self.items]


class EditIndex:
    """Where each edit row lives — diagram id → ``(shard file, row, edit id)`` — read from
    two small columns, so synth fetches an input shard's edits (PNGs included) only when it
    plans that shard instead of holding every edit row (≈ 200 B per edit row, not ≈ 100 KB).
    Empty when the edit stage has not run (synth works without it)."""

    def __init__(self, params: ProjectSettings | None):
        """``None``: no edits wanted (the editing task is off)."""
        self.where: dict[str, list[tuple[Path, int, str | None]]] = defaultdict(list)
        if params is None or not read_state(params, EDIT_STAGE).get("complete"):
            return
        d = stage_paths(params, EDIT_STAGE).records
        for path in sorted(d.glob("part-*.parquet")):
            t = pq.read_table(path, columns=["id", "diagram_id"])
            for k, (eid, did) in enumerate(zip(t.column("id").to_pylist(),
                                               t.column("diagram_id").to_pylist(),
                                               strict=True)):
                self.where[str(did)].append((path, k, eid))

    def fetch(self, diagram_ids: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
        """The edit rows of ``diagram_ids`` (in the edit table's order), each edit shard read
        once; the rows fetched are forgotten by the index (what is left are orphans)."""
        wanted = [(did, loc) for did in diagram_ids for loc in self.where.pop(did, [])]
        by_file: dict[Path, list[int]] = defaultdict(list)
        for _, (path, k, _) in wanted:
            by_file[path].append(k)
        got: dict[tuple[Path, int], dict[str, Any]] = {}
        for path, ks in sorted(by_file.items()):
            for k, row in zip(ks, pq.read_table(path).take(ks).to_pylist(), strict=True):
                got[(path, k)] = row
        out: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for did, (path, k, _) in wanted:
            out[did].append(got[(path, k)])
        return out


@dataclass
class Scope:
    """What one run of synth decides across shards (ids and counters, no rows)."""

    edits: EditIndex
    selector: Selector
    limit: bool = False
    cutoff: str | None = None
    """The largest id ``max_diagrams`` keeps (``None`` with ``limit``: it keeps none)."""
    orphans: list[Rejection] = field(default_factory=list)
    not_selected_counts: dict[str, int] = field(default_factory=dict)
    ids: set[tuple[str, str]] = field(default_factory=set)
    """``(config, id)`` of every item planned so far (16-character ids: a few MB per
    million items)."""

    def keeps(self, diagram_id: str) -> bool:
        return not self.limit or (self.cutoff is not None and diagram_id <= self.cutoff)


class Spill:
    """The output rows of each config, appended shard by shard to one Parquet file per
    config (a row group per input shard), read back config by config: the table comes out
    grouped by config as before without being held. Outside the stage's outputs (under
    ``data/.runner``), removed when the run ends."""

    def __init__(self, directory: Path):
        self.dir = directory
        shutil.rmtree(self.dir, ignore_errors=True)  # a killed run's leftovers
        self.dir.mkdir(parents=True)
        self.writers: dict[str, pq.ParquetWriter] = {}

    def add(self, rows: list[dict[str, Any]]) -> None:
        """Rows sorted by config (then diagram and item id)."""
        for config in dict.fromkeys(r["config"] for r in rows):
            if config not in self.writers:
                self.writers[config] = pq.ParquetWriter(self.dir / f"{config}.parquet",
                                                        SYNTH_SCHEMA)
            self.writers[config].write_table(
                rows_to_table([r for r in rows if r["config"] == config], SYNTH_SCHEMA))

    def rows(self) -> Iterator[dict[str, Any]]:
        for config in sorted(self.writers):
            self.writers[config].close()
            f = pq.ParquetFile(self.dir / f"{config}.parquet")
            for g in range(f.num_row_groups):
                yield from f.read_row_group(g).to_pylist()

    def close(self) -> None:
        for w in self.writers.values():
            with contextlib.suppress(Exception):  # the run is failing: remove what it left
                w.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _tables(table: pa.Table | Upstream, columns: list[str] | None = None
            ) -> Iterator[pa.Table]:
    """The input shard by shard (a plain table is one shard)."""
    if isinstance(table, Upstream):
        yield from table.tables(columns)
    else:
        yield table.select(columns) if columns is not None else table


class SynthStageSettings(StageSettings, FormatSettings, SelectSettings, Protocol):
    """What the synth stage reads: its section and ``referents``, the ``select`` rules,
    the stage base's part and what the format handlers are handed. The runner hands the
    loaded ``Params``."""

    @property
    def synth(self) -> SynthParams: ...
    @property
    def referents(self) -> ReferentParams: ...


class SynthStage(UsesFormats, TableStage):
    """Captions, QA and editing instructions: code computes answers and edits, an LLM
    (offline templates by default) writes the language, code checks it."""

    name = "synth"
    params: SynthStageSettings
    upstream = "split"
    reads = ("id", "format", "code", "split")
    """``graph``, ``diagram_type``, ``graph_like`` and ``meta`` too when earlier stages
    wrote them (QA's grounding: :mod:`.grounds`)."""
    output_schema = SYNTH_SCHEMA
    writes = tuple(SYNTH_SCHEMA.names)
    expands = True
    param_sections = ("synth", "select", "referents", "render", "formats", "graph")
    code = ("synth/synth", "synth/llm", "graphs", "formats", "notation",
            "filters/filter/tokens.py", "tokenizer.py",
            "sandbox/process.py", "sandbox/landlock.py", "synth/edit", "synth/referents",
            "selection.py", "vocabulary.py")
    """The graph layer (a null ``graph`` is parsed from the code), the edit table's schema,
    the referring expressions an instruction is checked with, the format handlers whose
    drawings QA's grounding reads, and what they import."""
    funnel = False
    """A side branch of the diagram chain (like every task stage): its books are still
    balanced by the runner — each diagram yields items or is ledgered — but the audit
    funnel follows diagrams from crawl to split, not items."""
    inputs = ("data/edit",) if _edit_declared() else ()
    streams_input = True
    """Planned, asked and written shard by shard (issue 26, docs/SCALE.md §4 #4)."""
    task_configs: ClassVar[tuple[str, ...]] = (captioning.CONFIG, qa.CONFIG, editing.CONFIG)

    def llm(self) -> LLM:
        return LLM.from_params(self.params.synth.llm())

    # -- planning -------------------------------------------------------------------------
    def scope(self, table: pa.Table | Upstream) -> Scope:
        """The run's global decisions, taken over the ``id`` column alone before any shard
        is planned: which diagrams ``max_diagrams`` keeps (the smallest ids, as before) and
        which edits have no planned diagram (ledgered once, not per shard)."""
        p = self.params.synth
        edits = EditIndex(self.params if editing.CONFIG in p.tasks else None)
        present: set[str] = set()

        def ids() -> Iterator[str]:
            for t in _tables(table, ["id"]):
                for i in t.column("id").to_pylist():
                    if i in edits.where:
                        present.add(i)
                    yield i

        scope = Scope(edits=edits, selector=Selector(self.params))
        if p.max_diagrams is None:
            for _ in ids():
                pass
        else:
            kept = heapq.nsmallest(p.max_diagrams, ids())
            scope.limit, scope.cutoff = True, (kept[-1] if kept else None)
        for diagram_id in sorted(edits.where):
            if diagram_id in present and scope.keeps(diagram_id):
                continue  # fetched with its shard
            reason, detail = (LIMIT, f"synth.max_diagrams={p.max_diagrams}") \
                if diagram_id in present else \
                (ORPHAN, "the edited diagram is not among the split's diagrams")
            for _, _, edit_id in edits.where.pop(diagram_id):
                scope.orphans.append(self._candidate(diagram_id, editing.CONFIG, edit_id,
                                                     reason, detail))
        return scope

    def plans(self, table: pa.Table | Upstream, scope: Scope) -> Iterator[Plan]:
        """One plan per input shard: its diagrams in id order, their items and edits."""
        for t in _tables(table):
            rows = sorted(t.to_pylist(), key=lambda r: r["id"])
            plan = Plan(limited=[r["id"] for r in rows if not scope.keeps(r["id"])])
            rows = [r for r in rows if scope.keeps(r["id"])]
            edits = scope.edits.fetch(r["id"] for r in rows)
            self._plan_rows(plan, rows, edits, scope)
            self._unique(plan, scope)
            yield plan

    def _unique(self, plan: Plan, scope: Scope) -> None:
        """Keep the first item of each ``(config, id)``; ledger any other before a call."""
        kept = []
        for item in plan.items:
            key = (item.config, item.id)
            if key in scope.ids:
                plan.rejections.append(self._candidate(
                    item.diagram_id, item.config, item.id, DUPLICATE,
                    f"another {item.config} item has the id {item.id}"))
                continue
            scope.ids.add(key)
            kept.append(item)
        plan.items = kept

    def _plan_rows(self, plan: Plan, rows: list[dict[str, Any]],
                   edits: dict[str, list[dict[str, Any]]], scope: Scope) -> None:
        p = self.params.synth
        asks: list[tuple[dict[str, Any], list[Any], Facts | None, str]] = []
        for row in rows:
            plan.diagrams[row["id"]] = row
            taken = [t for t in (captioning, qa) if t.CONFIG in p.tasks
                     and scope.selector.takes(t.CONFIG, row, scope.not_selected_counts)]
            if not taken and not edits.get(row["id"]) and any(
                    t.CONFIG in p.tasks for t in (captioning, qa, editing)):
                plan.not_selected.add(row["id"])  # no config of this stage takes it
                continue
            facts, why = facts_of(row) if taken or edits.get(row["id"]) else (None, "")
            asks.append((row, taken, facts, why))
        grounded = [(row, facts) for row, taken, facts, _ in asks
                    if qa in taken and facts is not None]
        decided = dict(zip((row["id"] for row, _ in grounded),
                           grounds.decide(self.formats(), [r for r, _ in grounded],
                                          [f for _, f in grounded]), strict=True))
        for row, taken, facts, why in asks:
            decision = decided.get(row["id"])
            if decision is not None and decision.ground is None:
                taken = [t for t in taken if t is not qa]  # captions only
                key = f"not_selected.{qa.CONFIG}.{decision.why}"
                scope.not_selected_counts[key] = scope.not_selected_counts.get(key, 0) + 1
                if not taken and not edits.get(row["id"]):
                    plan.not_selected.add(row["id"])
                    continue
            elif decision is not None:
                key = f"qa_grounding.{decision.ground.kind}"
                scope.not_selected_counts[key] = scope.not_selected_counts.get(key, 0) + 1
            for task in taken:
                if facts is None:
                    plan.rejections.append(self._candidate(row["id"], task.CONFIG, None,
                                                           NO_GRAPH, why))
                elif task is qa:
                    assert decision is not None and decision.ground is not None
                    got, dropped = qa.items(row, decision.ground, p)
                    plan.items += got
                    plan.rejections += [self._candidate(row["id"], qa.CONFIG, i, reason,
                                                        detail) for i, reason, detail in dropped]
                else:
                    plan.items += task.items(row, facts, p)
            for e in edits.pop(row["id"], []):
                self._add_edit(plan, e, facts)

    def _add_edit(self, plan: Plan, edit: dict[str, Any], facts: Facts | None) -> None:
        got = editing.items(edit, facts, self.params.synth, self.params.referents)
        if isinstance(got, tuple):
            plan.rejections.append(self._candidate(str(edit.get("diagram_id")),
                                                   editing.CONFIG, edit.get("id"), *got))
        else:
            plan.items += got

    @staticmethod
    def _candidate(diagram_id: str, config: str, item: str | None, reason: str,
                   detail: str) -> Rejection:
        return Rejection(locator=f"{diagram_id}:{config}" + (f":{item}" if item else ""),
                         reason=reason, detail=detail, id=item or diagram_id,
                         unit=Unit.CANDIDATE)

    # -- running --------------------------------------------------------------------------
    def dry_run(self) -> dict[str, Any]:
        """How many calls the stage would make and their estimated cost; nothing is sent.
        Planned shard by shard: only the requests (text, no images) are kept."""
        check_contract(self.name, self.reads, self.upstream, self.params)
        upstream = Upstream(ShardSet(stage_paths(self.params, self.upstream).records,
                                     self.input_schema))
        scope = self.scope(upstream)
        requests: list[Request] = []
        items: Counter[str] = Counter()
        planning: Counter[str] = Counter()
        for plan in self.plans(upstream, scope):
            requests += plan.requests()
            items.update(i.config for i in plan.items)
            planning.update(r.reason for r in plan.rejections)
        planning.update(r.reason for r in scope.orphans)
        self._close_formats()
        try:
            llm = self.llm()
            key_missing = False
        except LLMCallError:  # an estimate needs no key: price it without a client
            # lazy: loads tiktoken
            from diagramforge.synth.llm.offline import OfflineBackend

            params = self.params.synth.llm()
            llm, key_missing = LLM(params, OfflineBackend(params)), True
        out = llm.dry_run(requests)
        out["key_missing"] = key_missing
        out["items"] = dict(items)
        out["planning_rejections"] = dict(planning)
        out["budget_usd"] = self.params.synth.budget_usd
        return out

    def run_table(self, table: pa.Table | Upstream | None, log: StageLog) -> Iterator[dict]:
        """Shard by shard: plan, ask the LLM for that shard's items (one bounded batch), check,
        spill the rows per config; then the rows config by config. Only the LLM's cache
        and budget, the edit index and a few counters outlive a shard."""
        assert table is not None
        scope = self.scope(table)
        llm = self.llm()
        spill = Spill(Path(self.params.project.data_dir) / ".runner" / f"{self.name}.spill")
        tally: Counter[str] = Counter()
        try:
            for rej in scope.orphans:
                log.reject(rej)
            for plan in self.plans(table, scope):
                spill.add(self._run_plan(plan, llm, log, tally))
            log.stats.extra.update(scope.not_selected_counts)
            self._metrics(log, llm, tally)
            yield from spill.rows()
        finally:
            spill.close()
            self._close_formats()

    def _close_formats(self) -> None:
        """The format handlers QA's grounding read drawings with (a TeX format, a browser)."""
        for h in (self._formats or {}).values():
            h.close()
        self._formats = None

    def _run_plan(self, plan: Plan, llm: LLM, log: StageLog, tally: Counter[str]
                  ) -> list[dict[str, Any]]:
        """One shard's items asked, checked and ledgered; its rows in output order."""
        outcomes = llm.complete_many(plan.requests())
        rows: list[dict[str, Any]] = []
        kept: Counter[str] = Counter()
        lost: dict[str, Counter[str]] = defaultdict(Counter)
        for rej in plan.rejections:
            log.reject(rej)
            lost[rej.locator.split(":")[0]][rej.reason] += 1
        for item, oc in zip(plan.items, outcomes, strict=True):
            reason, detail = (oc.reason, oc.detail) if not oc.ok else item.check(oc.data or {})
            if reason:
                log.reject(self._candidate(item.diagram_id, item.config, item.id, reason,
                                           detail))
                lost[item.diagram_id][reason] += 1
                continue
            rows.append(self._row(item, self._bought(llm, item, oc),
                                  plan.diagrams.get(item.diagram_id)))
            kept[item.diagram_id] += 1
        for did in plan.diagrams:
            if did in plan.not_selected:
                continue
            if not kept[did]:
                why = ", ".join(f"{k}={v}" for k, v in sorted(lost[did].items()))
                log.reject(Rejection(locator=did, reason=NO_ITEMS, id=did,
                                     detail=f"no task item survived ({why or 'none planned'})"))
        for did in plan.limited:
            log.reject(Rejection(locator=did, reason=LIMIT, id=did,
                                 detail=f"synth.max_diagrams={self.params.synth.max_diagrams}"))
        log.stats.inputs_with_output += sum(1 for d in plan.diagrams if kept[d])
        log.stats.not_selected_inputs += len(plan.not_selected)
        tally.update(f"items_{r['config']}" for r in rows)
        tally["items_planned"] += len(plan.items)
        return sorted(rows, key=lambda r: (r["config"], r["diagram_id"], r["id"]))

    @staticmethod
    def _bought(llm: LLM, item: Item, oc: Outcome) -> Outcome:
        """A cached outcome with the usage its answer was bought for (kept in the cache)."""
        if not oc.cached:
            return oc
        entry = llm.cache.get(llm.key(item.request)) or {}
        return oc.model_copy(update={k: entry.get(k, 0) for k in
                                     ("input_tokens", "output_tokens", "cost_usd")})

    def _row(self, item: Item, oc: Outcome, diagram: dict[str, Any] | None) -> dict[str, Any]:
        row = dict.fromkeys(SYNTH_SCHEMA.names)
        if item.config != editing.CONFIG and diagram is not None:
            row.update({k: diagram.get(k) for k in DIAGRAM_COLUMNS})
        row.update(item.row(oc.data or {}))
        if item.config == editing.CONFIG and not row.get("split") and diagram is not None:
            row["split"] = diagram.get("split")
        row.update(backend=oc.backend, model=oc.model, input_tokens=oc.input_tokens,
                   output_tokens=oc.output_tokens, cost_usd=round(oc.cost_usd, 8))
        return row

    @staticmethod
    def _metrics(log: StageLog, llm: LLM, tally: Counter[str]) -> None:
        """Tokens and dollars per task (flat keys, so ``dvc metrics show`` lists them)."""
        usage = llm.meter.as_dict()
        for task, u in usage.items():
            for k in ("calls", "batch_calls", "cache_hits", "input_tokens", "output_tokens",
                      "cost_usd"):
                log.stats.extra[f"llm_{task}_{k}"] = round(u[k], 6) if k == "cost_usd" \
                    else u[k]
        total = usage["total"]
        asked = total["calls"] + total["cache_hits"]
        log.stats.extra["llm_cache_hit_rate"] = round(total["cache_hits"] / asked, 4) \
            if asked else 0.0
        for key, n in tally.items():  # items_<config> as first met, items_planned last
            if key != "items_planned":
                log.stats.extra[key] = n
        log.stats.extra["items_planned"] = tally["items_planned"]
