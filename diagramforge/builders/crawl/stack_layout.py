"""The Stack v1's on-disk layout and row schema, for archives made here.

``bigcode/the-stack`` and ``the-stack-dedup`` store each language as Parquet shards under
``data/<language>/`` (``data/svg``, ``data/xml``, ``data/tex``, ``data/graphviz-(dot)``,
``data/markdown``), one row per file with the columns of :data:`STACK_V1`.  Tests and the
benchmarks write local archives in this layout and load them through the very
``load_dataset(..., streaming=True)`` call the crawl makes on the Hub; a maintainer can cut
their own archive (a private mirror, a sample) the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

_EVENTS = ("stars", "issues", "forks")
STACK_V1 = pa.schema(
    [pa.field("hexsha", pa.string()), pa.field("size", pa.int64()),
     pa.field("ext", pa.string()), pa.field("lang", pa.string())]
    + [f for ev in _EVENTS for f in (
        pa.field(f"max_{ev}_repo_path", pa.string()),
        pa.field(f"max_{ev}_repo_name", pa.string()),
        pa.field(f"max_{ev}_repo_head_hexsha", pa.string()),
        pa.field(f"max_{ev}_repo_licenses", pa.list_(pa.string())),
        pa.field(f"max_{ev}_count", pa.int64()),
        pa.field(f"max_{ev}_repo_{ev}_event_min_datetime", pa.string()),
        pa.field(f"max_{ev}_repo_{ev}_event_max_datetime", pa.string()))]
    + [pa.field("content", pa.string()), pa.field("avg_line_length", pa.float64()),
       pa.field("max_line_length", pa.int64()), pa.field("alphanum_fraction", pa.float64())]
)
"""Columns of The Stack v1 (as its dataset card lists them)."""


def v1_row(repo: str, path: str, content: str | None, licences: list[str] | None,
           commit: str | None = None, stars: int | None = 1, lang: str = "") -> dict:
    """A row as The Stack v1 has it (the same repository holds the max stars, issues and
    forks, as for most files)."""
    commit = commit or hashlib.sha1(repo.encode()).hexdigest()
    text = content or ""
    blob = hashlib.sha1(b"blob %d\0" % len(text.encode()) + text.encode()).hexdigest()
    lines = text.splitlines() or [""]
    row = {"hexsha": blob, "size": len(text.encode()), "ext": path.rsplit(".", 1)[-1],
           "lang": lang, "content": content,
           "avg_line_length": sum(map(len, lines)) / len(lines),
           "max_line_length": max(map(len, lines)),
           "alphanum_fraction": sum(c.isalnum() for c in text) / max(1, len(text))}
    for ev in _EVENTS:
        row.update({f"max_{ev}_repo_path": path, f"max_{ev}_repo_name": repo,
                    f"max_{ev}_repo_head_hexsha": commit, f"max_{ev}_repo_licenses": licences,
                    f"max_{ev}_count": stars})
    return row


def write_subset(root: Path, data_dir: str, rows: Iterable[dict], rows_per_shard: int
                 ) -> list[Path]:
    """``rows`` as ``<root>/<data_dir>/train-NNNNN-of-MMMMM.parquet`` shards."""
    rows = list(rows)
    n = max(1, -(-len(rows) // rows_per_shard))
    out = []
    (root / data_dir).mkdir(parents=True, exist_ok=True)
    for k in range(n):
        part = rows[k * rows_per_shard:(k + 1) * rows_per_shard]
        p = root / data_dir / f"train-{k:05d}-of-{n:05d}.parquet"
        pq.write_table(pa.Table.from_pylist(part, schema=STACK_V1), p, row_group_size=1000)
        out.append(p)
    return out
