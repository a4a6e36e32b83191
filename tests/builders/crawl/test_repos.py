"""Template repositories: pinned shallow checkouts from bundles, cache, licences, files."""

from __future__ import annotations

import json
import subprocess

import pytest

from diagramforge.builders.crawl.repos import GitError, checkout, find_licence, list_files
from diagramforge.builders.crawl.settings import RepoCrawlParams, RepoSpec
from diagramforge.builders.extract.stage import ExtractStage
from diagramforge.runner import run_named, run_stage
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA, SOURCE_SCHEMA
from diagramforge.store.shards import ShardSet
from tests.conftest import SAMPLE_REPOS, SAMPLES, make_params

FLOW = SAMPLES / "repos" / "flowchart-templates.bundle"


def heads(bundle) -> dict[str, str]:
    out = subprocess.run(["git", "bundle", "list-heads", str(bundle)], capture_output=True,
                         text=True, check=True).stdout
    return {ref: sha for sha, ref in (line.split() for line in out.splitlines())}


def test_pinned_by_tag_branch_or_commit_and_never_cloned_twice(tmp_path):
    first = checkout(RepoSpec(url=str(FLOW), ref="v1.0"), tmp_path)
    assert first.cloned and first.commit == heads(FLOW)["refs/tags/v1.0"]
    again = checkout(RepoSpec(url=str(FLOW), ref="main"), tmp_path)  # same commit
    assert not again.cloned and again.root == first.root
    assert not (first.root / ".git").exists()  # only the files are kept


def test_older_commit_by_id(tmp_path):
    out = subprocess.run(["git", "clone", "-q", str(FLOW), str(tmp_path / "full")],
                         check=True)
    assert out.returncode == 0
    first_commit = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"],
                                  cwd=tmp_path / "full", capture_output=True, text=True,
                                  check=True).stdout.strip()
    co = checkout(RepoSpec(url=str(FLOW), ref=first_commit), tmp_path / "cache")
    assert co.commit == first_commit
    files = list_files(co.root, RepoCrawlParams())
    assert "templates/architecture.drawio" in files
    assert "templates/broken.drawio" not in files  # added by the second commit


def test_bad_ref_is_an_error(tmp_path):
    with pytest.raises(GitError, match="not found"):
        checkout(RepoSpec(url=str(FLOW), ref="no-such-tag"), tmp_path)


def test_licences_are_detected_as_spdx(tmp_path):
    mit = checkout(RepoSpec(url=str(FLOW), ref="v1.0"), tmp_path)
    lic = find_licence(mit.root)
    assert (lic.spdx, lic.files) == ("MIT", ["LICENSE"])
    bsd = checkout(RepoSpec(url=str(SAMPLES / "repos" / "svg-diagram-kit.bundle"),
                            ref="v0.3.0"), tmp_path)
    lic = find_licence(bsd.root)
    assert (lic.spdx, lic.files) == ("BSD-2-Clause", ["LICENSE.txt"]) and lic.score > 95
    assert lic.evidence[0].method == "text"
    (bsd.root / "LICENSE.txt").unlink()
    assert find_licence(bsd.root).spdx == "LicenseRef-none"
    text = checkout(RepoSpec(url=str(SAMPLES / "repos" / "text-diagrams.bundle"),
                             ref="v0.1.0"), tmp_path)
    lic = find_licence(text.root)  # an SPDX-License-Identifier line and a copyright line
    assert (lic.spdx, lic.evidence[0].method) == ("Apache-2.0", "identifier")


def test_crawl_and_extract_repository_files(tmp_path):
    params = make_params(tmp_path, crawl={"arxiv": {"source": ""},
                                          "repos": {"repositories": SAMPLE_REPOS,
                                                    "cache_dir": str(tmp_path / "repos")}})
    stats = run_named("crawl", params)
    # flowchart-templates: 7 draw.io/xml files + README.md (Markdown: Mermaid's by name);
    # svg-diagram-kit: 5 SVGs; text-diagrams: 5 DOT files, 4 .mmd files and a README
    assert stats.n_in == 23 and stats.n_out == 23
    rows = ShardSet(stage_paths(params, "crawl").records, SOURCE_SCHEMA).read_all().to_pylist()
    one = next(r for r in rows if r["title"] == "templates/flows.drawio")
    assert one["id"].startswith("flowchart-templates@") and ":templates/flows.drawio" in one["id"]
    assert one["licence"] == "MIT" and json.loads(one["meta"])["commit"] == one["version"]
    ex = run_stage(ExtractStage(params))
    recs = ShardSet(stage_paths(params, "extract").records, RECORD_SCHEMA).read_all()
    by = {r["source_id"]: r for r in recs.to_pylist()}
    pages = [k for k in by if "flows.drawio" in k]
    assert sorted(p.rsplit("#", 1)[1] for p in pages) == ["page1", "page2"]
    assert {r["format"] for r in by.values()} == {"mxgraph", "svg", "dot", "mermaid"}
    assert not [k for k in by if "hostile.svg" in k]  # it declares entities: refused
    # 8 pages from 7 draw.io files (one has two pages), 4 SVGs (the hostile one, which
    # declares an external entity, refused), 4 DOT graphs (two in one file; the hostile and
    # the huge one refused), 4 .mmd files + 2 README blocks
    assert ex.n_out == 8 + 4 + 4 + 6
    # the templates' README holds no mermaid block: not a diagram on a closer look
    assert dict(ex.by_reason) == {"not_a_diagram": 1, "dot_unsafe": 1, "dot_too_large": 1,
                                  "xml_doctype_forbidden": 1}
    ledger = ShardSet(stage_paths(params, "extract").rejections, REJECTION_SCHEMA)
    assert ledger.count() == 4
    assert any("hostile.svg" in r["locator"] and r["reason"] == "xml_doctype_forbidden"
               for r in ledger.read_all().to_pylist())


def test_a_tag_is_not_confused_with_a_branch_ending_like_it(tmp_path):
    repo = tmp_path / "r"
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b"}
    import os

    def git(*a):
        subprocess.run(["git", *a], cwd=repo, check=True, capture_output=True,
                       env={**os.environ, **env})

    repo.mkdir()
    git("init", "-q", "-b", "main")
    (repo / "a.svg").write_text("<svg/>")
    git("add", "-A")
    git("commit", "-qm", "one")
    git("tag", "-a", "v1.0", "-m", "release")
    git("checkout", "-qb", "release/v1.0")
    (repo / "b.svg").write_text("<svg/>")
    git("add", "-A")
    git("commit", "-qm", "two")
    tagged = subprocess.run(["git", "rev-parse", "v1.0^{commit}"], cwd=repo, check=True,
                            capture_output=True, text=True).stdout.strip()
    co = checkout(RepoSpec(url=str(repo), ref="v1.0"), tmp_path / "cache")
    assert co.commit == tagged
    assert not (co.root / "b.svg").exists()


def test_files_a_format_claims_are_listed_without_an_include_pattern(tmp_path):
    for name in ("a.dot", "b.gv", "c.mmd", "README.md", "d.drawio", "e.txt", "f.dio"):
        (tmp_path / name).write_text("x")
    only = RepoCrawlParams(include=["*.drawio"], include_claimed=False)
    assert list_files(tmp_path, only) == ["d.drawio"]
    claimed = RepoCrawlParams(include=["*.drawio"])
    assert list_files(tmp_path, claimed) == ["README.md", "a.dot", "b.gv", "c.mmd",
                                             "d.drawio", "f.dio"]


def test_the_formats_claims_list_what_the_old_include_globs_listed(tmp_path):
    """``include`` is empty by default: the files its former default globs named (draw.io
    and SVG files) are each claimed by their format's handler, so the same files are
    crawled; an empty ``include`` without the claims would crawl nothing, and says so."""
    names = ["a.drawio", "b.drawio.xml", "c.xml", "d.svg", "e.drawio.png", "f.txt"]
    for name in names:
        (tmp_path / name).write_text("x")
    assert RepoCrawlParams().include == []
    assert list_files(tmp_path, RepoCrawlParams()) == sorted(names[:-1])
    with pytest.raises(ValueError, match="no file of a repository"):
        RepoCrawlParams(include_claimed=False)


def _git_repo(root, files: dict[str, str]) -> str:
    import os

    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b",
           "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    root.mkdir(parents=True)
    for name, text in files.items():
        (root / name).write_text(text)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)
    return str(root)


def test_a_licence_conflict_is_ledgered_and_audited_not_resolved(tmp_path):
    """package.json says MIT, the LICENSE is the GPL: no file goes on, the ledger and the
    licence audit say why; a maintainer who read it can state the licence in params."""
    from diagramforge.cards.publish.licence_audit import format_evidence, source_evidence
    from tests.filters.filter.test_licence import canonical

    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect/></svg>'
    url = _git_repo(tmp_path / "src" / "mixed", {
        "LICENSE": canonical("GPL-3.0-only"), "package.json": '{"license": "MIT"}',
        "a.svg": svg})
    ok = _git_repo(tmp_path / "src" / "clean", {"LICENSE": canonical("ISC"), "b.svg": svg})
    repos = [{"url": url, "ref": "main"}, {"url": ok, "ref": "main"}]
    params = make_params(tmp_path, crawl={"arxiv": {"source": ""}, "pdf": {"from_arxiv": False},
                                          "repos": {"repositories": repos,
                                                    "cache_dir": str(tmp_path / "cache")}})
    stats = run_named("crawl", params)
    assert stats.by_reason == {"licence_conflict": 1} and stats.n_out == 1
    ledger = ShardSet(stage_paths(params, "crawl").rejections, REJECTION_SCHEMA).read_all()
    detail = ledger.column("detail")[0].as_py()
    assert "package.json says MIT" in detail and "LICENSE says GPL-3.0-only" in detail
    row = ShardSet(stage_paths(params, "crawl").records, SOURCE_SCHEMA).read_all().to_pylist()[0]
    assert row["licence"] == "ISC"
    meta = json.loads(row["meta"])
    assert meta["licence_evidence"] == [{"file": "LICENSE", "method": "text", "spdx": "ISC",
                                         "score": 100.0}]
    sources = {s.source.split("@")[0]: s for s in source_evidence(params)}
    assert sources["mixed"].conflict == detail and sources["clean"].licence == "ISC"
    text = format_evidence(list(sources.values()))
    assert "LICENSE" in text and "text" in text and "100.00" in text
    assert "licence_conflict" in text and "package.json says MIT" in text

    repos[0]["licence"] = "GPL-3.0-only"  # read and decided by a maintainer
    params = make_params(tmp_path, crawl={"arxiv": {"source": ""}, "pdf": {"from_arxiv": False},
                                          "repos": {"repositories": repos,
                                                    "cache_dir": str(tmp_path / "cache")}})
    stats = run_named("crawl", params)
    assert stats.n_out == 2 and not stats.by_reason
    rows = ShardSet(stage_paths(params, "crawl").records, SOURCE_SCHEMA).read_all().to_pylist()
    stated = next(json.loads(r["meta"]) for r in rows if r["licence"] == "GPL-3.0-only")
    assert stated["licence_evidence"][0]["method"] == "stated"
