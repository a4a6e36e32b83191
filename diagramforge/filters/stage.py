"""The ``filter`` stage: run the configured filters in order over every record."""

from __future__ import annotations

from typing import ClassVar

from diagramforge.filters import licence, tokens  # noqa: F401 - registers the filters
from diagramforge.filters.base import REGISTRY, FilterFn
from diagramforge.records import Rejection
from diagramforge.runner import Outcome, Stage, WorkUnit


class FilterStage(Stage):
    name = "filter"
    upstream = "render"
    reads = ("id", "format", "code", "licence", "image")
    param_sections: ClassVar[tuple[str, ...]] = ("filter", "licences")

    def __init__(self, params):  # noqa: ANN001 - Params
        super().__init__(params)
        self.order = [n for n in params.filter.order
                      if getattr(params.filter, n).enabled]
        self.writes = tuple(c for n in self.order for c in REGISTRY[n][1])  # type: ignore[misc]
        self._fns: list[tuple[str, FilterFn]] | None = None

    def setup(self) -> None:
        self._fns = [(n, REGISTRY[n][0](self.params)) for n in self.order]

    def process(self, unit: WorkUnit) -> Outcome:
        assert self._fns is not None
        out = Outcome()
        for row in unit.rows:
            row = dict(row)
            for name, fn in self._fns:
                v = fn(row)
                row.update(v.metrics)
                if not v.keep:
                    out.rejections.append(Rejection(self.locator(row), v.reason,
                                                    f"{name}: {v.detail}", id=row["id"]))
                    break
            else:
                out.records.append(row)
        return out
