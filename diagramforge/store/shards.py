"""Sharded Parquet with atomic commits.

A stage writes output shard *i* from input shard *i*, so a killed stage can resume at the
first shard that was not committed and still produce byte-for-byte the output of an
uninterrupted run.  A shard is committed by writing ``*.tmp`` and renaming it into place;
the rename is the commit point, so a reader never sees half a file.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from diagramforge.store import atomic

SHARD_PATTERN = "part-{:05d}.parquet"


def shard_name(index: int) -> str:
    return SHARD_PATTERN.format(index)


def remove_temporaries(directory: Path) -> list[Path]:
    """Delete what killed writers left in ``directory`` (``atomic.temp_path``'s hidden
    ``.*.tmp``): a resumed stage rewrites those files, and a stray temporary would be part
    of the DVC-tracked output."""
    gone = sorted(Path(directory).glob(".*.tmp")) if Path(directory).exists() else []
    for p in gone:
        p.unlink(missing_ok=True)
    return gone


def _released(read: Callable[[], pa.Table]) -> pa.Table:
    """``read()`` with Arrow's pool asked to give back freed memory before and after:
    mimalloc keeps freed pages for reuse, and with reads of unequal size (an augment
    shard's PNGs) the whole-table stages' RSS grew with the corpus — validate 1.1 → 2.6 GB
    from 100 to 1k sources, 0.8 GB with the release."""
    pool = pa.default_memory_pool()
    pool.release_unused()  # what the consumer freed of the last read
    table = read()
    pool.release_unused()  # the decoder's buffers, freed on its threads
    return table


def rows_to_table(rows: Sequence[dict], schema: pa.Schema) -> pa.Table:
    """Build a table with exactly ``schema``'s columns (missing keys become null)."""
    cols = {name: [r.get(name) for r in rows] for name in schema.names}
    return pa.Table.from_pydict(cols, schema=schema)


ROW_GROUP_BYTES = 32 << 20
"""A :class:`ShardWriter` writes a row group whenever its pending rows' strings and bytes
reach this. A shard smaller than this is one row group, byte for byte what
``pq.write_table`` makes of it; a larger one (an augment shard of 64 diagrams' sketches and
scans: 262 MB at 1k sources) never sits whole in the driver's memory."""


def _payload(row: dict) -> int:
    """A row's size for the group budget: its top-level strings and bytes (code, PNGs),
    which is where a record's size is; cheap and a function of the row alone."""
    return sum(len(v) for v in row.values() if isinstance(v, str | bytes | bytearray))


class ShardWriter:
    """One output shard written as its rows arrive and committed by a rename.

    Why: a mapped stage's driver used to collect every record of a shard and then build one
    table of them, so its peak followed the largest output shard (augment's driver: 0.6 GB
    of records, 1.6 GB while writing them, at 1k sources). Here rows become a row group
    every :data:`ROW_GROUP_BYTES`; nothing is visible at ``path`` until :meth:`commit`. A
    writer left uncommitted (an exception, an accounting error) removes its temporary file;
    a killed one cannot, and the next run removes it (:func:`remove_temporaries`)."""

    def __init__(self, path: Path, schema: pa.Schema, group_bytes: int | None = None):
        self.path, self.schema = Path(path), schema
        self.group_bytes = group_bytes or ROW_GROUP_BYTES
        self.tmp = atomic.temp_path(self.path)
        self.rows = 0
        self._pending: list[dict] = []
        self._bytes = 0
        self._writer: pq.ParquetWriter | None = None
        self._done = False

    def add(self, rows: Sequence[dict]) -> None:
        if self._done:
            raise RuntimeError(f"{self.path.name}: already committed or aborted")
        for row in rows:
            self._pending.append(row)
            self._bytes += _payload(row)
            if self._bytes >= self.group_bytes:
                self._flush()

    def _flush(self) -> None:
        table = rows_to_table(self._pending, self.schema)
        if self._writer is None:  # as pq.write_table does: same bytes for one group
            self._writer = pq.ParquetWriter(self.tmp, table.schema, compression="zstd")
        self._writer.write_table(table)
        self.rows += len(self._pending)
        self._pending, self._bytes = [], 0

    def commit(self) -> Path:
        if self._done:  # a second commit would write an empty shard over this one
            raise RuntimeError(f"{self.path.name}: already committed or aborted")
        if self._pending or self._writer is None:  # an empty shard still has its schema
            self._flush()
        assert self._writer is not None
        self._writer.close()
        self._writer, self._done = None, True
        return atomic.commit(self.tmp, self.path)

    def abort(self) -> None:
        """Drop the temporary file (nothing after a commit); the error that led here, if
        any, is not hidden by one from closing the writer."""
        self._done = True
        try:
            if self._writer is not None:
                self._writer.close()
        finally:
            self._writer = None
            self.tmp.unlink(missing_ok=True)

    def __enter__(self) -> ShardWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.abort()  # after commit: nothing left to remove


class ShardSet:
    """A directory of ``part-NNNNN.parquet`` shards sharing one schema."""

    def __init__(self, directory: Path, schema: pa.Schema):
        self.dir = Path(directory)
        self.schema = schema

    def path(self, index: int) -> Path:
        return self.dir / shard_name(index)

    def committed(self, index: int) -> bool:
        return self.path(index).exists()

    def indices(self) -> list[int]:
        if not self.dir.exists():
            return []
        return sorted(int(p.stem.split("-")[1]) for p in self.dir.glob("part-*.parquet"))

    def write(self, index: int, rows: Sequence[dict]) -> Path:
        """Shard ``index`` from ``rows`` at once: the one writer (:meth:`writer`), so a
        shard is the same bytes however its rows arrived."""
        with self.writer(index) as w:
            w.add(rows)
            return w.commit()

    def writer(self, index: int) -> ShardWriter:
        """Shard ``index`` written row group by row group (:class:`ShardWriter`)."""
        return ShardWriter(self.path(index), self.schema)

    def read(self, index: int, columns: Sequence[str] | None = None) -> pa.Table:
        return pq.read_table(self.path(index), columns=columns, schema=self.schema)

    def iter_tables(self, columns: Sequence[str] | None = None) -> Iterator[tuple[int, pa.Table]]:
        """Each shard in turn, Arrow's freed memory released around each (:func:`_released`)."""
        for i in self.indices():
            yield i, _released(lambda i=i: self.read(i, columns))

    def iter_groups(self, columns: Sequence[str] | None = None
                    ) -> Iterator[tuple[int, pa.Table]]:
        """Each row group of each shard in turn, with its shard's index: for a reader that
        goes row by row, the memory of one row group rather than of the largest shard (an
        augment shard of PNGs is 262 MB at 1k sources). A mapped stage's groups are at most
        about :data:`ROW_GROUP_BYTES`; a whole-table stage's shard is one group."""
        for i in self.indices():
            with pq.ParquetFile(self.path(i)) as pf:
                for g in range(pf.num_row_groups):
                    yield i, _released(lambda pf=pf, g=g: pf.read_row_group(g, columns=columns))

    def read_all(self, columns: Sequence[str] | None = None) -> pa.Table:
        tables = [t for _, t in self.iter_tables(columns)]
        if not tables:
            schema = self.schema if columns is None else pa.schema(
                [self.schema.field(c) for c in columns]
            )
            return schema.empty_table()
        return pa.concat_tables(tables)

    def count(self) -> int:
        return sum(pq.ParquetFile(self.path(i)).metadata.num_rows for i in self.indices())

    def iter_rows(self, columns: Sequence[str] | None = None) -> Iterator[dict]:
        """Row by row as dicts, one shard in memory at a time."""
        for _, t in self.iter_tables(columns):
            yield from t.to_pylist()

    def clear(self) -> None:
        clear_dir(self.dir)


def clear_dir(directory: Path) -> None:
    """Empty ``directory`` (creating it if needed)."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True, exist_ok=True)


class Upstream:
    """A whole-table stage's input, read lazily: shard by shard, or a few columns at once.

    Why: a stage handed one ``pa.Table`` holds every column of every row (PNGs included)
    before it starts, which is what made the whole-table stages grow with the corpus. A
    stage that declares ``streams_input`` gets this instead and decides what it holds:
    small columns for a global decision (ids, groups, hashes), then the shards again, one
    at a time, to write its rows."""

    def __init__(self, shards: ShardSet, columns: Sequence[str] | None = None):
        self.shards = shards
        self.columns = list(columns) if columns is not None else None
        self._num_rows: int | None = None

    @property
    def schema(self) -> pa.Schema:
        if self.columns is None:
            return self.shards.schema
        return pa.schema([self.shards.schema.field(c) for c in self.columns])

    @property
    def column_names(self) -> list[str]:
        return list(self.schema.names)

    @property
    def num_rows(self) -> int:
        """From the shards' footers: no data is read."""
        if self._num_rows is None:
            self._num_rows = self.shards.count()
        return self._num_rows

    def _cols(self, columns: Sequence[str] | None) -> list[str] | None:
        if columns is None:
            return self.columns
        missing = [c for c in columns if c not in self.column_names]
        if missing:
            raise KeyError(f"upstream has no columns {missing}")
        return list(columns)

    def tables(self, columns: Sequence[str] | None = None) -> Iterator[pa.Table]:
        """Each shard as a table (of ``columns``), in shard order."""
        for _, t in self.shards.iter_tables(self._cols(columns)):
            yield t

    def rows(self, columns: Sequence[str] | None = None) -> Iterator[dict]:
        """Every row as a dict, one shard in memory at a time."""
        for t in self.tables(columns):
            yield from t.to_pylist()

    def read(self, columns: Sequence[str]) -> pa.Table:
        """The named (small) columns of every row as one table: for global decisions."""
        return self.shards.read_all(self._cols(columns))
