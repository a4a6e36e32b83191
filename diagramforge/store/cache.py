"""One content-addressed cache for everything that is expensive and pure.

TeX compiles, renders and LLM calls are functions of their inputs: the cache key is a hash of
every input that changes the answer (engine, version, code, model, prompt, sampling params…),
so a rerun, a resume after a kill, or a change of an unrelated threshold never pays twice.
``diskcache`` gives a process-safe SQLite index with values in files, shared by the process
pool's workers and by Dask workers on the same machine.

Values are stored as given (``bytes``, ``str``, JSON-able objects; diskcache pickles what is not
bytes). A namespace keeps kinds apart so ``diagramforge cache clear --kind tex`` can drop one.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import diskcache

T = TypeVar("T")
_MISSING = object()
DEFAULT_DIR = Path("data/cache/content")


def content_key(*parts: Any) -> str:
    """A stable hex digest of ``parts`` (strings, bytes, numbers, JSON-able structures)."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, bytes):
            h.update(b"b")
            h.update(part)
        elif isinstance(part, str):
            h.update(b"s")
            h.update(part.encode("utf-8"))
        else:
            h.update(b"j")
            h.update(json.dumps(part, sort_keys=True, default=str).encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


class ContentCache:
    """A namespace of the shared on-disk cache; ``None`` directory means "do not cache"."""

    _open: dict[tuple[str, int], diskcache.Cache] = {}

    def __init__(self, directory: Path | str | None, namespace: str) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.namespace = namespace

    @property
    def _cache(self) -> diskcache.Cache | None:
        if self.directory is None:
            return None
        key = (str(self.directory.resolve()), os.getpid())  # one handle per process
        cache = self._open.get(key)
        if cache is None:
            cache = diskcache.Cache(str(self.directory), size_limit=2**40,
                                    eviction_policy="none")
            self._open[key] = cache
        return cache

    def _k(self, key: str) -> str:
        return f"{self.namespace}:{key}"

    def get(self, key: str, default: Any = None) -> Any:
        cache = self._cache
        if cache is None:
            return default
        return cache.get(self._k(key), default=default)

    def put(self, key: str, value: Any) -> None:
        cache = self._cache
        if cache is not None:
            cache.set(self._k(key), value)

    def __contains__(self, key: str) -> bool:
        cache = self._cache
        return cache is not None and self._k(key) in cache

    def get_or_compute(self, key: str, compute: Callable[[], T],
                       keep: Callable[[T], bool] = lambda _: True) -> tuple[T, bool]:
        """``(value, was_cached)``; ``keep`` decides whether a fresh value is stored (a
        transient failure — a timeout, a 429 — should not be cached)."""
        hit = self.get(key, _MISSING)
        if hit is not _MISSING:
            return hit, True
        value = compute()
        if keep(value):
            self.put(key, value)
        return value, False

    def clear(self) -> int:
        """Drop this namespace's entries; returns how many."""
        cache = self._cache
        if cache is None:
            return 0
        n = 0
        prefix = f"{self.namespace}:"
        for k in list(cache.iterkeys()):
            if isinstance(k, str) and k.startswith(prefix):
                n += cache.delete(k)
        return n
