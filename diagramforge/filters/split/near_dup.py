"""Near-duplicate detection: MinHash LSH over code shingles, perceptual hashes of renders.

Two diagrams are near-duplicates when the estimated Jaccard similarity of their code's token
shingles reaches a threshold (a TikZ figure copied with one label changed), or when the
Hamming distance of their renders' pHashes is at most a few bits (the same picture written
differently).  Near-duplicates are edges; connected components of those edges are the
``dup_cluster`` s the split stage keeps together or reduces to one representative.

Signatures are ``datasketch.MinHash`` (affine32 scheme, shared permutations); pHashes are
``imagehash.phash``.  The LSH banding itself is done here, vectorised over numpy arrays
rather than in ``datasketch.MinHashLSH``'s per-key dicts, because a million records in those
dicts cost gigabytes: each band becomes one uint64 key per record, equal keys are found by
sorting, and every candidate pair is verified against the full signature, so banding only
decides *which* pairs are checked.  The band count and rows per band are datasketch's own
optimum for the threshold (``MinHashLSH(threshold, num_perm).b/.r``).  The image side uses
the pigeonhole trick (multi-index hashing): split the 64 bits into ``d + 1`` chunks and any
two hashes within distance ``d`` agree exactly on at least one chunk.

A bucket larger than ``max_bucket`` (boilerplate shared by thousands of records) is linked as
a star from its first member instead of all pairs, so the work stays linear; components are
what matter, and a star over verified edges still joins what is alike.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_P = np.uint64(0x100000001B3)  # odd: invertible mod 2**64
_P_INV = np.uint64(pow(0x100000001B3, -1, 2**64))
_Q = np.uint64(0x9E3779B97F4A7C15)
_WS = np.zeros(256, dtype=bool)
_WS[[9, 10, 11, 12, 13, 32]] = True
_PUNCT = np.zeros(256, dtype=bool)
_PUNCT[list(b"{}[](),;=<>:\"'")] = True
_BACKSLASH = ord("\\")


_POW: dict[str, np.ndarray] = {}


def _powers(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``P**i`` and ``P**-i`` mod 2**64 for ``i < n`` (cached, grown by doubling)."""
    if _POW.get("p") is None or _POW["p"].size < n:
        size = max(n, 2 * _POW["p"].size if "p" in _POW else 4096)
        with np.errstate(over="ignore"):
            _POW["p"] = np.cumprod(np.full(size, _P, dtype=np.uint64), dtype=np.uint64) * _P_INV
            _POW["i"] = np.cumprod(np.full(size, _P_INV, dtype=np.uint64), dtype=np.uint64) * _P
    return _POW["p"][:n], _POW["i"][:n]


def token_hashes(code: str) -> np.ndarray:
    """uint64 hash of every token of ``code``, vectorised (no Python loop per token).

    A token is a run of non-space characters that are not brackets or separators, split
    before every backslash (``\\draw\\fill`` is two control words), or one bracket or
    separator; whitespace only separates, so reformatting never matters.
    """
    b = np.frombuffer(code.encode("utf-8", "replace"), dtype=np.uint8)
    n = b.size
    if not n:
        return np.empty(0, dtype=np.uint64)
    ws, punct = _WS[b], _PUNCT[b]
    word = ~ws & ~punct
    prev_word = np.empty_like(word)
    prev_word[0], prev_word[1:] = False, word[:-1]
    start = punct | (word & (~prev_word | (b == _BACKSLASH)))
    starts = np.flatnonzero(start)
    if not starts.size:
        return np.empty(0, dtype=np.uint64)
    stops = np.append(np.flatnonzero(start | ws), n)
    ends = stops[np.searchsorted(stops, starts, side="right")]
    with np.errstate(over="ignore"):
        pw, inv = _powers(n + 1)
        prefix = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum(b.astype(np.uint64) * pw[:n], dtype=np.uint64, out=prefix[1:])
        h = (prefix[ends] - prefix[starts]) * inv[starts]
        return h * _Q + (ends - starts).astype(np.uint64)


def shingle_hashes(code: str, n: int) -> np.ndarray:
    """uint32 hashes of the ``n``-token shingles of ``code`` (a code shorter than
    ``n`` tokens is one shingle; no tokens, none)."""
    t = token_hashes(code)
    if not t.size:
        return np.empty(0, dtype=np.uint32)
    m = max(1, t.size - n + 1)
    with np.errstate(over="ignore"):
        h = np.zeros(m, dtype=np.uint64)
        for k in range(min(n, t.size)):
            h = h * _Q + t[k:k + m]
        h ^= h >> np.uint64(31)
        h *= _P
    return (h >> np.uint64(32)).astype(np.uint32)  # repeats are harmless to a minimum


def _identity(x: int) -> int:
    return x


class CodeSigner:
    """MinHash signatures with one shared set of permutations (picklable for workers).

    Shingles are hashed here, vectorised, and handed to ``datasketch.MinHash`` as 32-bit
    values (``hashfunc`` identity): datasketch's own per-shingle SHA-1 in Python was 70 % of
    the time on a million records.
    """

    def __init__(self, num_perm: int = 128, seed: int = 1, shingle: int = 5):
        from datasketch import MinHash

        self.num_perm, self.seed, self.shingle = num_perm, seed, shingle
        self._perm = MinHash(num_perm=num_perm, seed=seed, scheme="affine32").permutations

    def signature(self, code: str) -> np.ndarray | None:
        """uint32 signature of ``code``'s shingles; ``None`` for code with no tokens."""
        from datasketch import MinHash

        sh = shingle_hashes(code, self.shingle)
        if not sh.size:
            return None
        m = MinHash(num_perm=self.num_perm, seed=self.seed, permutations=self._perm,
                    scheme="affine32", hashfunc=_identity)
        m.update_batch(sh.tolist())
        return m.hashvalues.astype(np.uint32)


def lsh_params(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands, rows per band) minimising datasketch's weighted false positive/negative
    probability for ``threshold``."""
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    return lsh.b, lsh.r


def band_keys(sigs: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """One uint64 key per (band, record): shape ``(bands, n)``."""
    out = np.empty((bands, sigs.shape[0]), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for b in range(bands):
            key = np.full(sigs.shape[0], np.uint64(b + 1), dtype=np.uint64)
            for c in range(b * rows, (b + 1) * rows):
                key = (key ^ sigs[:, c].astype(np.uint64)) * _Q
            out[b] = key ^ (key >> np.uint64(29))
    return out


def bucket_pairs(keys: np.ndarray, max_bucket: int) -> np.ndarray:
    """Index pairs ``(i, j)``, ``i < j``, of records sharing a key: all pairs in buckets of
    at most ``max_bucket`` members, a star from the first member in larger ones."""
    n = keys.shape[0]
    if n < 2:
        return np.empty((0, 2), dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    starts = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]])
    sizes = np.diff(np.r_[starts, n])
    multi = sizes > 1
    starts, sizes = starts[multi], sizes[multi]
    out = [np.empty((0, 2), dtype=np.int64)]
    small = sizes <= max_bucket
    st, sz = starts[small], sizes[small]
    if st.size:
        rep = np.repeat(np.arange(st.size), sz)
        pos_in = np.arange(rep.size) - np.repeat(np.cumsum(sz) - sz, sz)
        pos = st[rep] + pos_in
        size_of = sz[rep]
        for k in range(1, int(sz.max())):
            ok = pos_in + k < size_of
            out.append(np.stack([order[pos[ok]], order[pos[ok] + k]], 1))
    for s, z in zip(starts[~small], sizes[~small], strict=True):
        members = order[s:s + z]
        out.append(np.stack([np.full(z - 1, members[0]), members[1:]], 1))
    pairs = np.concatenate(out).astype(np.int64)
    return np.sort(pairs, axis=1)


def _unique_pairs(chunks: list[np.ndarray], n: int) -> np.ndarray:
    pairs = np.concatenate(chunks) if chunks else np.empty((0, 2), dtype=np.int64)
    if not pairs.size:
        return pairs
    flat = np.unique(pairs[:, 0] * n + pairs[:, 1])
    return np.stack([flat // n, flat % n], 1)


def code_pairs(sigs: np.ndarray, valid: np.ndarray, threshold: float, max_bucket: int,
               chunk: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
    """Verified near-duplicate pairs among signature rows (``valid`` masks rows that have
    code) and their estimated Jaccard similarity."""
    n, num_perm = sigs.shape
    bands, rows = lsh_params(threshold, num_perm)
    keys = band_keys(sigs, bands, rows)
    idx = np.flatnonzero(valid)
    cand = _unique_pairs([idx[bucket_pairs(k[idx], max_bucket)] for k in keys], n)
    keep, sims = [], []
    for s in range(0, cand.shape[0], chunk):
        c = cand[s:s + chunk]
        j = (sigs[c[:, 0]] == sigs[c[:, 1]]).mean(axis=1)
        keep.append(c[j >= threshold])
        sims.append(j[j >= threshold])
    if not keep:
        return np.empty((0, 2), dtype=np.int64), np.empty(0)
    return np.concatenate(keep), np.concatenate(sims)


def phash(png: bytes, hash_size: int = 8) -> int | None:
    """64-bit (``hash_size`` ² bits) perceptual hash of a PNG; ``None`` if it cannot be read."""
    import imagehash
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(png)) as im:
            bits = imagehash.phash(im, hash_size=hash_size).hash.flatten()
    except (UnidentifiedImageError, OSError, ValueError):
        return None
    return int("".join("1" if b else "0" for b in bits), 2)


def image_pairs(hashes: np.ndarray, valid: np.ndarray, max_distance: int, max_bucket: int,
                bits: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of hashes within ``max_distance`` bits (multi-index hashing) and distances."""
    n = hashes.shape[0]
    idx = np.flatnonzero(valid)
    h = hashes[idx].astype(np.uint64)
    parts = max_distance + 1
    bounds = np.linspace(0, bits, parts + 1).astype(int)
    chunks = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        mask = np.uint64((1 << (hi - lo)) - 1)
        key = (h >> np.uint64(lo)) & mask
        chunks.append(idx[bucket_pairs(key, max_bucket)])
    cand = _unique_pairs(chunks, n)
    if not cand.size:
        return cand, np.empty(0, dtype=np.int64)
    dist = np.bitwise_count(hashes[cand[:, 0]] ^ hashes[cand[:, 1]]).astype(np.int64)
    ok = dist <= max_distance
    return cand[ok], dist[ok]


def components(n: int, pairs: np.ndarray) -> np.ndarray:
    """Connected-component label of each of ``n`` nodes under ``pairs`` edges."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if not pairs.size:
        return np.arange(n)
    g = coo_matrix((np.ones(pairs.shape[0], dtype=np.int8), (pairs[:, 0], pairs[:, 1])),
                   shape=(n, n))
    return connected_components(g, directed=False)[1]


@dataclass
class NearDups:
    """What detection found: a cluster label per record and why records were linked."""

    labels: np.ndarray
    code_pairs: np.ndarray
    code_jaccard: np.ndarray
    image_pairs: np.ndarray
    image_distance: np.ndarray

    def evidence(self) -> dict[tuple[int, int], str]:
        """``(i, j) → "code jaccard≈0.93"`` / ``"phash distance 2"`` for every edge."""
        out: dict[tuple[int, int], str] = {}
        for (i, j), d in zip(self.image_pairs.tolist(), self.image_distance.tolist(),
                             strict=True):
            out[(i, j)] = f"phash distance {d}"
        for (i, j), s in zip(self.code_pairs.tolist(), self.code_jaccard.tolist(), strict=True):
            out[(i, j)] = f"code jaccard≈{s:.2f}"
        return out


class Signatures:
    """The near-duplicate index of ``n`` records, filled one record at a time.

    Why: the split stage streams its input (issue 26), so code and PNGs pass through once,
    shard by shard, and only what detection needs stays: a ``num_perm`` × uint32 MinHash
    signature and a uint64 pHash per record, with two validity flags — ``4·num_perm + 10``
    bytes per record (522 B at ``num_perm: 128``). With ``directory`` the signature matrix is a
    ``.npy`` memmap there instead of anonymous memory, so the OS pages it (past
    :data:`MEMMAP_BYTES`, the split stage uses one under its output directory).

    Where it stops fitting: banding (:func:`code_pairs`) adds ``8·bands`` bytes per record
    for the keys and an argsort of one band at a time; with the split stage's own light rows
    (~640 B each, see ``filters/split/stage.py``) the split peaks at ~1.3 KB per record (measured),
    so an 8 GB budget covers ~6M records. Past that the index must be sharded by band key
    (each band's keys sorted on disk, buckets read back one key range at a time).
    """

    def __init__(self, n: int, *, num_perm: int, shingle: int, seed: int, hash_size: int,
                 code: bool = True, image: bool = True, directory: Path | None = None):
        self.n, self.hash_size = n, hash_size
        self.signer = CodeSigner(num_perm, seed, shingle) if code else None
        self.sigs: np.ndarray | None = None
        if code:
            if directory is not None:
                directory.mkdir(parents=True, exist_ok=True)
                self.sigs = np.lib.format.open_memmap(
                    directory / "signatures.npy", mode="w+", dtype=np.uint32,
                    shape=(n, num_perm))
            else:
                self.sigs = np.zeros((n, num_perm), dtype=np.uint32)
        self.sig_valid = np.zeros(n, dtype=bool)
        self.hashes = np.zeros(n, dtype=np.uint64) if image else None
        self.hash_valid = np.zeros(n, dtype=bool)

    def add(self, i: int, code: str | None, png: bytes | None) -> None:
        """Sign record ``i`` (its PNG is decoded here and dropped)."""
        if self.signer is not None and self.sigs is not None:
            s = self.signer.signature(code or "")
            if s is not None:
                self.sigs[i], self.sig_valid[i] = s, True
        if self.hashes is not None and png:
            h = phash(png, self.hash_size)
            if h is not None:
                self.hashes[i], self.hash_valid[i] = np.uint64(h), True

    def find(self, *, code_threshold: float, max_distance: int | None,
             max_bucket: int) -> NearDups:
        """Clusters over the signed records (same result as :func:`find` on their inputs)."""
        n = self.n
        cp, cj = np.empty((0, 2), dtype=np.int64), np.empty(0)
        if self.sigs is not None and n:
            cp, cj = code_pairs(np.asarray(self.sigs), self.sig_valid, code_threshold,
                                max_bucket)
        ip, idist = np.empty((0, 2), dtype=np.int64), np.empty(0, dtype=np.int64)
        if self.hashes is not None and n:
            ip, idist = image_pairs(self.hashes, self.hash_valid, max_distance or 0, max_bucket,
                                    self.hash_size * self.hash_size)
        both = np.concatenate([cp, ip]) if cp.size or ip.size else np.empty((0, 2), np.int64)
        return NearDups(components(n, both), cp, cj, ip, idist)


MEMMAP_BYTES = 1 << 30
"""Signature matrices larger than this live in a memmap under the stage's directory."""


def find(codes: list[str | None], pngs: list[bytes | None], *, code_threshold: float,
         num_perm: int, shingle: int, seed: int, max_distance: int | None, hash_size: int,
         max_bucket: int) -> NearDups:
    """Near-duplicate clusters of records given their code and rendered PNG (either may be
    missing). ``max_distance=None`` or ``code_threshold > 1`` switch a signal off."""
    n = len(codes)
    index = Signatures(n, num_perm=num_perm, shingle=shingle, seed=seed, hash_size=hash_size,
                       code=code_threshold <= 1, image=max_distance is not None)
    for i, (code, png) in enumerate(zip(codes, pngs, strict=True)):
        index.add(i, code, png)
    return index.find(code_threshold=code_threshold, max_distance=max_distance,
                      max_bucket=max_bucket)
