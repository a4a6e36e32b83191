"""Where a mapped stage's seconds go: per-phase timing, summed over processes and on the wall.

Why: a stage's total time says nothing about which part grows with the corpus (issue 42:
render's time outside compilation grew 31× for 10× the input, and its counters could not say
where). Code marks its phases (``with phase("compile"):``); a unit run through :func:`timed`
carries the spans it spent in each back to the driver, which adds up per phase

* ``summed_s`` — seconds spent in the phase, added over every worker (busy time);
* ``cpu_s`` — CPU seconds spent in it, the process's own and its finished children's
  (pdflatex is a child of the worker that compiles);
* ``wall_s`` — stage wall time during which at least one process was in the phase (the union
  of the spans: two workers compiling at once count once).

Phases never overlap within a process: entering a phase pauses the one around it, so each
moment of a unit belongs to exactly one phase, and a unit's time in no named phase is
``worker_other``. The driver adds its own phases (``driver``: reading shards, grouping units,
booking and writing results; ``wait``: blocked on the workers; ``setup``: building shared
formats, starting workers). The figures go to ``metrics/<stage>.json`` (``phases``), never to
``data/``: they differ run to run.

Spans are compared across processes by ``time.monotonic`` (one clock per machine); on a Dask
cluster of several machines ``wall_s`` of a worker phase is only approximate.
"""

from __future__ import annotations

import functools
import resource
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

WORKER_OTHER = "worker_other"
"""A unit's time in no named phase (the stage's own Python around its tools)."""
DRIVER = "driver"
"""The driver's own work: read an input shard, split it into units, book each outcome (ledger
rows, counters), write records, ledger and shard stats, commit."""
WAIT = "wait"
"""The driver blocked on the executor: waiting for a unit's outcome."""
SETUP = "setup"
"""Once per run: the stage's ``prepare`` (shared TeX formats), starting and closing workers."""

COMPILE = "compile"
"""A TeX run (composing the document, the sandboxed engine, splitting the PDF's pages)."""
CACHE = "cache"
"""Compile cache look-ups and stores (``cache.ContentCache``)."""
RASTERISE = "rasterise"
"""PyMuPDF: opening the PDF, cropping to what was drawn, the pixmap (and its PNG when one is
asked for)."""
CHECKS = "checks"
"""Blank and extreme-scale checks of a render (``formats.raster``)."""
COMPARE = "compare"
"""Pixels of two renders compared in memory (``formats.picture``: an edit's target against
its source, a variation against its siblings), decoding a stored image when one side is."""
ENCODE = "encode"
"""A kept render encoded as it is stored and published (``formats.encoding.stored_image``:
lossless WebP or optimised PNG): once per kept image, never for a candidate thrown away."""
GRAPH = "graph"
"""Structure graphs: of a kept render (``graphs.record.graph_columns``), and the code-level
checks made before anything is drawn (an edit's composition, a variation's node texts, a
twin's graph where it comes from the code)."""
RENDER = "render"
"""A format handler's engine outside the phases above (TikZ: planning the ladders; draw.io,
Mermaid: the browser's drawing and the pixels' way back; SVG: resvg)."""
DEGRADE = "degrade"
"""Augment's scan/photo degradations (albumentations)."""
LLM = "llm"
"""Waiting for (or computing) a model's answer: augment's code variations."""

Span = tuple[str, float, float, float]
"""(phase, start, end, CPU seconds) — start and end on ``time.monotonic``."""

_local = threading.local()


def cpu_now() -> float:
    """CPU seconds of this process (every thread) and of its children that have finished."""
    own = time.process_time()
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + ch.ru_utime + ch.ru_stime


class _Clock:
    """The spans of one unit in one thread; a stack of open phases, the innermost running;
    how often each phase was entered and other events counted (:func:`count`)."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.stack: list[list] = []  # [name, segment start, segment CPU start]
        self.counts: dict[str, int] = {}

    def _close_top(self, now: float, cpu: float) -> None:
        name, start, c0 = self.stack[-1]
        if now > start:
            self.spans.append((name, start, now, max(0.0, cpu - c0)))

    def enter(self, name: str) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1
        now, cpu = time.monotonic(), cpu_now()
        if self.stack:
            self._close_top(now, cpu)
        self.stack.append([name, now, cpu])

    def leave(self) -> None:
        now, cpu = time.monotonic(), cpu_now()
        self._close_top(now, cpu)
        self.stack.pop()
        if self.stack:  # the enclosing phase runs again from now
            self.stack[-1][1:] = [now, cpu]


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Attribute the time inside to ``name`` (a no-op outside :func:`timed`)."""
    clock: _Clock | None = getattr(_local, "clock", None)
    if clock is None:
        yield
        return
    clock.enter(name)
    try:
        yield
    finally:
        clock.leave()


def in_phase(name: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorator: every call of the function is in phase ``name``."""
    def wrap(fn: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(fn)
        def inner(*args: object, **kw: object) -> T:
            with phase(name):
                return fn(*args, **kw)
        return inner
    return wrap


def count(name: str, k: int = 1) -> None:
    """Count an event of the current unit (a TeX run killed by its deadline, a batch split):
    reported beside the phases, never in ``data/`` (a no-op outside :func:`timed`)."""
    clock: _Clock | None = getattr(_local, "clock", None)
    if clock is not None:
        clock.counts[name] = clock.counts.get(name, 0) + k


def timed(fn: Callable[[], T]) -> tuple[T, dict]:
    """Run ``fn`` (one unit's work) and return its result with its timing: ``spans`` of its
    phases (time in no named phase is :data:`WORKER_OTHER`) and ``counts`` (phase entries
    and :func:`count`'s events)."""
    outer: _Clock | None = getattr(_local, "clock", None)
    clock = _Clock()
    _local.clock = clock
    try:
        with phase(WORKER_OTHER):
            result = fn()
    finally:
        _local.clock = outer
    clock.counts.pop(WORKER_OTHER, None)
    return result, {"spans": clock.spans, "counts": clock.counts}


def _union(intervals: list[tuple[float, float]]) -> float:
    total, end = 0.0, float("-inf")
    for a, b in sorted(intervals):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


class PhaseTotals:
    """Per-phase ``summed_s``, ``cpu_s`` and ``wall_s`` for a run, built as units finish.

    A phase's ``wall_s`` is the union of its spans; spans are held only until the driver
    knows no later span can overlap them (:meth:`fold`: units run a bounded window ahead of
    the one booked), so what is held does not grow with the corpus. The driver's own
    stretches (:meth:`driver`) nest exclusively, as a unit's phases do: reading the next
    shard while waiting for a worker is ``driver``, not ``wait``."""

    def __init__(self) -> None:
        self.summed: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.wall: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self._pending: dict[str, list[tuple[float, float]]] = {}
        self._stack: list[list] = []  # the driver's open stretches: [name, start, CPU start]

    def add_unit(self, timing: dict | None) -> None:
        """A unit's timing (:func:`timed`); ``None`` or empty for a unit that failed."""
        if not timing:
            return
        for k, v in timing.get("counts", {}).items():
            self.counts[k] = self.counts.get(k, 0) + v
        self.add_spans(timing.get("spans", []))

    def add_spans(self, spans: list[Span]) -> None:
        for name, a, b, c in spans:
            self.summed[name] = self.summed.get(name, 0.0) + (b - a)
            self.cpu[name] = self.cpu.get(name, 0.0) + c
            self._pending.setdefault(name, []).append((a, b))

    def fold(self, watermark: float = float("inf")) -> None:
        """Add to ``wall_s`` what lies before ``watermark`` of the pending spans: no span
        still to come starts before it (default: every span has come)."""
        for name, spans in self._pending.items():
            self.wall[name] = self.wall.get(name, 0.0) + _union(
                [(a, min(b, watermark)) for a, b in spans if a < watermark])
            self._pending[name] = [(max(a, watermark), b) for a, b in spans
                                   if b > watermark]

    def add(self, name: str, seconds: float, cpu: float) -> None:
        """A stretch of the driver (one process: summed = wall)."""
        for d, v in ((self.summed, seconds), (self.cpu, cpu), (self.wall, seconds)):
            d[name] = d.get(name, 0.0) + v

    def _close_top(self) -> None:
        name, t0, c0 = self._stack[-1]
        self.add(name, time.monotonic() - t0, time.process_time() - c0)

    @contextmanager
    def driver(self, name: str) -> Iterator[None]:
        """Time a stretch of the driver: its own CPU only (the workers it reaps when the
        pool closes are theirs, counted in their units' phases)."""
        if self._stack:
            self._close_top()
        self._stack.append([name, time.monotonic(), time.process_time()])
        try:
            yield
        finally:
            self._close_top()
            self._stack.pop()
            if self._stack:
                self._stack[-1][1:] = [time.monotonic(), time.process_time()]

    def to_json(self) -> dict:
        """``{phase: {summed_s, cpu_s, wall_s, count}}`` and, under ``"counts"``, the
        events that are not phases."""
        self.fold()
        out: dict = {k: {"summed_s": round(self.summed[k], 6),
                         "cpu_s": round(self.cpu.get(k, 0.0), 6),
                         "wall_s": round(self.wall.get(k, 0.0), 6),
                         **({"count": self.counts[k]} if k in self.counts else {})}
                     for k in sorted(self.summed)}
        events = {k: v for k, v in sorted(self.counts.items()) if k not in self.summed}
        if events:
            out["counts"] = events
        return out
