"""The filter contract, and how the filter stage finds filters.

A filter is one module: a params model (its ``params.yaml`` section under ``filter.<name>``,
with at least ``enabled``), and a factory decorated with :func:`register` that turns the
configured section into a function from one record to a :class:`Verdict` (keep, or reject
with a reason and detail, plus the metrics it computed — written onto the record as columns).
The filter stage does the counting, batching, stats and ledger.

Filters are found by scanning this package and the ``diagramforge.filters`` entry-point group
(a third-party package adds filters without touching this one); ``filter.order`` in
``params.yaml`` picks which run, in which order. Adding a filter = one module + its test.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Protocol

import diagramforge.filters.filter as pkg
from diagramforge.filters.filter.settings import FilterParams
from diagramforge.params import FilterSection, validate_sections

if TYPE_CHECKING:
    from diagramforge.formats.settings import RenderSettings
    from diagramforge.params import LicenceParams, ProjectParams

__all__ = ["FilterSection", "Verdict", "register", "discover", "check_sections", "build"]

ENTRY_POINT_GROUP = "diagramforge.filters"


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


class FilterSettings(Protocol):
    """What a filter factory is handed besides its own section: the sections the filters
    read (``filter``, its sub-sections; ``licences``: the licence filter; ``render``: the
    extremes filter's raster limits; ``project``: where the classifier's checkpoint is).
    The filter stage hands the loaded ``Params``, which satisfies it; a filter that needs
    another section names it here."""

    @property
    def project(self) -> ProjectParams: ...
    @property
    def licences(self) -> LicenceParams: ...
    @property
    def render(self) -> RenderSettings: ...
    @property
    def filter(self) -> FilterParams: ...


Factory = Callable[[Any, FilterSettings], FilterFn]
"""``factory(section, params)``: the filter's own params section and the sections filters
read (:class:`FilterSettings`)."""


@dataclass(frozen=True)
class FilterSpec:
    name: str
    factory: Factory
    params_model: type[FilterSection]
    writes: tuple[str, ...]
    module: str


REGISTRY: dict[str, FilterSpec] = {}


def register(name: str, params: type[FilterSection] = FilterSection,
             writes: tuple[str, ...] = ()) -> Callable[[Factory], Factory]:
    """Register a filter factory under its ``params.yaml`` name (``filter.<name>``)."""

    def deco(factory: Factory) -> Factory:
        REGISTRY[name] = FilterSpec(name, factory, params, writes, factory.__module__)
        return factory

    return deco


_NOT_FILTERS = {"base", "stage"}
_discovered = False


def discover() -> dict[str, FilterSpec]:
    """Import every filter module of this package and of the entry-point group, once."""
    global _discovered
    if not _discovered:
        for mod in pkgutil.iter_modules(pkg.__path__):
            if mod.name not in _NOT_FILTERS and not mod.name.startswith("_"):
                importlib.import_module(f"{pkg.__name__}.{mod.name}")
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            ep.load()
        _discovered = True
    return REGISTRY


def rediscover() -> dict[str, FilterSpec]:
    """Scan again (a plugin installed after the first scan, e.g. in a test)."""
    global _discovered
    _discovered = False
    return discover()


def section(params: FilterSettings, name: str) -> FilterSection:
    """Filter ``name``'s parsed params section (``filter.<name>``)."""
    return params.filter.section(name, discover()[name].params_model)


def check_sections(written: FilterParams) -> tuple[FilterParams, list[str]]:
    """The ``filter`` section with every filter's sub-section parsed by the model that filter
    declares, and every problem found (unknown names in ``order``, keys that are no filter,
    bad values), each with its full key: the registry's half of loading params
    (``diagramforge.config.check``), so no settings module looks for plug-ins."""
    registry = discover()
    sections = written.written()
    problems = []
    unknown = sorted(set(written.order) - set(registry))
    if unknown:
        problems.append(f"filter.order: unknown filter(s) {unknown} in order; "
                        f"known: {sorted(registry)}")
    stray = sorted(set(sections) - set(registry))
    if stray:
        problems.append(f"filter: unknown key(s) {[f'filter.{n}' for n in stray]} (not a "
                        f"filter; a typo?); known filters: {sorted(registry)}")
    parsed, bad = validate_sections(sections, {n: s.params_model for n, s in registry.items()},
                                    "filter")
    sections.update(parsed)
    return FilterParams(order=written.order, batch_size=written.batch_size, **sections), \
        problems + bad


def build(name: str, params: FilterSettings) -> FilterFn:
    """The configured filter ``name``, as the filter stage builds it."""
    return discover()[name].factory(section(params, name), params)
