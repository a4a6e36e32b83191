import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from diagramforge.store.records import RECORD_SCHEMA, empty_record
from diagramforge.store.shards import ShardSet, ShardWriter, remove_temporaries, rows_to_table


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


def _rows(n: int) -> list[dict]:
    return [empty_record(id=f"r{i:03d}", format="svg", code="x" * (100 + i), image=b"\x89" * i)
            for i in range(n)]


@pytest.mark.parametrize("n", [0, 1, 30])
def test_a_shard_under_the_group_budget_is_the_bytes_write_makes(tmp_path, n):
    whole = ShardSet(tmp_path / "whole", RECORD_SCHEMA)
    whole.write(0, _rows(n))
    streamed = ShardSet(tmp_path / "streamed", RECORD_SCHEMA)
    with streamed.writer(0) as w:
        for r in _rows(n):
            w.add([r])
        w.commit()
    assert streamed.path(0).read_bytes() == whole.path(0).read_bytes()
    pq.write_table(rows_to_table(_rows(n), RECORD_SCHEMA), tmp_path / "ref.parquet",
                   compression="zstd")  # how every shard was written before the writer
    assert whole.path(0).read_bytes() == (tmp_path / "ref.parquet").read_bytes()


def test_a_large_shard_is_written_in_row_groups_and_visible_only_when_committed(tmp_path):
    s = ShardSet(tmp_path / "recs", RECORD_SCHEMA)
    rows = _rows(30)
    with ShardWriter(s.path(0), RECORD_SCHEMA, group_bytes=1000) as w:
        for r in rows:
            w.add([r])
        assert w.rows > 0 and w.tmp.exists()  # groups already on disk...
        assert not s.committed(0) and s.indices() == []  # ...but no shard yet
        w.commit()
    meta = pq.ParquetFile(s.path(0)).metadata
    assert meta.num_row_groups > 3 and meta.num_rows == 30
    assert s.read(0).to_pylist() == rows_to_table(rows, RECORD_SCHEMA).to_pylist()
    assert list(s.dir.glob(".*.tmp")) == []


def test_an_uncommitted_writer_leaves_nothing_and_a_killed_ones_temporary_is_removed(tmp_path):
    s = ShardSet(tmp_path / "recs", RECORD_SCHEMA)
    with pytest.raises(RuntimeError), ShardWriter(s.path(0), RECORD_SCHEMA, group_bytes=10) as w:
        w.add(_rows(5))
        raise RuntimeError("accounting error")
    assert not s.committed(0) and list(s.dir.iterdir()) == []
    with ShardWriter(s.path(2), RECORD_SCHEMA) as w:
        w.add(_rows(3))
        w.commit()
        with pytest.raises(RuntimeError, match="already committed"):
            w.commit()  # would write an empty shard over the committed one
        with pytest.raises(RuntimeError, match="already committed"):
            w.add(_rows(1))
    assert s.read(2).num_rows == 3
    s.path(2).unlink()
    killed = ShardWriter(s.path(1), RECORD_SCHEMA, group_bytes=10)
    killed.add(_rows(5))  # a process that dies here never closes or removes its file
    assert killed.tmp.exists()
    assert remove_temporaries(s.dir) == [killed.tmp]
    assert list(s.dir.iterdir()) == []


def test_row_groups_are_read_one_at_a_time_in_shard_order(tmp_path):
    s = ShardSet(tmp_path / "recs", RECORD_SCHEMA)
    rows = _rows(30)
    for i, part in enumerate((rows[:20], rows[20:])):
        with ShardWriter(s.path(i), RECORD_SCHEMA, group_bytes=800) as w:
            w.add(part)
            w.commit()
    groups = list(s.iter_groups(["id", "image"]))
    assert len(groups) > 4 and [i for i, _ in groups] == sorted(i for i, _ in groups)
    assert {i for i, _ in groups} == {0, 1}
    assert [r for _, t in groups for r in t.to_pylist()] == \
        s.read_all(["id", "image"]).to_pylist()
    assert max(t.num_rows for _, t in groups) < 20  # never a whole shard
