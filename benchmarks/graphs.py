#!/usr/bin/env python3
"""Structure-graph throughput per format (graphs/s, one process), and graph quality figures.

* mxGraph: the sample repositories' valid pages plus generated "ordinary" pages (6–12 shapes,
  as many edges), from cells.
* SVG: the hand-labelled sample SVGs plus generated flowcharts (4–10 boxes, arrows with
  markers), DiagramEval's geometric rules.
* TikZ: the hand-labelled sample pictures, source alone and source + compiled page (the PDF is
  compiled once beforehand, as render does: only graph building is timed).
* raster: OCR text nodes (rapidocr) on the PNGs of the same TikZ pictures at 150 dpi.

Then node/edge F1 against the hand labels (``tests/fixtures/graphs``) and mxGraph exactness
are printed, so one run gives every figure the graph layer is judged by.

Usage: .venv/bin/python benchmarks/graphs.py [--n 200]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.render_mxgraph_svg import ordinary_mxgraph  # noqa: E402
from diagramforge.formats.mxgraph.graph import mxgraph_graph  # noqa: E402
from diagramforge.formats.svg.graph import svg_graph  # noqa: E402
from diagramforge.formats.tikz.graph import tikz_graph  # noqa: E402
from diagramforge.formats.tikz.texcompile import compile_tikz  # noqa: E402
from diagramforge.graphs.model import Graph  # noqa: E402
from diagramforge.graphs.score import score_graphs  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "graphs"


def flow_svg(k: int, rng: random.Random) -> str:
    parts = ['<defs><marker id="m" markerWidth="8" markerHeight="8" refX="8" refY="4" '
             'orient="auto"><path d="M0,0 L8,4 L0,8 z"/></marker></defs>']
    n = rng.randint(4, 10)
    for i in range(n):
        x, y = 10 + (i % 4) * 130, 10 + (i // 4) * 80
        parts.append(f'<rect x="{x}" y="{y}" width="90" height="45" fill="none" '
                     f'stroke="#333"/><text x="{x + 12}" y="{y + 28}" font-size="12">'
                     f"Step {k}.{i}</text>")
        if i % 4:
            parts.append(f'<line x1="{x - 40}" y1="{y + 22}" x2="{x}" y2="{y + 22}" '
                         f'stroke="#333" marker-end="url(#m)"/>')
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="540" height="260">'
            + "".join(parts) + "</svg>")


def sample_mx_pages() -> list[str]:
    from diagramforge.builders.crawl.repos import checkout, list_files
    from diagramforge.builders.crawl.settings import RepoCrawlParams, RepoSpec
    from diagramforge.formats.mxgraph import notation as mxgraph

    pages = []
    with tempfile.TemporaryDirectory() as tmp:
        for url, ref in (("flowchart-templates.bundle", "v1.0"),):
            co = checkout(RepoSpec(url=str(REPO / "samples" / "repos" / url), ref=ref),
                          Path(tmp))
            for rel in list_files(co.root, RepoCrawlParams()):
                try:
                    decoded = mxgraph.decode((co.root / rel).read_bytes(), rel)
                except mxgraph.MxGraphError:
                    continue
                pages += [mxgraph.normalise(p.model) for p in decoded
                          if p.model is not None and not mxgraph.validate(p.model)]
    return pages


def rate(label: str, items: list, fn) -> None:  # noqa: ANN001
    fn(items[0])  # warm-up (imports, caches)
    t0 = time.perf_counter()
    nodes = edges = 0
    for it in items:
        g = fn(it)
        nodes += len(g.nodes)
        edges += len(g.edges)
    dt = time.perf_counter() - t0
    print(f"{label:28s} {len(items) / dt:8.1f} graphs/s  ({len(items)} graphs, "
          f"{nodes / len(items):.1f} nodes and {edges / len(items):.1f} edges each)")


def reference(name: str) -> Graph:
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    data.pop("note")
    return Graph.model_validate(data)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200, help="generated diagrams per format")
    ap.add_argument("--no-ocr", action="store_true")
    args = ap.parse_args(argv)
    rng = random.Random(7)

    samples = sample_mx_pages()
    mx = samples + [ordinary_mxgraph(k, rng) for k in range(args.n)]
    rate("mxGraph (cells)", mx, mxgraph_graph)

    svgs = [p.read_text() for p in sorted(FIXTURES.glob("*.svg"))]
    svgs += [flow_svg(k, rng) for k in range(args.n)]
    rate("SVG (DiagramEval rules)", svgs, svg_graph)

    texs = sorted(FIXTURES.glob("*.tex"))
    docs = [(p.stem, p.read_text()) for p in texs]
    t0 = time.perf_counter()
    pdfs = {name: compile_tikz(code) for name, code in docs}
    print(f"(compiling {len(docs)} TikZ pictures once, not timed below: "
          f"{time.perf_counter() - t0:.1f} s)")
    reps = max(1, args.n // len(docs))
    rate("TikZ source only", [c for _, c in docs] * reps, lambda c: tikz_graph(c))
    rate("TikZ source + compiled page", [(c, pdfs[n]) for n, c in docs] * reps,
         lambda cp: tikz_graph(cp[0], cp[1]))

    if not args.no_ocr:
        from rapidocr import RapidOCR

        from diagramforge.formats.raster.handler import ocr_graph
        from diagramforge.formats.rasterize import rasterize_pdf
        from diagramforge.graphs.settings import GraphParams

        pngs = [rasterize_pdf(pdfs[n], dpi=150, margin_pt=2, min_side=1, max_side=4096,
                              max_aspect=100, min_ink=0).png for n, _ in docs]
        engine = RapidOCR(params={"Global.log_level": "error"})
        rate("raster (OCR text nodes)", [p for p in pngs if p], lambda p: ocr_graph(
            p, engine, GraphParams()))

    print("\nnode/edge F1 against hand labels (tests/fixtures/graphs):")
    f1 = []
    for src in sorted(p for p in FIXTURES.iterdir() if p.suffix in {".svg", ".tex"}):
        code = src.read_text()
        pred = svg_graph(code) if src.suffix == ".svg" else tikz_graph(code, pdfs[src.stem])
        s = score_graphs(pred, reference(src.stem))
        f1.append((s["node_f1"], s["edge_f1"]))
        print(f"  {src.name:22s} node F1 {s['node_f1']:.2f}  edge F1 {s['edge_f1']:.2f}")
    print(f"  macro over {len(f1)}: node F1 {sum(a for a, _ in f1) / len(f1):.3f}, "
          f"edge F1 {sum(b for _, b in f1) / len(f1):.3f}")

    from xml.etree import ElementTree as ET

    exact = 0
    for code in samples:
        cells = list(ET.fromstring(code).iter("mxCell"))
        edge_ids = {c.get("id") for c in cells if c.get("edge") == "1"}
        verts = {c.get("id") for c in cells if c.get("vertex") == "1"
                 and c.get("parent") not in edge_ids}
        g = mxgraph_graph(code)
        exact += {n.id for n in g.nodes} == verts and len(g.edges) == len(edge_ids)
    print(f"mxGraph exactness on the sample repository's valid pages: {exact}/{len(samples)}")


if __name__ == "__main__":
    main()
