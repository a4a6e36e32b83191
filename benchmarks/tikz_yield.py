#!/usr/bin/env python3
"""Yield report: of the TikZ pictures found in a corpus, how many compile standalone?

For every e-print: extract the pictures, compile each standalone document with the toolkit
(cold cache), and compile the whole paper too.  A picture whose paper compiles but which
fails alone is an extraction miss (the thing to drive to zero); one whose paper fails
was broken at the source.

Usage: .venv/bin/python benchmarks/tikz_yield.py [corpus_dir (default samples/arxiv)]
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.builders.extract.settings import ExtractParams  # noqa: E402
from diagramforge.formats.archives import ArchiveError, read_archive  # noqa: E402
from diagramforge.formats.tikz import notation as latex  # noqa: E402
from diagramforge.formats.tikz.extract import extract_paper  # noqa: E402
from diagramforge.formats.tikz.pictures import Standalone  # noqa: E402
from diagramforge.formats.tikz.texcompile import TexCompiler, tex_env  # noqa: E402
from diagramforge.sandbox.process import run_sandboxed  # noqa: E402


def paper_compiles(data: bytes, timeout: float) -> bool:
    try:
        files = read_archive(data)
    except ArchiveError:
        return False
    root = latex.find_root({k: latex.decode(v) for k, v in files.items()
                            if k.endswith(".tex")})
    if root is None:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        for name, content in files.items():
            p = Path(tmp) / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(content)
        cwd = (Path(tmp) / root).parent
        res = run_sandboxed(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                             "-no-shell-escape", Path(root).name], cwd, tex_env(job=Path(cwd)),
                            timeout_s=timeout)
        return res.returncode == 0 and not res.timed_out


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "samples" / "arxiv"
    found = compiled = 0
    reasons: Counter = Counter()
    in_good = ok_in_good = 0
    misses = []
    with tempfile.TemporaryDirectory() as cache:
        tc = TexCompiler(timeout_s=10, cache_dir=cache)
        for path in sorted((corpus / "src").iterdir()):
            pid, _, ver = path.name.split(".tar")[0].split(".gz")[0].rpartition("v")
            data = path.read_bytes()
            ex = extract_paper(data, {"id": pid, "version": ver, "authors": "[]"},
                               ExtractParams())
            tikz = [r for r in ex.records if r["format"] == "tikz"]
            if not tikz:
                continue
            docs = [Standalone(**{k: v for k, v in json.loads(r["meta"]).items()
                                  if k in ("blocks", "body")}) for r in tikz]
            results = tc.compile_many(docs)
            good_paper = paper_compiles(data, 10)
            for rec, res in zip(tikz, results, strict=True):
                found += 1
                compiled += res.ok
                if not res.ok:
                    reasons[res.reason] += 1
                if good_paper:
                    in_good += 1
                    ok_in_good += res.ok
                    if not res.ok:
                        misses.append((rec["source_id"], res.reason, res.error))
    print(f"pictures found: {found}")
    print(f"compile standalone: {compiled}/{found} ({100 * compiled / max(1, found):.0f}%)")
    for reason, n in reasons.most_common():
        print(f"  failed: {reason:<28} {n}")
    print(f"pictures from papers that compile whole: {in_good}; standalone ok: {ok_in_good} "
          f"({100 * ok_in_good / max(1, in_good):.0f}%)")
    for m in misses:
        print("  extraction miss:", *m)


if __name__ == "__main__":
    main()
