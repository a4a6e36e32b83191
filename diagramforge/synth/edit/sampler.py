"""Compose verified edits: a seeded sampler by difficulty, each step checked on the code.

VCG-Bench grades an editing task by how many atomic operations it composes (Easy 1–2, Medium
3–4, Hard 5+; the counts are params). Each step draws an operation type not used yet (then a
target), among the edits the format proposes for the *current* code, so every precondition
holds where the edit is applied. A step is kept only if the code still parses, passes the
format's validation, and its extracted graph equals what the operation means
(:func:`~diagramforge.formats.edits.expected_graph`), nothing else changed. A format whose
graph is a reading of the geometry (SVG) may first *settle* the drawn edit's parameters
(where to move, which word) on a choice its reading confirms (``module.settle``). The first
step that fails ends the composition, reported with the operation that broke — the caller
ledgers it. Rendering is checked later, in batches (:mod:`.stage`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from diagramforge.formats.edits import EditError, expected_graph, graph_diff
from diagramforge.formats.registry import with_capability
from diagramforge.graphs.model import Graph


@dataclass(frozen=True)
class FormatEdits:
    """A format's ``edit`` capability (``formats/<name>/edit.py``, the contract in
    :mod:`diagramforge.formats.edits`) with the reader and validation verification uses."""

    module: ModuleType
    graph: Callable[[str], Graph]
    validate: Callable[[str], list[str]]


class _EditFormats(Mapping[str, FormatEdits]):
    """Format name → :class:`FormatEdits` for every registered format whose folder holds an
    ``edit`` module (a format without one offers no edits: it is not here). Looked up on
    first use, so importing the sampler loads no format's code."""

    def __init__(self) -> None:
        self._table: dict[str, FormatEdits] | None = None

    def _formats(self) -> dict[str, FormatEdits]:
        if self._table is None:
            self._table = {name: FormatEdits(module, module.graph, module.validate)
                           for name, module in with_capability("edit").items()}
        return self._table

    def __getitem__(self, fmt: str) -> FormatEdits:
        return self._formats()[fmt]

    def __iter__(self) -> Iterator[str]:
        return iter(self._formats())

    def __len__(self) -> int:
        return len(self._formats())


FORMATS: Mapping[str, FormatEdits] = _EditFormats()
"""The formats that offer edits, found through the registry (nothing here names one)."""


def replay(fmt: str, code: str, ops: list[dict[str, Any]]) -> list[tuple[str, Graph]]:
    """``(code, graph)`` of the diagram before each operation and after the last, by
    applying the operations again (the edit formats' own ``apply_edit``): what a reworded
    instruction's referring expressions are checked against (``referents.naming``)."""
    fe = FORMATS[fmt]
    states = [(code, fe.graph(code))]
    for op in ops:
        code = fe.module.apply_edit(code, op)
        states.append((code, fe.graph(code)))
    return states


class StepReason:
    PARSE = "edit_target_unparsable"
    INVALID = "edit_target_invalid"
    GRAPH = "edit_graph_mismatch"
    UNCHANGED = "edit_code_unchanged"
    TOO_FEW = "edit_too_few_operations"


@dataclass
class Composed:
    """A composed edit: the operations, the target code and graphs — or why it failed."""

    edits: list[dict] = field(default_factory=list)
    source_graph: Graph | None = None
    target_graph: Graph | None = None
    target_code: str = ""
    skipped: dict[str, int] = field(default_factory=dict)
    """Proposed edits whose precondition failed when applied, by operation (not errors:
    the sampler drew another)."""
    unnamed: dict[str, int] = field(default_factory=dict)
    """Proposed edits skipped because an element they act on has no description that
    singles it out (``namer``), by operation."""
    graphs: list[Graph] = field(default_factory=list)
    """The graph each kept step was applied to (for phrasing moves and resizes)."""
    failed_op: str | None = None
    reason: str | None = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.reason is None


def verify_step(fe: FormatEdits, before: str, before_graph: Graph, ed: dict, after: str,
                tol: float = 1.0) -> tuple[str, str, Graph | None] | None:
    """``None`` if ``after`` is ``before`` with exactly ``ed`` applied (graph-wise), else
    ``(reason, detail, graph)``."""
    if after == before:
        return StepReason.UNCHANGED, "the code did not change", None
    try:
        errs = fe.validate(after)
        got = fe.graph(after)
    except Exception as exc:  # noqa: BLE001 - any parser failure is the edit's fault
        return StepReason.PARSE, repr(exc)[:300], None
    if errs:
        return StepReason.INVALID, "; ".join(errs[:3]), got
    diff = graph_diff(expected_graph(before_graph, ed), got, tol)
    if diff:
        return StepReason.GRAPH, "; ".join(diff[:4]), got
    return None


_DELETES = frozenset({"delete_node", "delete_edge"})


def _draws(cands: list[dict], used: set[str], rng: random.Random) -> Iterator[dict]:
    """Candidates in the order the sampler tries them: unused operation types first (each
    type equally likely), then the rest."""
    by_op: dict[str, list[dict]] = {}
    for c in cands:
        by_op.setdefault(c["op"], []).append(c)
    fresh = sorted(op for op in by_op if op not in used)
    stale = sorted(op for op in by_op if op in used)
    rng.shuffle(fresh)
    rng.shuffle(stale)
    for op in fresh + stale:
        group = list(by_op[op])
        rng.shuffle(group)
        yield from group


def _remembering(fe: FormatEdits) -> FormatEdits:
    """``fe`` whose graph is read once per code: a kept step's target is read by its
    verification and again as the next step's source (a draw.io page's graph is the
    sampler's largest cost after its candidates)."""
    seen: dict[str, Graph] = {}

    def graph(code: str) -> Graph:
        if code not in seen:
            seen[code] = fe.graph(code)
        return seen[code]

    return FormatEdits(fe.module, graph, fe.validate)


Namer = Callable[[str, Graph, dict], "dict | None"]
"""Names an edit's elements on the code it is applied to: ``refs`` or ``None`` (see
:class:`diagramforge.synth.referents.naming.Namer`)."""


def compose(code: str, fmt: str, n_ops: int, rng: random.Random,
            apply: Callable[[str, dict], str] | None = None, tol: float = 1.0,
            namer: Namer | None = None) -> Composed:
    """Up to ``n_ops`` verified operations on ``code`` (fewer only if the diagram offers no
    more: reported as ``edit_too_few_operations``). With a ``namer``, an edit whose
    elements it cannot name is passed over for another, and kept edits carry its
    ``refs``."""
    fe = _remembering(FORMATS[fmt])
    apply = apply or fe.module.apply_edit
    current, graph = code, fe.graph(code)
    out = Composed(source_graph=graph)
    used: set[str] = set()
    touched: set[tuple[str, str]] = set()
    edited: set[str] = set()  # deleting what an earlier step edited would undo that step
    for _ in range(n_ops):
        cands = [c for c in fe.module.candidates(current, rng)
                 if (c["op"], c["target"]["id"]) not in touched
                 and not (c["op"] in _DELETES and c["target"]["id"] in edited)]
        settle = getattr(fe.module, "settle", None)
        for ed in _draws(cands, used, rng):
            try:
                if settle is not None:  # parameters the format's reading confirms
                    ed = settle(current, graph, ed, tol)
            except EditError:  # a precondition the proposal could not see: try another
                out.skipped[ed["op"]] = out.skipped.get(ed["op"], 0) + 1
                continue
            if namer is not None:  # named as settled (a redirect's settled new end)
                refs = namer(current, graph, ed)
                if refs is None:
                    out.unnamed[ed["op"]] = out.unnamed.get(ed["op"], 0) + 1
                    continue
                ed = {**ed, "refs": refs}
            try:
                after = apply(current, ed)
            except EditError:
                out.skipped[ed["op"]] = out.skipped.get(ed["op"], 0) + 1
                continue
            bad = verify_step(fe, current, graph, ed, after, tol)
            if bad is not None:
                out.failed_op, out.reason, out.detail = ed["op"], bad[0], bad[1]
                out.edits.append(ed)
                return out
            out.edits.append(ed)
            out.graphs.append(graph)
            used.add(ed["op"])
            # an element edited twice is one edit in disguise: never the same op and target
            touched.add((ed["op"], ed["target"]["id"]))
            edited.add(ed["target"]["id"])
            current, graph = after, fe.graph(after)
            break
        else:
            out.reason, out.detail = StepReason.TOO_FEW, \
                f"{len(out.edits)} of {n_ops} operations applicable"
            return out
    out.target_code, out.target_graph = current, graph
    return out
