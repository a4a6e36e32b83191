"""The ``filter`` stage: run the filters ``filter.order`` names, in order, over every record.

Rows travel in units of ``filter.batch_size``.  A filter is a function of one record; it may
also carry two optional attributes the stage uses:

* ``fn.batch(records) -> list[Verdict]`` — judge many records at once (batched model
  inference); the stage calls it once per unit with the rows still alive at that filter.
* ``fn.environment`` — a dict of what the filter's output depends on beyond its params
  (e.g. the classifier checkpoint's digest); it joins the stage's fingerprint, so a retrained
  model re-filters even though no parameter changed.

String-valued metrics are also counted per value into the stage's metrics
(``diagram_type:plot``: how many renders were typed as plots, kept or not; not the free-text
ones a filter names in ``fn.free_text``, such as the line of code that decided a type), and
numeric ones a filter names in ``fn.histogram`` per unit-wide bin (``colour_entropy:2``:
renders with 2 to 3 bits), so the distribution is in ``metrics/filter.json`` whatever was rejected.

One bad row never takes its unit down: an exception in a filter rejects that row (reason
``error``), and a failing ``batch`` call falls back to the per-record function.
"""

from __future__ import annotations

import math
from typing import Protocol

from diagramforge.filters.filter.base import FilterFn, FilterSettings, Verdict, discover, section
from diagramforge.stage import Outcome, Reason, Stage, StageSettings, WorkUnit
from diagramforge.store.records import Rejection


class FilterStageSettings(StageSettings, FilterSettings, Protocol):
    """What the filter stage reads: what the filters are handed and the stage base's part."""


class FilterStage(Stage):
    """Apply the filters listed in params (filter.order): licence allow-list, token count
    (tiktoken cl100k_base, offline), size/structure extremes, colour entropy, diagram type
    (a transformers image classifier, batched). Each rejection is ledgered with its reason."""

    name = "filter"
    params: FilterStageSettings
    upstream = "render"
    reads = ("id", "format", "code", "source", "licence", "image", "width", "height", "graph")
    param_sections = ("filter", "licences", "render.raster")
    code = ("filters/filter", "tokenizer.py", "licensing/spdx.py", "formats/rasterize.py",
            "formats/capabilities.py", "formats/*/caps.py",
            "filters/classifier/model.py", "filters/classifier/images.py",
            "filters/classifier/settings.py",
            "filters/classifier/evidence.py", "filters/classifier/decide.py",
            "formats/evidence.py", "formats/*/evidence.py",  # with what they import beside them
            "filters/classifier/determinism.py",
            "graphs",
            "vocabulary.py")
    inputs = ("data/classifier-train/checkpoint",)
    """The pipeline's own diagram-type checkpoint (``filter.diagram_type.checkpoint: null``)."""

    def __init__(self, params: FilterStageSettings):
        super().__init__(params)
        registry = discover()
        self.order = [n for n in params.filter.order if section(params, n).enabled]
        self.writes = tuple(c for n in self.order for c in registry[n].writes)  # type: ignore[misc]
        self._fns: list[tuple[str, FilterFn]] | None = None

    def _build(self) -> list[tuple[str, FilterFn]]:
        registry = discover()
        return [(n, registry[n].factory(section(self.params, n), self.params))
                for n in self.order]

    def environment(self) -> dict:
        """What the filters depend on beyond params; building them here, in the driver, also
        fails a mis-configured filter (a missing checkpoint) before any worker starts."""
        return {n: fn.environment for n, fn in self._build() if hasattr(fn, "environment")}

    def setup(self) -> None:
        self._fns = self._build()

    def units(self, rows: list[dict]) -> list[WorkUnit]:
        size = self.params.filter.batch_size
        return [WorkUnit(rows[i:i + size], str(rows[i].get("id")))
                for i in range(0, len(rows), size)]

    def process(self, unit: WorkUnit) -> Outcome:
        if self._fns is None:
            self.setup()
        assert self._fns is not None
        rows = [dict(r) for r in unit.rows]
        alive = list(range(len(rows)))
        rejected: list[tuple[int, Rejection]] = []
        tally: dict[str, int] = {}
        for name, fn in self._fns:
            verdicts = _judge(fn, [rows[i] for i in alive])
            binned = getattr(fn, "histogram", ())
            free = getattr(fn, "free_text", ())
            still = []
            for i, v in zip(alive, verdicts, strict=True):
                rows[i].update(v.metrics)
                for k, val in v.metrics.items():
                    key = f"{k}:{val}" if isinstance(val, str) and k not in free else \
                        f"{k}:{math.floor(val)}" if k in binned and val is not None else None
                    if key:
                        tally[key] = tally.get(key, 0) + 1
                if v.keep:
                    still.append(i)
                else:
                    rejected.append((i, Rejection(self.locator(rows[i]), v.reason,
                                                  f"{name}: {v.detail}", id=rows[i]["id"])))
            alive = still
        return Outcome(records=[rows[i] for i in alive],
                       rejections=[r for _, r in sorted(rejected, key=lambda x: x[0])],
                       extra=tally)


def _one(fn: FilterFn, row: dict) -> Verdict:
    try:
        return fn(row)
    except Exception as exc:  # noqa: BLE001 - one bad record must not stop its unit
        return Verdict.reject(Reason.ERROR, repr(exc))


def _judge(fn: FilterFn, rows: list[dict]) -> list[Verdict]:
    """Verdicts for ``rows``: one batched call when the filter offers it, else row by row."""
    batch = getattr(fn, "batch", None)
    if batch is not None and rows:
        try:
            verdicts = batch(rows)
            if len(verdicts) == len(rows):
                return verdicts
        except Exception:  # noqa: BLE001, S110 - retried row by row below, errors isolated
            pass
    return [_one(fn, r) for r in rows]
