"""The bulk crawl end to end: generated chunks and manifest on a loopback S3 (moto's real
protocol) read through the real s3fs client with the requester-pays flag — good chunks, a
corrupt one, a wrong md5, a truncated object, dropped transfers, a kill mid-download and
mid-chunk, licence and scope skips, chunks spread over worker processes."""

from __future__ import annotations

import gzip
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from diagramforge.runner import run_named
from diagramforge.store.paths import metrics_path, stage_paths
from diagramforge.store.records import REJECTION_SCHEMA, SOURCE_SCHEMA
from diagramforge.store.shards import ShardSet
from tests.builders.crawl import bulk_corpus as bc
from tests.builders.crawl.s3_loopback import S3Loopback
from tests.conftest import SAMPLES, WITH_NC, make_params

CATS = ["cs", "math", "eess"]


def bulk_params(tmp_path: Path, s3: S3Loopback, metadata: str, workers: int = 0,
                **bulk: object):
    return make_params(
        tmp_path, runner={"workers": workers}, licences=WITH_NC,
        crawl={"arxiv": {"source": "", "categories": CATS, "from_date": "2024-01-01",
                         "until_date": "2024-12-31",
                         "bulk": {"url": "s3://arxiv/src/", "metadata": metadata,
                                  "storage_options": s3.storage_options,
                                  "block_bytes": 65536, **bulk}},
               "pdf": {"from_arxiv": False}})


def rows_of(params) -> dict[str, dict]:
    t = ShardSet(stage_paths(params, "crawl").records, SOURCE_SCHEMA).read_all()
    return {r["id"]: r for r in t.to_pylist()}


def ledger_of(params) -> list[dict]:
    return ShardSet(stage_paths(params, "crawl").rejections, REJECTION_SCHEMA).read_all(
    ).to_pylist()


def sample_chunks() -> list[bc.ChunkFile]:
    ep = bc.latest_eprints()
    ids = sorted(ep)
    return [bc.ChunkFile("2401", 1, bc.paper_members(ids[:8], ep)),
            bc.ChunkFile("2401", 2, bc.paper_members(ids[8:], ep))]


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    return bc.write_jsonl(bc.snapshot_records(), tmp_path / "arxiv-metadata.jsonl")


def test_bulk_papers_end_up_exactly_like_api_crawled_ones(tmp_path, snapshot):
    from tests.builders.crawl.arxiv_server import ArxivLoopback, Faults

    with ArxivLoopback(SAMPLES / "arxiv", Faults(oai_503_first=False)) as srv:
        api = make_params(tmp_path / "api", licences=WITH_NC, crawl={"arxiv": {
            "source": srv.url, "api_url": f"{srv.url}/api/query", "oai_url": f"{srv.url}/oai",
            "delay_s": 0, "categories": CATS, "from_date": "2024-01-01",
            "until_date": "2024-12-31", "download_pdfs": False}, "pdf": {"from_arxiv": False}})
        api_stats = run_named("crawl", api)
    with S3Loopback() as s3:
        bc.upload(s3, sample_chunks())
        bulk = bulk_params(tmp_path / "bulk", s3, str(snapshot))
        stats = run_named("crawl", bulk)
        log = list(s3.state.log)
    assert (stats.n_in, stats.n_out, dict(stats.by_reason)) == \
        (api_stats.n_in, api_stats.n_out, dict(api_stats.by_reason))
    got, want = rows_of(bulk), rows_of(api)
    assert sorted(got) == sorted(want) and len(got) == 15
    for pid, w in want.items():
        g = got[pid]
        for col in SOURCE_SCHEMA.names:
            if col == "path":  # same cache layout, same bytes
                assert Path(g["path"]).relative_to(bulk.crawl.arxiv.cache_dir) == \
                    Path(w["path"]).relative_to(api.crawl.arxiv.cache_dir)
                assert Path(g["path"]).read_bytes() == Path(w["path"]).read_bytes()
            elif col == "meta":
                gm, wm = json.loads(g["meta"]), json.loads(w["meta"])
                assert gm["datestamp"] == wm["datestamp"]
                assert gm["bulk_member"] == f"2401/{pid}.gz"
            else:
                assert g[col] == w[col], (pid, col)
    # every S3 request carried the requester-pays flag; each chunk was read once
    assert log and all(s.headers.get("x-amz-request-payer") == "requester" for s in log)
    assert sum(s.method == "GET" and s.path.endswith("_001.tar") for s in log) == 1
    assert not any((Path(bulk.crawl.arxiv.cache_dir) / "bulk" / "chunks").iterdir())


def test_corrupt_wrong_md5_and_truncated_chunks_are_ledgered_and_retried(tmp_path,
                                                                         snapshot):
    ep = bc.latest_eprints()
    ids = sorted(ep)
    good = bc.ChunkFile("2401", 1, bc.paper_members(ids[:4], ep))
    whole = bc.make_tar(bc.paper_members(ids[4:8], ep))
    # the archive's bytes break inside the third member's header, and the manifest agrees
    with tarfile.open(fileobj=io.BytesIO(whole)) as tar:
        cut = tar.getmembers()[2].offset + 300
    corrupt = bc.ChunkFile("2401", 2, bc.paper_members(ids[4:8], ep),
                           data=whole[:cut] + b"\x07" * 1500)
    wrong_md5 = bc.ChunkFile("2401", 3, bc.paper_members(ids[8:12], ep), md5="0" * 32)
    short = bc.ChunkFile("2401", 4, bc.paper_members(ids[12:], ep))
    with S3Loopback() as s3:
        bc.upload(s3, [good, corrupt, wrong_md5, short])
        s3.put(f"src/{short.name}", short.data[:-5000])  # the object itself is short
        params = bulk_params(tmp_path, s3, str(snapshot))
        stats = run_named("crawl", params)
        by_loc = {r["locator"]: r for r in ledger_of(params)}
        assert by_loc[f"arxiv-bulk:{corrupt.name}"]["reason"] == "chunk_corrupt"
        assert "after 2 of 4 items" in by_loc[f"arxiv-bulk:{corrupt.name}"]["detail"]
        assert by_loc[f"arxiv-bulk:{wrong_md5.name}"]["reason"] == "chunk_md5_mismatch"
        assert by_loc[f"arxiv-bulk:{short.name}"]["reason"] == "chunk_truncated"
        assert len(s3.gets(f"src/{wrong_md5.name}")) == 2  # one fresh download, then refused
        kept = rows_of(params)
        assert set(ids[:6]) - {"2401.00106"} <= set(kept)  # papers before the break stay
        assert not set(kept) & set(ids[6:])
        assert stats.n_in == 6 + 3 and stats.balance_error() is None
        assert stats.extra["bulk_chunks_failed"] == 2
        chunks_dir = tmp_path / "cache" / "arxiv" / "bulk" / "chunks"
        assert not list(chunks_dir.iterdir())  # nothing left behind, even refused chunks

        # the mirror gets fixed: a rerun reuses the finished chunks (the corrupt one is
        # final) and fetches only the two that failed
        bc.upload(s3, [good, corrupt, bc.ChunkFile("2401", 3, wrong_md5.members), short])
        before = len(s3.state.log)
        again = run_named("crawl", params)
        gets = {s.path.rsplit("/", 1)[-1] for s in s3.state.log[before:] if s.method == "GET"}
        assert gets == {"arXiv_src_manifest.xml", wrong_md5.name, short.name}
        assert again.extra["bulk_chunks_reused"] == 2
        assert set(rows_of(params)) >= set(ids[8:]) - {"2401.00106"}


def test_dropped_transfers_resume_where_they_stopped(tmp_path, snapshot):
    chunks = sample_chunks()
    with S3Loopback() as s3:
        bc.upload(s3, chunks)
        # more drops than s3fs retries by itself: the crawl's own resume takes over
        s3.state.cuts[f"/arxiv/src/{chunks[0].name}"] = [3000] * 6
        params = bulk_params(tmp_path, s3, str(snapshot), retries=3)
        stats = run_named("crawl", params)
        cut = [s for s in s3.gets(f"src/{chunks[0].name}") if s.cut_at]
    assert len(cut) == 6
    assert stats.extra["bulk_resumed_transfers"] >= 1
    assert stats.n_out == 15 and stats.by_reason == {"licence_not_allowed": 1}


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["bytes:131072", "papers:2"])
def test_a_killed_crawl_resumes_to_the_same_rows(tmp_path, fault):
    """SIGKILL mid-download of the second chunk, or after two of its papers were written:
    the rerun reuses the finished chunk, the bytes and papers already on disk, and ends with
    exactly the rows of an uninterrupted run."""
    ep, recs = bc.filler_papers(6, 100)
    snap = bc.write_jsonl(recs, tmp_path / "meta.jsonl")
    ids = sorted(ep)
    chunks = [bc.ChunkFile("2401", 1, bc.paper_members(ids[:3], ep)),
              bc.ChunkFile("2401", 2, bc.paper_members(ids[3:], ep))]
    assert chunks[1].size > 3 * 65536
    with S3Loopback() as s3:
        bc.upload(s3, chunks)
        runs = {}
        for name in ("clean", "killed"):
            params = bulk_params(tmp_path / name, s3, str(snap))
            pfile = tmp_path / name / "params.yaml"
            pfile.parent.mkdir()
            pfile.write_text(yaml.safe_dump(params.model_dump(by_alias=True)))
            runs[name] = (params, pfile)
        cmd = [sys.executable, "-m", "diagramforge", "--params"]
        env = {**os.environ, "DIAGRAMFORGE_FAULT": f"crawl:{chunks[1].name}:{fault}"}
        killed = subprocess.run([*cmd, str(runs["killed"][1]), "crawl"], env=env,
                                capture_output=True, text=True)
        assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
        params = runs["killed"][0]
        assert not json.loads(stage_paths(params, "crawl").state.read_text())["complete"]
        before = len(s3.state.log)
        for name in ("killed", "clean"):
            done = subprocess.run([*cmd, str(runs[name][1]), "crawl"], capture_output=True,
                                  text=True)
            assert done.returncode == 0, done.stderr[-2000:]
            if name == "killed":
                resumed_gets = [s for s in s3.state.log[before:] if s.method == "GET"]
    extra = json.loads(metrics_path(params, "crawl").read_text())["extra"]
    assert extra["bulk_chunks_reused"] == 1
    assert not any(chunks[0].name in s.path for s in resumed_gets)
    if fault.startswith("bytes"):
        assert extra["bulk_bytes_reused"] >= 131072
        first = min(int(s.headers["range"].split("=")[1].split("-")[0])
                    for s in resumed_gets if chunks[1].name in s.path)
        assert first >= 131072  # the download went on from where it was cut
    else:
        assert extra["bulk_bytes_reused"] == chunks[1].size  # the chunk was complete
        assert extra["bulk_papers_cached"] == 2 and extra["bulk_papers_written"] == 1
    for d in ("records", "rejections"):
        a = [pq.read_table(p).to_pylist() for p in sorted(
            getattr(stage_paths(runs["clean"][0], "crawl"), d).glob("*.parquet"))]
        b = [pq.read_table(p).to_pylist() for p in sorted(
            getattr(stage_paths(params, "crawl"), d).glob("*.parquet"))]
        strip = str(tmp_path / "clean"), str(tmp_path / "killed")
        assert json.dumps(a).replace(strip[0], "") == json.dumps(b).replace(strip[1], "")


def test_scope_licence_and_months_are_decided_before_unpacking(tmp_path, snapshot):
    ep = bc.latest_eprints()
    ids = sorted(ep)
    recs = bc.snapshot_records()
    recs.append({**recs[0], "id": "2312.00001", "versions": recs[0]["versions"]})
    snap = bc.write_jsonl(recs, tmp_path / "meta.jsonl")
    members = bc.paper_members(ids, ep)
    members += [("2401/2401.00999.gz", gzip.compress(b"\\documentclass{article}")),
                ("2401/README.txt", b"not a paper")]
    december = bc.ChunkFile("2312", 1, [("2312/2312.00001.gz", ep[ids[0]][1])])
    january = bc.ChunkFile("2401", 1, members)
    with S3Loopback() as s3:
        bc.upload(s3, [december, january])
        params = bulk_params(tmp_path, s3, str(snap), yymm_from="2401", yymm_until="2401")
        params = params.model_copy(update={"crawl": params.crawl.model_copy(update={
            "arxiv": params.crawl.arxiv.model_copy(update={"categories": ["cs"]})})})
        stats = run_named("crawl", params)
        assert not s3.gets(f"src/{december.name}")  # another month: never downloaded
    reasons = {r["locator"]: r["reason"] for r in ledger_of(params)}
    assert reasons["arxiv:2401.00106"] == "licence_not_allowed"
    assert reasons["arxiv:2401.00999"] == "metadata_missing"
    assert reasons[f"arxiv-bulk:{january.name}:2401/README.txt"] == "not_an_eprint"
    assert reasons["arxiv:2401.00103"] == "out_of_scope"  # math.CT
    cached = {p.name for p in (tmp_path / "cache" / "arxiv" / "src").iterdir()}
    assert not any(n.startswith(("2401.00106", "2401.00103", "2401.00999")) for n in cached)
    assert cached == {f"{r['id']}v{r['version']}" for r in rows_of(params).values()}
    assert stats.n_in == len(members) and stats.balance_error() is None


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_chunks_spread_over_worker_processes_one_on_disk_each(tmp_path, snapshot, executor):
    ep, recs = bc.filler_papers(8, 60)
    snap = bc.write_jsonl(recs + bc.snapshot_records(), tmp_path / "meta.jsonl")
    ids = sorted(ep)
    chunks = sample_chunks() + [bc.ChunkFile("2401", 3 + k,
                                             bc.paper_members(ids[2 * k:2 * k + 2], ep))
                                for k in range(4)]
    with S3Loopback() as s3:
        bc.upload(s3, chunks)
        serial = bulk_params(tmp_path / "serial", s3, str(snap))
        run_named("crawl", serial)
        pooled = bulk_params(tmp_path / "pooled", s3, str(snap), workers=2)
        pooled = pooled.model_copy(update={"runner": pooled.runner.model_copy(
            update={"executor": executor})})
        on_disk, stop = [], threading.Event()
        chunk_dir = tmp_path / "pooled" / "cache" / "arxiv" / "bulk" / "chunks"

        def watch() -> None:
            while not stop.is_set():
                on_disk.append(len(list(chunk_dir.glob("*.tar"))) if chunk_dir.exists()
                               else 0)
                stop.wait(0.002)

        t = threading.Thread(target=watch)
        t.start()
        try:
            stats = run_named("crawl", pooled)
        finally:
            stop.set()
            t.join()
    assert max(on_disk) <= 2
    assert stats.n_out == 15 + 8
    a, b = rows_of(serial), rows_of(pooled)
    assert sorted(a) == sorted(b)
    for pid in a:
        assert Path(a[pid]["path"]).read_bytes() == Path(b[pid]["path"]).read_bytes()


def test_metadata_from_parquet_or_oai(tmp_path, snapshot):
    from tests.builders.crawl.arxiv_server import ArxivLoopback, Faults

    recs = bc.snapshot_records()
    table = pa.Table.from_pylist([{**r, "versions": json.dumps(r["versions"]),
                                   "authors_parsed": json.dumps(r["authors_parsed"])}
                                  for r in recs])
    pq.write_table(table, tmp_path / "meta.parquet")
    with S3Loopback() as s3:
        bc.upload(s3, sample_chunks())
        run_named("crawl", ref := bulk_params(tmp_path / "jsonl", s3, str(snapshot)))
        run_named("crawl", par := bulk_params(tmp_path / "parquet", s3,
                                              str(tmp_path / "meta.parquet")))
        with ArxivLoopback(SAMPLES / "arxiv", Faults(oai_503_first=False)) as srv:
            oai = bulk_params(tmp_path / "oai", s3, "oai")
            oai = oai.model_copy(update={"crawl": oai.crawl.model_copy(update={
                "arxiv": oai.crawl.arxiv.model_copy(update={"oai_url": f"{srv.url}/oai",
                                                            "delay_s": 0})})})
            stats = run_named("crawl", oai)
    a, b, c = rows_of(ref), rows_of(par), rows_of(oai)
    strip = {"path", "meta"}
    assert [{k: v for k, v in r.items() if k not in strip} for r in a.values()] == \
        [{k: v for k, v in r.items() if k not in strip} for r in b.values()]
    # OAI's arXiv format lists no versions: same papers and licences, version unknown
    assert sorted(c) == sorted(a) and stats.by_reason == {"licence_not_allowed": 1}
    assert all(r["version"] is None and Path(r["path"]).name == r["id"] for r in c.values())
    assert {k: r["licence"] for k, r in c.items()} == {k: r["licence"] for k, r in a.items()}
