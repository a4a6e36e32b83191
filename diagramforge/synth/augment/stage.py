"""The ``augment`` stage: per split diagram, a hand-drawn sketch (config ``sketch``: sketch
image → code, SKETikZ), scan/photo-like degradations (config ``degraded``) and LLM code
variations (config ``variation``, AugTikZ), each checked before it is kept.

Sketches and variations are new *code* rendered by the format's own engine, all of one
diagram in one handler call (as render batches). A variation is kept only if the model's
answer renders, stays in the token window, keeps the node texts of the original's graph and
is not a near-duplicate (by pixels) of the original or of a sibling already kept. Every
failed candidate is ledgered with its reason; a diagram that yields nothing is rejected.
"""

from __future__ import annotations

import functools
import json
import random
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar, Protocol

import pyarrow as pa

from diagramforge.formats.encoding import carried_meta, stored_image
from diagramforge.formats.picture import Picture
from diagramforge.formats.registry import RendersFormats, with_capability
from diagramforge.formats.settings import FormatSettings
from diagramforge.measure.timing import GRAPH, LLM, RENDER, in_phase, phase
from diagramforge.selection import SelectSettings, SelectsRows
from diagramforge.stage import Outcome, Stage, StageSettings, WorkUnit
from diagramforge.store.records import Rejection, Unit, derived_seed, item_id
from diagramforge.synth.augment.degrade import degrade, jpeg_quality
from diagramforge.synth.augment.variation import KINDS, request
from diagramforge.synth.edit.sampler import FORMATS

if TYPE_CHECKING:
    from diagramforge.synth.augment.settings import AugmentParams

AUGMENT_SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("diagram_id", pa.string(), nullable=False),
    pa.field("format", pa.string()),
    pa.field("split", pa.string()),
    pa.field("config", pa.string()),
    pa.field("kind", pa.string()),
    pa.field("code", pa.large_string()),
    pa.field("image", pa.binary()),
    pa.field("source_image", pa.binary()),
    pa.field("render_code", pa.large_string()),
    pa.field("transform", pa.string()),
    pa.field("backend", pa.string()),
    pa.field("model", pa.string()),
])
"""``code`` is what a model should write from ``image``: the original code for a sketch or a
degraded image, the variation's code for a variation. ``render_code`` is what was drawn
(the sketch's own code), ``source_image`` the clean render of the original."""


@functools.cache
def augmenters() -> dict[str, ModuleType]:
    """Format name → its ``augment`` capability (``formats/<name>/augment.py``, the contract
    in :mod:`diagramforge.formats.augments`): the formats this stage augments."""
    return with_capability("augment")


class AugmentReason:
    UNSUPPORTED = "augment_unsupported_format"
    NOTHING = "augment_nothing_kept"
    SKETCH_FAILED = "augment_sketch_failed"
    SKETCH_RENDER = "augment_sketch_render_failed"
    DEGRADE_FAILED = "augment_degrade_failed"
    LLM = "augment_variation_llm_failed"
    TOO_LONG = "augment_variation_too_long"
    TEXTS = "augment_variation_texts_changed"
    UNPARSABLE = "augment_variation_unparsable"
    RENDER = "augment_variation_render_failed"
    NEAR_DUP = "augment_variation_near_duplicate"
    SURPLUS = "augment_variation_surplus"


@in_phase(GRAPH)
def _node_texts(fmt: str, code: str) -> list[str]:
    return sorted(n.text for n in FORMATS[fmt].graph(code).nodes)


class AugmentStageSettings(StageSettings, FormatSettings, SelectSettings, Protocol):
    """What the augment stage reads: its section, the ``select`` rules, what the format
    handlers are handed, and the stage base's part."""

    @property
    def augment(self) -> AugmentParams: ...


class AugmentStage(SelectsRows, RendersFormats, Stage):
    """Sketches from the real engines (draw.io sketch=1, TikZ random steps + a
    handwriting-like font, roughened SVG), albumentations scan/photo degradations, and
    LLM code variations kept only when they render, fit the token window, keep node texts
    and are not near-duplicates."""

    name = "augment"
    params: AugmentStageSettings
    format_capability = "augment"
    upstream = "split"
    output_schema: ClassVar[pa.Schema] = AUGMENT_SCHEMA
    reads = ("id", "format", "code", "image", "split")
    """``diagram_type`` and ``tokens`` too when the filters wrote them (``select``)."""
    writes = tuple(AUGMENT_SCHEMA.names)
    expands = True
    funnel: ClassVar[bool] = False
    param_sections: ClassVar[tuple[str, ...]] = ("augment", "render", "select", "formats")
    code = ("synth/augment", "synth/edit", "formats", "notation", "graphs", "sandbox/process.py",
            "sandbox/landlock.py",
            "synth/llm", "store/cache.py", "filters/filter/tokens.py", "tokenizer.py",
            "selection.py")
    inputs = ("package-lock.json",)
    task_configs: ClassVar[tuple[str, ...]] = ("sketch", "degraded", "variation")
    _llm = None

    def environment(self) -> dict:
        # lazy: loads albumentations, cv2
        from diagramforge.synth.augment.degrade import albumentations

        return {"albumentations": albumentations().__version__, **super().environment()}

    def __getstate__(self) -> dict:
        return {**super().__getstate__(), "_llm": None}

    def llm(self):  # noqa: ANN201 - llm.LLM
        if self._llm is None:
            # lazy: loads google, openai, tiktoken
            from diagramforge.synth.llm.client import LLM

            self._llm = LLM.from_params(self.params.augment.llm)
        return self._llm

    def units(self, rows: list[dict]) -> list[WorkUnit]:
        return [WorkUnit([r], str(r["id"])) for r in rows]

    def _seed(self, *parts: object) -> int:
        return derived_seed(self.params.augment.seed, *parts)

    def process(self, unit: WorkUnit) -> Outcome:
        row = unit.rows[0]
        fmt, did = row["format"], row["id"]
        out = Outcome()
        cfg = self.params.augment
        wanted = [c for c, on in (("sketch", cfg.sketch.enabled),
                                  ("degraded", cfg.degrade.enabled),
                                  ("variation", cfg.variation.enabled
                                   and cfg.variation.per_diagram > 0)) if on]
        takes = {c for c in wanted if self.selector().takes(c, row, out.extra)}
        if wanted and not takes:
            out.not_selected = 1  # none of its configs takes this diagram: nothing drawn
            return out
        handler = self.handler_for(row, augmenters(), AugmentReason.UNSUPPORTED,
                                   "augmentation", out)
        if handler is None:
            return out
        base = {"diagram_id": did, "format": fmt, "split": row.get("split"),
                "source_image": row["image"], "backend": None, "model": None}
        source = Picture.of(row["image"])  # decoded once: for the scans and the comparisons
        to_render: list[tuple[str, dict, dict]] = []  # (what, render row, record)
        if "sketch" in takes:
            self._sketch(row, base, to_render, out)
        if "degraded" in takes:
            self._degrade(row, source, base, out)
        if "variation" in takes:
            self._variations(row, base, to_render, out)
        self._render(row, source, handler, to_render, out)
        if not out.records:
            out.rejections.append(Rejection(self.locator(row), AugmentReason.NOTHING,
                                            "no sketch, degradation or variation kept", id=did))
        return out

    def _sketch(self, row: dict, base: dict, to_render: list, out: Outcome) -> None:
        fmt = row["format"]
        aug = augmenters()[fmt]
        seed = self._seed(row["id"], "sketch")
        try:
            code = aug.sketch(row["code"], seed, self.params.augment.sketch)
        except Exception as exc:  # noqa: BLE001 - a file the sketcher cannot read
            out.rejections.append(Rejection(f"{self.locator(row)}#sketch",
                                            AugmentReason.SKETCH_FAILED, repr(exc)[:300],
                                            id=row["id"], unit=Unit.CANDIDATE))
            return
        rid = item_id(row["id"], "sketch")
        to_render.append(("sketch", {"id": rid, "format": fmt, "code": code,
                                     "source_id": f"{self.locator(row)}#sketch",
                                     "meta": carried_meta(row), "group": None},
                          {**base, "id": rid, "config": "sketch", "kind": aug.SKETCH_KIND,
                           "code": row["code"], "render_code": code,
                           "transform": json.dumps({"seed": seed})}))

    def _degrade(self, row: dict, source: Picture, base: dict, out: Outcome) -> None:
        d = self.params.augment.degrade
        for k in range(d.per_diagram):
            seed = self._seed(row["id"], "degrade", k) % (2**32)
            try:
                png = degrade(source, d, seed)
            except Exception as exc:  # noqa: BLE001 - an image the library cannot take
                out.rejections.append(Rejection(f"{self.locator(row)}#degrade-{k}",
                                                AugmentReason.DEGRADE_FAILED, repr(exc)[:300],
                                                id=row["id"], unit=Unit.CANDIDATE))
                continue
            out.records.append({**base, "id": item_id(row["id"], "degrade", k),
                                "config": "degraded", "kind": "scan", "code": row["code"],
                                "image": png, "render_code": None,
                                "transform": json.dumps({"seed": seed,
                                                         "jpeg_quality": jpeg_quality(d, seed)})})

    def _variations(self, row: dict, base: dict, to_render: list, out: Outcome) -> None:
        v, fmt = self.params.augment.variation, row["format"]
        # lazy: loads tiktoken
        from diagramforge.synth.llm.tokens import text_tokens

        rng = random.Random(self._seed(row["id"], "variation"))
        aug = augmenters()[fmt]
        kinds = [k for k in KINDS if k in aug.VARIATIONS]
        rng.shuffle(kinds)
        try:
            texts = _node_texts(fmt, row["code"])
        except Exception:  # noqa: BLE001 - no graph: nothing to hold a variation to
            texts = None
        for kind in kinds:
            where = f"{self.locator(row)}#variation-{kind}"

            def reject(reason: str, detail: str, where: str = where) -> None:
                out.rejections.append(Rejection(where, reason, detail, id=row["id"],
                                                unit=Unit.CANDIDATE))

            with phase(LLM):
                res = self.llm().complete(request(row["code"], aug, kind, rng,
                                                  v.prompt_version))
            out.extra["llm_calls"] = out.extra.get("llm_calls", 0) + res.calls
            if not res.ok or not res.data:
                reject(AugmentReason.LLM, f"{res.reason}: {res.detail}"[:300])
                continue
            code = res.data["code"]
            tokens = text_tokens(code)  # counted once: a long page is the costly one to count
            if tokens > v.max_tokens:
                reject(AugmentReason.TOO_LONG, f"{tokens} > {v.max_tokens} tokens")
                continue
            try:
                got = _node_texts(fmt, code)
            except Exception as exc:  # noqa: BLE001 - the answer does not parse
                reject(AugmentReason.UNPARSABLE, repr(exc)[:300])
                continue
            if texts is not None and got != texts:
                reject(AugmentReason.TEXTS, f"{texts[:8]} -> {got[:8]}")
                continue
            rid = item_id(row["id"], "variation", code)
            to_render.append(("variation", {"id": rid, "format": fmt, "code": code,
                                            "source_id": where, "meta": carried_meta(row),
                                            "group": None},
                              {**base, "id": rid, "config": "variation", "kind": kind,
                               "code": code, "render_code": None,
                               "transform": json.dumps({"kind": kind}),
                               "backend": res.backend, "model": res.model}))

    def _render(self, row: dict, source: Picture, handler, to_render: list,  # noqa: ANN001
                out: Outcome) -> None:
        """The diagram's sketch and variations drawn by its engine; variations compared in
        memory with the source and the siblings kept before them, in order. Only what is
        kept is encoded (once, as it is stored). The sketch and as many variations as can
        be kept go to the engine together; a later variation is drawn (in a second call)
        only when one of those is not kept, so a surplus one never reaches the engine —
        unless the engine draws a batch for about the price of one picture (TikZ: one
        pdflatex run), when all go at once."""
        if not to_render:
            return
        v = self.params.augment.variation
        raster = self.params.render.raster
        if self.params.augment.webp_effort is not None:  # this stage's own point
            raster = raster.model_copy(update={"webp_effort": self.params.augment.webp_effort})
        pictures: dict[str, Picture] = {}
        why: dict[str, str] = {}
        drawn: set[str] = set()

        def draw(items: list) -> None:
            with phase(RENDER):
                done = handler.draw([r for _, r, _ in items])
            drawn.update(r["source_id"] for _, r, _ in items)
            pictures.update((r["source_id"], r["image"]) for r in done.records)
            why.update((r.locator, r.detail) for r in done.rejections)

        variations = [t for t in to_render if t[0] == "variation"]
        if handler.batch_amortised:
            draw(to_render)
        else:
            draw([t for t in to_render if t[0] != "variation"] + variations[:v.per_diagram])
        kept_pictures = [source]
        n_var = seen = 0
        for what, r, rec in to_render:
            if what == "variation":
                seen += 1
                if n_var >= v.per_diagram:
                    out.rejections.append(Rejection(r["source_id"], AugmentReason.SURPLUS,
                                                    f"{v.per_diagram} variations kept already",
                                                    id=row["id"], unit=Unit.CANDIDATE))
                    continue
                if r["source_id"] not in drawn:  # one kept fewer than drawn: the next ones
                    draw(variations[seen - 1:seen - 1 + v.per_diagram - n_var])
            picture = pictures.get(r["source_id"])
            if picture is None:
                reason = AugmentReason.SKETCH_RENDER if what == "sketch" \
                    else AugmentReason.RENDER
                out.rejections.append(Rejection(r["source_id"], reason,
                                                why.get(r["source_id"], "")[:300],
                                                id=row["id"], unit=Unit.CANDIDATE))
                continue
            if what == "variation":
                share = min(picture.changed(k) / picture.area for k in kept_pictures)
                if share < v.min_image_change:
                    out.rejections.append(Rejection(r["source_id"], AugmentReason.NEAR_DUP,
                                                    f"{share:.4f} of pixels changed",
                                                    id=row["id"], unit=Unit.CANDIDATE))
                    continue
                kept_pictures.append(picture)
                n_var += 1
            out.records.append({**rec, "image": stored_image(picture, raster)})
