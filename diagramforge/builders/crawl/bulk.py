"""The bulk arXiv crawl: the source archive chunk by chunk, spread over the executor.

``crawl.arxiv.bulk.url`` points at arXiv's bulk source archive (``s3://arxiv/src/``,
requester pays) or any fsspec URL laid out like it. The driver reads the manifest, keeps the
chunks of the selected months and builds (once) the metadata index; each chunk is one unit
of work for the stage's executor (``runner.executor``: the local pool or Dask), so workers
fetch different chunks at once and each holds at most one chunk on disk. A worker fetches
its chunk (resumable, md5-verified: :mod:`bulk_fetch`), walks the tar member by member —
looking every paper up in the index and skipping, before unpacking it, one that is out of
scope or whose licence the licence filter would drop — and writes each kept e-print to
``<cache_dir>/src/<id>v<version>``, exactly where and as the HTTP crawler puts it, so
``extract`` sees the same source rows either way.

Resume: a finished chunk's rows and ledger are kept (``<work_dir>/done``) and reused while
the filters that made them are unchanged; an interrupted chunk resumes its download where it
stopped, and papers already in the cache are not written again. Every member of a chunk is
an input of the funnel (kept or ledgered); a chunk that cannot be fetched or read is one
more input, ledgered with the reason, and fetched again by the next run.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import posixpath
import shutil
import signal
import tarfile
import zlib
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from diagramforge.builders.crawl.arxiv import CrawlReason
from diagramforge.builders.crawl.bulk_fetch import FetchError, fetch_chunk, open_fs
from diagramforge.builders.crawl.bulk_manifest import (
    Chunk,
    id_of,
    member_key,
    parse_manifest,
    select,
)
from diagramforge.builders.crawl.bulk_metadata import (
    MetadataIndex,
    build_index,
    entry_row,
    read_snapshot,
    snapshot_row,
    source_digest,
)
from diagramforge.builders.crawl.polite import polite_session
from diagramforge.builders.crawl.settings import CrawlSettings
from diagramforge.executors import Failure, make_executor
from diagramforge.licensing.spdx import allowed
from diagramforge.stage import Outcome, Stage, StageLog, StageSettings, WorkUnit
from diagramforge.store import atomic
from diagramforge.store.records import Rejection


class BulkReason(StrEnum):
    METADATA_MISSING = "metadata_missing"
    NOT_EPRINT = "not_an_eprint"
    CHUNK_CORRUPT = "chunk_corrupt"


class BulkCounter(StrEnum):
    CHUNKS = "bulk_chunks"
    CHUNKS_REUSED = "bulk_chunks_reused"
    CHUNKS_FAILED = "bulk_chunks_failed"
    BYTES_DOWNLOADED = "bulk_bytes_downloaded"
    BYTES_REUSED = "bulk_bytes_reused"
    RESUMED_TRANSFERS = "bulk_resumed_transfers"
    PAPERS_WRITTEN = "bulk_papers_written"
    PAPERS_CACHED = "bulk_papers_cached"
    INDEXED = "bulk_metadata_papers"


_COMPLETE = "bulk_chunk_complete"
"""Set by a worker on a chunk it read to the end (or found permanently unreadable): only
those are remembered as done; a fetch failure is tried again by the next run."""


def work_dir(params: CrawlSettings) -> Path:
    cfg = params.crawl.arxiv
    return Path(cfg.bulk.work_dir or Path(cfg.cache_dir) / "bulk")


def chunk_path(root: str, manifest: str, chunk: Chunk) -> str:
    """Chunks sit beside the manifest (``src/arXiv_src_manifest.xml`` lists
    ``src/arXiv_src_0001_001.tar``)."""
    return posixpath.join(root, posixpath.dirname(manifest), chunk.name)


def chunk_locator(chunk: Chunk) -> str:
    return f"arxiv-bulk:{chunk.name}"


def _fault(chunk: str, papers: int) -> None:
    """Test hook: ``DIAGRAMFORGE_FAULT=crawl:<chunk name>:papers:<n>`` SIGKILLs the process
    after it wrote ``n`` papers of that chunk."""
    if os.environ.get("DIAGRAMFORGE_FAULT") == f"crawl:{chunk}:papers:{papers}":
        os.kill(os.getpid(), signal.SIGKILL)


class BulkSettings(StageSettings, CrawlSettings, Protocol):
    """What the bulk crawl's units read: the stage base's part and the crawl's."""


class BulkChunks(Stage):
    """One unit = one chunk: fetch, verify, look up, skip or unpack each paper. Run by the
    crawl's executor (never listed as a pipeline stage of its own)."""

    name = "crawl"
    params: BulkSettings

    def __init__(self, params: BulkSettings, index_path: Path):
        super().__init__(params)
        self.index_path = index_path
        self.index: MetadataIndex | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "index": None}  # a connection does not travel

    def setup(self) -> None:
        self.index = MetadataIndex(self.index_path)

    def teardown(self) -> None:
        if self.index is not None:
            self.index.close()

    def process(self, unit: WorkUnit) -> Outcome:
        if self.index is None:
            self.setup()
        chunk = Chunk(**unit.rows[0]["chunk"])
        cfg = self.params.crawl.arxiv
        b = cfg.bulk
        fs, root = open_fs(b.url, b.requester_pays, b.storage_options)
        local = work_dir(self.params) / "chunks" / chunk.name
        out = Outcome()
        try:
            got = fetch_chunk(fs, chunk_path(root, b.manifest, chunk), local, chunk.size,
                              chunk.md5sum, b.retries, b.block_bytes)
        except FetchError as exc:
            out.rejections.append(Rejection(chunk_locator(chunk), exc.reason, exc.detail))
            out.extra = {BulkCounter.CHUNKS_FAILED: 1}
            return out
        out.extra = {BulkCounter.BYTES_DOWNLOADED: got.downloaded,
                     BulkCounter.BYTES_REUSED: got.reused,
                     BulkCounter.RESUMED_TRANSFERS: got.resumes,
                     BulkCounter.PAPERS_WRITTEN: 0, BulkCounter.PAPERS_CACHED: 0}
        assert self.index is not None
        try:
            self._unpack(chunk, local, self.index.for_chunk(chunk), out)
        finally:
            local.unlink(missing_ok=True)  # at most one chunk on disk per worker
        out.extra[_COMPLETE] = 1
        return out

    def _unpack(self, chunk: Chunk, local: Path, papers: dict, out: Outcome) -> None:
        cfg = self.params.crawl.arxiv
        cache = Path(cfg.cache_dir) / "src"
        seen = 0
        try:
            with tarfile.open(local, mode="r:") as tar:
                while (member := tar.next()) is not None:
                    tar.members.clear()  # read once, in order: no list growing with the chunk
                    if member.isdir():
                        continue
                    seen += 1
                    self._member(chunk, tar, member, papers, cache, out)
        except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
            out.rejections.append(Rejection(
                chunk_locator(chunk), BulkReason.CHUNK_CORRUPT,
                f"unreadable after {seen} of {chunk.num_items} items: {exc!r}"))
            return
        if seen < chunk.num_items:  # tarfile takes a bad header for the end of the archive
            out.rejections.append(Rejection(
                chunk_locator(chunk), BulkReason.CHUNK_CORRUPT,
                f"unreadable after {seen} of {chunk.num_items} items: the archive ends early"))

    def _member(self, chunk: Chunk, tar: tarfile.TarFile, member: tarfile.TarInfo,
                papers: dict, cache: Path, out: Outcome) -> None:
        cfg = self.params.crawl.arxiv
        found = member_key(member.name) if member.isfile() else None
        if found is None:
            out.rejections.append(Rejection(f"{chunk_locator(chunk)}:{member.name}",
                                            BulkReason.NOT_EPRINT, f"member {member.name!r}"))
            return
        key, _ext = found
        aid = id_of(key) or key
        loc = f"arxiv:{aid}"
        paper = papers.get(key)
        if paper is None:
            out.rejections.append(Rejection(loc, BulkReason.METADATA_MISSING,
                                            f"{member.name} in {chunk.name}"))
            return
        e = paper.entry
        why = e.in_scope(cfg.categories, cfg.from_date, cfg.until_date)
        if why:
            out.rejections.append(Rejection(loc, CrawlReason.OUT_OF_SCOPE, why))
            return
        if cfg.skip_disallowed_licences and not allowed(e.licence, self.params.licences.allow):
            out.rejections.append(Rejection(loc, CrawlReason.LICENCE,
                                            f"{e.licence} ({e.licence_url})"))
            return
        version = paper.version_at(chunk.timestamp)
        vid = f"{aid}v{version}" if version else aid
        dest = cache / vid.replace("/", "_")
        if dest.exists() and dest.stat().st_size == member.size:
            out.extra[BulkCounter.PAPERS_CACHED] += 1
        else:
            src = tar.extractfile(member)
            assert src is not None
            atomic.write_with(dest, lambda t: _copy(src, t), fsync=False)
            out.extra[BulkCounter.PAPERS_WRITTEN] += 1
            _fault(chunk.name, out.extra[BulkCounter.PAPERS_WRITTEN])
        row = e.to_row(version, str(dest), None)
        row["meta"] = json.dumps({**json.loads(row["meta"]), "bulk_chunk": chunk.filename,
                                  "bulk_member": member.name})
        out.records.append(row)


def _copy(src, tmp: Path) -> None:  # noqa: ANN001 - a tar member's file object
    with open(tmp, "wb") as fh:
        shutil.copyfileobj(src, fh, 1 << 20)


# -- the driver ----------------------------------------------------------------------------

def metadata_index(params: CrawlSettings, log_: StageLog) -> Path:
    """The index for ``bulk.metadata`` — built now unless one from the same source exists."""
    cfg = params.crawl.arxiv
    b = cfg.bulk
    root = work_dir(params) / "metadata"
    if b.metadata == "oai":
        # lazy: loads licensedcode
        from diagramforge.builders.crawl.arxiv_http import harvest
        ident = json.dumps([cfg.oai_url, sorted(cfg.categories), cfg.from_date])
        dest = root / f"oai-{hashlib.sha256(ident.encode()).hexdigest()[:16]}.sqlite"
        if not dest.exists():
            session = polite_session(cfg.user_agent, cfg.delay_s, cfg.retries, cfg.timeout_s)
            build_index((entry_row(e) for e in harvest(cfg, session)), dest)
    elif b.metadata:
        dest = root / f"snapshot-{source_digest(b.metadata, b.storage_options)}.sqlite"
        if not dest.exists():
            build_index((snapshot_row(r) for r in read_snapshot(b.metadata, b.storage_options)),
                        dest)
    else:
        raise ValueError("crawl.arxiv.bulk.metadata is empty: name a metadata snapshot "
                         "(JSON lines or Parquet) or 'oai' — licences come from there")
    idx = MetadataIndex(dest)
    log_.stats.extra[BulkCounter.INDEXED] = len(idx)
    idx.close()
    return dest


def _filters_digest(params: CrawlSettings, index: Path) -> str:
    """What decides a finished chunk's rows besides its bytes: when it changes, chunks are
    read again."""
    cfg = params.crawl.arxiv
    return hashlib.sha256(json.dumps([
        cfg.categories, cfg.from_date, cfg.until_date, cfg.skip_disallowed_licences,
        params.licences.allow, index.name, str(Path(cfg.cache_dir).resolve()),
    ]).encode()).hexdigest()[:12]


def _done_path(params: CrawlSettings, chunk: Chunk, digest: str) -> Path:
    return work_dir(params) / "done" / f"{chunk.name}.{chunk.md5sum[:12]}.{digest}.json.gz"


def _save(path: Path, out: Outcome) -> None:
    data = json.dumps({"records": out.records,
                       "rejections": [r.to_row("crawl") for r in out.rejections],
                       "extra": out.extra}, sort_keys=True).encode()
    atomic.write_bytes(path, gzip.compress(data, mtime=0))


def _load(path: Path) -> Outcome:
    data = json.loads(gzip.decompress(path.read_bytes()))
    rejections = [Rejection(locator=r["locator"], reason=r["reason"], detail=r["detail"],
                            id=r["id"], unit=r["unit"]) for r in data["rejections"]]
    return Outcome(records=data["records"], rejections=rejections, extra=data["extra"])


def crawl_bulk(params: BulkSettings, log_: StageLog) -> Iterator[dict]:
    """Source rows of every paper of the selected chunks, chunk by chunk in manifest
    order (so the output does not depend on which worker finished first)."""
    cfg = params.crawl.arxiv
    b = cfg.bulk
    fs, root = open_fs(b.url, b.requester_pays, b.storage_options)
    chunks = select(parse_manifest(fs.cat_file(f"{root}/{b.manifest}")), b.yymm_from,
                    b.yymm_until, b.max_chunks)
    index = metadata_index(params, log_)
    digest = _filters_digest(params, index)
    done = {c.name: _done_path(params, c, digest) for c in chunks}
    todo = [c for c in chunks if not done[c.name].exists()]
    todo_names = {c.name for c in todo}
    log_.stats.extra[BulkCounter.CHUNKS] = len(chunks)
    log_.stats.extra[BulkCounter.CHUNKS_REUSED] = len(chunks) - len(todo)
    units = [WorkUnit([{"chunk": c.to_dict(), "id": c.name}], c.name, b.chunk_timeout_s)
             for c in todo]
    kept = 0
    with make_executor(params.runner, params.runner.workers) as ex:
        if units:
            ex.open(BulkChunks(params, index))
        results = iter(ex.run(units, [b.chunk_timeout_s] * len(units)) if units else ())
        for chunk in chunks:
            reused = chunk.name not in todo_names
            if reused:
                out = _load(done[chunk.name])
            else:
                res = next(results)
                if isinstance(res, Failure):
                    out = Outcome(rejections=[Rejection(chunk_locator(chunk), res.reason,
                                                        res.detail)],
                                  extra={BulkCounter.CHUNKS_FAILED: 1})
                else:
                    out = res
                    if out.extra.pop(_COMPLETE, 0):
                        _save(done[chunk.name], out)
            log_.stats.n_in += len(out.records) + len(out.rejections)
            for k, v in (() if reused else out.extra.items()):  # this run's work only
                log_.stats.extra[k] = log_.stats.extra.get(k, 0) + v
            for r in out.rejections:
                log_.reject(r)
            for row in out.records:
                if kept >= cfg.max_papers:
                    log_.reject(Rejection(f"arxiv:{row['id']}", CrawlReason.OVER_MAX,
                                          f"max_papers={cfg.max_papers}"))
                    continue
                kept += 1
                yield row

