"""Which diagrams of the pool each published config takes: keep lists and token windows.

The pool (the split stage's output) keeps every renderable diagram within generous
per-format token caps (``filter.tokens``), typed and tiered. A task takes what its seed paper
describes — VectorGym's SVG tasks 2,000–8,000 cl100k tokens, SKETikZ's sketches only trees,
graphs, architecture diagrams, neural networks and Venn diagrams — by *selection*
(``select.<config>`` in ``params.yaml``), not by rejection: a plot the sketch config leaves
out is still in ``generation``, labelled ``diagram_type: line_chart``. So leaving a diagram
out of a config is not a ledger event; stages count it per config and reason
(``not_selected.<config>.<reason>`` in ``metrics/<stage>.json``, and ``not_selected_inputs``
for a diagram no config of the stage took, which keeps the books balanced), and the card
states every config's keep list, windows and counts.

Selection happens where the work is: the edit stage composes edits only for diagrams
``editing`` takes, augment draws sketches only for ``sketch``'s, synth writes captions only
for ``captioning``'s, publish cuts ``generation`` (and its per-format views) — no sketch is
ever drawn for a diagram its config will not publish.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from enum import StrEnum
from functools import lru_cache
from typing import Annotated, Protocol

from pydantic import Field, field_validator, model_validator

from diagramforge.params import Section
from diagramforge.pipeline import STAGES, task_configs
from diagramforge.vocabulary import expand, kind

# -- the select section: what each published config takes -----------------------------

class TokenWindow(Section):
    """A cl100k token window ``[min, max]`` (both inclusive; ``null``: open on that side)."""

    min: Annotated[int, Field(ge=0)] | None = None
    max: Annotated[int, Field(ge=0)] | None = None

    @model_validator(mode="after")
    def _ordered(self) -> TokenWindow:
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min}) must not exceed max ({self.max})")
        return self


class ConfigSelection(Section):
    """Which diagrams of the pool one published config takes (``select.<config>``)."""

    types: list[str] | None = None
    """``diagram_type`` keep list (a name keeps its finer kinds too); ``null`` takes every
    type. A diagram the classifier could not type (``diagram_type_source: unknown:…``) is
    left out (``type_unknown``): a user who asks for trees must not get a guess.  One the
    classifier never saw (the diagram_type filter off) is taken: there is no evidence to
    leave it out."""
    tokens: dict[str, TokenWindow] = {}
    """Per format, the cl100k window of the config's task (VectorGym: svg 2,000–8,000); a
    format not listed is taken whole (the pool's own caps, ``filter.tokens``, apply)."""

    @field_validator("types", mode="after")
    @classmethod
    def _known_types(cls, v: list[str] | None) -> list[str] | None:
        """A keep list names types of the classifier's vocabulary: a typo would otherwise
        silently leave a config empty."""
        for label in v or ():
            kind(label)
        return v


VECTORGYM_SVG = {"svg": TokenWindow(min=2000, max=8000)}
"""VectorGym's token window for its SVG tasks (sketch, editing, captioning)."""


SKETIKZ_KINDS = ["tree", "graph", "architecture_diagram", "neural_network", "venn_diagram"]
"""The ACL-Fig kinds SKETikZ draws sketches of (its keep list, in snake_case)."""


DEFAULT_SELECT: dict[str, ConfigSelection] = {
    "generation": ConfigSelection(),  # every kind, plots and tables labelled (DaTikZ)
    "sketch": ConfigSelection(types=SKETIKZ_KINDS, tokens=VECTORGYM_SVG),
    "degraded": ConfigSelection(),
    "variation": ConfigSelection(),
    "repair": ConfigSelection(),
    "captioning": ConfigSelection(tokens=VECTORGYM_SVG),
    "qa": ConfigSelection(),
    "editing": ConfigSelection(tokens=VECTORGYM_SVG),  # mxGraph: every VCG-Bench tier
}
"""What each config takes from the pool (``params.yaml`` states the same)."""


# -- selecting ---------------------------------------------------------------------------

GENERATION = "generation"
"""The image → code config over every format; the per-format configs are views of it (the
same files), so they share its selection."""

NOT_SELECTED = "not_selected"
"""Prefix of the per-config counters in a stage's metrics (``not_selected.sketch.type``)."""


class Why(StrEnum):
    """Why a config does not take a diagram."""

    TYPE = "type"
    TYPE_UNKNOWN = "type_unknown"
    TOKENS_BELOW = "tokens_below"
    TOKENS_ABOVE = "tokens_above"


TAKE_ALL = ConfigSelection()


def known_configs() -> tuple[str, ...]:
    """``generation`` and every config a task stage declares (``task_configs``), read from
    the stages' sources: importing every stage module for them cost each mapped stage's
    driver and workers pandas and torch (``pipeline.task_configs``)."""
    tasks = {c for spec in STAGES for c in task_configs(spec)}
    return (GENERATION, *sorted(tasks))


def check_names(selections: Mapping[str, ConfigSelection],
                known: Iterable[str] | None = None) -> None:
    """Fail (before any work) on a ``select`` key that names no config."""
    known = tuple(known_configs() if known is None else known)
    unknown = sorted(set(selections) - set(known))
    if unknown:
        raise ValueError(f"select: no config named {unknown}; configs are {list(known)} "
                         f"(the per-format configs are views of {GENERATION!r} and share "
                         "its selection)")


@lru_cache(maxsize=64)
def _kept(types: tuple[str, ...]) -> frozenset[str]:
    """A keep list with the finer kinds under each name (``architecture_diagram`` keeps
    flowcharts and circuits, ``graph`` commutative diagrams): the classifier types a
    diagram by the most specific kind its code states."""
    return frozenset(expand(types))


def why_not(rule: ConfigSelection, row: Mapping) -> Why | None:
    """Why ``rule`` leaves ``row`` out, or ``None`` when it takes it."""
    kind = row.get("diagram_type")
    if rule.types is not None and kind is not None and kind not in _kept(tuple(rule.types)):
        return Why.TYPE
    if rule.types is not None and kind is None and \
            str(row.get("diagram_type_source") or "").startswith("unknown:"):
        return Why.TYPE_UNKNOWN
    window = rule.tokens.get(str(row.get("format")))
    tokens = row.get("tokens")
    if window is not None and tokens is not None:
        if window.min is not None and tokens < window.min:
            return Why.TOKENS_BELOW
        if window.max is not None and tokens > window.max:
            return Why.TOKENS_ABOVE
    return None


def counter_key(config: str, why: str) -> str:
    return f"{NOT_SELECTED}.{config}.{why}"


class SelectSettings(Protocol):
    """What a :class:`Selector` reads of the params: the ``select`` section (the loaded
    ``Params`` is one)."""

    @property
    def select(self) -> Mapping[str, ConfigSelection]: ...


class Selector:
    """The ``select`` section, checked once, asked per config and row."""

    def __init__(self, params: SelectSettings, known: Iterable[str] | None = None):
        check_names(params.select, known)
        self.rules = params.select

    def rule(self, config: str) -> ConfigSelection:
        return self.rules.get(config, TAKE_ALL)

    def why_not(self, config: str, row: Mapping) -> Why | None:
        return why_not(self.rule(config), row)

    def takes(self, config: str, row: Mapping, counts: dict | None = None) -> bool:
        """Whether ``config`` takes ``row``; a miss is counted in ``counts`` (a stage's
        ``extra`` metrics) under ``not_selected.<config>.<why>``."""
        why = self.why_not(config, row)
        if why is not None and counts is not None:
            key = counter_key(config, why)
            counts[key] = counts.get(key, 0) + 1
        return why is None


def summary(rows: Iterable[Mapping], selector: Selector,
            configs: Iterable[str]) -> dict[str, dict]:
    """Per config: pool diagrams it takes, and how many it leaves out, by reason (the card's
    selection table and ``metrics/dataset.json``)."""
    rows = list(rows)
    out: dict[str, dict] = {}
    for config in configs:
        why = Counter(str(w) for w in (selector.why_not(config, r) for r in rows) if w)
        out[config] = {"pool": len(rows), "selected": len(rows) - sum(why.values()),
                       "not_selected": dict(sorted(why.items()))}
    return out


def describe(rule: ConfigSelection) -> tuple[str, str]:
    """(types, token windows) of a rule as the card prints them."""
    types = "every type" if rule.types is None else ", ".join(rule.types)
    windows = "; ".join(
        f"{fmt} {'' if w.min is None else f'{w.min:,}'}–{'' if w.max is None else f'{w.max:,}'}"
        for fmt, w in sorted(rule.tokens.items())) or "the pool's"
    return types, windows


class SelectsRows:
    """Mixin of the stages that make a config's items from pool diagrams (edit, augment):
    one :class:`Selector` per process, its ``select`` names checked in the driver before
    any worker starts. List it first among the bases."""

    params: SelectSettings
    _selector: Selector | None = None

    def selector(self) -> Selector:
        if self._selector is None:
            self._selector = Selector(self.params)
        return self._selector

    def prepare(self) -> None:
        self.selector()
        super().prepare()  # type: ignore[misc]
