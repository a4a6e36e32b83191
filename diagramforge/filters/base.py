"""The filter contract and registry.

A filter is tiny: given one record it returns a :class:`Verdict` (keep, or reject with a
reason and detail) plus the metrics it computed, which are written onto the record.  The
filter stage does the counting, batching, stats and ledger.  Adding a filter = one module
that calls :func:`register`, one ``params.yaml`` key, one test file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from diagramforge.params import Params


@dataclass
class Verdict:
    keep: bool
    reason: str = ""
    detail: str = ""
    metrics: dict = field(default_factory=dict)

    @classmethod
    def ok(cls, **metrics: object) -> Verdict:
        return cls(True, metrics=metrics)

    @classmethod
    def reject(cls, reason: str, detail: str = "", **metrics: object) -> Verdict:
        return cls(False, reason, detail, metrics)


FilterFn = Callable[[dict], Verdict]
"""A configured filter: one record in, a verdict out."""

Factory = Callable[[Params], FilterFn]
REGISTRY: dict[str, tuple[Factory, tuple[str, ...]]] = {}


def register(name: str, writes: tuple[str, ...] = ()) -> Callable[[Factory], Factory]:
    """Register a filter factory under its ``params.yaml`` name (``filter.<name>``)."""

    def deco(factory: Factory) -> Factory:
        REGISTRY[name] = (factory, writes)
        return factory

    return deco
