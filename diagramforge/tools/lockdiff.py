"""Compare two ``dvc.lock`` files: is the dataset a function of the repository?

``dvc repro`` on a fresh clone must reproduce every ``data/`` hash of the committed
``dvc.lock``. Comparing two locks stage by stage says where it does not: a stage whose
inputs (code, params, upstream outputs) hash the same in both but whose outputs differ made
something depend on the machine, the directory or the worker count — timings, host names,
absolute paths, thread-dependent floats. A stage whose inputs differ is *stale* (someone
changed code or params since the lock was committed) and says nothing either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import yaml


class Verdict(StrEnum):
    SAME = "same"
    """Same inputs, same outputs — or only the stage's code changed and its outputs did
    not (a move: ``deps`` lists the code files)."""
    DIFFERS = "differs"
    """Same inputs, other outputs: the stage is not a function of the repository."""
    STALE = "stale"
    """Other inputs: nothing to conclude."""
    MISSING = "missing"
    """In one lock only."""


@dataclass
class StageDiff:
    stage: str
    verdict: Verdict
    outs: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    """Output path → (md5 in the first lock, md5 in the second), for outputs that differ."""
    deps: list[str] = field(default_factory=list)
    """Inputs (paths, or ``params:<key>``) that differ, for a stale stage."""


def _hashes(entries: list[dict] | None, prefix: str | None = None) -> dict[str, str | None]:
    return {e["path"]: e.get("md5") for e in entries or []
            if prefix is None or str(e["path"]).startswith(prefix)}


def _params(stage: dict) -> dict[str, object]:
    out: dict[str, object] = {}
    for file, values in (stage.get("params") or {}).items():
        for key, value in (values or {}).items():
            out[f"params:{file}:{key}"] = value
    return out


def compare(a: dict, b: dict, outputs: str = "data/") -> list[StageDiff]:
    """Stage by stage, in ``a``'s order then ``b``'s extra stages."""
    sa, sb = a.get("stages") or {}, b.get("stages") or {}
    result = []
    for name in list(sa) + [n for n in sb if n not in sa]:
        if name not in sa or name not in sb:
            result.append(StageDiff(name, Verdict.MISSING))
            continue
        x, y = sa[name], sb[name]
        dx, dy = {**_hashes(x.get("deps")), **_params(x)}, {**_hashes(y.get("deps")),
                                                           **_params(y)}
        stale = sorted(k for k in set(dx) | set(dy) if dx.get(k) != dy.get(k))
        ox, oy = _hashes(x.get("outs"), outputs), _hashes(y.get("outs"), outputs)
        differ = {k: (ox.get(k), oy.get(k)) for k in sorted(set(ox) | set(oy))
                  if ox.get(k) != oy.get(k)}
        # only the code changed and every output is equal: a refactor, proved (issue 39);
        # a stage whose params or data inputs changed proves nothing either way
        moved = bool(stale) and not differ and not any(
            k.startswith(("params:", outputs)) for k in stale)
        if moved:
            result.append(StageDiff(name, Verdict.SAME, deps=stale))
        elif stale:
            result.append(StageDiff(name, Verdict.STALE, differ, stale))
        else:
            result.append(StageDiff(name, Verdict.DIFFERS if differ else Verdict.SAME, differ))
    return result


def compare_files(a: Path, b: Path, outputs: str = "data/") -> list[StageDiff]:
    return compare(yaml.safe_load(a.read_text()), yaml.safe_load(b.read_text()), outputs)


def report(diffs: list[StageDiff]) -> str:
    """One line per stage; what differs under it."""
    lines = []
    for d in diffs:
        lines.append(f"{d.stage:<17} {d.verdict}")
        for path, (x, y) in d.outs.items():
            lines.append(f"    {path}: {x} → {y}")
        if d.verdict == Verdict.SAME and d.deps:
            lines.append(f"    code changed, outputs equal: {len(d.deps)} file(s)")
        if d.verdict == Verdict.STALE:
            shown = ", ".join(d.deps[:6]) + (f" (+{len(d.deps) - 6})" if len(d.deps) > 6
                                              else "")
            lines.append(f"    inputs changed: {shown}")
    return "\n".join(lines)
