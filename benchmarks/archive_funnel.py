#!/usr/bin/env python3
"""The funnel per source kind on the test archive: every kind side by side, end to end.

Runs the pipeline from ``crawl`` to ``publish`` (no task stages) with ``params.yaml`` as
it is (the samples' arXiv papers, PDFs and pinned repositories) plus the two code-archive
kinds the tests use: the local archive in The Stack's layout
(``tests/builders/crawl/test_stack.py``: diagrams, a file with no licence, an unknown licence,
one too large, non-diagram XML and TeX, Graphviz and Markdown) and repository search
against the loopback GitHub API over real git repositories
(``tests/builders/crawl/test_repo_search.py``: a repository without a licence, one out of the
star range, one that cannot be cloned).  Prints the overall audit and the funnel per source
kind — what ``diagramforge audit`` prints —, the card's table of each kind's share of rows
and licences, and one published row of each code-archive kind with its provenance.
Nothing leaves the machine.

Usage: .venv/bin/python benchmarks/archive_funnel.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from diagramforge.cards.publish.audit import format_funnel, load_audit  # noqa: E402
from diagramforge.cards.publish.source_funnel import format_source_funnel, source_funnel  # noqa: E402
from diagramforge.config import parse_params  # noqa: E402
from diagramforge.runner import run_named  # noqa: E402
from tests.builders import test_repo_search as search  # noqa: E402
from tests.builders import test_stack as stack  # noqa: E402
from tests.builders.crawl.github_server import GitHubLoopback, Repo  # noqa: E402

STAGES = ("crawl", "extract", "render", "classifier-train", "filter", "split", "validate",
          "publish")


def show_published(params) -> None:  # noqa: ANN001 - Params
    """The card's per-kind table and one published row of each code-archive kind."""
    import pandas as pd

    out = Path(params.publish.out_dir) / params.publish.name
    card = (out / "README.md").read_text()
    print("\n".join(line for line in card.splitlines() if line.startswith("| `")
                    and "%" in line))
    df = pd.concat(pd.read_parquet(p) for p in sorted((out / "generation").rglob("*.parquet")))
    cols = ["source", "source_id", "source_url", "group", "licence", "licence_url",
            "attribution"]
    for kind in ("stack", "repo_search"):
        part = df[df["source"] == kind]
        if len(part):
            print(f"\npublished {kind} row:")
            for c in cols:
                print(f"  {c}: {part.iloc[0][c]}")


def run(root: Path, start: str = "crawl") -> None:
    """Build the archive and the repositories in ``root`` and run the stages from
    ``start`` on (a later ``start`` reuses what an earlier run of ``--keep`` left)."""
    repos = []
    if start == "crawl":
        stack.write_archive(root / "stack")
        for name, (files, stars) in search.REPOS.items():
            sha = search.make_git(root / "git" / name, files)
            repos.append(Repo(name, sha, [f for f in files if f != "LICENSE"], stars=stars))
        repos.append(Repo(search.GHOST, "f" * 40, ["z.drawio"]))
    os.environ[search.TOKEN_ENV] = search.TOKEN
    data = yaml.safe_load((REPO / "params.yaml").read_text())
    os.chdir(REPO)  # params.yaml's sample paths are relative to the repository
    with GitHubLoopback(repos, search.TOKEN, time.time) as srv:
        data["project"].update(data_dir=str(root / "data"), metrics_dir=str(root / "metrics"))
        data["runner"]["progress"] = False
        for sub in ("arxiv", "repos"):
            data["crawl"][sub]["cache_dir"] = str(root / "cache" / sub)
        data["render"]["tikz"]["cache_dir"] = str(root / "cache" / "tex")
        data["crawl"]["stack"].update(enabled=True, dataset=str(root / "stack"),
                                      subsets=stack.SUBSETS, token_env=stack.TOKEN_ENV,
                                      max_file_bytes=4000)
        data["crawl"]["repo_search"].update(
            enabled=True, api_url=srv.url, token_env=search.TOKEN_ENV,
            extensions=["drawio", "dio", "mmd"], per_page=2, min_stars=2, min_interval_s=0.0,
            cache_dir=str(root / "cache" / "search"),
            clone_url=str(root / "git") + "/{full_name}")
        params = parse_params(data)
        for name in STAGES[STAGES.index(start):]:
            t = time.perf_counter()
            st = run_named(name, params)
            print(f"  {name}: {st.n_in} in, {st.n_out} out ({time.perf_counter() - t:.0f}s)",
                  file=sys.stderr)
    print(format_funnel(load_audit(params)))
    print()
    print(format_source_funnel(source_funnel(params)))
    print()
    show_published(params)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", type=Path, help="work here and keep it (default: a temp dir)")
    ap.add_argument("--start", choices=STAGES, default="crawl",
                    help="rerun from this stage on (with --keep, after a first full run)")
    args = ap.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        run(args.keep.resolve(), args.start)
        return
    with tempfile.TemporaryDirectory(prefix="df-funnel-") as tmp:
        run(Path(tmp))


if __name__ == "__main__":
    main()
