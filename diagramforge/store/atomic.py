"""The one way files are written: complete or not at all.

Every file a stage, a cache or a crawler writes goes through here: write a temporary file
beside the target (same filesystem, so the rename is atomic), fsync it, rename it into place.
A killed process leaves at worst a ``*.tmp`` that the next writer overwrites; a reader never
sees half a file, and two processes writing the same target race harmlessly (last rename wins,
both wrote the same content-addressed bytes).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path


def temp_path(path: Path) -> Path:
    """Where ``path`` is written before :func:`commit` renames it into place: beside it
    (same filesystem), hidden, unique to this writer."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")


def commit(tmp: Path, path: Path, fsync: bool = True) -> Path:
    """Make the finished temporary ``tmp`` the file ``path`` (the rename is the commit)."""
    if fsync:
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
    os.replace(tmp, path)
    return Path(path)


def write_with(path: Path, writer: Callable[[Path], object], fsync: bool = True) -> Path:
    """Call ``writer(tmp_path)`` and rename its file to ``path``; the temp goes on failure."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        writer(tmp)
        commit(tmp, path, fsync)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_bytes(path: Path, data: bytes, fsync: bool = False) -> Path:
    """Atomically write ``data`` to ``path``."""
    return write_with(path, lambda t: t.write_bytes(data), fsync=fsync)


def write_text(path: Path, text: str, fsync: bool = False) -> Path:
    """Atomically write ``text`` (UTF-8) to ``path``."""
    return write_with(path, lambda t: t.write_text(text, encoding="utf-8"), fsync=fsync)


def write_json(path: Path, obj: object) -> Path:
    """Atomically write ``obj`` as sorted, indented JSON (stable bytes for DVC)."""
    return write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def copy_file(src: Path, dest: Path) -> Path:
    """Atomically copy ``src`` to ``dest``."""
    import shutil

    return write_with(dest, lambda t: shutil.copyfile(src, t), fsync=False)


def replace_dir(tmp: Path, dest: Path) -> Path:
    """Put a fully written directory ``tmp`` in place of ``dest`` (a checkout, a published
    dataset). Directories cannot be swapped atomically on POSIX; the old one is renamed
    aside first, so a reader sees the old or the new tree, and a kill between the two
    renames leaves ``dest`` missing — never half-written."""
    import shutil

    old = dest.with_name(f".{dest.name}.old.{os.getpid()}")
    if dest.exists():
        os.replace(dest, old)
    os.replace(tmp, dest)
    shutil.rmtree(old, ignore_errors=True)
    return dest
