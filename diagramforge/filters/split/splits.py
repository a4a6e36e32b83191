"""Leakage-safe, stratified, stable train/validation/test assignment.

**Units and components.** The unit no split may share is a record's group — a paper or a
repository — or, where ``split.group_by`` (or a per-source-kind / per-group override) says
``file``, one file of it (template repositories hold independent diagrams; a multi-page
``.drawio`` file stays whole). Units that share a near-duplicate cluster are joined; each
connected set of units is a *component*, and a component gets exactly one split. The
record's ``group`` column is rewritten to its component key, so "one split per group"
(checked by the validate stage) is exactly the leakage guarantee.

**Stable by hashing.** A component's split comes from a seeded hash of its key (the smallest
unit key) mapped to ``[0, 1)`` and cut at the train/validation/test fractions. It depends
on nothing else in the corpus, so adding papers never moves an existing one.

**Stratified by a minimum-coverage rule.** Hashing is stratified only in expectation; a
small format (three template files) can land all in train. So, deterministically, for every
format × difficulty stratum, then every format (a published config), then the whole corpus,
that has at least ``min_groups`` components, a missing split is filled by moving one
component into it: the unpinned one whose hash is nearest that split's interval (the largest
hash for test, the smallest for train, nearest the middle for validation), and never one
whose move would empty a split of a level that has enough components. Each move is counted
in metrics.

**Stability with coverage: pins.** A coverage move depends on the corpus, so on its own it
could be undone by a later version whose hashes already cover every split. Every run
therefore writes its assignments (units, ids, tier cut points) to
``data/split/assignments.json``; publishing a version means keeping that file, and the next
version names it in ``split.pinned``. Pinned units and ids keep their split and are never
moved by coverage — a published test item stays in test, whatever joins the corpus. When
new near-duplicate links join components pinned to different splits, the component takes
the most protected one (test, then validation) and the conflict is counted.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from diagramforge.filters.split.settings import SplitParams

_PROTECT = {"test": 2, "validation": 1, "train": 0}


def uniform(key: str, seed: int) -> float:
    """Seeded hash of ``key``, uniform in [0, 1)."""
    h = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def hashed_split(u: float, cfg: SplitParams) -> str:
    if u < cfg.train:
        return "train"
    if u < cfg.train + cfg.validation:
        return "validation"
    return "test"


def file_of(row: dict) -> str:
    """The file a record came from, without commit or arXiv version (stable across crawls):
    ``repo@commit:path#page`` → ``path``; ``2401.00101v1/fig.tex#1`` → ``fig.tex``."""
    sid = str(row.get("source_id") or row.get("id")).split("#", 1)[0]
    head, sep, path = sid.partition(":")
    if sep and "@" in head:
        return path
    head, sep, path = sid.partition("/")
    return path if sep else sid


def unit_key(row: dict, cfg: SplitParams) -> str:
    group = str(row.get("group") or row.get("id"))
    mode = (cfg.group_by_overrides.get(group) or
            cfg.group_by_overrides.get(str(row.get("source") or "")) or cfg.group_by)
    return group if mode == "source" else f"{group}/{file_of(row)}"


@dataclass
class Component:
    key: str
    units: set[str] = field(default_factory=set)
    rows: list[int] = field(default_factory=list)
    levels: set[tuple] = field(default_factory=set)
    u: float = 0.0
    split: str = "train"
    pinned: bool = False
    test_ok: bool = True
    """False when a row of it is not dated after ``split.test_after`` (never in test)."""


@dataclass
class Assignment:
    splits: list[str]
    groups: list[str]
    units: dict[str, str]
    stats: dict[str, int]


def _components(units: list[str], clusters: Sequence[str | None]) -> dict[str, Component]:
    parent: dict[str, str] = {u: u for u in units}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first_unit: dict[str, str] = {}
    for u, c in zip(units, clusters, strict=True):
        if c is None:
            continue
        if c in first_unit:
            a, b = root(first_unit[c]), root(u)
            if a != b:
                parent[max(a, b)] = min(a, b)
        else:
            first_unit[c] = u
    comps: dict[str, Component] = {}
    members: dict[str, set[str]] = defaultdict(set)
    for u in units:
        members[root(u)].add(u)
    for us in members.values():
        key = min(us)
        comps[key] = Component(key, set(us))
    return comps


def not_test(u: float, cfg: SplitParams) -> str:
    """Train or validation for a component the date cut keeps out of test: its own hash
    rescaled over the test interval, so the choice is as stable as the hash itself."""
    lo = cfg.train + cfg.validation
    if lo <= 0:
        return "train"
    v = (u - lo) / cfg.test if u >= lo and cfg.test > 0 else u / lo
    return "train" if v < cfg.train / lo else "validation"


def assign(rows: list[dict], cfg: SplitParams, pinned_units: dict[str, str] | None = None,
           pinned_ids: dict[str, str] | None = None,
           test_ok: Sequence[bool] | None = None) -> Assignment:
    """Split of every row (``rows`` carry ``id``, ``group``, ``source``, ``source_id``,
    ``format``, ``difficulty`` and ``dup_cluster``). ``test_ok``: per row, whether it may be
    in test (the date cut); a component goes to test only if every row of it may — the cut
    wins over a test pin (a raised cut means an older test item is no longer held out)."""
    pinned_units, pinned_ids = pinned_units or {}, pinned_ids or {}
    units = [unit_key(r, cfg) for r in rows]
    comps = _components(units, [r.get("dup_cluster") for r in rows])
    comp_of_unit = {u: c for c in comps.values() for u in c.units}
    stats = {"split_pin_conflicts": 0, "split_coverage_moves": 0}
    for i, (r, u) in enumerate(zip(rows, units, strict=True)):
        c = comp_of_unit[u]
        c.rows.append(i)
        if test_ok is not None and not test_ok[i]:
            c.test_ok = False
        fmt = str(r.get("format"))
        c.levels |= {("stratum", fmt, r.get("difficulty") or ""), ("format", fmt), ("all",)}
    for c in comps.values():
        c.u = uniform(c.key, cfg.seed)
        pins = {pinned_units[u] for u in c.units if u in pinned_units}
        pins |= {pinned_ids[rows[i]["id"]] for i in c.rows if rows[i]["id"] in pinned_ids}
        if pins:
            c.pinned = True
            c.split = max(pins, key=_PROTECT.__getitem__)
            stats["split_pin_conflicts"] += len(pins) > 1
        else:
            c.split = hashed_split(c.u, cfg)
        if c.split == "test" and not c.test_ok:
            c.split = not_test(c.u, cfg)
            key = "split_date_cut_pins" if c.pinned else "split_date_cut_moves"
            stats[key] = stats.get(key, 0) + 1
    if test_ok is not None:
        stats["split_date_cut_eligible"] = sum(c.test_ok for c in comps.values())
    stats["split_coverage_moves"] = _cover(list(comps.values()), cfg)
    stats["split_components"] = len(comps)
    stats["split_pinned_components"] = sum(c.pinned for c in comps.values())
    splits = [comp_of_unit[u].split for u in units]
    groups = [comp_of_unit[u].key for u in units]
    return Assignment(splits, groups, {u: comp_of_unit[u].split for u in units}, stats)


def _cover(comps: list[Component], cfg: SplitParams) -> int:
    """The minimum-coverage rule (module docstring); returns the number of moves."""
    by_level: dict[tuple, list[Component]] = defaultdict(list)
    for c in sorted(comps, key=lambda c: c.key):
        for lv in c.levels:
            by_level[lv].append(c)
    big = {lv for lv, cs in by_level.items() if len(cs) >= cfg.min_groups}
    count: dict[tuple, int] = defaultdict(int)
    for lv in big:
        for c in by_level[lv]:
            count[(lv, c.split)] += 1
    mid = cfg.train + cfg.validation / 2
    affinity = {"test": lambda c: -c.u, "train": lambda c: c.u,
                "validation": lambda c: abs(c.u - mid)}
    order = {"stratum": 0, "format": 1, "all": 2}
    moves = 0
    for lv in sorted(big, key=lambda lv: (order[lv[0]], lv)):
        for s in ("test", "validation", "train"):
            if count[(lv, s)]:
                continue
            movable = [c for c in by_level[lv] if not c.pinned and c.split != s
                       and (s != "test" or c.test_ok) and all(
                count[(x, c.split)] > 1 for x in c.levels if x in big)]
            if not movable:
                continue
            c = min(movable, key=lambda c: (affinity[s](c), c.key))
            for x in c.levels & big:
                count[(x, c.split)] -= 1
                count[(x, s)] += 1
            c.split = s
            moves += 1
    return moves
