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
