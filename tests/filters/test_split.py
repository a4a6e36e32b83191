from collections import Counter

import pyarrow as pa

from diagramforge.filters.split import assign_split, split_table
from diagramforge.params import SplitParams
from diagramforge.records import RECORD_SCHEMA, empty_record
from diagramforge.shards import rows_to_table
from diagramforge.stage import StageLog


def table(rows) -> pa.Table:
    return rows_to_table([empty_record(**r) for r in rows], RECORD_SCHEMA)


def test_no_group_in_two_splits_and_duplicates_removed():
    rows = [{"id": f"d{i}", "format": "tikz", "group": f"g{i % 40}", "source_id": f"s{i}"}
            for i in range(400)]
    rows.append({"id": "d1", "format": "tikz", "group": "zz", "source_id": "dup"})
    log = StageLog("split", expands=False)
    out = split_table(table(rows), log, SplitParams())
    assert len(out) == 400 and log.stats.by_reason == {"duplicate": 1}
    per_group = {}
    for r in out:
        per_group.setdefault(r["group"], set()).add(r["split"])
    assert all(len(s) == 1 for s in per_group.values())
    counts = Counter(r["split"] for r in out)
    assert set(counts) == {"train", "validation", "test"}
    assert counts["train"] > counts["validation"]


def test_assignment_is_deterministic_and_seeded():
    cfg = SplitParams(seed=1)
    groups = [f"arxiv:{i}" for i in range(200)]
    first = [assign_split(g, cfg) for g in groups]
    assert first == [assign_split(g, cfg) for g in groups]
    assert first != [assign_split(g, SplitParams(seed=2)) for g in groups]
    share = Counter(first)["train"] / len(groups)
    assert 0.7 < share < 0.9


def test_duplicate_keeps_first_source_in_stable_order():
    rows = [{"id": "x", "format": "tikz", "group": "b", "source_id": "b1"},
            {"id": "x", "format": "tikz", "group": "a", "source_id": "a1"}]
    log = StageLog("split", expands=False)
    out = split_table(table(rows), log, SplitParams())
    assert [r["source_id"] for r in out] == ["a1"]
    assert "a1" in log.rejections[0]["detail"]
