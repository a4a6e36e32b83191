"""Size-capped Parquet files for one config × split, appended row by row.

Why not ``Dataset.to_parquet``: it wants the whole split in memory and writes one file.
This writes what ``datasets`` would (same Arrow schema with its ``huggingface`` features
metadata, same per-column compression and encodings, content-defined chunking, row groups
of at most ``row_group_bytes``) but for one thing: an ``Image`` column's bytes are
dictionary-encoded (:func:`column_options`), so a picture that several rows of a row group
show — the diagram every one of its eight QA questions is asked about — is stored once, and
each row still reads back its own ``Image``. A split of any size holds one row group in
memory and rolls over to a new file past ``max_bytes`` or ``max_rows``. Files are written under
temporary names and renamed ``{split}-0000k-of-0000n.parquet`` when the split is closed
(``n`` is only known then), which is what the card's ``{split}-*.parquet`` globs and
``datasets`` expect.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from diagramforge.cards.publish.manifest import KnownDigest


def column_options(features, schema: pa.Schema, row_group_bytes: int  # noqa: ANN001
                   ) -> dict:
    """``pq.ParquetWriter`` options: ``datasets``' own per-column ones, with every embedded
    image's ``bytes`` leaf moved from PLAIN to a dictionary (still uncompressed: a PNG or
    JPEG does not compress again). The dictionary may grow to the row group's size, so it
    never falls back to PLAIN midway; a row group of distinct pictures costs its index
    column, 4 bytes or less per row."""
    from datasets.arrow_writer import get_parquet_column_options

    opts = get_parquet_column_options(features, schema)
    images = [leaf for leaf, enc in opts["column_encoding"].items()
              if enc == "PLAIN" and leaf.endswith(".bytes")]
    opts["column_encoding"] = {k: v for k, v in opts["column_encoding"].items()
                               if k not in images}
    opts["use_dictionary"] = [*opts["use_dictionary"], *images]
    opts["dictionary_pagesize_limit"] = max(1 << 20, 2 * row_group_bytes)
    return opts


class SplitWriter:
    """Write ``<directory>/<split>-*.parquet`` from rows given in batches."""

    def __init__(self, directory: Path, split: str, features,  # noqa: ANN001 - Features
                 encode, max_bytes: int, max_rows: int,  # noqa: ANN001 - Callable
                 row_group_bytes: int = 32 * 1024 * 1024):
        self.dir, self.split, self.features, self.encode = Path(directory), split, features, encode
        self.max_bytes, self.max_rows, self.row_group_bytes = max_bytes, max_rows, \
            row_group_bytes
        self.rows = 0
        self._buffer: list[dict] = []
        self._buffer_bytes = 0
        self._writer: pq.ParquetWriter | None = None
        self._sink = None
        self._file_rows = 0
        self._parts: list[Path] = []

    def _open(self) -> None:
        from datasets import config

        schema = self.features.arrow_schema
        path = self.dir / f".{self.split}-{len(self._parts):05d}.part"
        path.parent.mkdir(parents=True, exist_ok=True)
        self._parts.append(path)
        self._sink = open(path, "wb")  # noqa: SIM115 - closed in _close_file
        self._writer = pq.ParquetWriter(
            self._sink, schema=schema, use_content_defined_chunking=config.DEFAULT_CDC_OPTIONS,
            write_page_index=True,
            **column_options(self.features, schema, self.row_group_bytes))
        self._file_rows = 0

    def _table(self, rows: list[dict]) -> pa.Table:
        from datasets import Dataset

        cols = self.encode(rows)
        return Dataset.from_dict(cols, features=self.features).data.table

    def add(self, rows: list[dict]) -> None:
        """Buffer ``rows`` (already in published column form); flush full row groups."""
        for row in rows:
            self._buffer.append(row)
            self._buffer_bytes += sum(len(v) if isinstance(v, bytes | str | KnownDigest)
                                      else 8 for v in row.values())
            self.rows += 1
            if (self._buffer_bytes >= self.row_group_bytes
                    or self._file_rows + len(self._buffer) >= self.max_rows):
                self._flush()

    def _flush(self) -> None:
        if not self._buffer:
            return
        if self._writer is None:
            self._open()
        table = self._table(self._buffer)
        self._writer.write_table(table)
        self._file_rows += table.num_rows
        self._buffer, self._buffer_bytes = [], 0
        if self._sink.tell() >= self.max_bytes or self._file_rows >= self.max_rows:
            self._close_file()

    def _close_file(self) -> None:
        from datasets import config

        self._writer.add_key_value_metadata(
            {"content_defined_chunking": json.dumps(config.DEFAULT_CDC_OPTIONS)})
        self._writer.close()
        self._sink.close()
        self._writer = self._sink = None

    def close(self) -> list[Path]:
        """Finish the split; return its files, named ``{split}-0000k-of-0000n.parquet``."""
        self._flush()
        if self._writer is not None:
            self._close_file()
        n = len(self._parts)
        out = []
        for k, part in enumerate(self._parts):
            final = self.dir / f"{self.split}-{k:05d}-of-{n:05d}.parquet"
            part.rename(final)
            out.append(final)
        return out
