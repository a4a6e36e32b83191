#!/usr/bin/env python3
"""Rendering throughput: mxGraph through draw.io's engine in Chromium, and SVG with resvg
(and cairosvg for comparison).  Prints diagrams/s.

mxGraph: "ordinary" diagrams of 6–12 shapes (rounded boxes, cylinders, hexagons, clouds,
rhombi) and as many edges, each distinct; timed end to end (prepare → draw.io SVG →
PNG at the pipeline's DPI, both made in the browser) in one process with the pages kept
alive, after start-up.  For real draw.io diagrams against draw.io's own viewer, see
``drawio_parity.py``.
SVG: the sample repository's diagrams plus generated flowcharts with text, cleaned first.

``--versions ROOT``: real draw.io pages, the render stage beside draw.io's own viewer in one
run (issue 53). ``ROOT`` holds versions of the code made by ``scale.py versions`` (their
crawl and extract done). Each round times the viewer as it ships — a fresh browser, one
page, each diagram of the corpus (its extracted page model, HTML labels on) through
``new Graph`` → ``mxCodec.decode`` → ``getSvg``, one call after another, cold — and then
each version's render stage as ``dvc repro`` runs it (``python -m diagramforge render``,
from a clean render output: every page drawn, checked, its image encoded as stored, its
graph built), with its wall time, CPU of the whole process tree and phases
(``metrics/render.json``). Rounds alternate the versions' order; pages/s is set against the
viewer's of the same round.

Usage: .venv/bin/python benchmarks/render_mxgraph_svg.py [--n 400]
       .venv/bin/python benchmarks/render_mxgraph_svg.py --versions ROOT [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from diagramforge.formats.mxgraph import notation as mxgraph  # noqa: E402
from diagramforge.formats.mxgraph.engine import DrawioRenderer  # noqa: E402
from diagramforge.formats.svg import document as svg  # noqa: E402

SHAPES = ["rounded=1;whiteSpace=wrap;html=1;", "shape=cylinder3;whiteSpace=wrap;size=15;",
          "shape=hexagon;perimeter=hexagonPerimeter2;", "ellipse;shape=cloud;",
          "rhombus;whiteSpace=wrap;", "ellipse;", "shape=process;"]


def ordinary_mxgraph(k: int, rng: random.Random) -> str:
    n = rng.randint(6, 12)
    cells = ['<mxCell id="0"/><mxCell id="1" parent="0"/>']
    for i in range(n):
        x, y = 40 + (i % 4) * 170, 40 + (i // 4) * 120
        cells.append(f'<mxCell id="v{i}" value="Node {k}.{i}" style="{rng.choice(SHAPES)}" '
                     f'vertex="1" parent="1"><mxGeometry x="{x}" y="{y}" width="120" '
                     f'height="60" as="geometry"/></mxCell>')
    for j in range(n):
        a, b = rng.sample(range(n), 2)
        cells.append(f'<mxCell id="e{j}" value="{"r" + str(j) if j % 3 == 0 else ""}" '
                     f'style="edgeStyle=orthogonalEdgeStyle;html=1;" edge="1" parent="1" '
                     f'source="v{a}" target="v{b}"><mxGeometry relative="1" as="geometry"/>'
                     f"</mxCell>")
    return f"<mxGraphModel><root>{''.join(cells)}</root></mxGraphModel>"


def ordinary_svg(k: int, rng: random.Random) -> str:
    parts = []
    for i in range(rng.randint(4, 10)):
        x, y = 10 + (i % 4) * 110, 10 + (i // 4) * 70
        parts.append(f'<rect x="{x}" y="{y}" width="90" height="45" rx="6" fill="#dae8fc" '
                     f'stroke="#6c8ebf"/><text x="{x + 45}" y="{y + 28}" font-family="Arial" '
                     f'font-size="12" text-anchor="middle">Step {k}.{i}</text>')
        if i:
            parts.append(f'<path d="M{x - 20} {y + 22} H{x}" stroke="#333"/>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="460" height="220" '
            f'viewBox="0 0 460 220">{"".join(parts)}</svg>')


_R: DrawioRenderer | None = None


def _init() -> None:
    global _R
    _R = DrawioRenderer()
    _R.start()
    _R.render_many([mxgraph.for_render(ordinary_mxgraph(0, random.Random(0)))])


def _mx_chunk(args: tuple[list[str], float]) -> int:
    models, scale = args
    assert _R is not None
    outs = _R.render_many(models, svg=False, png=True, scale=scale, max_side=4096,
                          ink_enough=0.001)
    return sum(o.ok for o in outs)


def _svg_chunk(args: tuple[list[str], float, str]) -> int:
    docs, scale, engine = args
    for d in docs:
        svg.render_png(d, scale, engine)
    return len(docs)


def _pages(run: Path) -> list[str]:
    """The extracted draw.io page models of a version's run."""
    import pyarrow.parquet as pq

    out: list[str] = []
    for f in sorted((run / "data" / "extract" / "records").glob("*.parquet")):
        t = pq.read_table(f, columns=["format", "code"])
        out += [c for fmt, c in zip(t.column("format").to_pylist(), t.column("code").to_pylist(),
                                    strict=True) if fmt == "mxgraph"]
    return out


def _viewer(models: list[str]) -> tuple[float, float]:
    """draw.io's viewer as it ships over every model, cold (a fresh browser): seconds of
    wall, and CPU seconds of every process (Python, Playwright's driver, Chromium)."""
    from drawio_parity import VIEWER_JS, cpu_per_page, cpu_seconds

    r = DrawioRenderer(pages=1)
    page = r.new_page("/viewer.html")
    c0, t0 = cpu_seconds(), time.perf_counter()
    drawn = sum(bool(page.evaluate(VIEWER_JS, x)["ok"]) for x in models)
    wall = time.perf_counter() - t0
    cpu = sum(cpu_per_page(c0, cpu_seconds(), len(models)).values()) * len(models) / 1000
    r.close()
    print(f"  viewer: {drawn}/{len(models)} drawn in {wall:.1f} s "
          f"({len(models) / wall:.1f} pages/s, {1000 * cpu / len(models):.0f} ms CPU a page)",
          flush=True)
    return wall, cpu


def _render_stage(run: Path, workers: int) -> dict:
    """The version's render stage from a clean output, measured as ``scale.py`` measures."""
    import json
    import shutil

    import scale

    for p in [run / "data" / "render", *(run / "data" / ".runner").glob("render.*")]:
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
    results = json.loads((run / "results.json").read_text())
    row = scale.measure_stage("render", run, run / "params.yaml",
                              scale._env(Path(results["code"])), workers, run / "data")
    results["rows"] = [r for r in results["rows"] if r["stage"] != "render"] + [row]
    (run / "results.json").write_text(json.dumps(results, indent=1))
    ph = row.get("phases") or {}
    cpu = row.get("tree_cpu_s") or row["cpu_s"]
    parts = ", ".join(f"{k} {v['cpu_s']:.1f}" for k, v in ph.items()
                      if isinstance(v, dict) and "cpu_s" in v and v["cpu_s"] >= 0.05)
    print(f"  {run.name}: render {row['n_in']} pages, {row['n_out']} kept, "
          f"{row['wall_s']:.1f} s ({row['n_in'] / row['wall_s']:.1f} pages/s), "
          f"CPU of every process {cpu:.0f} s ({1000 * cpu / max(1, row['n_in']):.0f} ms "
          f"a page); CPU-s by phase (Python, workers and driver): {parts}", flush=True)
    return row


def versions(root: Path, rounds: int, workers: int) -> None:
    """The render stage of each version in ``root`` beside the viewer, ``rounds`` times."""
    runs = sorted(d for d in root.iterdir() if (d / "results.json").exists())
    models = _pages(runs[0])
    print(f"{len(models)} draw.io pages ({runs[0] / 'data' / 'extract'}); versions: "
          f"{[r.name for r in runs]}; load {os.getloadavg()[0]:.1f}", flush=True)
    table: dict[str, list[float]] = {r.name: [] for r in runs}
    viewer: list[float] = []
    for k in range(rounds):
        print(f"round {k + 1}", flush=True)
        wall, _ = _viewer(models)
        viewer.append(len(models) / wall)
        for run in runs if k % 2 == 0 else runs[::-1]:
            row = _render_stage(run, workers)
            table[run.name].append(row["n_in"] / row["wall_s"] / viewer[-1])
    print(f"\nviewer: {', '.join(f'{v:.1f}' for v in viewer)} pages/s")
    for name, ratios in table.items():
        print(f"{name}: render at {', '.join(f'{x:.2f}' for x in ratios)} × the viewer's "
              f"pages/s (each against its round's viewer)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--dpi", type=int, default=150)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--versions", type=Path, default=None,
                    help="a scale.py versions root: real pages, the render stage beside "
                         "the viewer")
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    if a.versions is not None:
        versions(a.versions, a.rounds, a.workers)
        return
    rng = random.Random(7)
    scale = a.dpi / 96
    print(f"{a.n} diagrams per format, PNG at {a.dpi} dpi, pool of {a.workers} workers")

    models = [mxgraph.for_render(mxgraph.normalise(mxgraph.parse_xml(ordinary_mxgraph(k, rng))))
              for k in range(a.n)]
    r = DrawioRenderer()
    t0 = time.perf_counter()
    r.start()
    t_start = time.perf_counter() - t0
    r.render_many(models[:8], png=True, scale=scale)  # warm the pages (first layout JIT)
    t0 = time.perf_counter()
    svgs = []
    for k in range(0, len(models), 64):
        svgs += [o.svg for o in r.render_many(models[k:k + 64]) if o.ok]
    t_draw = time.perf_counter() - t0
    t0 = time.perf_counter()
    pngs = 0
    for k in range(0, len(models), 64):
        pngs += sum(o.ok for o in r.render_many(models[k:k + 64], svg=False, png=True,
                                                scale=scale, max_side=4096,
                                                ink_enough=0.001))
    t_png = time.perf_counter() - t0
    r.close()
    print(f"mxGraph: {pngs}/{a.n} rendered (Execution Success {pngs / a.n:.0%}); "
          f"browser start-up {t_start:.2f} s, once per worker")
    print(f"  one worker ({r.n_pages} pages): draw.io → SVG {len(svgs) / t_draw:7.1f}/s, "
          f"draw.io → SVG → PNG end to end {pngs / t_png:7.1f}/s")
    chunks = [(models[k:k + 32], scale) for k in range(0, len(models), 32)]
    with ProcessPoolExecutor(a.workers, initializer=_init) as ex:
        list(ex.map(_mx_chunk, chunks[:a.workers]))  # browsers up and warm
        t0 = time.perf_counter()
        done = sum(ex.map(_mx_chunk, chunks))
        dt = time.perf_counter() - t0
    print(f"  {a.workers} workers: end to end {done / dt:7.1f} diagrams/s")

    docs = [svg.clean(ordinary_svg(k, rng)).code for k in range(a.n)]
    for engine in ("resvg", "cairosvg"):
        t0 = time.perf_counter()
        for d in docs:
            svg.render_png(d, scale, engine)
        one = a.n / (time.perf_counter() - t0)
        with ProcessPoolExecutor(a.workers) as ex:
            list(ex.map(_svg_chunk, [(docs[:4], scale, engine)] * a.workers))
            t0 = time.perf_counter()
            n = sum(ex.map(_svg_chunk, [(docs[k:k + 16], scale, engine)
                                        for k in range(0, len(docs), 16)]))
            par = n / (time.perf_counter() - t0)
        print(f"SVG ({engine:8}) → PNG: one core {one:7.1f}/s, {a.workers} workers "
              f"{par:7.1f}/s")
    t0 = time.perf_counter()
    for k in range(a.n):
        svg.clean(ordinary_svg(k, rng))
    print(f"SVG sanitize+normalise: {a.n / (time.perf_counter() - t0):7.1f} documents/s")


if __name__ == "__main__":
    main()
