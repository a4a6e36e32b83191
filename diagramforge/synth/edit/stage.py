"""The ``edit`` stage: verified editing pairs (source → target) for every split diagram.

Per diagram and difficulty tier (``edit.easy|medium|hard``), the seeded sampler composes
atomic operations, each verified on the code (:mod:`.sampler`); the targets of one diagram
are then drawn together through the format handler's own engine (one pdflatex run, one
draw.io page call), and a target is kept only if it renders and its pixels differ from the
source's — compared in memory; only a kept target is encoded. Every attempt that fails
is ledgered (as a candidate) with the operation that broke; a diagram that yields no pair
is rejected as an input, so the books balance.

Edits are only of pictures that are graphs: every operation names its targets as nodes and
edges of the structure graph ("the node labelled "model""), which is true of the picture only
when it is graph-like and its graph explains its render (issue 50,
:mod:`diagramforge.synth.referents.grounded`).  Any other picture (a chart whose "nodes" are its
tick labels, an untyped one) is left out of ``editing`` as a selection leaves a diagram out
(``not_selected.editing.<reason>`` in the metrics), not ledgered.

The ``instruction`` written here is a template; the synth stage phrases it (``editing``
config), so this stage publishes no config itself.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, ClassVar, Protocol

import pyarrow as pa

from diagramforge.formats.encoding import carried_meta, stored_image
from diagramforge.formats.picture import Picture
from diagramforge.formats.registry import RendersFormats
from diagramforge.formats.settings import FormatSettings
from diagramforge.graphs.model import Graph
from diagramforge.measure.timing import GRAPH, RENDER, phase
from diagramforge.selection import SelectSettings, SelectsRows
from diagramforge.stage import Outcome, Stage, StageSettings, WorkUnit
from diagramforge.store.records import Rejection, Unit, derived_seed, item_id
from diagramforge.synth.edit.sampler import FORMATS, compose
from diagramforge.synth.referents.grounded import verdicts
from diagramforge.synth.referents.naming import Namer
from diagramforge.synth.referents.steps import instruction

if TYPE_CHECKING:
    from diagramforge.synth.edit.settings import EditParams
    from diagramforge.synth.referents.settings import ReferentParams

EDIT_SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("diagram_id", pa.string(), nullable=False),
    pa.field("format", pa.string()),
    pa.field("split", pa.string()),
    pa.field("config", pa.string()),
    pa.field("source_code", pa.large_string()),
    pa.field("source_image", pa.binary()),
    pa.field("target_code", pa.large_string()),
    pa.field("target_image", pa.binary()),
    pa.field("operations", pa.string()),
    pa.field("difficulty", pa.string()),
    pa.field("source_graph", pa.string()),
    pa.field("target_graph", pa.string()),
    pa.field("instruction", pa.string()),
])
"""The edit table (the contract's columns; ``*image`` columns hold PNG bytes)."""

TIERS = ("easy", "medium", "hard")
CONFIG = "editing"
"""The config its pairs end up in (the synth stage phrases and publishes them)."""


class EditReason:
    UNSUPPORTED = "edit_unsupported_format"
    NONE_VERIFIED = "edit_none_verified"
    RENDER = "edit_target_render_failed"
    SAME_RENDER = "edit_render_unchanged"


class EditStageSettings(StageSettings, FormatSettings, SelectSettings, Protocol):
    """What the edit stage reads: its section and ``referents``, the ``select`` rules, what
    the format handlers are handed, and the stage base's part."""

    @property
    def edit(self) -> EditParams: ...
    @property
    def referents(self) -> ReferentParams: ...


class EditStage(SelectsRows, RendersFormats, Stage):
    """Compose seeded atomic edits per diagram and difficulty, verify each operation on the
    code (parse, validation, graph diff = the operation), render the targets with the
    format's own engine and keep those that differ from the source render."""

    name = "edit"
    params: EditStageSettings
    format_capability = "edit"
    upstream = "split"
    output_schema: ClassVar[pa.Schema] = EDIT_SCHEMA
    reads = ("id", "format", "code", "image", "split", "graph")
    """``diagram_type``, ``graph_like`` and ``tokens`` too when the filters wrote them
    (``select.editing``, the grounding check)."""
    writes = tuple(EDIT_SCHEMA.names)
    expands = True
    param_sections: ClassVar[tuple[str, ...]] = ("edit", "render", "select", "referents",
                                                 "formats")
    code = ("synth/edit", "formats", "notation", "graphs", "synth/referents",
            "sandbox/process.py", "sandbox/landlock.py",
            "selection.py", "vocabulary.py")
    inputs = ("package-lock.json",)
    task_configs: ClassVar[tuple[str, ...]] = ()
    funnel: ClassVar[bool] = False
    """Its rows are editing pairs, not diagrams: the diagram funnel ends at split (the
    stage still accounts for every diagram it reads, in its own metrics)."""

    def units(self, rows: list[dict]) -> list[WorkUnit]:
        """One diagram per unit (an expanding stage accounts per unit); its targets are
        rendered in one batch."""
        return [WorkUnit([r], str(r["id"])) for r in rows]

    def _rng(self, diagram_id: str, tier: str, k: int) -> random.Random:
        return random.Random(derived_seed(self.params.edit.seed, diagram_id, tier, k))

    def process(self, unit: WorkUnit) -> Outcome:
        row = unit.rows[0]
        fmt, did = row["format"], row["id"]
        out = Outcome()
        if not self.selector().takes(CONFIG, row, out.extra):
            out.not_selected = 1  # the editing config does not take it: no edits made
            return out
        handler = self.handler_for(row, FORMATS, EditReason.UNSUPPORTED, "edits", out)
        if handler is None:
            return out
        graph = Graph.from_json(row["graph"]) if row.get("graph") else None
        verdict = verdicts(self.formats(), [row], [graph])[0]
        if verdict is not None:  # not a graph: no referent would be true of the picture
            key = f"not_selected.{CONFIG}.{verdict.reason}"
            out.extra[key] = out.extra.get(key, 0) + 1
            out.not_selected = 1
            return out
        cfg = self.params.edit
        pending: list[tuple[str, dict, object]] = []
        seen: set[str] = set()
        namer = Namer(fmt, self.params.referents)  # shared: the source scene is built once
        for tier in TIERS:
            t = getattr(cfg, tier)
            for k in range(t.per_diagram):
                rng = self._rng(did, tier, k)
                n_ops = rng.randint(t.min_ops, max(t.min_ops, t.max_ops))
                where = f"{self.locator(row)}#edit-{tier}-{k}"
                try:
                    with phase(GRAPH):
                        res = compose(row["code"], fmt, n_ops, rng, handler.apply_edit,
                                      cfg.bbox_tolerance, namer)
                except Exception as exc:  # noqa: BLE001 - a diagram the parsers choke on
                    out.rejections.append(Rejection(where, "edit_error", repr(exc)[:500],
                                                    id=did, unit=Unit.CANDIDATE))
                    continue
                self._count(out, fmt, res.edits, res.failed_op)
                for op, n in res.skipped.items():
                    key = f"ops_precondition_failed.{fmt}.{op}"
                    out.extra[key] = out.extra.get(key, 0) + n
                for op, n in res.unnamed.items():
                    key = f"ops_no_referent.{fmt}.{op}"
                    out.extra[key] = out.extra.get(key, 0) + n
                if not res.ok:
                    out.rejections.append(Rejection(
                        where, res.reason, f"op={res.failed_op}: {res.detail}", id=did,
                        unit=Unit.CANDIDATE))
                    continue
                ops = json.dumps(res.edits, sort_keys=True)
                eid = item_id(did, ops)
                if eid in seen:
                    continue
                seen.add(eid)
                pending.append((tier, {"id": eid, "code": res.target_code, "format": fmt,
                                       "source_id": where, "meta": carried_meta(row),
                                       "group": None},
                                res))
        kept = self._render(row, handler, pending, out)
        if not kept:
            out.rejections.append(Rejection(self.locator(row), EditReason.NONE_VERIFIED,
                                            "no composed edit was verified", id=did))
        return out

    @staticmethod
    def _count(out: Outcome, fmt: str, edits: list[dict], failed: str | None) -> None:
        for ed in edits:
            ok = "broke" if ed["op"] == failed and ed is edits[-1] else "verified"
            key = f"ops_{ok}.{fmt}.{ed['op']}"
            out.extra[key] = out.extra.get(key, 0) + 1

    def _render(self, row: dict, handler, pending: list, out: Outcome  # noqa: ANN001
                ) -> int:
        """The diagram's targets drawn in one call to its engine, each compared in memory
        with the source render; only a target that changed it is encoded (once, as it is
        stored), the others are dropped as they are."""
        if not pending:
            return 0
        with phase(RENDER):
            drawn = handler.draw([p[1] for p in pending])
        pictures = {r["source_id"]: r["image"] for r in drawn.records}
        source = Picture.of(row["image"])
        raster = self.params.render.raster
        kept = 0
        for tier, target, res in pending:
            where = target["source_id"]
            picture = pictures.get(where)
            if picture is None:
                why = next((r.detail for r in drawn.rejections if r.id == target["id"]), "")
                out.rejections.append(Rejection(where, EditReason.RENDER,
                                                f"ops={[e['op'] for e in res.edits]}: {why}"[
                                                    :500], id=row["id"], unit=Unit.CANDIDATE))
                continue
            if source.changed(picture) < self.params.edit.min_changed_pixels:
                out.rejections.append(Rejection(where, EditReason.SAME_RENDER,
                                                f"ops={[e['op'] for e in res.edits]}",
                                                id=row["id"], unit=Unit.CANDIDATE))
                continue
            kept += 1
            out.records.append({
                "id": target["id"], "diagram_id": row["id"], "format": row["format"],
                "split": row.get("split"), "config": CONFIG,
                "source_code": row["code"], "source_image": row["image"],
                "target_code": target["code"], "target_image": stored_image(picture, raster),
                "operations": json.dumps(res.edits, sort_keys=True), "difficulty": tier,
                "source_graph": res.source_graph.to_json(),
                "target_graph": res.target_graph.to_json(),
                "instruction": instruction(res.edits, res.graphs),
            })
        return kept
