"""A bounded, stratified, seeded sample of the render table for ``classifier.train: true``.

Why: training decodes every image into float tensors ``augment_copies`` + 1 times (≈ 330 KB
per rendered row at 96 px), so training on a whole corpus of 100k renders would need tens of
GB (``docs/SCALE.md`` §4 #2). A classifier of a dozen diagram types does not need a hundred
thousand images; it needs every type represented. So the stage reads the render shards
twice, one shard at a time:

1. each row's weak label (read off its code,
:func:`~diagramforge.filters.classifier.evidence.code_label`)
   and a seeded priority (a hash of ``seed`` and the row id, so the draw does not depend on
   shard order or size); per label only the ``max_rows`` best priorities are kept;
2. the chosen rows, with their images, in input order.

Quotas are proportional to each label's count (largest remainder), but every label present
keeps at least one row, so rare types are not sampled away; rows whose code gives no label
(nothing to learn from) are left out when sampling. A corpus of at most ``max_rows``
images is taken whole, in input order — exactly what training read before this sample.
Memory: ``max_rows`` images, plus ``labels × max_rows`` (priority, position) pairs.
"""

from __future__ import annotations

import hashlib
import heapq
from collections import Counter
from collections.abc import Iterator

import pyarrow as pa

from diagramforge.filters.classifier.evidence import code_label

COLUMNS = ("id", "format", "code", "image")
"""What training reads of a render row."""


def priority(seed: int, id_: str) -> int:
    """Seeded, order-independent rank of a row in its label's draw (lower is drawn first)."""
    return int.from_bytes(hashlib.blake2b(f"{seed}:{id_}".encode(), digest_size=8).digest(),
                          "big")


def quotas(counts: Counter, total: int) -> dict[str | None, int]:
    """``total`` rows shared out in proportion to ``counts`` (largest remainder), at least one
    per label present, never more than a label has."""
    if sum(counts.values()) <= total:
        return dict(counts)
    counts = Counter({k: v for k, v in counts.items() if k is not None})  # nothing to learn
    n = sum(counts.values())
    if n <= total:
        return dict(counts)
    labels = sorted(counts, key=lambda k: (k is None, str(k)))
    share = {k: counts[k] * total / n for k in labels}
    q = {k: min(counts[k], max(1, int(share[k]))) for k in labels}
    spare = total - sum(q.values())
    for k in sorted(labels, key=lambda k: (-(share[k] - int(share[k])), str(k))):
        if spare <= 0:
            break
        if q[k] < counts[k]:
            q[k] += 1
            spare -= 1
    return q


def stratified_rows(tables: Iterator[pa.Table] | list[pa.Table], again: Iterator[pa.Table],
                    max_rows: int, seed: int, stats: dict | None = None) -> list[dict]:
    """The sample's rows (``COLUMNS``, with an image), in input order.

    ``tables``: the render shards for the first pass; ``again``: the same shards for the
    second (a fresh iterator, so neither pass holds more than one shard). ``stats`` receives
    how many rows had an image and how many were drawn."""
    best: dict[str | None, list[tuple[int, int]]] = {}
    counts: Counter = Counter()
    at = 0
    for t in tables:
        for r in t.to_pylist():
            at += 1
            if not r.get("image"):
                continue
            label = code_label(r)
            counts[label] += 1
            heap = best.setdefault(label, [])
            item = (-priority(seed, str(r.get("id") or at - 1)), at - 1)
            if len(heap) < max_rows:
                heapq.heappush(heap, item)
            elif item > heap[0]:  # a lower priority than the worst kept: replace it
                heapq.heapreplace(heap, item)
    q = quotas(counts, max_rows)
    chosen = {pos for label, heap in best.items()
              for _, pos in sorted(heap, reverse=True)[:q.get(label, 0)]}
    if stats is not None:
        stats.update(with_image=sum(counts.values()), sampled=len(chosen))
    out: list[dict] = []
    at = 0
    for t in again:
        for r in t.to_pylist():
            if at in chosen:
                out.append(r)
            at += 1
    return out
