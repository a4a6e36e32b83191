"""Decontamination: test items whose code shares a long token run with a reference set.

Near-duplicate clustering (:mod:`.near_dup`) joins diagrams that are similar *as a whole*; a
test figure can still contain a long passage copied from a training one (a shared subfigure,
a pasted style block with its nodes) or from a public dataset a model was trained on. The
standard check for this (GPT-3's 13-gram overlap, the HumanEval and The Stack
decontamination passes) is exact n-gram overlap, done with hashed shingles rather than a
pairwise scan:

* code is cut into tokens (identifiers, numbers, single symbols; whitespace ignored, so
  reindenting does not hide a copy), every run of ``ngram`` tokens is hashed to 64 bits with
  a polynomial hash over per-token BLAKE2 hashes (vectorised with numpy);
* the reference set (train, plus any external dataset) becomes one sorted array of unique
  shingle hashes, each with the first document it came from; a shingle found in
  ``boilerplate_docs`` or more reference documents is boilerplate (a standard preamble) and
  dropped;
* each test item's shingles are looked up with ``np.isin``: linear in the total code size,
  never quadratic in the number of items.

At scale (the split stage, issue 26) the same result comes from shingles spilled to disk
(:class:`ShingleSpill`) and an index built one hash range at a time
(:func:`find_spilled`), so memory stays flat whatever the corpus's size; :func:`find` is the
in-memory form, and the reference the spilled one is tested against.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from pathlib import Path

import numpy as np

from diagramforge.filters.split.settings import DecontamParams

TOKEN = re.compile(r"\w+|[^\w\s]")
_BASE = np.uint64(1099511628211)  # FNV prime: odd, so the polynomial hash mixes every token


class Against:
    """Names of the reference sets a hit may point to (external ones by their spec)."""

    TRAIN = "train"


@lru_cache(maxsize=1 << 16)
def _token_hash(tok: str) -> int:
    return int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=8).digest(), "big")


def shingles(code: str | np.ndarray | None, n: int) -> np.ndarray:
    """Unique 64-bit hashes of every ``n``-token run of ``code`` (empty if shorter).

    ``code`` may already be its shingles (an array from this function): the split stage
    computes them while it streams its shards and keeps only these (8 B per code token)."""
    if isinstance(code, np.ndarray):
        return code
    toks = TOKEN.findall(code or "")
    if len(toks) < n:
        return np.empty(0, dtype=np.uint64)
    t = np.fromiter((_token_hash(x) for x in toks), dtype=np.uint64, count=len(toks))
    m = len(toks) - n + 1
    h = np.zeros(m, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(n):  # h = Σ t[i+k]·B^(n-1-k) mod 2^64, one vector op per position
            h = h * _BASE + t[k:k + m]
    return np.unique(h)


@dataclass
class Index:
    """Unique reference shingles (sorted), the first document holding each, and names."""

    hashes: np.ndarray
    doc: np.ndarray
    names: list[tuple[str, str]]
    """Per document: (reference set, id)."""
    boilerplate: int = 0
    """Shingles dropped as boilerplate."""

    @classmethod
    def build(cls, docs: Iterable[tuple[str, str, str | None]], cfg: DecontamParams,
              others: Iterable[np.ndarray] = ()) -> Index:
        """``docs``: (reference set, id, code). ``others``: shingles of the documents being
        checked, counted towards document frequency only — boilerplate is what many
        documents of the whole pool carry (a format's page header), whichever split."""
        parts, owners, names = [], [], []
        for against, id_, code in docs:
            sh = shingles(code, cfg.ngram)
            if not sh.size:
                continue
            parts.append(sh)
            owners.append(np.full(sh.size, len(names), dtype=np.int64))
            names.append((against, id_))
        if not parts:
            return cls(np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64), names)
        allh, alld = np.concatenate(parts), np.concatenate(owners)
        hashes, first = np.unique(allh, return_index=True)
        # shingles are unique per document, so a hash's count is its document frequency
        df_h, df_n = np.unique(np.concatenate([allh, *others]), return_counts=True)
        common = df_h[df_n >= cfg.boilerplate_docs]
        keep = ~np.isin(hashes, common)
        return cls(hashes[keep], alld[first[keep]], names, int(common.size))

    def lookup(self, code: str | None, n: int) -> tuple[int, int, tuple[str, str] | None]:
        """(shared shingles, the item's shingles, the reference document sharing most)."""
        sh = shingles(code, n)
        if not sh.size or not self.hashes.size:
            return 0, int(sh.size), None
        pos = np.searchsorted(self.hashes, sh)
        pos[pos == self.hashes.size] = 0
        hit = self.hashes[pos] == sh
        if not hit.any():
            return 0, int(sh.size), None
        best, _ = Counter(self.doc[pos[hit]].tolist()).most_common(1)[0]
        return int(hit.sum()), int(sh.size), self.names[best]


@dataclass
class Hit:
    id: str
    source_id: str | None
    against: str
    match: str
    shared: int
    shingles: int

    def reason(self, n: int) -> str:
        return (f"{self.shared} of {self.shingles} {n}-token runs shared with "
                f"{self.against} item {self.match}")


PARAM = "split.decontaminate.against"


def _param_error(spec: str, what: str, e: Exception) -> ValueError:
    return ValueError(f"{PARAM}: cannot {what} {spec!r} ({type(e).__name__}: {e})")


def _config_parts(spec: str, config: str) -> dict:
    """One config's splits, streamed where ``datasets`` can (a local directory, a reachable
    Hub): a large reference set is never held whole.  Offline, a Hub id streams nothing, so
    the cached (Arrow, memory-mapped) copy is read instead."""
    from datasets import load_dataset

    try:
        return dict(load_dataset(spec, config, streaming=True))
    except Exception:  # noqa: BLE001 - not streamable here; the cached copy may still load
        try:
            return dict(load_dataset(spec, config))
        except Exception as e:  # noqa: BLE001 - datasets raises many kinds; say which param
            raise _param_error(spec, f"load config {config!r} of", e) from e


def _columns(ds: object) -> list[str]:
    names = getattr(ds, "column_names", None)
    if names is None:  # a stream whose features are unknown until read
        first = next(iter(ds), None)  # type: ignore[call-overload]
        names = list(first) if first else []
    return list(names)


def external_docs(spec: str, column: str) -> Iterator[tuple[str, str, str | None]]:
    """Rows of an external dataset named in ``split.decontaminate.against``: a local Parquet
    file (streamed), or a Hub id or a local dataset directory (a Hub snapshot, a published
    diagramforge version) loaded by ``datasets`` as a repository — offline, the Hub id comes
    from the ``datasets`` cache.

    A repository may hold several configs (a published diagramforge version has one per
    task and format view; ``load_dataset(spec)`` refuses those without a config name), so
    every config is read (``get_dataset_config_names``) with every split, and a hit names
    where it came from as ``spec/config/split``.  Configs without ``column`` are skipped
    (an editing config has ``source_code``, not ``code``); none having it is an error.

    A code text is yielded once per ``spec``, under the first config/split holding it: a
    published version repeats each diagram's code in its views (``tikz``), its task configs
    (``qa``, ``captioning``) and its image variants (``sketch``, ``degraded``), and counted
    that often it would pass ``boilerplate_docs`` and be dropped as boilerplate — measured
    on the samples' own published version: 2 of 9 test items found before, all after."""
    from datasets import get_dataset_config_names, load_dataset

    p = Path(spec)
    if p.is_file():
        parts = {spec: load_dataset("parquet", data_files=str(p), split="train",
                                    streaming=True)}
        named = {spec: "all"}
    else:
        try:
            configs = get_dataset_config_names(spec)
        except Exception as e:  # noqa: BLE001 - datasets raises many kinds; say which param
            raise _param_error(spec, "load", e) from e
        parts, named = {}, {}
        for config in configs:
            for split, ds in _config_parts(spec, config).items():
                parts[f"{spec}/{config}/{split}"] = ds
                named[f"{spec}/{config}/{split}"] = split
    usable = {k: ds for k, ds in parts.items() if column in _columns(ds)}
    if not usable:
        raise ValueError(f"{PARAM}: {spec} has no column {column!r} in any config "
                         f"(set split.decontaminate.code_column)")
    seen: set[bytes] = set()
    for against, ds in usable.items():
        has_id = "id" in _columns(ds)
        for k, row in enumerate(ds.select_columns([column, *(["id"] if has_id else [])])):
            digest = hashlib.blake2b(str(row[column]).encode(), digest_size=16).digest()
            if digest in seen:
                continue
            seen.add(digest)
            yield against, str(row.get("id") or f"{named[against]}:{k}"), row[column]


@dataclass
class Found:
    hits: list[Hit]
    references: int
    """Reference documents long enough to hold an n-gram."""
    boilerplate: int
    tested: int


def find(rows: list[dict], cfg: DecontamParams,
         external: Iterable[tuple[str, str, str | None]] = ()) -> Found:
    """Test rows of ``rows`` (``split`` assigned) contaminated by train rows or ``external``."""
    train = ((Against.TRAIN, str(r["id"]), r.get("code")) for r in rows
             if r.get("split") == "train")
    rest = [shingles(r.get("code"), cfg.ngram) for r in rows if r.get("split") != "train"]
    index = Index.build(chain(train, external), cfg, rest)
    hits = []
    for r in rows:
        if r.get("split") != "test":
            continue
        shared, total, best = index.lookup(r.get("code"), cfg.ngram)
        if best is not None and shared >= cfg.min_shared:
            hits.append(Hit(str(r["id"]), r.get("source_id"), best[0], best[1], shared, total))
    tested = sum(r.get("split") == "test" for r in rows)
    return Found(hits, len(index.names), index.boilerplate, tested)


SPILL_RUN_BYTES = 32 << 20
"""(hash, row) pairs a :class:`ShingleSpill` buffers before writing one sorted run."""
RANGE_BYTES = 32 << 20
"""(hash, row) pairs :func:`find_spilled` reads per hash range. Its transient peak is about
5× this (a sort with owners, document frequencies), whatever the corpus's size."""
_PAIR = 12  # bytes per stored pair: uint64 hash + uint32 key


class ShingleSpill:
    """Documents' shingles on disk, as sorted runs of (hash, key) pairs.

    Why: the split stage meets every row's code once, while it streams its shards, but
    learns which rows are train and which test only after every row is seen. Holding the
    shingles until then costs 8 B per code token — the one part of the split that grew with
    the corpus (§3 of docs/SCALE.md: 2 GB at 100k rows of draw.io pages). Here they go to
    ``directory`` in runs of :data:`SPILL_RUN_BYTES`, each sorted by hash, so a hash range
    is a contiguous slice of every run (a memmap read, no second sort of the whole);
    memory is the buffer and one count per key."""

    def __init__(self, directory: Path, run_bytes: int | None = None) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.run_bytes = run_bytes or SPILL_RUN_BYTES
        self.counts: dict[int, int] = {}
        """key → its shingles (0 for a document too short for one)."""
        self.runs: list[Path] = []
        self._h: list[np.ndarray] = []
        self._k: list[np.ndarray] = []
        self._buffered = 0

    def add(self, key: int, sh: np.ndarray) -> None:
        """Store ``sh`` (a document's unique shingles, :func:`shingles`) under ``key``."""
        self.counts[key] = int(sh.size)
        if not sh.size:
            return
        self._h.append(sh)
        self._k.append(np.full(sh.size, key, dtype=np.uint32))
        self._buffered += sh.size * _PAIR
        if self._buffered >= self.run_bytes:
            self.flush()

    def flush(self) -> None:
        """Write the buffer as one run sorted by (hash, key)."""
        if not self._h:
            return
        h, k = np.concatenate(self._h), np.concatenate(self._k)
        self._h, self._k, self._buffered = [], [], 0
        order = np.lexsort((k, h))
        base = self.directory / f"run-{len(self.runs):05d}"
        np.save(base.with_suffix(".h.npy"), h[order])
        np.save(base.with_suffix(".k.npy"), k[order])
        self.runs.append(base)

    @property
    def pairs(self) -> int:
        return sum(self.counts.values())

    def in_range(self, lo: int, hi: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Every stored (hash, key) with ``lo <= hash < hi`` (``hi=None``: to the end)."""
        self.flush()
        hs, ks = [], []
        for base in self.runs:
            h = np.load(base.with_suffix(".h.npy"), mmap_mode="r")
            a = int(np.searchsorted(h, np.uint64(lo)))
            b = h.size if hi is None else int(np.searchsorted(h, np.uint64(hi)))
            if b > a:
                hs.append(np.array(h[a:b]))
                ks.append(np.array(np.load(base.with_suffix(".k.npy"), mmap_mode="r")[a:b]))
        if not hs:
            return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.uint32)
        return np.concatenate(hs), np.concatenate(ks)


def find_spilled(rows: list[dict], spill: ShingleSpill, key: str, cfg: DecontamParams,
                 external: Iterable[tuple[str, str, str | None]] = (),
                 range_bytes: int | None = None) -> Found:
    """:func:`find`'s result for ``rows`` whose shingles are in ``spill`` under ``row[key]``.

    The reference index is built one hash range at a time, each range read from the spill
    (``range_bytes`` of pairs, :data:`RANGE_BYTES` by default, so memory does not grow with the
    corpus); ``external`` is streamed once into a second spill beside it. The result is
    :func:`find`'s, exactly: a shingle's owner is the first reference document holding it (train
    rows in ``rows``' order, then the external ones), document frequencies count every row in
    ``rows`` and every external document, and each test item's owners are counted in ascending
    hash order across ascending ranges — the order :meth:`Index.lookup` counts them in, so the
    best match and its tie-break are the same. Rows of the spill not in ``rows`` (dropped
    as duplicates after they were spilled) count for nothing."""
    n, range_bytes = cfg.ngram, range_bytes or RANGE_BYTES
    size = max(max((int(r[key]) for r in rows), default=-1),
               max(spill.counts, default=-1)) + 1
    rank = np.full(size, -1, dtype=np.int64)   # key → reference document
    test = np.full(size, -1, dtype=np.int64)   # key → test item
    present = np.zeros(size, dtype=bool)
    names: list[tuple[str, str]] = []
    tests: list[dict] = []
    for r in rows:
        k = int(r[key])
        present[k] = True
        if r.get("split") == "train" and spill.counts.get(k):
            rank[k] = len(names)
            names.append((Against.TRAIN, str(r["id"])))
        elif r.get("split") == "test":
            test[k] = len(tests)
            tests.append(r)
    n_train = len(names)
    ext = ShingleSpill(spill.directory / "external", spill.run_bytes)
    for against, id_, code in external:
        sh = shingles(code, n)
        if sh.size:
            ext.add(len(names) - n_train, sh)
            names.append((against, id_))
    if not names:  # no reference document at all: nothing to find (as find)
        return Found([], 0, 0, len(tests))
    shared = np.zeros(len(tests), dtype=np.int64)
    owners: list[Counter] = [Counter() for _ in tests]
    boilerplate = 0
    parts = max(1, min(1 << 16, -(-(spill.pairs + ext.pairs) * _PAIR // range_bytes)))
    cuts = [k * (2**64 // parts) for k in range(parts)]  # ascending ranges
    for p, lo in enumerate(cuts):
        hi = cuts[p + 1] if p + 1 < parts else None
        h, k = spill.in_range(lo, hi)
        keep = present[k]
        h, k = h[keep], k[keep]
        eh, ek = ext.in_range(lo, hi)
        # shingles are unique per document, so a hash's count is its document frequency
        df_h, df_n = np.unique(np.concatenate([h, eh]), return_counts=True)
        common = df_h[df_n >= cfg.boilerplate_docs]
        boilerplate += int(common.size)
        del df_h, df_n
        ref = rank[k] >= 0
        rh = np.concatenate([h[ref], eh])
        rd = np.concatenate([rank[k[ref]], ek.astype(np.int64) + n_train])
        order = np.lexsort((rd, rh))  # by hash, then document: the first holder first
        rh, rd = rh[order], rd[order]
        first = np.ones(rh.size, dtype=bool)
        first[1:] = rh[1:] != rh[:-1]
        index_h, index_d = rh[first], rd[first]
        keep = ~np.isin(index_h, common)
        index_h, index_d = index_h[keep], index_d[keep]
        del rh, rd, order, first, keep, common
        t = test[k]
        th, tt = h[t >= 0], t[t >= 0]
        if not index_h.size or not th.size:
            continue
        pos = np.searchsorted(index_h, th)
        pos[pos == index_h.size] = 0
        hit = index_h[pos] == th
        th, tt, owner = th[hit], tt[hit], index_d[pos[hit]]
        order = np.lexsort((th, tt))  # per test item, in ascending hash order
        tt, owner = tt[order], owner[order]
        shared += np.bincount(tt, minlength=len(tests))
        bounds = np.flatnonzero(np.diff(tt)) + 1
        for ts, os_ in zip(np.split(tt, bounds), np.split(owner, bounds), strict=True):
            if ts.size:
                owners[int(ts[0])].update(os_.tolist())
    hits = []
    for r, s, o in zip(tests, shared.tolist(), owners, strict=True):
        if s and s >= cfg.min_shared:
            against, match = names[o.most_common(1)[0][0]]
            hits.append(Hit(str(r["id"]), r.get("source_id"), against, match, s,
                            spill.counts.get(int(r[key]), 0)))
    return Found(hits, len(names), boilerplate, len(tests))
