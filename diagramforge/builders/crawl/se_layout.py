"""Stack Exchange data dumps in the official layout, for dumps made here.

A site's dump is one ``.7z`` archive holding one XML file per table — ``Posts.xml``,
``Users.xml``, ``PostHistory.xml``… — each ``<tablename>`` of ``<row .../>`` elements with
the fields as attributes (HTML bodies escaped inside them, newlines as ``&#10;``).  The
samples, the tests and the benchmark write their dumps with these functions and read them
through the crawl's own reader; a maintainer can cut a dump of their own (a private mirror,
a subset) the same way.  Writing is deterministic: members in name order, fixed times and
owners, so the same rows give the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from lxml import etree

EPOCH = 1704067200  # 2024-01-01T00:00:00Z: every member's time
FILES = {"posts": "Posts.xml", "users": "Users.xml", "post_history": "PostHistory.xml"}
_CHUNK = 1 << 20


def write_xml(path: Path, table: str, rows: Iterable[dict]) -> Path:
    """``rows`` (attribute dicts; ``None`` values left out) as one dump file, written as
    they come."""
    root = {"posts": "posts", "users": "users", "post_history": "posthistory"}[table]
    with open(path, "wb") as f:
        f.write(f'<?xml version="1.0" encoding="utf-8"?>\n<{root}>\n'.encode())
        for row in rows:
            el = etree.Element("row", {k: str(v) for k, v in row.items() if v is not None})
            f.write(b"  " + etree.tostring(el, encoding="utf-8") + b"\n")
        f.write(f"</{root}>\n".encode())
    return path


def _chunks(path: Path) -> Iterable[bytes]:
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            yield chunk


def pack_7z(files: list[Path], out: Path, level: int = 9) -> Path:
    """The files as a 7z archive (LZMA2, the method of 7-Zip and of the published dumps),
    members in name order."""
    import libarchive

    with libarchive.file_writer(str(out), "7zip",
                                options=f"compression=lzma2,compression-level={level}") as a:
        for p in sorted(files, key=lambda p: p.name):
            a.add_file_from_memory(p.name, p.stat().st_size, _chunks(p), permission=0o644,
                                   mtime=EPOCH, uid=0, gid=0, uname="", gname="")
    return out


def write_dump(out: Path, tables: dict[str, Iterable[dict]], work: Path,
               level: int = 9) -> Path:
    """``tables`` (``posts``, ``users``, ``post_history``: rows) as a site's ``.7z`` dump;
    the XML files are written under ``work`` first (a 7z member's size comes first)."""
    work.mkdir(parents=True, exist_ok=True)
    files = [write_xml(work / FILES[t], t, rows) for t, rows in tables.items()]
    return pack_7z(files, out, level)


def write_tables(root: Path, tables: dict[str, Iterable[dict]],
                 names: dict[str, str] | None = None) -> Path:
    """The same tables as a dataset (one Parquet table per dump file, under the
    ``data_dir`` the crawl's ``tables`` params name), every column a string as in the XML."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = names or {"posts": "Posts", "users": "Users", "post_history": "PostHistory"}
    for table, rows in tables.items():
        rows = list(rows)
        cols = list(dict.fromkeys(k for r in rows for k in r))
        t = pa.table({c: pa.array([None if r.get(c) is None else str(r[c]) for r in rows],
                                  pa.string()) for c in cols})
        (root / names[table]).mkdir(parents=True, exist_ok=True)
        pq.write_table(t, root / names[table] / "train-00000-of-00001.parquet")
    return root
