#!/usr/bin/env python3
"""Does the source-derived TikZ layout agree with the compiled picture?

``diagramforge.formats.tikz.graph.layout`` places nodes from the code alone (positioning offsets,
path points, chains, matrices) so that referring expressions can say "the leftmost
circle" or "the box below 'Input'". This checks those places against the truth: each
figure of the shared TikZ corpus is compiled with real pdfLaTeX, its page read into a
geometry graph, and source nodes matched to page nodes by text and structure (the graph
stage's matcher; only nodes whose text is unique, where matching is sure). For every pair of
matched, placed nodes that the page separates clearly along an axis (centres more than
``--sep`` pt apart), the layout's order along that axis must be the page's; a pair the
layout calls level (within the referents' margin) is counted apart — the resolver treats
level pairs as ties, so those can never name wrongly.

Prints: figures compiled, nodes placed / matched, pairs compared per axis, agreement,
pairs the layout calls level, and the figures with the most disagreements.

Usage: .venv/bin/python benchmarks/tikz_layout.py [--limit N] [--sep 4]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.formats.tikz.graph import (  # noqa: E402
    match_by_text_and_structure,
    pdf_graphs,
    tikz_source_graphs,
    tikz_source_layout,
)
from diagramforge.formats.tikz.texcompile import compile_tikz  # noqa: E402
from diagramforge.graphs.settings import GraphParams  # noqa: E402

CORPUS = REPO.parent.parent / "shared" / "corpora" / "latex-examples" / "tikz"
PT_PER_CM = 28.4527


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tikz", type=Path, default=CORPUS)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--sep", type=float, default=4.0, help="page separation (pt) to compare")
    ap.add_argument("--margin", type=float, default=0.125,
                    help="layout distance (cm) within which two nodes count as level")
    args = ap.parse_args()
    files = sorted(args.tikz.glob("*/*.tex"))
    if args.limit:
        files = files[:args.limit]
    params = GraphParams()
    c: Counter = Counter()
    worst: list[tuple[int, str]] = []
    for path in files:
        code = path.read_text(errors="replace")
        layout = tikz_source_layout(code)
        if not layout:
            continue
        c["figures with places"] += 1
        c["nodes placed"] += len(layout)
        pdf = compile_tikz(code)
        if pdf is None:
            c["not compiled"] += 1
            continue
        pages = pdf_graphs(pdf, params)
        if not pages:
            continue
        source = tikz_source_graphs(code, params)[0][0]
        match = match_by_text_and_structure(source, pages[0], params.match_threshold)
        boxes = {n.id: n.bbox for n in pages[0].nodes if n.bbox}
        # only nodes the matcher can be trusted on: a text no other node shows
        texts = Counter(n.text.strip() for n in source.nodes)
        sure = {n.id for n in source.nodes if n.text.strip() and texts[n.text.strip()] == 1}
        pts = {s: ((b[0] + b[2] / 2), (b[1] + b[3] / 2)) for s, g in match.items()
               if s in layout and s in sure and (b := boxes.get(g))}
        c["nodes matched"] += len(pts)
        bad = 0
        for a, b in combinations(sorted(pts), 2):
            for k, axis in ((0, "x"), (1, "y")):
                d_page = pts[b][k] - pts[a][k]
                if abs(d_page) <= args.sep:
                    continue
                d_lay = layout[b][k] - layout[a][k]
                c[f"{axis} pairs"] += 1
                if abs(d_lay) <= args.margin:
                    c[f"{axis} level in layout"] += 1
                elif (d_lay > 0) == (d_page > 0):
                    c[f"{axis} agree"] += 1
                else:
                    c[f"{axis} disagree"] += 1
                    bad += 1
        worst.append((bad, path.parent.name))
    for key in ("figures with places", "not compiled", "nodes placed", "nodes matched"):
        print(f"{key:22} {c[key]}")
    for axis in ("x", "y"):
        n = c[f"{axis} pairs"]
        print(f"{axis}: {n} pairs separated on the page; agree {c[f'{axis} agree']} "
              f"({100 * c[f'{axis} agree'] / max(n, 1):.1f} %), level in layout "
              f"{c[f'{axis} level in layout']}, opposite order {c[f'{axis} disagree']} "
              f"({100 * c[f'{axis} disagree'] / max(n, 1):.1f} %)")
    print("most disagreements:", [w for w in sorted(worst, reverse=True)[:8] if w[0]])


if __name__ == "__main__":
    main()
