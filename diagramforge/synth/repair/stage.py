"""AugTikZ repair: diagrams whose code failed to compile, fixed through the LLM layer.

Render ledgers every failed compile with its reason and first error line. The ``repair``
stage reads those rejections with the extracted code, asks the model for a fix (the error
line is in the prompt), and keeps a repair only if it compiles and renders (its format's
handler, as render does) and keeps the original's node texts within
``augment.repair.min_text_overlap`` (a repair that deletes the broken part is not a repair).
Which failures are repairable, the question, the rule-based fix the offline backend answers
with, and the texts a fix must keep are the format's ``repair`` capability
(``formats/<name>/repair.py``, :mod:`diagramforge.formats.repairs`; TikZ's: packages,
libraries, semicolons); the stage loops over the formats that have one.

Published as config ``repair`` (broken code + error → fixed code). A repaired diagram takes
the split of its paper's diagrams (leakage-safe: the same unit as its siblings), ``train``
when the paper has none.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from diagramforge.executors import Executor, Failure, make_executor, unit_timeouts
from diagramforge.formats.encoding import render_stored
from diagramforge.formats.registry import RendersFormats, UsesFormats, with_capability
from diagramforge.formats.repairs import Repair
from diagramforge.formats.settings import FormatSettings
from diagramforge.selection import Selector, SelectSettings
from diagramforge.stage import Outcome, Stage, StageLog, StageSettings, TableStage, WorkUnit
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import Rejection, item_id
from diagramforge.store.shards import Upstream
from diagramforge.synth.llm.types import Request

if TYPE_CHECKING:
    from diagramforge.params import LicenceParams
    from diagramforge.synth.augment.settings import AugmentParams
    from diagramforge.synth.llm.client import LLM

Render = Callable[[list[dict]], tuple[dict[str, bytes], dict[str, str]]]
"""Fixes → (PNG by locator, failure detail by locator): :meth:`RepairStage._render` bound
to the run's executor."""

SCHEMA = {"type": "object", "properties": {"code": {"type": "string"}},
          "required": ["code"], "additionalProperties": False}

def repair_request(repair: Repair, code: str, error: str, prompt_version: str) -> Request:
    """The question for one broken diagram, in its format's words; the offline backend
    answers with the format's rule-based fix (``context``)."""
    fixed, _ = repair.fix(code, error)
    return Request(task="augment_repair", system=f"{repair.SYSTEM} Prompt {prompt_version}.",
                   user=repair.ask(code, error), json_schema=SCHEMA, context={"code": fixed})


def text_overlap(a: list[str], b: list[str]) -> float:
    """Multiset Jaccard of two lists of node texts (1.0 when both are empty)."""
    ca, cb = Counter(a), Counter(b)
    union = sum((ca | cb).values())
    return 1.0 if not union else sum((ca & cb).values()) / union


REPAIR_SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("diagram_id", pa.string(), nullable=False),
    pa.field("format", pa.string()),
    pa.field("split", pa.string()),
    pa.field("config", pa.string()),
    pa.field("broken_code", pa.large_string()),
    pa.field("error", pa.string()),
    pa.field("code", pa.large_string()),
    pa.field("image", pa.binary()),
    pa.field("licence", pa.string()),
    pa.field("licence_url", pa.string()),
    pa.field("attribution", pa.string()),
    pa.field("source_id", pa.string()),
    pa.field("fix", pa.string()),
    pa.field("backend", pa.string()),
    pa.field("model", pa.string()),
])


CONFIG = "repair"
EXTRACT_COLUMNS = ("id", "format", "code", "group", "licence", "licence_url", "attribution",
                   "source_id")
"""What repair takes from an extracted row."""


class RepairReason:
    NOT_COMPILE = "repair_not_a_compile_error"
    NO_CODE = "repair_code_missing"
    LICENCE = "repair_licence"
    LLM = "repair_llm_failed"
    UNCHANGED = "repair_no_fix"
    TEXTS = "repair_texts_changed"
    RENDER = "repair_render_failed"


class RepairStageSettings(StageSettings, FormatSettings, SelectSettings, Protocol):
    """What the repair stage (and its renders, :class:`FixRender`) reads: ``augment`` (its
    ``repair`` and LLM), the licences, the ``select`` rules, what the format handlers are
    handed, and the stage base's part."""

    @property
    def augment(self) -> AugmentParams: ...
    @property
    def licences(self) -> LicenceParams: ...


class FixRender(RendersFormats, Stage):
    """Repair's candidate fixes rendered on the executor's workers, a batch of their
    format's (``render.<format>.batch_size``) per unit: compiling the fixes is nearly all
    of repair's cost (0.86 CPU-s per failed compile, docs/SCALE.md §3 phase 5), and in the
    stage's own process it did not spread — at arXiv's ≈ 23k failures, 5.4 h on one core."""

    name = "repair"
    params: RepairStageSettings
    format_capability = "repair"

    def units(self, rows: list[dict]) -> list[WorkUnit]:
        """The fixes in batches of one format each, named by their first fix's place."""
        out: list[WorkUnit] = []
        k = 0
        for fmt in dict.fromkeys(r["format"] for r in rows):
            h = self.formats()[fmt]
            same = [r for r in rows if r["format"] == fmt]
            step = h.batch_size()
            out += [WorkUnit(same[j:j + step], f"fix:{k + j}", h.unit_timeout())
                    for j in range(0, len(same), step)]
            k += len(same)
        return out

    def process(self, unit: WorkUnit) -> Outcome:
        return render_stored(self.formats()[unit.rows[0]["format"]], unit.rows)


class RepairStage(TableStage, UsesFormats):
    """AugTikZ repair of diagrams that failed to compile, in every format with a ``repair``
    capability: render's ledger + the extracted code → the LLM (offline: the format's
    rule-based fixes) → kept if it compiles, renders and keeps the node texts; config
    ``repair``."""

    name = "repair"
    params: RepairStageSettings
    upstream = "split"
    reads = ("id", "group", "split")
    input_columns = reads  # the split table's PNGs are not needed here: read 3 columns
    streams_input = True
    """Batches of render's failures go through shard by shard (docs/SCALE.md §4 #8)."""
    output_schema: ClassVar[pa.Schema] = REPAIR_SCHEMA
    writes = tuple(REPAIR_SCHEMA.names)
    expands = True
    funnel: ClassVar[bool] = False
    param_sections: ClassVar[tuple[str, ...]] = ("augment", "render", "licences", "select")
    code = ("synth/augment", "formats", "notation", "graphs", "sandbox/process.py",
            "sandbox/landlock.py",
            "synth/llm", "store/cache.py", "filters/filter/tokens.py", "tokenizer.py",
            "selection.py")
    inputs = ("data/render", "data/extract")
    task_configs: ClassVar[tuple[str, ...]] = (CONFIG,)
    items_stand_alone: ClassVar[bool] = True
    """A repaired picture's original never rendered, so it is not among the published
    diagrams: the item carries its own licence, attribution and split (its paper's)."""

    _repairs: dict[str, Repair] | None = None

    def repairs(self) -> dict[str, Repair]:
        """Format → its ``repair`` capability, for every format that has one."""
        if self._repairs is None:
            self._repairs = with_capability("repair")  # type: ignore[assignment]
        assert self._repairs is not None
        return self._repairs

    def environment(self) -> dict:
        return {name: self.formats()[name].environment() for name in self.repairs()}

    def _claims(self, reason: str) -> list[Repair]:
        """The repair capabilities whose formats' render failures ``reason`` is."""
        return [m for m in self.repairs().values() if reason.startswith(m.FAILURES)]

    def _failures(self) -> Iterator[dict]:
        """Render's failures a format's repair claims, one ledger shard in memory at a
        time."""
        rej = stage_paths(self.params, "render").rejections
        for f in sorted(rej.glob("*.parquet")) if rej.exists() else []:
            t = pq.read_table(f, columns=["id", "locator", "reason", "detail"])
            yield from (r for r in t.to_pylist() if self._claims(str(r["reason"])))

    def _index(self, ids: set[str]) -> tuple[dict[str, tuple[Path, int]], set[str | None]]:
        """Where the extracted rows of ``ids`` are (shard, row) and their paper groups, from
        the ``id`` and ``group`` columns: the code is fetched per batch of failures."""
        recs = stage_paths(self.params, "extract").records
        where: dict[str, tuple[Path, int]] = {}
        groups: set[str | None] = set()
        for f in sorted(recs.glob("*.parquet")) if recs.exists() else []:
            t = pq.read_table(f, columns=["id", "group"])
            for k, (i, g) in enumerate(zip(t.column("id").to_pylist(),
                                           t.column("group").to_pylist(), strict=True)):
                if i in ids:
                    where[i] = (f, k)  # a later shard wins, as the old dict update did
                    groups.add(g)
        return where, groups

    @staticmethod
    def _fetch(where: dict[str, tuple[Path, int]], ids: list[str]) -> dict[str, dict]:
        """The extracted rows of ``ids``, each extract shard read once (a few columns)."""
        by_file: dict[Path, list[int]] = {}
        for i in dict.fromkeys(ids):
            if i in where:
                by_file.setdefault(where[i][0], []).append(where[i][1])
        out: dict[str, dict] = {}
        for f, ks in sorted(by_file.items()):
            t = pq.read_table(f, columns=list(EXTRACT_COLUMNS)).take(ks)
            out.update({r["id"]: r for r in t.to_pylist()})
        return out

    def run_table(self, table: pa.Table | Upstream | None, log: StageLog) -> Iterator[dict]:
        """Inputs are render's compile failures (the split table only gives each paper's
        split), so the books are kept over those. Streamed: the failures' ids and groups,
        and the split of those groups, are held; code, fixes and renders go a batch of
        ``runner.shard_size`` failures at a time."""
        cfg = self.params.augment.repair
        ids: set[str] = set()
        log.stats.n_in = 0
        for r in self._failures() if cfg.enabled else []:
            ids.add(r["id"])
            log.stats.n_in += 1
        where, groups = self._index(ids)
        splits: dict[str, Counter] = {}
        if table is not None:
            tables = table.tables(["group", "split"]) if isinstance(table, Upstream) \
                else [table.select(["group", "split"])]
            for t in tables:
                for r in t.to_pylist():
                    if r["group"] in groups:
                        splits.setdefault(r["group"], Counter())[r["split"]] += 1
        # lazy: loads google, openai, tiktoken
        from diagramforge.synth.llm.client import LLM

        llm = LLM.from_params(self.params.augment.llm)
        selector = Selector(self.params)
        size = self.params.runner.shard_size
        batch: list[dict] = []
        with make_executor(self.params.runner, self.params.runner.workers) as ex:
            fixes = FixRender(self.params)
            if ids:  # the fixes compile on the run's workers; the format is built once here
                fixes.prepare()
                ex.open(fixes)
            render = partial(self._render, ex, fixes)
            for r in self._failures() if cfg.enabled else []:
                batch.append(r)
                if len(batch) >= size:
                    yield from self._repair(batch, self._fetch(where, [x["id"] for x in batch]),
                                            llm, selector, splits, log, render)
                    batch = []
            if batch:
                yield from self._repair(batch, self._fetch(where, [x["id"] for x in batch]),
                                        llm, selector, splits, log, render)

    def _repair(self, failed: list[dict], code: dict[str, dict], llm: LLM,
                selector: Selector, splits: dict[str, Counter], log: StageLog,
                render: Render) -> list[dict]:
        """One batch of failures: screened, asked together, checked, rendered.

        The batch's requests go to ``LLM.complete_many`` at once — the backend's
        ``concurrency`` threads or its batch API, as synth's do — because one call after
        another is what bounds this stage on a real model: arXiv's ≈ 20k failed compiles
        would be ≈ 20k sequential round trips (docs/SCALE.md §5). The ledger keeps the
        failures' order, so the rows and rejections are those of one call at a time."""
        # lazy: loads tiktoken
        from diagramforge.synth.llm.tokens import text_tokens

        cfg = self.params.augment.repair
        screened: list[tuple[dict, dict | None, Rejection | None]] = []
        requests: list[Request] = []
        for r in failed:
            rec = code.get(r["id"])
            where = r["locator"]
            claims = self._claims(str(r["reason"]))
            repair = self.repairs().get(rec["format"]) if rec is not None else None
            if any(r["reason"] in m.UNFIXABLE for m in claims):
                screened.append((r, None, Rejection(where, RepairReason.NOT_COMPILE,
                                                    r["reason"], id=r["id"])))
            elif rec is None or repair is None or repair not in claims:
                languages = " or ".join(m.LANGUAGE for m in claims)
                screened.append((r, None, Rejection(where, RepairReason.NO_CODE,
                                                    f"no extracted {languages} code",
                                                    id=r["id"])))
            elif rec["licence"] not in self.params.licences.allow:
                screened.append((r, None, Rejection(where, RepairReason.LICENCE,
                                                    str(rec["licence"]), id=r["id"])))
            elif not selector.takes(CONFIG, {"format": rec["format"],
                                             "tokens": text_tokens(rec["code"])},
                                    log.stats.extra):
                log.stats.not_selected_inputs += 1  # outside the config's token window
            else:
                screened.append((r, rec, None))
                assert repair is not None
                requests.append(repair_request(repair, rec["code"], r["detail"] or "",
                                               cfg.prompt_version))
        asked = [k for k, (_, _, rejection) in enumerate(screened) if rejection is None]
        answers = dict(zip(asked, llm.complete_many(requests) if requests else [], strict=True))
        candidates: list[tuple[dict, dict]] = []
        for k, (r, rec, rejection) in enumerate(screened):
            if rejection is not None:
                log.reject(rejection)
                continue
            assert rec is not None
            where = r["locator"]
            res = answers[k]
            log.stats.extra["llm_calls"] = log.stats.extra.get("llm_calls", 0) + res.calls
            if not res.ok or not res.data:
                log.reject(Rejection(where, RepairReason.LLM, f"{res.reason}: "
                                     f"{res.detail}"[:300], id=r["id"]))
            elif res.data["code"].strip() == rec["code"].strip():
                log.reject(Rejection(where, RepairReason.UNCHANGED, r["detail"] or "",
                                     id=r["id"]))
            else:
                candidates.append((r, {**rec, "fixed": res.data["code"],
                                       "backend": res.backend, "model": res.model}))
        return self._check(candidates, splits, log, render)

    def _render(self, ex: Executor, fixes: FixRender, rows: list[dict]
                ) -> tuple[dict[str, bytes], dict[str, str]]:
        """The fixes' PNGs and failure details by locator, rendered by :class:`FixRender`
        on the run's executor (``run_table`` opens and closes it)."""
        units = fixes.units(rows)
        images: dict[str, bytes] = {}
        why: dict[str, str] = {}
        for u, res in zip(units, ex.run(
                units, unit_timeouts(units, self.params.runner.item_timeout_s)), strict=True):
            if isinstance(res, Failure):  # a timed-out or crashed batch: each fix fails
                why.update({r["source_id"]: f"{res.reason}: {res.detail}" for r in u.rows})
                continue
            images.update({x["source_id"]: x["image"] for x in res.records})
            why.update({x.locator: x.detail for x in res.rejections})
        return images, why

    def _check(self, candidates: list[tuple[dict, dict]], splits: dict[str, Counter],
               log: StageLog, render: Render) -> list[dict]:
        cfg = self.params.augment.repair
        kept: list[dict] = []
        ok: list[tuple[dict, dict]] = []
        for r, c in candidates:
            repair = self.repairs()[c["format"]]
            try:
                before = repair.texts(c["code"])
                after = repair.texts(c["fixed"])
            except Exception as exc:  # noqa: BLE001 - an answer the reader cannot parse
                log.reject(Rejection(r["locator"], RepairReason.TEXTS, repr(exc)[:300],
                                     id=r["id"]))
                continue
            share = text_overlap(before, after)
            if share < cfg.min_text_overlap:
                log.reject(Rejection(r["locator"], RepairReason.TEXTS,
                                     f"node-text overlap {share:.2f}", id=r["id"]))
                continue
            ok.append((r, c))
        rows = [{"id": item_id(c["fixed"]), "format": c["format"],
                 "code": c["fixed"], "source_id": r["locator"], "meta": None, "group": None}
                for r, c in ok]
        images, why = render(rows) if rows else ({}, {})
        for (r, c), row in zip(ok, rows, strict=True):
            png = images.get(r["locator"])
            if png is None:
                log.reject(Rejection(r["locator"], RepairReason.RENDER,
                                     why.get(r["locator"], "")[:300], id=r["id"]))
                continue
            split = splits.get(c["group"], Counter()).most_common(1)
            _, fix = self.repairs()[c["format"]].fix(c["code"], r["detail"] or "")
            kept.append({"id": row["id"], "diagram_id": r["id"], "format": c["format"],
                         "split": split[0][0] if split else "train", "config": CONFIG,
                         "broken_code": c["code"], "error": r["detail"], "code": c["fixed"],
                         "image": png, "licence": c["licence"],
                         "licence_url": c["licence_url"], "attribution": c["attribution"],
                         "source_id": c["source_id"],
                         "fix": json.dumps({"rule": fix}) if c["backend"] == "offline"
                         else None, "backend": c["backend"], "model": c["model"]})
            log.stats.inputs_with_output += 1
        return kept

