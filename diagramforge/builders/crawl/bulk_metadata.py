"""Licences and metadata for the bulk crawl: an on-disk index built once, read per chunk.

A chunk says nothing about its papers but their ids, so every member is looked up here —
its licence first, so a paper the licence filter would drop is skipped before it is
unpacked. The sources are arXiv's public metadata snapshot (JSON lines, optionally
compressed, or Parquet: ``id``, ``title``, ``authors_parsed``/``authors``, ``categories``,
``license``, ``versions``, ``update_date``) or an OAI-PMH harvest (``arXiv`` format, through
the crawler's polite session). Either is streamed into SQLite (stdlib, one file, read-only
lookups from every worker), so memory stays flat at ~3M papers; the index is named by a
digest of its source and reused until the source changes.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path

import fsspec

from diagramforge.builders.crawl.arxiv import Entry
from diagramforge.builders.crawl.bulk_manifest import Chunk, key_of, yymm_of
from diagramforge.store import atomic

_COLUMNS = ("key", "id", "yymm", "title", "authors", "categories", "created", "licence_url",
            "versions", "datestamp")
_BATCH = 5000


@dataclass(frozen=True)
class Paper:
    """What the index knows of one paper: its OAI entry plus its versions' dates."""

    entry: Entry
    versions: list[tuple[str, str]]
    """``[(number, ISO datetime UTC)]`` oldest first; empty when the source has none (OAI)."""

    def version_at(self, timestamp: str) -> str | None:
        """The version a chunk made at ``timestamp`` holds: the newest one created by then
        (a chunk is a snapshot of each paper's latest version when it was built); the
        newest of all if the dates disagree; None when the source lists no versions."""
        if not self.versions:
            return None
        when = timestamp.replace(" ", "T")
        made = [n for n, created in self.versions if created <= when]
        return made[-1] if made else self.versions[-1][0]


def _norm(text: object) -> str:
    return " ".join(str(text or "").split())


def _iso(rfc2822: str) -> str:
    try:
        return parsedate_to_datetime(rfc2822).strftime("%Y-%m-%dT%H:%M:%S")
    except (TypeError, ValueError):
        return ""


def _versions(raw: object) -> list[tuple[str, str]]:
    if isinstance(raw, str):
        raw = json.loads(raw) if raw.strip().startswith("[") else []
    out = []
    for v in raw or []:
        num = str(v.get("version", "")).lstrip("v")
        if num.isdigit():
            out.append((num, _iso(v.get("created", ""))))
    return sorted(out, key=lambda nv: int(nv[0]))


def _authors(rec: dict) -> list[str]:
    parsed = rec.get("authors_parsed")
    if isinstance(parsed, str):
        parsed = json.loads(parsed)
    if parsed is not None and len(parsed):
        # [keyname, forenames, suffix], as OAI's <keyname>/<forenames>: "forenames keyname"
        return [_norm(" ".join(p for p in (a[1], a[0], *a[2:]) if p)) for a in parsed]
    return [_norm(a) for a in str(rec.get("authors") or "").replace(" and ", ",").split(",")
            if _norm(a)]


def snapshot_row(rec: dict) -> tuple:
    """One snapshot record as an index row."""
    aid = str(rec["id"]).strip()
    versions = _versions(rec.get("versions"))
    cats = rec.get("categories") or ""
    if not isinstance(cats, str):
        cats = " ".join(cats)
    return (key_of(aid), aid, yymm_of(aid), _norm(rec.get("title")),
            json.dumps(_authors(rec)), " ".join(cats.split()),
            versions[0][1][:10] if versions else "", rec.get("license") or None,
            json.dumps(versions), rec.get("update_date") or "")


def entry_row(e: Entry) -> tuple:
    """An OAI-PMH entry (no versions listed) as an index row."""
    return (key_of(e.id), e.id, yymm_of(e.id), e.title, json.dumps(e.authors),
            " ".join(e.categories), e.created, e.licence_url, "[]", e.datestamp)


def read_snapshot(url: str, storage_options: dict | None = None) -> Iterator[dict]:
    """Records of a snapshot, streamed (Parquet by row group, JSON lines by line)."""
    opts = storage_options or {}
    if url.endswith(".parquet"):
        import pyarrow.parquet as pq

        with fsspec.open(url, "rb", **opts) as fh:
            for batch in pq.ParquetFile(fh).iter_batches(batch_size=_BATCH):
                yield from batch.to_pylist()
        return
    with fsspec.open(url, "rt", compression="infer", encoding="utf-8", **opts) as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def source_digest(url: str, storage_options: dict | None = None) -> str:
    """Names an index after its source: path, size and modification time (or ETag)."""
    fs, path = fsspec.core.url_to_fs(url, **(storage_options or {}))
    info = fs.info(path)
    ident = [url, info.get("size"), info.get("ETag") or info.get("mtime")
             or str(info.get("LastModified"))]
    return hashlib.sha256(json.dumps(ident, default=str).encode()).hexdigest()[:16]


def build_index(rows: Iterable[tuple], dest: Path) -> Path:
    """Write an index of ``rows`` to ``dest`` atomically (a killed build leaves no index)."""

    def write(tmp: Path) -> None:
        con = sqlite3.connect(tmp)
        con.execute(f"CREATE TABLE papers ({', '.join(_COLUMNS)}, PRIMARY KEY (yymm, key))"
                    " WITHOUT ROWID")
        batch: list[tuple] = []
        sql = f"INSERT OR REPLACE INTO papers VALUES ({', '.join('?' * len(_COLUMNS))})"
        for row in rows:
            batch.append(row)
            if len(batch) >= _BATCH:
                con.executemany(sql, batch)
                batch.clear()
        con.executemany(sql, batch)
        con.commit()
        con.close()

    return atomic.write_with(dest, write)


class MetadataIndex:
    """Read-only lookups of the papers of one chunk (opened once per worker)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                   check_same_thread=False)

    def for_chunk(self, chunk: Chunk) -> dict[str, Paper]:
        """Papers of the chunk's month whose chunk key lies in its item range, by key."""
        cur = self.con.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM papers WHERE yymm = ? AND key BETWEEN ? AND ?",
            (chunk.yymm, chunk.first_item, chunk.last_item))
        out = {}
        for row in cur:
            r = dict(zip(_COLUMNS, row, strict=True))
            out[r["key"]] = Paper(
                entry=Entry(id=r["id"], title=r["title"], authors=json.loads(r["authors"]),
                            categories=r["categories"].split(), created=r["created"],
                            licence_url=r["licence_url"], datestamp=r["datestamp"]),
                versions=[tuple(v) for v in json.loads(r["versions"])])
        return out

    def __len__(self) -> int:
        return self.con.execute("SELECT COUNT(*) FROM papers").fetchone()[0]

    def close(self) -> None:
        self.con.close()
