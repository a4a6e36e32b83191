#!/usr/bin/env python3
"""Compile the same TikZ figures two ways and print figures/s for each and the ratio.

baseline: one plain ``pdflatex`` run per figure (standalone document as extracted), with
          the same sandbox environment and the same number of parallel workers;
toolkit:  diagramforge's TexCompiler: precompiled format, batched runs with page
          splitting, fallback to single runs, cache (cold here, then warm).

Layouts: ``paper`` — each paper's figures form one unit (one batched run per paper);
``per-source`` — one figure per source, as in a corpus of standalone figures: figures from
different sources that share a batch key go into the same units of ``--batch-size``, as the
render stage groups them.

Usage: .venv/bin/python benchmarks/tikz_compile.py [--papers 12] [--per-paper 8] [--workers 2]
                                                   [--layout paper|per-source]
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from _figures import figure_set

from diagramforge.formats.tikz.pictures import Standalone
from diagramforge.formats.tikz.texcompile import (
    TexCompiler,
    batch_key,
    split_preloadable,
    tex_env,
    union_blocks,
)


def plain_one(doc: Standalone) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "doc.tex").write_text(doc.code)
        res = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                              "-no-shell-escape", "doc.tex"], cwd=tmp, env=tex_env(job=Path(tmp)),
                             capture_output=True, timeout=120)
        return res.returncode == 0 and (Path(tmp) / "doc.pdf").exists()


_TC: TexCompiler | None = None


def _init(cache: str) -> None:
    global _TC
    _TC = TexCompiler(timeout_s=60, cache_dir=cache)


def toolkit_paper(docs: list[Standalone]) -> list[bool]:
    assert _TC is not None
    return [r.ok for r in _TC.compile_many(docs)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--papers", type=int, default=12)
    ap.add_argument("--per-paper", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--layout", choices=["paper", "per-source"], default="paper")
    ap.add_argument("--batch-size", type=int, default=16)
    a = ap.parse_args()
    if a.layout == "paper":
        groups = figure_set(a.papers, a.per_paper)
        flat = [d for g in groups for d in g]
        where = f"{len(groups)} papers"
    else:
        flat = [d for g in figure_set(a.papers * a.per_paper, 1) for d in g]
        by_key: dict[tuple[str, ...], list[Standalone]] = {}
        for d in flat:
            by_key.setdefault(batch_key(d), []).append(d)
        groups = [g[k:k + a.batch_size] for g in by_key.values()
                  for k in range(0, len(g), a.batch_size)]
        where = f"{len(flat)} sources (one figure each), {len(groups)} units"
    n = len(flat)
    print(f"{n} figures in {where}, {a.workers} workers, layout {a.layout}")

    t0 = time.perf_counter()
    with ThreadPoolExecutor(a.workers) as ex:
        ok_plain = sum(ex.map(plain_one, flat))
    t_plain = time.perf_counter() - t0
    print(f"baseline  plain pdflatex per figure: {t_plain:7.2f} s  {n / t_plain:7.2f} fig/s"
          f"  ({ok_plain}/{n} ok)")

    with tempfile.TemporaryDirectory() as cache:
        # formats are built once per preamble head and TeX Live version, then kept
        t0 = time.perf_counter()
        tc = TexCompiler(cache_dir=cache)
        heads = {split_preloadable(union_blocks(g))[0] for g in groups}
        heads |= {split_preloadable(d.blocks)[0] for d in flat}
        for head in heads:
            tc.format_dir(head)
        t_fmt = time.perf_counter() - t0
        runs = []
        for label in ("cold", "warm"):
            t0 = time.perf_counter()
            with ProcessPoolExecutor(a.workers, initializer=_init, initargs=(cache,)) as ex:
                ok = sum(sum(r) for r in ex.map(toolkit_paper, groups))
            runs.append((label, time.perf_counter() - t0, ok))
    for label, t, ok in runs:
        print(f"toolkit   {label} cache{' ' * 19}: {t:7.2f} s  {n / t:7.2f} fig/s"
              f"  ({ok}/{n} ok)")
    cold = runs[0][1]
    print(f"format build ({len(heads)} formats, once per TeX Live version): {t_fmt:.2f} s")
    print(f"speed-up, cold cache: {t_plain / cold:.1f}x "
          f"(with the format build counted: {t_plain / (cold + t_fmt):.1f}x)")
    print(f"speed-up, warm cache: {t_plain / runs[1][1]:.1f}x")


if __name__ == "__main__":
    main()
