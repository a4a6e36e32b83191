"""The ``stack`` source: a local archive in The Stack v1's layout and schema, streamed through
the same ``datasets.load_dataset(..., streaming=True)`` call the crawl makes on the Hub."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest

from diagramforge import runner
from diagramforge.builders.crawl.settings import StackCrawlParams
from diagramforge.builders.crawl.stack import StackSchemaError, open_subset
from diagramforge.builders.crawl.stack_layout import v1_row, write_subset
from diagramforge.builders.extract.stage import ExtractStage
from diagramforge.licensing.spdx import spdx_from_ids
from diagramforge.runner import run_named, run_stage
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA, SOURCE_SCHEMA
from diagramforge.store.shards import ShardSet
from tests.builders.crawl.archive_files import DOT, MERMAID_MD, PLAIN_TEX, POM, drawio, svg, tex
from tests.conftest import make_params

TOKEN_ENV = "DF_TEST_STACK_TOKEN"
SECRET = "hf_not_a_real_token_but_secret"
SUBSETS = ["data/svg", "data/xml", "data/tex", "data/graphviz-(dot)", "data/markdown"]
ACME = "acme/diagrams"

# (subset, repo, path, content, licences) -> expected reason ("" = kept)
ROWS = [
    ("data/svg", ACME, "docs/flow.svg", svg(), ["MIT"], ""),
    ("data/svg", ACME, "docs/arch.svg", svg("Web", "DB"), ["MIT", "Apache-2.0"], ""),
    ("data/svg", "nolic/icons", "icons/a.svg", svg("X", "Y"), [], "licence_missing"),
    ("data/svg", "odd/licence", "b.svg", svg("P", "Q"), ["Weird-Custom-1.0"],
     "licence_unknown"),
    ("data/svg", "big/files", "huge.svg", svg() + "<!--" + "x" * 5000 + "-->", ["MIT"],
     "file_too_large"),
    ("data/svg", "gpl/repo", "c.svg", svg("G", "H"), ["GPL-3.0-only"], "licence_not_allowed"),
    ("data/svg", ACME, "empty.svg", None, ["MIT"], "no_content"),
    ("data/xml", ACME, "docs/flow.xml", drawio(), ["MIT"], ""),
    ("data/xml", "java/app", "pom.xml", POM, ["MIT"], "not_a_diagram"),
    ("data/xml", "ops/site", "site.drawio", drawio("Client", "Server"), ["BSD-3-Clause"], ""),
    ("data/tex", "lab/paper", "figs/pipeline.tex", tex(), ["CC-BY-4.0"], ""),
    ("data/tex", "lab/paper", "notes.tex", PLAIN_TEX, ["CC-BY-4.0"], "not_a_diagram"),
    ("data/xml", "java/app", "schema.xsd", POM, ["MIT"], "no_handler"),
    ("data/graphviz-(dot)", "graphs/dots", "g.dot", DOT, ["MIT"], ""),
    ("data/markdown", "docs/site", "README.md", MERMAID_MD, ["MIT"], ""),
    ("data/markdown", "docs/site", "USAGE.md", "# Usage\n\nRun `make`.\n", ["MIT"],
     "not_a_diagram"),  # Markdown is Mermaid's only with a mermaid block in it
]


def write_archive(root: Path) -> Path:
    for sub in SUBSETS:
        rows = [v1_row(repo, path, content, lic, stars=3)
                for s, repo, path, content, lic, _ in ROWS if s == sub]
        write_subset(root, sub, rows, rows_per_shard=2)  # several shards per subset
    return root


def stack_params(tmp_path: Path, **stack: object):
    return make_params(tmp_path, runner={"shard_size": 2},
                       crawl={"arxiv": {"source": ""}, "pdf": {"from_arxiv": False},
                              "stack": {"enabled": True, "dataset": str(tmp_path / "stack"),
                                        "subsets": SUBSETS, "token_env": TOKEN_ENV,
                                        "max_file_bytes": 4000, "batch_rows": 3, **stack}})


def test_every_row_is_a_record_or_a_ledger_row_with_its_reason(tmp_path, monkeypatch):
    write_archive(tmp_path / "stack")
    params = stack_params(tmp_path)
    seen_tokens = []
    real = datasets.load_dataset

    def spy(*a, **kw):
        seen_tokens.append(kw.get("token"))
        return real(*a, **kw)

    monkeypatch.setattr(datasets, "load_dataset", spy)
    monkeypatch.setenv(TOKEN_ENV, SECRET)
    monkeypatch.setattr(runner, "LEDGER_SPILL_ROWS", 3)  # ledger shards written as it goes
    stats = run_named("crawl", params)

    assert stats.n_in == len(ROWS)
    kept = {r[2] for r in ROWS if not r[5]}
    assert stats.n_out == len(kept) == 7
    paths = stage_paths(params, "crawl")
    ledger = ShardSet(paths.rejections, REJECTION_SCHEMA)
    assert len(ledger.indices()) > 1 and ledger.count() == stats.n_rejected
    by_path = {r["locator"].rsplit(":", 1)[1]: r for r in ledger.read_all().to_pylist()}
    assert {p: r["reason"] for p, r in by_path.items()} == \
        {r[2]: r[5] for r in ROWS if r[5]}
    assert {r["source"] for r in by_path.values()} == {"stack"}
    assert "Weird-Custom-1.0" in by_path["b.svg"]["detail"]

    rows = ShardSet(paths.records, SOURCE_SCHEMA).read_all().to_pylist()
    assert len(ShardSet(paths.records, SOURCE_SCHEMA).indices()) >= 3  # streamed, 2 per shard
    by = {r["title"]: r for r in rows}
    assert set(by) == kept
    arch = by["docs/arch.svg"]
    meta = json.loads(arch["meta"])
    expected = v1_row(ACME, "docs/arch.svg", svg("Web", "DB"), ["MIT", "Apache-2.0"])
    assert arch["kind"] == "stack" and arch["content"] == svg("Web", "DB").encode()
    assert arch["licence"] == "Apache-2.0 AND MIT" and meta["licences"] == ["MIT", "Apache-2.0"]
    assert meta["commit"] == expected["max_stars_repo_head_hexsha"] == arch["version"]
    assert meta["blob"] == expected["hexsha"] and meta["subset"] == "data/svg"
    assert meta["format"] == "svg" and by["docs/flow.xml"]["licence"] == "MIT"
    assert json.loads(by["docs/flow.xml"]["meta"])["format"] == "mxgraph"
    assert json.loads(by["figs/pipeline.tex"]["meta"])["format"] == "tikz"

    # the token reached datasets, and nothing else
    assert seen_tokens == [SECRET] * len(SUBSETS)
    written = b"".join(p.read_bytes() for d in (Path(params.project.data_dir),
                                                Path(params.project.metrics_dir))
                       for p in d.rglob("*") if p.is_file())
    assert SECRET.encode() not in written and TOKEN_ENV.encode() not in written


def test_extracted_records_carry_repository_commit_path_and_licence(tmp_path):
    write_archive(tmp_path / "stack")
    params = stack_params(tmp_path)
    run_named("crawl", params)
    ex = run_stage(ExtractStage(params))
    recs = ShardSet(stage_paths(params, "extract").records, RECORD_SCHEMA).read_all()
    by = {json.loads(r["meta"]).get("file") or r["title"]: r for r in recs.to_pylist()}
    assert ex.n_rejected == 0 and ex.n_out == 7
    flow = by["docs/flow.svg"]
    commit = v1_row(ACME, "x", "", None)["max_stars_repo_head_hexsha"]
    assert flow["format"] == "svg" and flow["source"] == "stack"
    assert flow["group"] == f"repo:{ACME}"  # one repository never spans two splits
    assert flow["source_url"] == f"https://github.com/{ACME}/blob/{commit}/docs/flow.svg"
    assert flow["licence"] == "MIT"
    assert flow["licence_url"] == f"https://github.com/{ACME}/tree/{commit}"
    assert ACME in flow["attribution"] and str(tmp_path / "stack") in flow["attribution"]
    assert by["docs/flow.xml"]["format"] == "mxgraph"
    assert by["docs/flow.xml"]["group"] == flow["group"]
    pic = next(r for r in recs.to_pylist() if r["format"] == "tikz")
    assert pic["source"] == "stack" and pic["group"] == "repo:lab/paper"
    assert pic["source_id"].startswith("stack:lab/paper@") and pic["source_id"].endswith("#1")
    assert pic["licence"] == "CC-BY-4.0" and r"\begin{tikzpicture}" in pic["code"]


def test_max_rows_reads_a_sample_and_disallowed_licences_can_go_to_the_filter(tmp_path):
    write_archive(tmp_path / "stack")
    params = stack_params(tmp_path, max_rows=2, skip_disallowed_licences=False)
    stats = run_named("crawl", params)
    assert stats.n_in == sum(min(2, sum(r[0] == s for r in ROWS)) for s in SUBSETS)
    rows = ShardSet(stage_paths(params, "crawl").records, SOURCE_SCHEMA).read_all()
    assert "LicenseRef-none" not in rows.column("licence").to_pylist()  # 3rd svg row unread
    params = stack_params(tmp_path, subsets=["data/svg"], skip_disallowed_licences=False)
    run_named("crawl", params)
    lic = ShardSet(stage_paths(params, "crawl").records, SOURCE_SCHEMA).read_all() \
        .column("licence").to_pylist()
    assert {"LicenseRef-none", "GPL-3.0-only"} <= set(lic)  # the licence filter decides
    assert any(x.startswith("LicenseRef-unknown:") for x in lic)


def test_a_dataset_without_a_mapped_column_is_a_clear_error(tmp_path):
    write_archive(tmp_path / "stack")
    cfg = StackCrawlParams(dataset=str(tmp_path / "stack"),
                           columns={"repo": "repo_name"})  # a v2 name on a v1 archive
    with pytest.raises(StackSchemaError, match="repo_name"):
        open_subset(cfg, "data/svg")


def test_repository_licences_as_one_spdx_expression():
    assert spdx_from_ids(()) == "LicenseRef-none"
    assert spdx_from_ids(("mit",)) == "MIT"
    assert spdx_from_ids(("MIT", "Apache-2.0", "MIT")) == "Apache-2.0 AND MIT"
    assert spdx_from_ids(("MIT", "no-such-licence")) == \
        "LicenseRef-unknown:MIT,no-such-licence"


def test_archive_files_go_in_runs_and_a_file_that_breaks_is_ledgered_alone(tmp_path,
                                                                             monkeypatch):
    write_archive(tmp_path / "stack")
    params = stack_params(tmp_path, subsets=["data/svg", "data/xml"])
    params = params.model_copy(update={"runner": params.runner.model_copy(
        update={"shard_size": 64})})
    run_named("crawl", params)
    stage = ExtractStage(params)
    rows = ShardSet(stage_paths(params, "crawl").records, SOURCE_SCHEMA).read_all().to_pylist()
    assert [len(u.rows) for u in stage.units(rows)] == [len(rows)] == [4]
    real = ExtractStage._source

    def flaky(self, src):  # noqa: ANN001, ANN202
        if src["title"] == "docs/arch.svg":
            raise RuntimeError("extractor bug")
        return real(self, src)

    monkeypatch.setattr(ExtractStage, "_source", flaky)
    ex = run_stage(stage)
    assert ex.n_out == 3 and ex.by_reason == {"error": 1}
    ledger = ShardSet(stage_paths(params, "extract").rejections, REJECTION_SCHEMA).read_all()
    (rej,) = ledger.to_pylist()
    assert rej["locator"].endswith(":docs/arch.svg") and "extractor bug" in rej["detail"]
    assert rej["source"] == "stack"
