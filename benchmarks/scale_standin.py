"""Stand-in render output for the stages after ``render`` at N where drawing is not run.

``scale.py`` runs typesetting and drawing at 1k (and 10k); at 100k it measures only the
stages that neither typeset nor draw, which need a render table to read. This writes one,
shard for shard like the real stage would (output shard *i* from extract shard *i*): each
extracted record gets the render columns of a *donor* — a record of the same format that
the real render stage drew in a smaller run — with the donor's PNG overlaid by a seeded
pattern of a few boxes, so that every stand-in image is distinct (its pHash differs, as real
renders of distinct diagrams do) while sizes stay those of real renders.
The code, ids and everything extract wrote stay the record's own. Written with
``render_engine = "stand-in"``; never used for anything but measurement.
"""

from __future__ import annotations

import io
import json
import random
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pyarrow.parquet as pq
from PIL import Image, ImageDraw

from diagramforge.measure.stats import StageStats
from diagramforge.store import atomic
from diagramforge.store.records import RECORD_SCHEMA
from diagramforge.store.shards import ShardSet

RENDER_COLS = ("image", "width", "height", "render_status", "render_engine", "render_error",
               "graph", "graph_nodes", "graph_edges", "graph_components",
               "graph_longest_path")


def _perturb(png: bytes, seed: str) -> bytes:
    """The donor with four light, outlined boxes drawn over it at seeded places: diagram-like
    flat areas, so the PNG compresses as a render does (≈0.93× the donor's bytes), while
    two stand-ins of one donor are ≥16 pHash bits apart (the split's threshold is 4)."""
    rnd = random.Random(seed)
    im = Image.open(io.BytesIO(png)).convert("RGB")
    d = ImageDraw.Draw(im)
    w, h = im.size
    for _ in range(4):
        x0, y0 = rnd.randrange(max(1, w)), rnd.randrange(max(1, h))
        x1 = x0 + rnd.randrange(w // 6 + 2, w // 2 + 3)
        y1 = y0 + rnd.randrange(h // 6 + 2, h // 2 + 3)
        d.rectangle((x0, y0, x1, y1), fill=tuple(rnd.randrange(150, 256) for _ in range(3)),
                    outline=(0, 0, 0), width=max(1, w // 300))
    out = io.BytesIO()
    im.save(out, "PNG")
    return out.getvalue()


def _donors(donor_render: Path) -> dict[str, list[dict]]:
    by_fmt: dict[str, list[dict]] = defaultdict(list)
    for p in sorted(donor_render.glob("part-*.parquet")):
        t = pq.read_table(p, columns=["format", *RENDER_COLS])
        for r in t.to_pylist():
            if r["image"]:
                by_fmt[r["format"]].append(r)
    return by_fmt


_DONORS: dict[str, list[dict]] = {}


def _init(donor_render: str) -> None:
    global _DONORS
    _DONORS = _donors(Path(donor_render))


def _shard(args: tuple[str, str, int]) -> tuple[int, int]:
    src, dest, index = args
    rows = pq.read_table(src).to_pylist()
    out = []
    for r in rows:
        pool = _DONORS.get(r["format"]) or next(iter(_DONORS.values()))
        donor = pool[int.from_bytes(r["id"].encode()[-6:], "big") % len(pool)]
        out.append({**r, **{c: donor[c] for c in RENDER_COLS},
                    "image": _perturb(donor["image"], r["id"]),
                    "render_engine": "stand-in"})
    ShardSet(Path(dest), RECORD_SCHEMA).write(index, out)
    return len(rows), len(out)


def write_standin(data_dir: Path, metrics_dir: Path, donor_render: Path, workers: int = 2
                  ) -> StageStats:
    """Fill ``data_dir/render`` from ``data_dir/extract`` and the donors; mark it complete."""
    src, dest = data_dir / "extract" / "records", data_dir / "render"
    shards = sorted(src.glob("part-*.parquet"))
    (dest / "records").mkdir(parents=True, exist_ok=True)
    (dest / "rejections").mkdir(parents=True, exist_ok=True)
    stats = StageStats(stage="render")
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(str(donor_render),)) as ex:
        jobs = [(str(p), str(dest / "records"), int(p.stem.split("-")[1])) for p in shards]
        for n_in, n_out in ex.map(_shard, jobs, chunksize=4):
            stats.n_in += n_in
            stats.n_out += n_out
    extract_state = json.loads((data_dir / "extract" / "_state.json").read_text())
    atomic.write_json(dest / "_state.json", {
        "fingerprint": "stand-in", "complete": True,
        "provides": sorted(set(extract_state["provides"]) | set(RENDER_COLS))})
    stats.extra["stand_in"] = 1
    atomic.write_json(metrics_dir / "render.json", stats.to_json())
    return stats
