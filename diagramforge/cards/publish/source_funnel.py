"""The funnel per source kind: for arXiv papers, template repositories, PDFs, The Stack and
repository search apart, how many went into each stage, came out, and why the rest did not.

Read from the data, not from counters: each stage's records carry their kind (``kind`` of a
crawl row, ``source`` of a diagram) and every ledger row its ``source``, so the numbers are
the same ones the overall funnel balances, cut by kind.  Only the ``source``/``kind`` and
``reason`` columns are read, so this stays cheap on millions of rows.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pyarrow.parquet as pq

from diagramforge.pipeline import funnel, stage_classes
from diagramforge.store.paths import read_state, stage_paths
from diagramforge.store.records import REJECTION_SCHEMA
from diagramforge.store.shards import ShardSet

if TYPE_CHECKING:
    from diagramforge.store.paths import ProjectSettings

UNKNOWN_KIND = "(unknown)"


@dataclass
class KindRow:
    stage: str
    n_in: int = 0
    n_out: int = 0
    reasons: Counter = field(default_factory=Counter)

    @property
    def rejected(self) -> int:
        return sum(self.reasons.values())


def _counts(shards: ShardSet, column: str) -> Counter:
    out: Counter = Counter()
    for i in shards.indices():
        path = shards.path(i)
        if column not in pq.ParquetFile(path).schema_arrow.names:
            continue
        out.update(pq.read_table(path, columns=[column]).column(column).to_pylist())
    return Counter({(k or UNKNOWN_KIND): v for k, v in out.items()})


def _ledger(shards: ShardSet) -> dict[str, Counter]:
    by: dict[str, Counter] = defaultdict(Counter)
    for i in shards.indices():
        path = shards.path(i)
        names = pq.ParquetFile(path).schema_arrow.names
        cols = ["reason"] + (["source"] if "source" in names else [])
        t = pq.read_table(path, columns=cols).to_pydict()
        kinds = t.get("source") or [None] * len(t["reason"])
        for k, reason in zip(kinds, t["reason"], strict=True):
            by[k or UNKNOWN_KIND][reason] += 1
    return by


def source_funnel(params: ProjectSettings) -> dict[str, list[KindRow]]:
    """``{kind: [KindRow per funnel stage that completed]}`` in pipeline order."""
    classes = stage_classes()
    out: dict[str, list[KindRow]] = defaultdict(list)
    previous: Counter | None = None
    for name in funnel():
        if not read_state(params, name).get("complete"):
            break
        cls = classes[name]
        paths = stage_paths(params, name)
        schema = cls.output_schema
        column = "kind" if "kind" in schema.names else "source"
        kept = _counts(ShardSet(paths.records, schema), column)
        rejected = _ledger(ShardSet(paths.rejections, REJECTION_SCHEMA))
        kinds = set(kept) | set(rejected) | set(previous or ())
        for kind in sorted(kinds):
            reasons = rejected.get(kind, Counter())
            n_in = previous.get(kind, 0) if previous is not None else \
                kept.get(kind, 0) + sum(reasons.values())
            out[kind].append(KindRow(name, n_in, kept.get(kind, 0), reasons))
        previous = kept
    return dict(out)


def format_source_funnel(per_kind: dict[str, list[KindRow]]) -> str:
    """Plain-text table: one block per source kind (also embedded in the dataset card)."""
    if not per_kind:
        return "funnel per source kind: no stage has completed"
    lines = [f"{'source kind':<12} {'stage':<9} {'in':>7} {'out':>7} {'rejected':>9}  reasons"]
    for kind, rows in per_kind.items():
        for r in rows:
            reasons = ", ".join(f"{k}={v}" for k, v in sorted(
                r.reasons.items(), key=lambda kv: (-kv[1], kv[0])))
            lines.append(f"{kind:<12} {r.stage:<9} {r.n_in:>7} {r.n_out:>7} {r.rejected:>9}"
                         f"  {reasons}")
        lines.append(f"{kind:<12} {rows[0].n_in} listed → {rows[-1].n_out} kept after "
                     f"{rows[-1].stage}")
    return "\n".join(lines)
