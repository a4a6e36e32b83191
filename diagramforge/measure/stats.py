"""Stage statistics: named counters, written as JSON that ``dvc metrics show`` reads.

Counters are named once here; stage code never spells a counter as a string literal.
"""

from __future__ import annotations

from collections import Counter as _Counter
from dataclasses import dataclass, field
from enum import StrEnum


class Counter(StrEnum):
    IN = "in"
    OUT = "out"
    REJECTED = "rejected"
    REJECTED_INPUTS = "rejected_inputs"
    REJECTED_CANDIDATES = "rejected_candidates"
    INPUTS_WITH_OUTPUT = "inputs_with_output"
    NOT_SELECTED_INPUTS = "not_selected_inputs"
    """Inputs no config of a task stage takes (``select``): neither output nor rejection."""
    SECONDS = "seconds"


class RenderCounter(StrEnum):
    """Extra counters of the render stage (summed over shards into ``extra``)."""

    CACHE_HITS = "cache_hits"
    COMPILED = "compiled"
    COMPILE_MS = "compile_ms"
    MODE = "mode_"  # prefix: mode_format/batch, mode_plain/single, ...
    PREAMBLE_MODE = "preamble_"  # prefix: preamble_minimal, preamble_preamble, …_source
    ENGINE = "engine_"  # prefix: engine_pdflatex, engine_lualatex, engine_xelatex


METRICS_ONLY = frozenset({RenderCounter.CACHE_HITS, RenderCounter.COMPILED, "llm_calls"})
"""Counters of how the work was done here, not of what it made: a warm cache turns every
``compiled`` into a ``cache_hits`` and every LLM call into none."""


def metrics_only(key: str) -> bool:
    """Whether a stage's extra counter goes to ``metrics/`` only, never into the shard stats
    committed in ``data/``: timings (``*_ms``), cache hits, compiles and their modes, LLM
    calls. A rerun from a warm cache must hash the same as a cold one (the two-clone test
    found ``data/render`` differing by ``cache_hits: 31`` against ``compiled: 31``)."""
    return key.endswith("_ms") or key in METRICS_ONLY or key.startswith(RenderCounter.MODE)


@dataclass
class StageStats:
    """Accounting for one stage run; ``check`` proves no input vanished."""

    stage: str
    expands: bool = False
    n_in: int = 0
    n_out: int = 0
    inputs_with_output: int = 0
    rejected_inputs: int = 0
    rejected_candidates: int = 0
    not_selected_inputs: int = 0
    by_reason: _Counter = field(default_factory=_Counter)
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)
    phases: dict | None = None
    """Per-phase seconds of the run (``timing.PhaseTotals``): the stage's metrics only, never
    a shard's stats (which are committed with the output and must be the same every run)."""

    def add(self, other: StageStats) -> None:
        self.n_in += other.n_in
        self.n_out += other.n_out
        self.inputs_with_output += other.inputs_with_output
        self.rejected_inputs += other.rejected_inputs
        self.rejected_candidates += other.rejected_candidates
        self.not_selected_inputs += other.not_selected_inputs
        self.by_reason.update(other.by_reason)
        for k, v in other.extra.items():
            self.extra[k] = self.extra.get(k, 0) + v

    @property
    def n_rejected(self) -> int:
        return self.rejected_inputs + self.rejected_candidates

    def balance_error(self) -> str | None:
        """Why the books do not balance, or None when every input is accounted for."""
        if self.expands:
            accounted = self.inputs_with_output + self.rejected_inputs + self.not_selected_inputs
            if accounted != self.n_in:
                return (
                    f"{self.stage}: {self.n_in} inputs but {self.inputs_with_output} yielded "
                    f"records, {self.rejected_inputs} were rejected and "
                    f"{self.not_selected_inputs} were selected by none of its configs"
                )
        elif self.n_out + self.rejected_inputs != self.n_in:
            return (
                f"{self.stage}: {self.n_in} in but {self.n_out} out + "
                f"{self.rejected_inputs} rejected"
            )
        return None

    def to_json(self) -> dict:
        out = {
            Counter.IN: self.n_in,
            Counter.OUT: self.n_out,
            Counter.REJECTED: dict(sorted(self.by_reason.items())),
            Counter.REJECTED_INPUTS: self.rejected_inputs,
            Counter.REJECTED_CANDIDATES: self.rejected_candidates,
            Counter.INPUTS_WITH_OUTPUT: self.inputs_with_output,
            Counter.NOT_SELECTED_INPUTS: self.not_selected_inputs,
            Counter.SECONDS: round(self.seconds, 3),
            "expands": self.expands,
        }
        if self.extra:
            out["extra"] = dict(sorted(self.extra.items()))
        if self.phases:
            out["phases"] = self.phases
        return {str(k): v for k, v in out.items()}

    @classmethod
    def from_json(cls, stage: str, data: dict) -> StageStats:
        return cls(
            stage=stage,
            expands=bool(data.get("expands", False)),
            n_in=data[Counter.IN],
            n_out=data[Counter.OUT],
            inputs_with_output=data.get(Counter.INPUTS_WITH_OUTPUT, 0),
            rejected_inputs=data.get(Counter.REJECTED_INPUTS, 0),
            rejected_candidates=data.get(Counter.REJECTED_CANDIDATES, 0),
            not_selected_inputs=data.get(Counter.NOT_SELECTED_INPUTS, 0),
            by_reason=_Counter(data.get(Counter.REJECTED, {})),
            seconds=data.get(Counter.SECONDS, 0.0),
            extra=dict(data.get("extra", {})),
        )
