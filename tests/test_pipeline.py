"""End to end on the embedded corpus: every stage, the published dataset, the books, DVC,
and a real SIGKILL in the middle of a stage."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from diagramforge.builders.crawl.arxiv import parse_listing
from diagramforge.builders.extract.stage import ExtractStage
from diagramforge.builders.render.stage import RenderStage
from diagramforge.cards.publish.audit import load_audit
from diagramforge.filters.filter.stage import FilterStage
from diagramforge.runner import run_named, run_stage
from diagramforge.store.paths import metrics_path, stage_paths
from diagramforge.store.records import REJECTION_SCHEMA
from diagramforge.store.shards import ShardSet
from tests.conftest import (
    SAMPLE_REPOS,
    SAMPLES,
    WITH_NC,
    ColdTexCache,
    make_params,
    needs_browser,
    needs_tex,
    repo_tikz_settings,
)

pytestmark = [pytest.mark.slow, needs_tex, needs_browser]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("e2e")
    # TeX from the clones' cold build when the suite has one (tests/test_reproducible.py),
    # under the same limits: the outputs are the cold ones either way
    ColdTexCache(tmp_path_factory).fetch(tmp / "cache" / "tex")
    # non-commercial licences are opt-in (params.yaml refuses the CC BY-NC-SA sample paper at
    # crawl); this build opts in, so that paper — its constituency parse, found again in its
    # PDF — is exercised, and the card must name the licence apart
    params = make_params(tmp, runner={"workers": 2, "shard_size": 4},
                         licences=WITH_NC,
                         render={"tikz": {**repo_tikz_settings(),
                                          "cache_dir": str(tmp / "cache" / "tex")}},
                         crawl={"repos": {"repositories": SAMPLE_REPOS,
                                          "cache_dir": str(tmp / "repos")}})
    run_named("crawl", params)
    for stage in (ExtractStage, RenderStage):
        run_stage(stage(params))
    run_named("classifier-train", params)  # the diagram_type filter's default checkpoint
    run_stage(FilterStage(params))
    run_named("split", params)
    run_named("validate", params)
    run_named("publish", params)
    return params, Path(params.publish.out_dir) / params.publish.name


def test_published_dataset_loads_with_datasets(built):
    from datasets import load_dataset

    params, out = built
    files = {s: str(out / "generation" / "*" / f"{s}-*.parquet")
             for s in ("train", "validation", "test")}
    ds = load_dataset("parquet", data_files=files)
    total = sum(len(ds[s]) for s in ds)
    assert total == json.loads(metrics_path(params, "split").read_text())["out"]
    row = ds["train"][0]
    assert row["image"].size[0] > 16  # decoded as a PIL image: a real Image feature
    starts = {"tikz": "\\documentclass", "mxgraph": "<mxGraphModel", "svg": "<svg",
              "dot": ("digraph", "graph", "strict"), "mermaid": ""}
    assert row["code"].startswith(starts[row["format"]]) and row["licence"]
    groups = {s: set(ds[s]["group"]) for s in ds}
    assert not (groups["train"] & groups["test"]) and not (groups["train"] &
                                                           groups["validation"])
    by_config = load_dataset(str(out), "generation")
    assert sum(len(by_config[s]) for s in by_config) == total
    per_format = 0
    for fmt in ("tikz", "mxgraph", "svg", "dot", "mermaid"):
        one = load_dataset(str(out), fmt)  # only the splits this format reaches
        rows = sum(len(one[s]) for s in one)
        assert rows > 0 and all(set(one[s]["format"]) == {fmt} for s in one)
        per_format += rows
    assert per_format == total


def test_card_licences_and_report(built):
    _, out = built
    card = (out / "README.md").read_text()
    meta = yaml.safe_load(card.split("---")[1])
    assert [c["config_name"] for c in meta["configs"]] == ["generation", "dot", "mermaid",
                                                           "mxgraph", "svg", "tikz"]
    assert meta["license"] == "other" and meta["license_link"] == "LICENSES.md"
    assert "books balance" in card
    assert "**Non-commercial licences admitted by this build's `licences.allow`:** " \
        "`CC-BY-NC-SA-4.0`" in card
    lic = (out / "LICENSES.md").read_text()
    assert "arxiv:2401.00101" in lic and "Ada Lovelace" in lic
    assert json.loads((out / "validation_report.json").read_text())["success"]


def test_audit_totals_match_the_inputs(built):
    params, _ = built
    audit = load_audit(params)
    assert audit.ok, audit.errors
    crawl, extract, render, filt, split = audit.stages
    listed = len(parse_listing((SAMPLES / "arxiv" / "listing.xml").read_bytes())[0])
    assert crawl.n_in == listed + crawl.extra["repo_files"] + crawl.extra["pdf_files"]
    # 12 draw.io/SVG files, 10 DOT/Mermaid/Markdown files, the other repository's README
    assert crawl.extra["repo_files"] == 23 and crawl.extra["pdf_files"] == 4  # papers' PDFs
    assert crawl.n_out + crawl.n_rejected == crawl.n_in
    assert extract.n_in == crawl.n_out
    assert extract.inputs_with_output + extract.rejected_inputs == extract.n_in
    downstream = render.n_rejected + filt.n_rejected + split.n_rejected
    assert extract.n_out == audit.published + downstream
    # what the corpus was built to contain
    assert crawl.by_reason == {"licence_not_allowed": 1}  # arXiv's distribution-only licence
    assert {"archive_unsafe_member", "archive_ratio_exceeded", "no_diagrams"} <= set(
        extract.by_reason)
    # \write18 and \input{/etc/passwd} are refused before they reach a compiler (and a user)
    assert extract.by_reason["unsafe_code"] == 2
    # DOT that reads files and a 2,500-node graph; a README with no Mermaid block (named
    # like Mermaid's Markdown, refused on a look at its bytes)
    assert extract.by_reason["dot_unsafe"] == extract.by_reason["dot_too_large"] == 1
    assert extract.by_reason["not_a_diagram"] == 1
    # the SVG declaring an external entity, refused as every format refuses it
    assert extract.by_reason["xml_doctype_forbidden"] == 1
    assert {"compile_timeout", "compile_undefined_control_sequence",
            "compile_tikz_error"} <= set(render.by_reason)
    # the preamble ladder: the minimal document carries the body-level setup before a
    # picture, so every sample picture that compiles does so on the first rung
    rungs = {k for k in render.extra if k.startswith("preamble_")}
    assert render.extra["preamble_minimal"] >= 15 and rungs == {"preamble_minimal"}
    assert split.by_reason["duplicate"] == 3  # a TikZ figure and two draw.io exports
    # near-duplicates: a paper's figure found again in its PDF (the TikZ source is kept)
    ledger = ShardSet(stage_paths(params, "split").rejections, REJECTION_SCHEMA).read_all()
    near = [r["locator"] for r in ledger.to_pylist() if r["reason"] == "near_duplicate"]
    assert set(split.by_reason) <= {"duplicate", "near_duplicate"}
    assert all(".pdf#p" in loc for loc in near), near
    _one_figure_one_cluster(params, ledger.to_pylist())
    # mxGraph Execution Success: valid ∧ rendered, over every page found
    pages, ok = render.extra["mxgraph_pages"], render.extra["mxgraph_rendered"]
    assert (pages, ok) == (8, 7) and render.by_reason["mxgraph_invalid"] == 1
    assert render.by_reason["blank_render"] == 1  # the blank SVG
    assert render.by_reason["mermaid_render_failed"] == 1  # the broken Mermaid file
    # every rendered diagram got its structure graph (none null)
    assert render.extra["graph_built"] == render.n_out
    # (that the fast path is taken, batched runs over a precompiled format, is checked on
    # the clones' cold build, tests/test_reproducible.py: this build's TeX is its cache's)
    assert not Path("/tmp/diagramforge-pwned").exists()
    assert not Path("/tmp/diagramforge-traversal.tex").exists()


def _published_digest(out: Path) -> str:
    """Every file under ``out``, names and bytes (what DVC hashes)."""
    h = hashlib.sha256()
    for p in sorted(q for q in out.rglob("*") if q.is_file()):
        h.update(p.relative_to(out).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _digest(params, name: str) -> str:
    """Every file of a stage's output directory (what DVC hashes), names and bytes."""
    return _published_digest(stage_paths(params, name).root)


@pytest.mark.parametrize("point", ["before_commit", "after_commit"])
def test_sigkilled_stage_resumes_to_the_same_output(built, tmp_path, point):
    src, _ = built
    runs = {}
    for name in ("clean", "killed"):
        root = tmp_path / name
        # a warm, shared TeX cache keeps this fast; cache hits must not change a byte either
        params = make_params(root, runner={"workers": 1, "shard_size": 4},
                             render={"tikz": {**repo_tikz_settings(),
                                                  "cache_dir": src.render.tikz.cache_dir}})
        for stage in ("crawl", "extract"):
            shutil.copytree(stage_paths(src, stage).root, stage_paths(params, stage).root)
        pfile = root / "params.yaml"
        pfile.write_text(yaml.safe_dump(params.model_dump(by_alias=True)))
        runs[name] = (params, pfile)
    cmd = [sys.executable, "-m", "diagramforge", "--params"]
    env = {**os.environ, "DIAGRAMFORGE_FAULT": f"render:1:{point}"}
    killed = subprocess.run([*cmd, str(runs["killed"][1]), "render"], env=env,
                            capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL
    state = json.loads(stage_paths(runs["killed"][0], "render").state.read_text())
    assert not state["complete"]
    resumed = subprocess.run([*cmd, str(runs["killed"][1]), "render"], capture_output=True,
                             text=True)
    assert resumed.returncode == 0, resumed.stderr
    extra = json.loads(metrics_path(runs["killed"][0], "render").read_text())["extra"]
    assert extra["resumed_shards"] == (1 if point == "before_commit" else 2)
    clean = subprocess.run([*cmd, str(runs["clean"][1]), "render"], capture_output=True,
                           text=True)
    assert clean.returncode == 0, clean.stderr
    assert _digest(runs["killed"][0], "render") == _digest(runs["clean"][0], "render")


def test_dask_executor_writes_byte_identical_stage_outputs(built, tmp_path):
    """`runner.executor: dask` (a LocalCluster of 2 workers) writes the same bytes as the
    local process pool in every stage whose items an executor runs (extract, render,
    filter: the mapped stages) — stage code does not know which executor ran it. The stages
    after them run in the driver whatever the executor, so what they publish follows."""
    src, _ = built
    params = make_params(tmp_path, runner={"workers": 2, "shard_size": 4, "executor": "dask",
                                           "dask": {"workers": 2}},
                         render={"tikz": {**repo_tikz_settings(),
                                          "cache_dir": src.render.tikz.cache_dir}},
                         licences=WITH_NC,
                         crawl={"repos": {"repositories": SAMPLE_REPOS,
                                          "cache_dir": str(tmp_path / "repos")}})
    for upstream in ("crawl", "classifier-train"):  # the filter reads the checkpoint
        shutil.copytree(stage_paths(src, upstream).root, stage_paths(params, upstream).root)
    mapped = ("extract", "render", "filter")
    t0 = time.perf_counter()
    for name in mapped:
        run_named(name, params)
    print(f"dask executor, extract→filter on samples (warm TeX cache): "
          f"{time.perf_counter() - t0:.1f}s")
    for name in mapped:
        local, dask = stage_paths(src, name).root, stage_paths(params, name).root
        files = sorted(p.relative_to(local) for p in local.rglob("*") if p.is_file())
        assert files == sorted(p.relative_to(dask) for p in dask.rglob("*") if p.is_file())
        differ = [str(f) for f in files if (local / f).read_bytes() != (dask / f).read_bytes()]
        assert not differ, f"{name}: {differ}"


def _one_figure_one_cluster(params, ledger: list[dict]) -> None:  # noqa: ANN001
    """Every figure cut from a sample PDF whose TikZ source was extracted joins that code's
    cluster (2401.00105's constituency parse once published twice): no published cut-out
    shares its paper and caption with a published code record."""
    from diagramforge.store.records import RECORD_SCHEMA

    rows = ShardSet(stage_paths(params, "split").records, RECORD_SCHEMA).read_all().to_pylist()
    code = {(r["group"], r["caption"]) for r in rows if r["source"] != "pdf" and r["caption"]}
    twice = [r["source_id"] for r in rows
             if r["source"] == "pdf" and (r["group"], r["caption"]) in code]
    assert not twice, twice
    parse = next(r for r in ledger if r["locator"] == "arxiv:2401.00105v1.pdf#p1:Figure 1")
    kept = next(r for r in rows if r["source_id"] == "2401.00105v1/main.tex#1")
    assert parse["reason"] == "near_duplicate" and parse["detail"].startswith(f"kept {kept['id']}")
    assert "same figure in its paper (p1 Figure 1), caption 1.00" in parse["detail"]
