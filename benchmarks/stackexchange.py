#!/usr/bin/env python3
"""A Stack Exchange dump at scale: posts per second through crawl and extract, and whether
memory stays flat as the dump grows.

Writes a generated site dump of ``--posts`` posts (default 10,000 and 100,000) in the
official layout (``se_layout``: one ``.7z`` of ``Posts.xml``, ``Users.xml`` and
``PostHistory.xml``, LZMA2), shaped like TeX.SE: a question then two answers, ≈ 1.5 KB of
HTML a post, TikZ fragments (with their library lines) and complete documents, answers
with a picture and a shell line, code that is not a picture, prose-only posts, downvoted
posts, deleted users, and a history of 2–4 revisions a post carrying each revision's text
(as the real PostHistory.xml does, which is why it outweighs Posts.xml).  Then, in a fresh
process per size (so peak memory is that size's own), the pipeline's ``crawl`` stage (the
archive streamed, the SQLite index, rows emitted by id) and ``extract`` (``--workers``
processes, posts in runs of ``extract.files_per_unit``), printing posts/s per stage and
end to end, CPU-seconds, and the peak RSS of the driver and of the busiest worker.

Usage: .venv/bin/python benchmarks/stackexchange.py [--posts 10000 100000] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from html import escape
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from code_archives import WorkerPeak, peak_rss_mb  # noqa: E402

from diagramforge.builders.crawl.se_layout import pack_7z, write_xml  # noqa: E402

WORDS = ["node", "draw", "path", "arrow", "matrix", "the", "a", "of", "to", "picture", "label",
         "anchor", "style", "scope", "coordinate", "between", "above", "below", "left", "right",
         "how", "do", "I", "get", "this", "with", "when", "my", "TikZ", "PGF"]
FRAGMENT = ("\\usetikzlibrary{{arrows.meta,positioning}}\n\\begin{{tikzpicture}}[node distance="
            "{d}cm]\n\\node[draw] (a) {{Step {i}}};\n\\node[draw, right=of a] (b) {{Stage {j}}};"
            "\n\\draw[-Stealth] (a) -- (b);\n\\end{{tikzpicture}}\n")
DOCUMENT = ("\\documentclass[tikz,border=3pt]{{standalone}}\n\\begin{{document}}\n"
            "\\begin{{tikzpicture}}\n\\draw[thick] (0,0) circle ({r});\n\\node at (0,0) "
            "{{Post {i}}};\n\\draw[->] (0,0) -- ({r},{r});\n\\end{{tikzpicture}}\n"
            "\\end{{document}}\n")
OTHER = ("\\documentclass{{article}}\n\\usepackage{{fontspec}}\n\\setmainfont{{DejaVu Serif}}"
         "\n\\begin{{document}}\nText {i}\n\\end{{document}}\n")


def _prose(i: int, words: int) -> str:
    return " ".join(WORDS[(i * 7 + k * 13) % len(WORDS)] for k in range(words))


def _code(text: str) -> str:
    return f"<pre><code>{escape(text, quote=False)}</code></pre>\n"


def body(i: int) -> str:
    """The ``i``-th post's HTML: what kind of post it is cycles through twenty slots."""
    kind = i * 7 % 20
    out = f"<p>{escape(_prose(i, 90))}</p>\n"
    if kind < 7:
        out += _code(FRAGMENT.format(d=1 + i % 3, i=i, j=i * 7 % 1000))
    elif kind < 10:
        out += _code(DOCUMENT.format(r=1 + i % 4, i=i))
    elif kind < 11:
        out += _code(FRAGMENT.format(d=2, i=i, j=i)) + "<p>Compile with</p>\n" + \
            _code("pdflatex -interaction=nonstopmode answer.tex\n")
    elif kind < 15:
        out += _code(OTHER.format(i=i))
    return out + f"<p>{escape(_prose(i + 1, 60))}</p>\n"


def _date(i: int, n: int, shift_days: int = 0) -> str:
    """Creation dates spread from 2010 to 2024 in id order (as a site's are)."""
    t = 1_280_000_000 + (1_710_000_000 - 1_280_000_000) * i // max(n, 1) + shift_days * 86400
    return time.strftime("%Y-%m-%dT%H:%M:%S.000", time.gmtime(t))


def _question(i: int) -> int:
    return i - (i - 1) % 3  # posts 1, 4, 7… are questions; the next two answer them


def posts(n: int) -> Iterator[dict]:
    for i in range(1, n + 1):
        q = _question(i)
        edited = _date(i, n, 400) if i % 5 == 0 else None
        row = {"Id": i, "PostTypeId": 1 if q == i else 2, "CreationDate": _date(i, n),
               "Score": -1 if i % 19 == 0 else i % 23, "Body": body(i),
               "LastEditDate": edited, "LastActivityDate": edited or _date(i, n),
               "CommentCount": i % 4}
        if i % 50 == 0:
            row["OwnerDisplayName"] = f"user{90000 + i}"  # a deleted account
        else:
            row["OwnerUserId"] = 1 + i % max(1, n // 10)
        if q == i:
            row.update(Title=f"How do I draw {_prose(i, 6)}?", AcceptedAnswerId=i + 1,
                       Tags="<tikz-pgf><arrows>" if i % 2 else "<pgfplots>", AnswerCount=2)
        else:
            row["ParentId"] = q
        yield row


def users(n: int) -> Iterator[dict]:
    for u in range(1, max(1, n // 10) + 1):
        yield {"Id": u, "Reputation": u % 997, "CreationDate": "2010-08-01T00:00:00.000",
               "DisplayName": f"User {u}", "Views": u % 31, "UpVotes": 1, "DownVotes": 0,
               "AccountId": 500000 + u}


def history(n: int) -> Iterator[dict]:
    k = 0
    for i in range(1, n + 1):
        revs = [(1, _date(i, n)), (2, _date(i, n)), (3, _date(i, n))] if _question(i) == i \
            else [(2, _date(i, n))]
        if i % 5 == 0:
            revs.append((5, _date(i, n, 400)))
        for t, when in revs:
            k += 1
            text = body(i) if t in (2, 5) else ("Title" if t == 1 else "<tikz-pgf>")
            yield {"Id": k, "PostHistoryTypeId": t, "PostId": i, "CreationDate": when,
                   "UserId": 1 + i % max(1, n // 10), "Text": text}


def generate(path: Path, n: int) -> dict:
    work = path.parent / "xml"
    work.mkdir(parents=True, exist_ok=True)
    files = [write_xml(work / "Posts.xml", "posts", posts(n)),
             write_xml(work / "Users.xml", "users", users(n)),
             write_xml(work / "PostHistory.xml", "post_history", history(n))]
    xml_mb = sum(p.stat().st_size for p in files) / 1e6
    pack_7z(files, path, level=1)
    for p in files:
        p.unlink()
    return {"xml_mb": xml_mb, "dump_mb": path.stat().st_size / 1e6}


def _cpu() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def child(dump: Path, data: Path, workers: int, shard_size: int) -> dict:
    """Crawl + extract in this (fresh) process; peak RSS of it and its workers."""
    from diagramforge.builders.extract.stage import ExtractStage
    from diagramforge.config import parse_params
    from diagramforge.runner import run_named, run_stage

    params = parse_params({
        "project": {"data_dir": str(data / "data"), "metrics_dir": str(data / "metrics")},
        "runner": {"workers": workers, "progress": False, "shard_size": shard_size},
        "crawl": {"arxiv": {"source": ""}, "pdf": {"from_arxiv": False},
                  "repos": {"repositories": []},
                  "stackexchange": {"enabled": True, "dump": str(dump),
                                    "work_dir": str(data / "se-index")}}})
    c0, t0 = _cpu(), time.perf_counter()
    crawl = run_named("crawl", params)
    c1, t1 = _cpu(), time.perf_counter()
    rss_crawl = peak_rss_mb()
    with WorkerPeak() as workers_peak:
        ex = run_stage(ExtractStage(params))
    c2, t2 = _cpu(), time.perf_counter()
    return {"posts": crawl.n_in, "kept": crawl.n_out, "records": ex.n_out,
            "crawl_s": t1 - t0, "extract_s": t2 - t1,
            "crawl_cpu_s": c1[0] - c0[0], "extract_cpu_s": (c2[0] - c1[0]) + (c2[1] - c1[1]),
            "rss_after_crawl_mb": rss_crawl, "rss_driver_mb": peak_rss_mb(),
            "rss_worker_mb": workers_peak.peak, "reasons": dict(crawl.by_reason),
            "extract_reasons": dict(ex.by_reason)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--posts", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--shard-size", type=int, default=64, help="runner.shard_size")
    ap.add_argument("--child", nargs=2, metavar=("DUMP", "DATA"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child[0]), Path(args.child[1]), args.workers,
                               args.shard_size)))
        return
    print(f"{'posts':>8} {'kept':>7} {'records':>8} {'crawl p/s':>10} {'extract p/s':>12} "
          f"{'ingest p/s':>11} {'crawl CPU-ms/p':>15} {'extract CPU-ms/kept':>20} "
          f"{'driver MB':>10} {'worker MB':>10}")
    for n in args.posts:
        with tempfile.TemporaryDirectory(prefix="df-se-") as tmp:
            t = time.perf_counter()
            sizes = generate(Path(tmp) / "gen" / "site.7z", n)
            gen_s = time.perf_counter() - t
            out = subprocess.run([sys.executable, __file__, "--child",
                                  str(Path(tmp) / "gen" / "site.7z"), str(Path(tmp) / "run"),
                                  "--workers", str(args.workers),
                                  "--shard-size", str(args.shard_size)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
        total = r["crawl_s"] + r["extract_s"]
        print(f"{r['posts']:>8} {r['kept']:>7} {r['records']:>8} "
              f"{r['posts'] / r['crawl_s']:>10.0f} {r['kept'] / r['extract_s']:>12.0f} "
              f"{r['posts'] / total:>11.0f} {1000 * r['crawl_cpu_s'] / r['posts']:>15.2f} "
              f"{1000 * r['extract_cpu_s'] / max(1, r['kept']):>20.2f} "
              f"{r['rss_driver_mb']:>10.0f} {r['rss_worker_mb']:>10.0f}")
        print(f"         dump {sizes['dump_mb']:.1f} MB 7z of {sizes['xml_mb']:.0f} MB XML "
              f"(generated in {gen_s:.1f}s); crawl {r['crawl_s']:.1f}s "
              f"({r['crawl_cpu_s']:.1f} CPU-s, driver peak {r['rss_after_crawl_mb']:.0f} MB), "
              f"extract {r['extract_s']:.1f}s ({r['extract_cpu_s']:.1f} CPU-s); crawl ledger: "
              + ", ".join(f"{k}={v}" for k, v in sorted(r["reasons"].items()))
              + "; extract ledger: "
              + ", ".join(f"{k}={v}" for k, v in sorted(r["extract_reasons"].items())))


if __name__ == "__main__":
    main()
