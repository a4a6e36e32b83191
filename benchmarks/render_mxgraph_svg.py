#!/usr/bin/env python3
"""Rendering throughput: mxGraph through draw.io's engine in Chromium, and SVG with resvg
(and cairosvg for comparison).  Prints diagrams/s.

mxGraph: "ordinary" diagrams of 6–12 shapes (rounded boxes, cylinders, hexagons, clouds,
rhombi) and as many edges, each distinct; timed end to end (prepare → draw.io SVG →
PNG at the pipeline's DPI, both made in the browser) in one process with the pages kept
alive, after start-up.  For real draw.io diagrams against draw.io's own viewer, see
``drawio_parity.py``.
SVG: the sample repository's diagrams plus generated flowcharts with text, cleaned first.

Usage: .venv/bin/python benchmarks/render_mxgraph_svg.py [--n 400]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.formats import svg  # noqa: E402
from diagramforge.formats.drawio_render import DrawioRenderer  # noqa: E402
from diagramforge.notation import mxgraph  # noqa: E402

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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--dpi", type=int, default=150)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
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
