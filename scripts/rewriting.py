"""Rewriting references in files in place: what the move scripts share (``move_modules.py``
moves package modules, ``move_tests.py`` test modules; each builds its own text → text
rewrite and picks its own files)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path


def rewrite_files(files: Iterable[Path], rewrite: Callable[[str], str]) -> int:
    """Apply ``rewrite`` to each file's UTF-8 text, writing back only what changed; the
    number of files changed. A path that is no longer a file (moved, removed) is passed
    over."""
    changed = 0
    for f in files:
        if not f.is_file():
            continue
        text = f.read_text("utf-8")
        new = rewrite(text)
        if new != text:
            f.write_text(new, "utf-8")
            changed += 1
    return changed
