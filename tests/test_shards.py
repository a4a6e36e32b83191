import os

import pyarrow as pa
import pytest

from diagramforge.records import RECORD_SCHEMA, empty_record
from diagramforge.shards import ShardSet, rows_to_table


def test_roundtrip_and_order(tmp_path):
    s = ShardSet(tmp_path / "recs", RECORD_SCHEMA)
    s.write(1, [empty_record(id="b", format="tikz", code="y")])
    s.write(0, [empty_record(id="a", format="tikz", code="x", width=3)])
    assert s.indices() == [0, 1]
    t = s.read_all()
    assert t.column("id").to_pylist() == ["a", "b"]
    assert t.schema.equals(RECORD_SCHEMA)
    assert s.count() == 2


def test_rows_missing_columns_become_null_and_types_are_enforced():
    t = rows_to_table([{"id": "a", "format": "svg"}], RECORD_SCHEMA)
    assert t.column("code").to_pylist() == [None]
    with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError)):
        rows_to_table([{"id": "a", "format": "svg", "width": "wide"}], RECORD_SCHEMA)


def test_failed_commit_leaves_no_shard(tmp_path, monkeypatch):
    s = ShardSet(tmp_path / "recs", RECORD_SCHEMA)

    def boom(src, dst):
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        s.write(0, [empty_record(id="a", format="tikz")])
    assert not s.committed(0)
    assert s.indices() == []


def test_clear(tmp_path):
    s = ShardSet(tmp_path / "recs", RECORD_SCHEMA)
    s.write(0, [empty_record(id="a", format="tikz")])
    s.clear()
    assert s.indices() == [] and (tmp_path / "recs").is_dir()
