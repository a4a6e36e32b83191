"""The PlantUML sample repository (real files, Apache-2.0): checked out from its bundle like
the other template repositories, its licence read from its LICENSE, each file through the
handler — the diagrams kept, the two that reach outside refused with their reasons."""

from __future__ import annotations

import pytest

from diagramforge.builders.crawl.repos import checkout, find_licence
from diagramforge.builders.crawl.settings import RepoSpec
from diagramforge.formats.plantuml import engine
from diagramforge.formats.plantuml.handler import PlantUmlFormat
from diagramforge.store.records import Unit
from tests.conftest import SAMPLES, make_params

BUNDLE = SAMPLES / "repos" / "plantuml-diagrams.bundle"


@pytest.fixture
def repo(tmp_path):
    return checkout(RepoSpec(url=str(BUNDLE), ref="v0.1.0"), tmp_path)


def test_the_sample_is_apache_licensed_real_plantuml(repo, tmp_path):
    assert find_licence(repo.root).spdx == "Apache-2.0"
    h = PlantUmlFormat(make_params(tmp_path), lambda r: r["source_id"])
    every = sorted(str(p.relative_to(repo.root)) for p in repo.root.rglob("*")
                   if p.is_file() and ".git" not in p.parts)
    files = [f for f in every if h.claims_file(f, (repo.root / f).read_bytes())]
    assert len(files) == 11
    recs, rejs = [], []
    for f in files:
        base = {"source": "repo", "source_id": f, "group": "repo:plantuml-diagrams"}
        r, j = h.extract_file((repo.root / f).read_bytes(), f, base, f, Unit.INPUT)
        recs += r
        rejs += j
    assert len(recs) == 10  # class-multi-diagram.plantuml holds two diagrams
    assert sorted((j.locator, j.reason) for j in rejs) == [
        ("fixtures/graphviz-world-dynamics.plantuml", "plantuml_unsafe"),
        ("fixtures/preprocessor-includeurl.plantuml", "plantuml_unsafe")]
    if engine.find_java() is None:
        pytest.skip("plantuml not installed")
    out = h.render(recs)
    assert not out.rejections
    assert sorted(r["render_engine"] for r in out.records) == sorted(
        ["plantuml:sequence"] * 3 + ["plantuml:class"] * 3 + ["plantuml:activity",
         "plantuml:description", "plantuml:description", "plantuml:state"])
    assert all(r["graph"] for r in out.records)  # the new-syntax activity too: its flow


def test_the_sample_goes_through_crawl_extract_and_render(tmp_path):
    """The registry finds the format by its folder: the real stages crawl, extract and
    render the sample repository with nothing else configured."""
    if engine.find_java() is None:
        pytest.skip("plantuml not installed")
    from diagramforge.runner import run_named
    from diagramforge.store.paths import stage_paths
    from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA
    from diagramforge.store.shards import ShardSet

    params = make_params(tmp_path, crawl={"arxiv": {"source": ""}, "repos": {
        "repositories": [{"url": str(BUNDLE), "ref": "v0.1.0"}],
        "cache_dir": str(tmp_path / "repos")}})
    assert run_named("crawl", params).n_out == 12  # 11 PlantUML files and SOURCES.md
    ex = run_named("extract", params)
    assert (ex.n_in, ex.n_out) == (12, 10)
    ledger = ShardSet(stage_paths(params, "extract").rejections,
                      REJECTION_SCHEMA).read_all().to_pylist()
    assert sorted(r["reason"] for r in ledger) == ["not_a_diagram", "plantuml_unsafe",
                                                   "plantuml_unsafe"]
    rd = run_named("render", params)
    assert (rd.n_in, rd.n_out) == (10, 10)
    recs = ShardSet(stage_paths(params, "render").records, RECORD_SCHEMA).read_all()
    rows = recs.to_pylist()
    assert all(r["graph"] and r["licence"] == "Apache-2.0" for r in rows)
    assert all(r["render_engine"].startswith("plantuml:") for r in rows)
