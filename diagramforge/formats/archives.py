"""Safe reading of e-print archives (tar, gzip, zip) into memory.

An archive is refused whole, with a reason, if any member tries to leave the extraction
root (``..``, absolute paths), is a link or a device, or if sizes or the decompression
ratio pass their caps.  Nothing is written to disk, so a hostile name can do no harm even
before it is refused.  A plain gzip of one ``.tex`` (arXiv's single-file e-print) works.
"""

from __future__ import annotations

import gzip
import io
import posixpath
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from enum import StrEnum

from diagramforge.store.records import Refusal


class ArchiveReason(StrEnum):
    UNSAFE = "archive_unsafe_member"
    TOO_LARGE = "archive_too_large"
    BOMB = "archive_ratio_exceeded"
    CORRUPT = "archive_corrupt"
    NOT_SOURCE = "archive_not_source"


class ArchiveError(Refusal):
    """Refused with a :class:`ArchiveReason`."""


@dataclass(frozen=True)
class Limits:
    max_members: int = 5000
    max_member_bytes: int = 50_000_000
    max_total_bytes: int = 300_000_000
    max_ratio: float = 200.0


def _check_name(name: str) -> str:
    if not name or "\x00" in name:
        raise ArchiveError(ArchiveReason.UNSAFE, f"empty or NUL name {name!r}")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise ArchiveError(ArchiveReason.UNSAFE, f"absolute path {name!r}")
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        raise ArchiveError(ArchiveReason.UNSAFE, f"path traversal {name!r}")
    return posixpath.normpath(name.replace("\\", "/")).lstrip("./") or name


def _gunzip(data: bytes, limits: Limits) -> bytes:
    """Decompress with a hard cap, so a bomb is stopped while it inflates."""
    cap = min(limits.max_total_bytes, int(len(data) * limits.max_ratio) + 1_000_000)
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = io.BytesIO()
    try:
        chunk = d.decompress(data, cap + 1)
        out.write(chunk)
        while d.unconsumed_tail and out.tell() <= cap:
            out.write(d.decompress(d.unconsumed_tail, cap + 1 - out.tell()))
    except zlib.error as exc:
        raise ArchiveError(ArchiveReason.CORRUPT, f"gzip: {exc}") from None
    if out.tell() > cap:
        why = ArchiveReason.TOO_LARGE if cap == limits.max_total_bytes else ArchiveReason.BOMB
        raise ArchiveError(why, f"gzip inflates past {cap} bytes from {len(data)}")
    return out.getvalue()


def _read_tar(data: bytes, limits: Limits) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
            for k, m in enumerate(tar):
                if k >= limits.max_members:
                    raise ArchiveError(ArchiveReason.TOO_LARGE, f"more than {k} members")
                name = _check_name(m.name)
                if m.issym() or m.islnk():
                    raise ArchiveError(ArchiveReason.UNSAFE, f"link {m.name!r} -> {m.linkname!r}")
                if m.isdev() or m.isfifo():
                    raise ArchiveError(ArchiveReason.UNSAFE, f"device or fifo {m.name!r}")
                if m.isdir():
                    continue
                if not m.isfile():
                    raise ArchiveError(ArchiveReason.UNSAFE, f"unsupported member {m.name!r}")
                if m.size > limits.max_member_bytes:
                    raise ArchiveError(ArchiveReason.TOO_LARGE, f"{m.name!r} is {m.size} bytes")
                total += m.size
                if total > limits.max_total_bytes:
                    raise ArchiveError(ArchiveReason.TOO_LARGE, f"members exceed {total} bytes")
                fh = tar.extractfile(m)
                files[name] = fh.read() if fh else b""
    except tarfile.TarError as exc:
        raise ArchiveError(ArchiveReason.CORRUPT, f"tar: {exc}") from None
    return files


def _read_zip(data: bytes, limits: Limits) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            if len(infos) > limits.max_members:
                raise ArchiveError(ArchiveReason.TOO_LARGE, f"{len(infos)} members")
            for info in infos:
                name = _check_name(info.filename)
                mode = (info.external_attr >> 16) & 0o170000
                if mode == 0o120000:
                    raise ArchiveError(ArchiveReason.UNSAFE, f"symlink {info.filename!r}")
                if info.is_dir():
                    continue
                if info.file_size > limits.max_member_bytes:
                    raise ArchiveError(ArchiveReason.TOO_LARGE, f"{name!r} is {info.file_size}")
                if info.file_size > limits.max_ratio * max(1, info.compress_size):
                    raise ArchiveError(ArchiveReason.BOMB, f"{name!r} ratio too high")
                total += info.file_size
                if total > limits.max_total_bytes:
                    raise ArchiveError(ArchiveReason.TOO_LARGE, f"members exceed {total} bytes")
                files[name] = zf.read(info)
    except (zipfile.BadZipFile, zlib.error) as exc:
        raise ArchiveError(ArchiveReason.CORRUPT, f"zip: {exc}") from None
    return files


def read_archive(data: bytes, limits: Limits = Limits(), single_name: str = "main.tex"
                 ) -> dict[str, bytes]:
    """Members of an e-print as ``{path: bytes}``; raise :class:`ArchiveError` if unsafe."""
    if data[:4] == b"%PDF":
        raise ArchiveError(ArchiveReason.NOT_SOURCE, "the e-print is a PDF, not source")
    if data[:2] == b"\x1f\x8b":
        inner = _gunzip(data, limits)
        ratio = len(inner) / max(1, len(data))
        if ratio > limits.max_ratio:
            raise ArchiveError(ArchiveReason.BOMB, f"gzip ratio {ratio:.0f} > {limits.max_ratio}")
        if len(inner) > 262 and inner[257:262] == b"ustar" or _looks_like_tar(inner):
            return _read_tar(inner, limits)
        if inner[:4] == b"%PDF":
            raise ArchiveError(ArchiveReason.NOT_SOURCE, "the e-print is a gzipped PDF")
        return {single_name: inner}
    if data[:4] == b"PK\x03\x04":
        return _read_zip(data, limits)
    if len(data) > 262 and data[257:262] == b"ustar":
        return _read_tar(data, limits)
    if b"\\documentclass" in data[:20000] or b"\\begin" in data[:20000]:
        if len(data) > limits.max_member_bytes:
            raise ArchiveError(ArchiveReason.TOO_LARGE, f"{len(data)} bytes")
        return {single_name: data}
    raise ArchiveError(ArchiveReason.NOT_SOURCE, "unrecognised e-print format")


def _looks_like_tar(data: bytes) -> bool:
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
            return tar.next() is not None
    except tarfile.TarError:
        return False


def gzip_bytes(data: bytes) -> bytes:
    """Deterministic gzip (mtime 0), used by tests and the corpus generator."""
    return gzip.compress(data, mtime=0)
