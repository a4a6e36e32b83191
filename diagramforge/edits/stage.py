"""The ``edit`` stage: verified editing pairs (source → target) for every split diagram.

Per diagram and difficulty tier (``edit.easy|medium|hard``), the seeded sampler composes
atomic operations, each verified on the code (:mod:`.sampler`); the targets of one diagram
are then rendered together through the format handler's own render path (one pdflatex run,
one draw.io page call), and a target is kept only if it renders and its image differs from
the source's. Every attempt that fails is ledgered (as a candidate) with the operation that
broke; a diagram that yields no pair is rejected as an input, so the books balance.

The ``instruction`` written here is a template; the synth stage phrases it (``editing``
config), so this stage publishes no config itself.
"""

from __future__ import annotations

import io
import json
import random
from typing import ClassVar

import pyarrow as pa
from PIL import Image, ImageChops

from diagramforge.edits.base import Op
from diagramforge.edits.sampler import FORMATS, compose
from diagramforge.formats.registry import RendersFormats
from diagramforge.records import Rejection, Unit, derived_seed, item_id
from diagramforge.stage import Outcome, Stage, WorkUnit

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


class EditReason:
    UNSUPPORTED = "edit_unsupported_format"
    NONE_VERIFIED = "edit_none_verified"
    RENDER = "edit_target_render_failed"
    SAME_RENDER = "edit_render_unchanged"


def _q(s: str) -> str:
    return f"'{s}'" if s else "the unlabelled one"


def describe(ed: dict, names: dict[str, str] | None = None) -> str:
    """A template sentence for one operation (the synth stage rephrases the whole); nodes
    are called by their text (``names``: graph id → text) where they have one."""
    op, p, t = Op(ed["op"]), ed.get("params", {}), ed["target"]
    names = names or {}

    def nm(nid: object) -> str:
        return _q(names.get(str(nid)) or "") if names.get(str(nid)) else str(nid)

    node = f"the node {_q(t['text'])}"
    edge = f"the connection from {nm(p.get('source'))} to {nm(p.get('target'))}" + (
        f" labelled {_q(t['text'])}" if t.get("text") else "")
    return {
        Op.NODE_COLOUR: lambda: f"change the fill colour of {node} to {p.get('colour')}",
        Op.NODE_SHAPE: lambda: f"make {node} a {p.get('shape')}",
        Op.NODE_SIZE: lambda: f"resize {node} to {p['bbox'][2]:g}×{p['bbox'][3]:g}",
        Op.NODE_TEXT: lambda: f"rename {node} to {_q(p.get('text', ''))}",
        Op.DELETE_NODE: lambda: f"delete {node} and its connections",
        Op.ADD_NODE: lambda: f"add a {p.get('shape', 'rectangle')} node {_q(p.get('text'))}",
        Op.MOVE_NODE: lambda: f"move {node}" + (
            f" by ({p['dx']:g}, {p['dy']:g}) cm" if "dx" in p else
            f" to ({p['bbox'][0]:g}, {p['bbox'][1]:g})"),
        Op.EDGE_COLOUR: lambda: f"colour {edge} {p.get('colour')}",
        Op.EDGE_STYLE: lambda: f"make {edge} " + (
            p["style"] if "style" in p else "dashed" + (
                f", {p['width']:g} wide" if "width" in p else "")),
        Op.EDGE_ARROW: lambda: f"{'give' if p.get('directed') else 'remove'} the arrow head "
                               f"{'to' if p.get('directed') else 'of'} {edge}",
        Op.DELETE_EDGE: lambda: f"delete {edge}",
        Op.ADD_EDGE: lambda: f"connect {nm(p.get('source'))} to {nm(p.get('target'))} with "
                             "an arrow",
        Op.REDIRECT_EDGE: lambda: f"point {edge} at {nm(p.get('new_target'))} instead",
        Op.EDGE_PATH: lambda: f"reroute {edge} through {p.get('points')}",
    }[op]()


def instruction(edits: list[dict], names: dict[str, str] | None = None) -> str:
    """The operations as one template instruction, in order."""
    names = dict(names or {})
    parts = []
    for e in edits:
        parts.append(describe(e, names))
        if e["op"] in (Op.NODE_TEXT, Op.ADD_NODE):  # later steps call it by its new text
            names[e["params"].get("node") or e["params"].get("id")] = e["params"]["text"]
    text = "; then ".join(parts)
    return text[:1].upper() + text[1:] + "."


def changed_pixels(a: bytes, b: bytes) -> int:
    """Pixels that differ between two PNGs (every pixel when the sizes differ)."""
    ia, ib = (Image.open(io.BytesIO(x)).convert("RGB") for x in (a, b))
    if ia.size != ib.size:
        return max(ia.size[0] * ia.size[1], ib.size[0] * ib.size[1])
    diff = ImageChops.difference(ia, ib).convert("L")
    return sum(diff.histogram()[1:])


class EditStage(RendersFormats, Stage):
    """Compose seeded atomic edits per diagram and difficulty, verify each operation on the
    code (parse, validation, graph diff = the operation), render the targets with the
    format's own engine and keep those that differ from the source render."""

    name = "edit"
    upstream = "split"
    output_schema: ClassVar[pa.Schema] = EDIT_SCHEMA
    reads = ("id", "format", "code", "image", "split")
    writes = tuple(EDIT_SCHEMA.names)
    expands = True
    param_sections: ClassVar[tuple[str, ...]] = ("edit", "render", "formats")
    code = ("edits", "formats", "graphs", "sandbox.py")
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
        handler = self.handler_for(row, FORMATS, EditReason.UNSUPPORTED, "edits", out)
        if handler is None:
            return out
        cfg = self.params.edit
        pending: list[tuple[str, dict, object]] = []
        seen: set[str] = set()
        for tier in TIERS:
            t = getattr(cfg, tier)
            for k in range(t.per_diagram):
                rng = self._rng(did, tier, k)
                n_ops = rng.randint(t.min_ops, max(t.min_ops, t.max_ops))
                where = f"{self.locator(row)}#edit-{tier}-{k}"
                try:
                    res = compose(row["code"], fmt, n_ops, rng, handler.apply_edit,
                                  cfg.bbox_tolerance)
                except Exception as exc:  # noqa: BLE001 - a diagram the parsers choke on
                    out.rejections.append(Rejection(where, "edit_error", repr(exc)[:500],
                                                    id=did, unit=Unit.CANDIDATE))
                    continue
                self._count(out, fmt, res.edits, res.failed_op)
                for op, n in res.skipped.items():
                    key = f"ops_precondition_failed.{fmt}.{op}"
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
                                       "source_id": where, "meta": None, "group": None},
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
        if not pending:
            return 0
        rendered = handler.render([p[1] for p in pending])
        images = {r["source_id"]: r["image"] for r in rendered.records}
        kept = 0
        for tier, target, res in pending:
            where = target["source_id"]
            png = images.get(where)
            if png is None:
                why = next((r.detail for r in rendered.rejections if r.id == target["id"]), "")
                out.rejections.append(Rejection(where, EditReason.RENDER,
                                                f"ops={[e['op'] for e in res.edits]}: {why}"[
                                                    :500], id=row["id"], unit=Unit.CANDIDATE))
                continue
            if changed_pixels(row["image"], png) < self.params.edit.min_changed_pixels:
                out.rejections.append(Rejection(where, EditReason.SAME_RENDER,
                                                f"ops={[e['op'] for e in res.edits]}",
                                                id=row["id"], unit=Unit.CANDIDATE))
                continue
            kept += 1
            out.records.append({
                "id": target["id"], "diagram_id": row["id"], "format": row["format"],
                "split": row.get("split"), "config": "editing",
                "source_code": row["code"], "source_image": row["image"],
                "target_code": target["code"], "target_image": png,
                "operations": json.dumps(res.edits, sort_keys=True), "difficulty": tier,
                "source_graph": res.source_graph.to_json(),
                "target_graph": res.target_graph.to_json(),
                "instruction": instruction(res.edits, {n.id: n.text for n in
                                                       res.source_graph.nodes}),
            })
        return kept
