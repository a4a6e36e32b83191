"""``repo_search``: code search on the loopback API, pinned checkouts of real git
repositories, licences from their files, every listed repository accounted for; rate limits
on a fake clock, a listing resumed across runs, conditional requests on a relist."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from diagramforge.builders.crawl import repo_search
from diagramforge.builders.extract.stage import ExtractStage
from diagramforge.runner import run_named, run_stage
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA, SOURCE_SCHEMA
from diagramforge.store.shards import ShardSet
from tests.builders.crawl.archive_files import MERMAID_MD, drawio, drawio_chain, svg
from tests.builders.crawl.github_server import Faults, GitHubLoopback, Repo
from tests.builders.crawl.test_github_api import FakeClock
from tests.conftest import make_params

TOKEN_ENV = "DF_TEST_GITHUB_TOKEN"
TOKEN = "ghp_loopback_secret"
MIT = "SPDX-License-Identifier: MIT\n\nCopyright (c) 2024 Acme\n"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}

# full name -> (files, stars); a LICENSE file where the repository has one
REPOS = {
    "acme/flows": ({"flows/a.drawio": drawio(), "flows/b.drawio": drawio("Load", "Store"),
                    "docs/overview.svg": svg(), "diagram.mmd": MERMAID_MD,
                    "src/main.py": "print(1)\n", "LICENSE": MIT}, 40),
    "solo/nolicence": ({"x.drawio": drawio("Alone", "Here")}, 9),
    "old/stale": ({"y.drawio": drawio("Old", "Stale"), "LICENSE": MIT}, 1),
    "big/repo": ({"arch/a.dio": drawio_chain(["Ingest", "Parse", "Index", "Serve"]),
                  "LICENSE": MIT}, 500),
}
GHOST = "ghost/gone"  # listed by the search, but its clone URL leads nowhere


def make_git(root: Path, files: dict[str, str]) -> str:
    root.mkdir(parents=True)
    env = {**os.environ, **GIT_ENV}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "c"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                          text=True, check=True).stdout.strip()


@pytest.fixture
def world(tmp_path):
    repos = []
    for name, (files, stars) in REPOS.items():
        sha = make_git(tmp_path / "git" / name, files)
        repos.append(Repo(name, sha, [f for f in files if f != "LICENSE"], stars=stars))
    repos.append(Repo(GHOST, "f" * 40, ["z.drawio"]))
    return repos


def params_for(tmp_path: Path, url: str, **search: object):
    return make_params(tmp_path, crawl={
        "arxiv": {"source": ""}, "pdf": {"from_arxiv": False},
        "repo_search": {"enabled": True, "api_url": url, "token_env": TOKEN_ENV,
                        "extensions": ["drawio", "dio", "mmd"], "per_page": 2,
                        "min_stars": 2, "min_interval_s": 6.0,
                        "cache_dir": str(tmp_path / "search"),
                        "clone_url": str(tmp_path / "git") + "/{full_name}", **search}})


@pytest.fixture
def clock(monkeypatch):
    """Every client the crawl makes runs on this fake clock: no test sleeps."""
    fake = FakeClock()
    real = repo_search.make_client
    monkeypatch.setattr(repo_search, "make_client",
                        lambda cfg, **kw: real(cfg, clock=fake.time, sleep=fake.sleep))
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    return fake


def ledger(params) -> dict[str, dict]:
    rows = ShardSet(stage_paths(params, "crawl").rejections, REJECTION_SCHEMA).read_all()
    return {r["locator"]: r for r in rows.to_pylist()}


def test_listed_repositories_are_crawled_pinned_and_every_one_accounted_for(
        tmp_path, world, clock):
    faults = Faults(primary={("drawio", 2)}, secondary={("drawio", 3)}, reset_in=30,
                    retry_after=7)
    with GitHubLoopback(world, TOKEN, clock.time, faults) as srv:
        params = params_for(tmp_path, srv.url)
        stats = run_named("crawl", params)
        log = list(srv.log)
    # paged by Link (5 drawio hits, 2 a page), both rate limits waited out on the fake clock
    pages = [e["page"] for e in log if e["path"] == "/search/code"
             and e["query"]["q"] == "extension:drawio"]
    assert pages == [1, 2, 2, 3, 3]
    assert pytest.approx(31.0) in clock.slept and 7.0 in clock.slept
    assert all(s in (6.0, 7.0) or s == pytest.approx(31.0) or s < 6 for s in clock.slept)

    sha = {r.full_name: r.commit for r in world}
    rows = ShardSet(stage_paths(params, "crawl").records, SOURCE_SCHEMA).read_all().to_pylist()
    by = {r["id"]: r for r in rows}
    acme = f"repo_search:acme/flows@{sha['acme/flows'][:12]}"
    assert set(by) == {f"{acme}:flows/a.drawio", f"{acme}:flows/b.drawio",
                       f"{acme}:docs/overview.svg",  # a neighbour the search did not list
                       f"{acme}:diagram.mmd",  # a Mermaid file: the mermaid format takes it
                       f"repo_search:big/repo@{sha['big/repo'][:12]}:arch/a.dio"}
    a = by[f"{acme}:flows/a.drawio"]
    assert a["version"] == sha["acme/flows"] and a["licence"] == "MIT"
    assert a["licence_url"] == f"{srv.url}/acme/flows/blob/{sha['acme/flows']}/LICENSE"
    assert json.loads(a["meta"])["hit"] and not json.loads(
        by[f"{acme}:docs/overview.svg"]["meta"])["hit"]
    rej = ledger(params)
    assert {k: r["reason"] for k, r in rej.items()} == {
        f"repo_search:solo/nolicence@{sha['solo/nolicence'][:12]}:x.drawio":
            "licence_missing",
        "repo_search:old/stale": "repo_out_of_range",
        f"repo_search:{GHOST}": "clone_failed",
    }
    assert {r["source"] for r in rej.values()} == {"repo_search"}
    assert stats.n_in == stats.n_out + stats.n_rejected == 8

    ex = run_stage(ExtractStage(params))
    recs = ShardSet(stage_paths(params, "extract").records, RECORD_SCHEMA).read_all()
    assert ex.n_out == 5 and {r["source"] for r in recs.to_pylist()} == {"repo_search"}
    rec = next(r for r in recs.to_pylist() if r["title"] == "flows/a.drawio")
    assert rec["group"] == "repo:acme/flows" and rec["licence"] == "MIT"
    assert rec["source_url"] == f"{srv.url}/acme/flows/blob/{sha['acme/flows']}/flows/a.drawio"
    assert "acme/flows contributors" in rec["attribution"]
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*")
                       if p.is_file() and "git" not in p.relative_to(tmp_path).parts[:1])
    assert TOKEN.encode() not in written


def test_a_listing_cut_short_by_the_rate_limit_resumes_in_the_next_run(tmp_path, world, clock):
    faults = Faults(primary={("drawio", 2)}, reset_in=3600)
    with GitHubLoopback(world, TOKEN, clock.time, faults) as srv:
        params = params_for(tmp_path, srv.url, max_wait_s=600)
        first = run_named("crawl", params)
        assert first.extra["search_listing_paused"] == 1
        # only page 1 was listed: acme's two hits; the rest waits for the next run
        assert {r["id"].split("@")[0] for r in ShardSet(stage_paths(params, "crawl").records,
                                                        SOURCE_SCHEMA).read_all().to_pylist()}\
            == {"repo_search:acme/flows"}
        n_log = len(srv.log)
        clock.now += 3600  # an hour later
        second = run_named("crawl", params)
        resumed = [e for e in srv.log[n_log:] if e["path"] == "/search/code"]
        assert [(e["query"]["q"], e["page"]) for e in resumed][:2] == \
            [("extension:drawio", 2), ("extension:drawio", 3)]  # page 1 not asked again
        assert "search_listing_paused" not in second.extra
        assert second.n_in == 8 and second.n_out == 5

        n_log = len(srv.log)
        third = run_named("crawl", params_for(tmp_path, srv.url, relist=True))
        again = srv.log[n_log:]
        assert again and all(e["conditional"] and e["status"] == 304 for e in again)
        assert third.n_out == 5  # the same files, from the cache and the checkouts


def test_hits_name_their_commit_or_the_default_branch_is_asked_for(tmp_path, clock):
    from diagramforge.builders.crawl.repo_search import Hit, _in_range
    from diagramforge.formats.registry import instantiate
    from diagramforge.stage import StageLog

    item = {"path": "d/a.drawio", "html_url": f"https://github.com/o/r/blob/{'a' * 40}/d/a.drawio",
            "repository": {"full_name": "o/r", "html_url": "https://github.com/o/r"}}
    assert Hit.from_item(item) == Hit("o/r", "d/a.drawio", "a" * 40, "https://github.com/o/r")
    assert Hit.from_item({**item, "html_url": "https://github.com/o/r/blob/main/d/a.drawio"}
                         ).commit is None
    params = params_for(tmp_path, "http://unused", min_stars=0, pushed_from="2024-01-01")
    cfg = params.crawl.repo_search
    assert _in_range({"stargazers_count": 3, "pushed_at": "2024-06-01T00:00:00Z"}, cfg) is None
    assert "before" in _in_range({"stargazers_count": 3, "pushed_at": "2023-12-31T23:00:00Z"},
                                 cfg)

    files, _ = REPOS["big/repo"]
    sha = make_git(tmp_path / "git" / "big/repo", files)
    with GitHubLoopback([Repo("big/repo", "main", ["arch/a.dio"])], TOKEN, clock.time) as srv:
        params = params_for(tmp_path, srv.url, min_stars=0)
        log = StageLog("crawl", expands=False)
        rows = list(repo_search.search_rows(params.crawl.repo_search,
                                            instantiate(params, str), ["MIT"], log))
        assert [e["path"] for e in srv.log if e["path"].startswith("/repos/")] == \
            ["/repos/big/repo"]  # no commit in the hit: the default branch, from metadata
    assert [r["version"] for r in rows] == [sha] and log.stats.n_in == 1
