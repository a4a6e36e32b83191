"""Fetch one bulk chunk to local disk: resumable, md5-verified, through any fsspec URL.

A chunk is ~500 MB, so a dropped transfer resumes where it stopped (a ranged read from the
bytes already on disk, also after the process was killed) instead of starting again; the
manifest's md5 is checked over the whole file before anything is unpacked, and a mismatch
earns one fresh download before the chunk is refused. ``s3://`` URLs get the requester-pays
flag (arXiv's bucket bills the reader); other protocols (a local mirror, ``gs://``, …) take
``storage_options`` as they are.
"""

from __future__ import annotations

import hashlib
import os
import signal
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import fsspec
from fsspec.utils import get_protocol

from diagramforge.store.records import Refusal


class FetchReason(StrEnum):
    MD5 = "chunk_md5_mismatch"
    TRUNCATED = "chunk_truncated"
    DOWNLOAD = "chunk_download_failed"


class FetchError(Refusal):
    """A chunk that could not be fetched whole and intact (a :class:`FetchReason`)."""


@dataclass
class Fetched:
    path: Path
    downloaded: int = 0
    """Bytes read from the remote in this call."""
    reused: int = 0
    """Bytes already on disk from an earlier, interrupted call."""
    resumes: int = 0
    """Transfers that dropped and were resumed."""


def open_fs(url: str, requester_pays: bool, storage_options: dict
            ) -> tuple[fsspec.AbstractFileSystem, str]:
    """The filesystem and root path of ``url``; requester pays only where S3 knows it."""
    opts = dict(storage_options)
    if get_protocol(url) in ("s3", "s3a"):
        opts.setdefault("requester_pays", requester_pays)
    fs, root = fsspec.core.url_to_fs(url, **opts)
    return fs, root.rstrip("/")


def _fault(chunk: str, done: int) -> None:
    """Test hook: ``DIAGRAMFORGE_FAULT=crawl:<chunk name>:bytes:<n>`` SIGKILLs the process
    once ``n`` bytes of that chunk are on disk (a pulled plug mid-download)."""
    spec = os.environ.get("DIAGRAMFORGE_FAULT", "")
    prefix = f"crawl:{chunk}:bytes:"
    if spec.startswith(prefix) and done >= int(spec[len(prefix):]):
        os.kill(os.getpid(), signal.SIGKILL)


def _md5_of(path: Path, block: int) -> tuple[hashlib._Hash, int]:
    h = hashlib.md5()  # noqa: S324 - arXiv's manifest names md5
    n = 0
    if path.exists():
        with open(path, "rb") as fh:
            while buf := fh.read(block):
                h.update(buf)
                n += len(buf)
    return h, n


def _transfer(fs: fsspec.AbstractFileSystem, remote: str, local: Path, size: int,
              block: int, h: hashlib._Hash, have: int, got: Fetched) -> int:
    """Append ``remote[have:size]`` to ``local``; return the new length (short if the
    remote ended early)."""
    with fs.open(remote, "rb", block_size=block) as src, open(local, "ab") as out:
        src.seek(have)
        while have < size:
            buf = src.read(min(block, size - have))
            if not buf:
                break
            out.write(buf)
            out.flush()
            h.update(buf)
            have += len(buf)
            got.downloaded += len(buf)
            _fault(local.name, have)
    return have


def fetch_chunk(fs: fsspec.AbstractFileSystem, remote: str, local: Path, size: int, md5: str,
                retries: int, block: int) -> Fetched:
    """Make ``local`` a verified copy of ``remote`` (``size`` bytes, ``md5``) and return how."""
    local.parent.mkdir(parents=True, exist_ok=True)
    got = Fetched(local)
    for attempt in range(2):  # the second: a fresh download after an md5 mismatch
        if local.exists() and local.stat().st_size > size:
            local.unlink()
        h, have = _md5_of(local, block)
        got.reused += have if attempt == 0 else 0
        failures = 0
        while have < size:
            before = have
            try:
                have = _transfer(fs, remote, local, size, block, h, have, got)
            except FileNotFoundError as exc:
                raise FetchError(FetchReason.DOWNLOAD, f"{remote}: not found ({exc})") from None
            except Exception as exc:  # noqa: BLE001 - transports fail in their own ways
                # the bytes read before the drop are on disk; the next try resumes there
                have = local.stat().st_size if local.exists() else 0
                h, _ = _md5_of(local, block)
                failures += 1
                got.resumes += 1
                if failures > retries:
                    raise FetchError(FetchReason.DOWNLOAD,
                                     f"{remote}: {failures} failed reads, last {exc!r}"
                                     ) from None
                continue
            if have < size and have == before:
                remote_size = fs.info(remote).get("size")
                if remote_size is not None and remote_size < size:
                    local.unlink(missing_ok=True)
                    raise FetchError(FetchReason.TRUNCATED,
                                     f"{remote} is {remote_size} bytes, the manifest says "
                                     f"{size}")
                failures += 1
                if failures > retries:
                    raise FetchError(FetchReason.TRUNCATED,
                                     f"{remote}: stops at {have} of {size} bytes")
        if h.hexdigest() == md5:
            return got
        local.unlink()
        if attempt:
            raise FetchError(FetchReason.MD5, f"{remote}: md5 {h.hexdigest()} twice, the "
                                              f"manifest says {md5}")
    raise AssertionError("unreachable")
