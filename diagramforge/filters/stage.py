"""The ``filter`` stage: run the filters ``filter.order`` names, in order, over every record."""

from __future__ import annotations

from diagramforge.filters.base import FilterFn, discover
from diagramforge.records import Rejection
from diagramforge.stage import Outcome, Stage, WorkUnit


class FilterStage(Stage):
    """Apply the filters listed in params (filter.order): licence allow-list, token count
    (tiktoken cl100k_base, offline), … Each rejection is ledgered with its reason."""

    name = "filter"
    upstream = "render"
    reads = ("id", "format", "code", "licence", "image")
    param_sections = ("filter", "licences")
    code = ("filters", "licences.py")

    def __init__(self, params):  # noqa: ANN001 - Params
        super().__init__(params)
        registry = discover()
        self.order = [n for n in params.filter.order if params.filter.section(n).enabled]
        self.writes = tuple(c for n in self.order for c in registry[n].writes)  # type: ignore[misc]
        self._fns: list[tuple[str, FilterFn]] | None = None

    def setup(self) -> None:
        registry = discover()
        self._fns = [(n, registry[n].factory(self.params.filter.section(n), self.params))
                     for n in self.order]

    def process(self, unit: WorkUnit) -> Outcome:
        if self._fns is None:
            self.setup()
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
