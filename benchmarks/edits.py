#!/usr/bin/env python3
"""Verified edits per second, per format, render included.

The diagrams are the pipeline's sample split (``tests/fixtures/edits/samples.jsonl``) plus
the richer hand-written fixtures. Each round runs the edit stage's own ``process`` on every
diagram with a different ``edit.seed`` (so TeX's cache cannot flatter TikZ: every target is
new code); the source renders are made once, outside the timing. Prints pairs/s and
operations/s per format, then per (format, operation): operations attempted, verified at
the code level, and in kept pairs.

Usage: .venv/bin/python benchmarks/edits.py [--rounds N] [--formats tikz,mxgraph,svg]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.edits.stage import EditStage  # noqa: E402
from diagramforge.formats.registry import instantiate  # noqa: E402
from diagramforge.params import parse_params  # noqa: E402
from diagramforge.records import empty_record, make_id  # noqa: E402

FIX = REPO / "tests" / "fixtures" / "edits"


def diagrams() -> list[dict]:
    rows = [json.loads(x) for x in (FIX / "samples.jsonl").read_text().splitlines()]
    rows += [{"format": "mxgraph", "code": (FIX / "rich.drawio.xml").read_text()},
             {"format": "svg", "code": (FIX / "rich.svg").read_text()},
             {"format": "tikz", "code": (FIX / "rich.tex").read_text()}]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--formats", default="tikz,mxgraph,svg")
    args = ap.parse_args()
    fmts = args.formats.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        base = {"project": {"data_dir": f"{tmp}/data", "metrics_dir": f"{tmp}/m"},
                "render": {"tikz": {"cache_dir": f"{tmp}/tex"}}}
        params = parse_params(base)
        handlers = instantiate(params, lambda r: r["source_id"])
        sources = []
        for d in diagrams():
            if d["format"] not in fmts:
                continue
            row = empty_record(id=make_id(d["format"], d["code"]), format=d["format"],
                               code=d["code"], split="train", source_id=f"bench:{len(sources)}")
            out = handlers[d["format"]].render([row])
            sources += out.records
        for h in handlers.values():
            h.close()
        secs: Counter = Counter()
        pairs: Counter = Counter()
        ops_kept: Counter = Counter()
        counts: Counter = Counter()
        reasons: dict[str, Counter] = defaultdict(Counter)
        for rnd in range(args.rounds):
            stage = EditStage(parse_params({**base, "edit": {"seed": 1000 + rnd}}))
            for row in sources:
                t0 = time.perf_counter()
                out = stage.process(stage.units([row])[0])
                secs[row["format"]] += time.perf_counter() - t0
                pairs[row["format"]] += len(out.records)
                counts.update(out.extra)
                for r in out.rejections:
                    reasons[row["format"]][r.reason] += 1
                for rec in out.records:
                    for e in json.loads(rec["operations"]):
                        ops_kept[(row["format"], e["op"])] += 1
            stage.teardown()
    print(f"{'format':8} {'diagrams':>8} {'pairs':>6} {'ops':>5} {'s':>7} {'pairs/s':>8} "
          f"{'ops/s':>7}")
    for f in fmts:
        n_ops = sum(v for (ff, _), v in ops_kept.items() if ff == f)
        n = sum(1 for s in sources if s["format"] == f)
        print(f"{f:8} {n * args.rounds:8d} {pairs[f]:6d} {n_ops:5d} {secs[f]:7.2f} "
              f"{pairs[f] / max(secs[f], 1e-9):8.2f} {n_ops / max(secs[f], 1e-9):7.2f}")
    print("\nper operation: attempted / verified on code / in kept pairs")
    for f in fmts:
        ops = sorted({k.split(".")[2] for k in counts if k.split(".")[1] == f})
        for op in ops:
            ver = counts.get(f"ops_verified.{f}.{op}", 0)
            broke = counts.get(f"ops_broke.{f}.{op}", 0)
            print(f"  {f:8} {op:14} {ver + broke:4d} / {ver:4d} / {ops_kept[(f, op)]:4d}")
        print(f"  {f:8} rejections: {dict(reasons[f])}")


if __name__ == "__main__":
    main()
