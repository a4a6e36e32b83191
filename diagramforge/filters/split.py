"""The ``split`` stage: exact de-duplication, then leakage-safe train/validation/test.

Records are de-duplicated by content id (the same picture in two papers is kept once, from
the first source in a stable order) *before* splitting, so no diagram is in two splits.
Splits are assigned per ``group`` (paper or repository) by a seeded hash, so no paper is in
two splits and a paper keeps its split when the corpus grows — a new version never moves
a test paper into train.
"""

from __future__ import annotations

import hashlib

import pyarrow as pa

from diagramforge.params import SplitParams
from diagramforge.records import Rejection
from diagramforge.stage import StageLog, TableStage

SPLITS = ("train", "validation", "test")


def assign_split(group: str, cfg: SplitParams) -> str:
    """Deterministic split of a group from a seeded hash (uniform in [0, 1))."""
    h = hashlib.sha256(f"{cfg.seed}:{group}".encode()).digest()
    u = int.from_bytes(h[:8], "big") / 2**64
    if u < cfg.train:
        return "train"
    if u < cfg.train + cfg.validation:
        return "validation"
    return "test"


def split_table(table: pa.Table, log_: StageLog, cfg: SplitParams) -> list[dict]:
    rows = sorted(table.to_pylist(), key=lambda r: (r.get("group") or "", r.get("source_id")
                                                    or "", r["id"]))
    first: dict[str, dict] = {}
    out = []
    for r in rows:
        if r["id"] in first:
            log_.reject(Rejection(str(r.get("source_id") or r["id"]), "duplicate",
                                  f"same diagram as {first[r['id']].get('source_id')}",
                                  id=r["id"]))
            continue
        first[r["id"]] = r
        r["dup_cluster"] = r["id"]
        r["split"] = assign_split(r.get("group") or r["id"], cfg)
        out.append(r)
    for k in SPLITS:
        log_.stats.extra[f"split_{k}"] = sum(1 for r in out if r["split"] == k)
    return out


class SplitStage(TableStage):
    """Remove exact duplicates, then assign train/validation/test per paper or repository
    (seeded hash), so no source is in two splits."""

    name = "split"
    upstream = "filter"
    reads = ("id", "group", "source_id")
    writes = ("split", "dup_cluster")
    param_sections = ("split",)

    def run_table(self, table: pa.Table | None, log: StageLog) -> list[dict]:
        assert table is not None
        return split_table(table, log, self.params.split)
