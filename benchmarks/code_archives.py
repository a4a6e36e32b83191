#!/usr/bin/env python3
"""Ingest from a code archive at scale: The Stack's layout, streamed, claimed, extracted.

Writes a generated archive of ``--files`` rows (default 10,000 and 100,000) in The Stack
v1's layout and schema (``data/svg``, ``data/xml``, ``data/tex``, ``data/graphviz-(dot)``,
``data/markdown``; Parquet shards of up to 10,000 rows): SVG diagrams, draw.io files, TikZ
documents, and what a real subset holds besides — Maven ``pom.xml``, prose ``.tex``, Graphviz
and Markdown files no format takes yet, rows with no licence, an unknown licence or too many
bytes.  Then, in a fresh process per size (so peak memory is that size's own), it runs the
pipeline's ``crawl`` stage (``datasets`` streaming, a batch of Arrow rows at a time, claims
through the format registry, shards written as rows come) and ``extract`` (the executor:
``--workers`` processes, shard by shard), and prints files/s per stage and end to end, and
the peak RSS of the driver and of the busiest worker.  Memory should be flat as the archive
grows; time linear.

Usage: .venv/bin/python benchmarks/code_archives.py [--files 10000 100000] [--workers 2]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.builders.crawl.stack_layout import STACK_V1, v1_row  # noqa: E402

SUBSETS = ["data/svg", "data/xml", "data/tex", "data/graphviz-(dot)", "data/markdown"]
LICENCES = [["MIT"], ["Apache-2.0"], ["BSD-3-Clause"], ["MIT", "Apache-2.0"]]

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="120" viewBox="0 0 {w} 120">'
       '<rect x="10" y="30" width="90" height="50" rx="6" fill="#dae8fc" stroke="#333"/>'
       '<text x="20" y="60" font-family="sans-serif" font-size="13">{a}</text>'
       '<path d="M100 55 L{m} 55" stroke="#333" stroke-width="2"/>'
       '<rect x="{m}" y="30" width="90" height="50" fill="#d5e8d4" stroke="#333"/>'
       '<text x="{t}" y="60" font-family="sans-serif" font-size="13">{b}</text></svg>\n')
DRAWIO = ('<mxfile host="app.diagrams.net"><diagram name="Page-1" id="p{i}"><mxGraphModel>'
          '<root><mxCell id="0"/><mxCell id="1" parent="0"/>'
          '<mxCell id="2" value="{a}" style="rounded=1;whiteSpace=wrap;" vertex="1" parent="1">'
          '<mxGeometry x="40" y="40" width="120" height="60" as="geometry"/></mxCell>'
          '<mxCell id="3" value="{b}" style="ellipse;" vertex="1" parent="1">'
          '<mxGeometry x="{x}" y="40" width="120" height="60" as="geometry"/></mxCell>'
          '<mxCell id="4" edge="1" source="2" target="3" parent="1"><mxGeometry relative="1" '
          'as="geometry"/></mxCell></root></mxGraphModel></diagram></mxfile>\n')
TEX = ("\\documentclass{{article}}\n\\usepackage{{tikz}}\n\\begin{{document}}\n"
       "\\begin{{tikzpicture}}\n\\node[draw] (a) at (0,0) {{{a}}};\n"
       "\\node[draw, circle] (b) at ({x},0) {{{b}}};\n\\draw[->] (a) -- (b);\n"
       "\\end{{tikzpicture}}\n\\end{{document}}\n")
POM = ('<?xml version="1.0"?><project><modelVersion>4.0.0</modelVersion><groupId>org.ex{i}'
       '</groupId><artifactId>app</artifactId><version>1.{i}</version></project>\n')


def archive_row(i: int) -> tuple[str, dict]:
    """The ``i``-th file of the generated archive: (subset, row)."""
    repo = f"org{i % 997}/repo{i % 3001}"
    lic = LICENCES[i % len(LICENCES)]
    a, b = f"step {i}", f"stage {i * 7 % 1000}"
    kind = i % 20
    if kind < 6 or kind >= 18:
        text = SVG.format(w=220 + i % 50, m=130 + i % 10, t=140 + i % 10, a=a, b=b)
        if kind == 18:
            lic = []  # no licence
        elif kind == 19:
            lic = ["LicenseRef-custom-eula"]  # a licence nobody can name
        if i % 1000 == 1:  # rare: The Stack v1 itself left out files over 1 MB
            text = text.replace("</svg>", "<!--" + "x" * 1_100_000 + "--></svg>")
        return "data/svg", v1_row(repo, f"docs/fig{i}.svg", text, lic, lang="SVG")
    if kind < 10:
        name = f"diagrams/flow{i}.drawio" if kind % 2 else f"docs/arch{i}.xml"
        return "data/xml", v1_row(repo, name, DRAWIO.format(i=i, a=a, b=b, x=240 + i % 60),
                                  lic, lang="XML")
    if kind < 13:
        return "data/xml", v1_row(repo, f"m{i}/pom.xml", POM.format(i=i), lic, lang="XML")
    if kind < 15:
        return "data/tex", v1_row(repo, f"figs/f{i}.tex", TEX.format(a=a, b=b, x=3 + i % 3),
                                  lic, lang="TeX")
    if kind == 15:
        return "data/tex", v1_row(repo, f"notes{i}.tex",
                                  "\\documentclass{article}\\begin{document}Text " + a +
                                  "\\end{document}\n", lic, lang="TeX")
    if kind == 16:
        return "data/graphviz-(dot)", v1_row(repo, f"g{i}.dot", f"digraph G{{ a{i} -> b; }}\n",
                                             lic, lang="Graphviz (DOT)")
    return "data/markdown", v1_row(repo, f"doc{i}.md",
                                   f"# {a}\n\n```mermaid\ngraph TD; A-->B{i};\n```\n", lic,
                                   lang="Markdown")


def generate(root: Path, n: int, rows_per_shard: int = 10_000) -> None:
    """The archive, a shard at a time (this process stays small at any ``n``)."""
    buf: dict[str, list[dict]] = {s: [] for s in SUBSETS}
    shards = dict.fromkeys(SUBSETS, 0)

    def flush(sub: str) -> None:
        p = root / sub / f"train-{shards[sub]:05d}.parquet"
        p.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(buf[sub], schema=STACK_V1), p,
                       row_group_size=1000)
        shards[sub] += 1
        buf[sub] = []

    for i in range(n):
        sub, row = archive_row(i)
        buf[sub].append(row)
        if len(buf[sub]) >= rows_per_shard:
            flush(sub)
    for sub in SUBSETS:
        if buf[sub] or not shards[sub]:
            flush(sub)


def peak_rss_mb() -> float:
    """This process's own peak RSS (``VmHWM``: unlike ``ru_maxrss``, not inherited from the
    process that started it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class WorkerPeak:
    """Samples the RSS of this process's children (the executor's workers) while it runs."""

    def __init__(self, every_s: float = 0.2):
        import psutil

        self.me, self.every_s, self.peak = psutil.Process(), every_s, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        while not self._stop.wait(self.every_s):
            for c in self.me.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    self.peak = max(self.peak, c.memory_info().rss / 2**20)

    def __enter__(self) -> WorkerPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def child(archive: Path, data: Path, workers: int, shard_size: int) -> dict:
    """Crawl + extract in this (fresh) process; peak RSS of it and its workers."""
    from diagramforge.builders.extract.stage import ExtractStage
    from diagramforge.config import parse_params
    from diagramforge.runner import run_named, run_stage

    params = parse_params({
        "project": {"data_dir": str(data / "data"), "metrics_dir": str(data / "metrics")},
        "runner": {"workers": workers, "progress": False, "shard_size": shard_size},
        "crawl": {"arxiv": {"source": ""}, "pdf": {"from_arxiv": False},
                  "stack": {"enabled": True, "dataset": str(archive), "subsets": SUBSETS}}})
    t0 = time.perf_counter()
    crawl = run_named("crawl", params)
    t1 = time.perf_counter()
    rss_crawl = peak_rss_mb()
    with WorkerPeak() as workers_peak:
        ex = run_stage(ExtractStage(params))
    t2 = time.perf_counter()
    return {"files": crawl.n_in, "kept": crawl.n_out, "records": ex.n_out,
            "crawl_s": t1 - t0, "extract_s": t2 - t1, "rss_after_crawl_mb": rss_crawl,
            "rss_driver_mb": peak_rss_mb(), "rss_worker_mb": workers_peak.peak,
            "reasons": dict(crawl.by_reason)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--shard-size", type=int, default=64, help="runner.shard_size")
    ap.add_argument("--child", nargs=2, metavar=("ARCHIVE", "DATA"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child[0]), Path(args.child[1]), args.workers,
                               args.shard_size)))
        return
    print(f"{'files':>8} {'kept':>7} {'records':>8} {'crawl f/s':>10} {'extract f/s':>12} "
          f"{'ingest f/s':>11} {'driver MB':>10} {'worker MB':>10}")
    for n in args.files:
        with tempfile.TemporaryDirectory(prefix="df-archive-") as tmp:
            archive = Path(tmp) / "stack"
            t = time.perf_counter()
            generate(archive, n)
            gen_s = time.perf_counter() - t
            size = sum(p.stat().st_size for p in archive.rglob("*.parquet")) / 1e6
            out = subprocess.run([sys.executable, __file__, "--child", str(archive),
                                  str(Path(tmp) / "run"), "--workers", str(args.workers),
                                  "--shard-size", str(args.shard_size)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
        total = r["crawl_s"] + r["extract_s"]
        print(f"{r['files']:>8} {r['kept']:>7} {r['records']:>8} "
              f"{r['files'] / r['crawl_s']:>10.0f} {r['kept'] / r['extract_s']:>12.0f} "
              f"{r['files'] / total:>11.0f} {r['rss_driver_mb']:>10.0f} "
              f"{r['rss_worker_mb']:>10.0f}")
        print(f"         archive {size:.1f} MB Parquet (generated in {gen_s:.1f}s); crawl "
              f"{r['crawl_s']:.1f}s (driver peak {r['rss_after_crawl_mb']:.0f} MB), extract "
              f"{r['extract_s']:.1f}s; ledger: "
              + ", ".join(f"{k}={v}" for k, v in sorted(r["reasons"].items())))


if __name__ == "__main__":
    main()
