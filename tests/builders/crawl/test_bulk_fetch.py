"""Fetching a chunk through fsspec's local filesystem (the S3 path is tests/builders/
test_bulk.py's): resume from a partial file, one fresh download on a bad md5, a short
remote."""

from __future__ import annotations

import hashlib

import pytest

from diagramforge.builders.crawl.bulk_fetch import FetchError, fetch_chunk, open_fs

DATA = bytes(range(256)) * 2000  # 512 000 bytes
MD5 = hashlib.md5(DATA).hexdigest()  # noqa: S324


@pytest.fixture
def remote(tmp_path):
    (tmp_path / "mirror").mkdir()
    (tmp_path / "mirror" / "c.tar").write_bytes(DATA)
    fs, root = open_fs(f"file://{tmp_path / 'mirror'}", True, {})
    return fs, f"{root}/c.tar"


def test_a_partial_download_is_resumed_not_restarted(tmp_path, remote):
    fs, path = remote
    local = tmp_path / "chunks" / "c.tar"
    local.parent.mkdir()
    local.write_bytes(DATA[:200_000])
    got = fetch_chunk(fs, path, local, len(DATA), MD5, retries=1, block=65536)
    assert local.read_bytes() == DATA
    assert (got.reused, got.downloaded) == (200_000, len(DATA) - 200_000)


def test_a_corrupt_partial_file_costs_one_fresh_download(tmp_path, remote):
    fs, path = remote
    local = tmp_path / "c.tar"
    local.write_bytes(b"\0" * 100_000)  # garbage from an earlier life
    got = fetch_chunk(fs, path, local, len(DATA), MD5, retries=1, block=65536)
    assert local.read_bytes() == DATA and got.downloaded == len(DATA) * 2 - 100_000


def test_a_wrong_md5_is_refused_after_one_fresh_download(tmp_path, remote):
    fs, path = remote
    local = tmp_path / "c.tar"
    with pytest.raises(FetchError) as err:
        fetch_chunk(fs, path, local, len(DATA), "0" * 32, retries=1, block=65536)
    assert err.value.reason == "chunk_md5_mismatch" and not local.exists()


def test_a_remote_shorter_than_the_manifest_is_truncated(tmp_path, remote):
    fs, path = remote
    with pytest.raises(FetchError) as err:
        fetch_chunk(fs, path, tmp_path / "c.tar", len(DATA) + 10, MD5, retries=1,
                    block=65536)
    assert err.value.reason == "chunk_truncated" and "512000 bytes" in err.value.detail


def test_a_missing_chunk_is_a_download_failure(tmp_path, remote):
    fs, path = remote
    with pytest.raises(FetchError) as err:
        fetch_chunk(fs, path + ".gone", tmp_path / "c.tar", 10, MD5, retries=1, block=65536)
    assert err.value.reason == "chunk_download_failed"


def test_requester_pays_only_where_s3_knows_it():
    fs, _ = open_fs("s3://arxiv/src/", True, {"anon": False})
    assert fs.req_kw == {"RequestPayer": "requester"}
    fs, _ = open_fs("memory://mirror/src", True, {})
    assert "memory" in fs.protocol  # took no requester_pays it would not know
