#!/usr/bin/env python3
"""Near-duplicate detection at scale: the split stage's own code on a synthetic corpus.

Code: ``--records`` TikZ-like pictures (default 1,000,000), each distinct (random names,
coordinates, labels); ``--dup-rate`` of them are planted near-duplicates — a copy of an
earlier picture with 1–3 tokens changed and the lines re-indented. Signatures are computed in
``--workers`` processes (chunks generated there, so no code text crosses a pipe); banding,
candidate verification and components run in the driver (``near_dup.code_pairs``).
Renders: ``--renders`` PNG diagrams (default 100,000: boxes, arrows, labels) with planted
copies moved by a pixel with one label changed, hashed with ``near_dup.phash`` (PNG decode + pHash)
and matched with ``near_dup.image_pairs``.

Recall = planted pairs that end in one cluster; precision = verified pairs whose two records
come from the same planted family. Prints records/s, seconds per phase and peak RSS (driver
and workers). Usage: .venv/bin/python benchmarks/near_dup.py [--records N] [--renders M]
"""

from __future__ import annotations

import argparse
import io
import random
import resource
import sys
import time
from multiprocessing import get_context
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.filters.split import near_dup  # noqa: E402
from diagramforge.filters.split.settings import NearDupParams  # noqa: E402

CFG = NearDupParams()
SHAPES = ["draw", "draw, circle", "draw, rounded corners", "fill=blue!20, draw",
          "draw, diamond", "rectangle, draw=red"]


def family(i: int, dup_rate: float, seed: int) -> int:
    """The original a record copies (itself when it is not a planted duplicate)."""
    rng = random.Random(seed * 1_000_003 + i)
    if i > 0 and rng.random() < dup_rate:
        return rng.randrange(max(0, i - 5000), i)  # copies sit near their original
    return i


def root(i: int, dup_rate: float, seed: int) -> int:
    """The original at the start of a chain of copies (a copy of a copy copies it)."""
    while (f := family(i, dup_rate, seed)) != i:
        i = f
    return i


def code(i: int, dup_rate: float, seed: int) -> str:
    src = root(i, dup_rate, seed)
    rng = random.Random(seed * 7_919 + src)
    lines = []
    for k in range(rng.randint(12, 30)):
        lines.append(f"\\node[{rng.choice(SHAPES)}] (n{k}) at ({rng.randint(0, 400)},"
                     f"{rng.randint(0, 400)}) {{step {rng.randint(0, 10**6)}}};")
        if k:
            lines.append(f"\\draw[->] (n{rng.randrange(k)}) -- (n{k});")
    if src != i:  # the planted edit: 1-3 tokens changed, indentation changed
        m = random.Random(seed * 31 + i)
        for _ in range(m.randint(1, 3)):
            j = m.randrange(len(lines))
            lines[j] = lines[j].replace("step", f"stage{m.randint(0, 99)}", 1)
        lines = ["  " + ln for ln in lines]
    return "\\begin{tikzpicture}\n" + "\n".join(lines) + "\n\\end{tikzpicture}\n"


def sign_chunk(args: tuple[int, int, float, int]) -> np.ndarray:
    lo, hi, dup_rate, seed = args
    signer = near_dup.CodeSigner(CFG.code.num_perm, CFG.code.seed, CFG.code.shingle)
    out = np.zeros((hi - lo, CFG.code.num_perm), dtype=np.uint32)
    for i in range(lo, hi):
        out[i - lo] = signer.signature(code(i, dup_rate, seed))
    return out


def render(i: int, dup_rate: float, seed: int) -> bytes:
    from PIL import Image, ImageDraw

    src = root(i, dup_rate, seed)
    rng = random.Random(seed * 104_729 + src)
    edit = random.Random(i)  # a planted copy: moved a pixel, one label changed
    shift = edit.randint(0, 1) if src != i else 0
    relabel = edit.randrange(3) if src != i else -1
    im = Image.new("L", (192, 128), 255)
    d = ImageDraw.Draw(im)
    boxes = []
    for k in range(rng.randint(3, 7)):
        x, y = rng.randint(0, 150) + shift, rng.randint(0, 100) + shift
        w, h = rng.randint(20, 60), rng.randint(12, 30)
        d.rectangle((x, y, x + w, y + h), outline=0, width=2,
                    fill=rng.choice([255, 255, 200, 160]))
        label = rng.randint(0, 99)
        d.text((x + 3, y + 2), f"{label + 1 if k == relabel else label}", fill=0)
        boxes.append((x + w // 2, y + h // 2))
    for a, b in zip(boxes, boxes[1:], strict=False):
        d.line((a, b), fill=0, width=2)
    buf = io.BytesIO()
    im.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def hash_chunk(args: tuple[int, int, float, int]) -> np.ndarray:
    lo, hi, dup_rate, seed = args
    return np.array([near_dup.phash(render(i, dup_rate, seed), CFG.image.hash_size)
                     for i in range(lo, hi)], dtype=np.uint64)


def score(n: int, pairs: np.ndarray, dup_rate: float, seed: int) -> tuple[float, float, int]:
    fam = np.array([family(i, dup_rate, seed) for i in range(n)])
    while not np.array_equal(fam, fam[fam]):  # a copy of a copy belongs to the original
        fam = fam[fam]
    labels = near_dup.components(n, pairs)
    planted = np.flatnonzero(fam != np.arange(n))
    recall = float(np.mean(labels[planted] == labels[fam[planted]])) if planted.size else 1.0
    precision = float(np.mean(fam[pairs[:, 0]] == fam[pairs[:, 1]])) if pairs.size else 1.0
    return recall, precision, int(planted.size)


def chunks(n: int, size: int, dup_rate: float, seed: int) -> list[tuple[int, int, float, int]]:
    return [(lo, min(n, lo + size), dup_rate, seed) for lo in range(0, n, size)]


def peak_rss_mb() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, kids


def renders(a: argparse.Namespace, ctx) -> None:  # noqa: ANN001 - a multiprocessing context
    t0 = time.perf_counter()
    with ctx.Pool(a.workers) as pool:
        hashes = np.concatenate(list(pool.imap(hash_chunk, chunks(a.renders, 2_000,
                                                                  a.dup_rate, a.seed))))
    t1 = time.perf_counter()
    ipairs, _ = near_dup.image_pairs(hashes, np.ones(a.renders, dtype=bool),
                                     CFG.image.max_distance, CFG.max_bucket,
                                     CFG.image.hash_size ** 2)
    t2 = time.perf_counter()
    recall, precision, planted = score(a.renders, ipairs, a.dup_rate, a.seed)
    print(f"renders: {a.renders:,} ({planted:,} planted), max distance "
          f"{CFG.image.max_distance}")
    print(f"  draw+PNG+decode+pHash: {t1 - t0:.1f} s, multi-index match: {t2 - t1:.1f} s, "
          f"total {t2 - t0:.1f} s = {a.renders / (t2 - t0):,.0f} renders/s")
    print(f"  pairs found {ipairs.shape[0]:,}; recall {recall:.4f}; precision {precision:.4f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--renders", type=int, default=100_000)
    ap.add_argument("--dup-rate", type=float, default=0.05)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    ctx = get_context("fork")
    print(f"code: threshold {CFG.code.threshold}, {CFG.code.num_perm} permutations, "
          f"{CFG.code.shingle}-token shingles, bands x rows = "
          f"{near_dup.lsh_params(CFG.code.threshold, CFG.code.num_perm)}")

    t0 = time.perf_counter()
    sigs = np.zeros((a.records, CFG.code.num_perm), dtype=np.uint32)
    with ctx.Pool(a.workers) as pool:
        for (lo, hi, *_), block in zip(chunks(a.records, 10_000, a.dup_rate, a.seed),
                                       pool.imap(sign_chunk, chunks(a.records, 10_000,
                                                                    a.dup_rate, a.seed)),
                                       strict=True):
            sigs[lo:hi] = block
    t1 = time.perf_counter()
    pairs, _ = near_dup.code_pairs(sigs, np.ones(a.records, dtype=bool), CFG.code.threshold,
                                   CFG.max_bucket)
    t2 = time.perf_counter()
    del sigs
    recall, precision, planted = score(a.records, pairs, a.dup_rate, a.seed)
    print(f"code records: {a.records:,} ({planted:,} planted near-duplicates)")
    print(f"  generate+shingle+MinHash: {t1 - t0:.1f} s, LSH+verify: {t2 - t1:.1f} s, "
          f"total {t2 - t0:.1f} s = {a.records / (t2 - t0):,.0f} records/s")
    print(f"  pairs found {pairs.shape[0]:,}; recall {recall:.4f}; precision {precision:.4f}")

    if a.renders:
        renders(a, ctx)
    own, kids = peak_rss_mb()
    print(f"peak RSS: driver {own:,.0f} MB, largest worker {kids:,.0f} MB")


if __name__ == "__main__":
    main()
