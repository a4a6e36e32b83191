"""``diagramforge push`` through the real ``huggingface_hub`` client against a loopback Hub:
one commit per version, a tag that is never moved, a byte-identical read-back at the tag, and
a second version's changelog counted by row id."""

from __future__ import annotations

import filecmp
import re
from pathlib import Path

import huggingface_hub.constants as hf_constants
import pytest
from huggingface_hub import HfApi, snapshot_download
from typer.testing import CliRunner

from diagramforge.cards.hub.push import PushError, format_plan, previous_tag, push_version
from diagramforge.cli import app
from diagramforge.runner import run_named
from tests.cards.hub.loopback_hub import LoopbackHub
from tests.cards.publish.test_publish import FIXED, rows
from tests.conftest import make_params, seed_stage

REPO = "lab/diagrams"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    with LoopbackHub() as h:
        monkeypatch.setenv("HF_TOKEN", h.state.token)
        yield h


def build(tmp_path, hub, version: str, table: list[dict], **publish):
    params = make_params(tmp_path, **FIXED, publish={
        "version": version, "repo_id": REPO, "endpoint": hub.endpoint,
        "out_dir": str(tmp_path / "published"), "history_dir": str(tmp_path / "releases"),
        **publish})
    seed_stage(params, "split", table)
    run_named("validate", params)
    run_named("publish", params)
    return params


def test_previous_tag_is_the_highest_older_semver():
    assert previous_tag(["v0.1.0", "v0.10.0", "v0.2.0", "latest", "v1.0.0"], "0.11.0") \
        == "v0.10.0"
    assert previous_tag(["v0.2.0"], "0.1.0") is None


def test_push_two_versions_through_the_real_client(tmp_path, hub):
    first = rows(["MIT", "MIT", "CC-BY-4.0", "MIT"])
    params = build(tmp_path, hub, "0.1.0", first)
    out = tmp_path / "published" / params.publish.name

    dry = push_version(params.publish, dry_run=True)
    assert dry.create_repo and dry.commit is None and REPO not in hub.state.repos
    listed = {path: size for kind, path, size in dry.operations if kind == "add"}
    assert listed["README.md"] == (out / "README.md").stat().st_size
    assert "generation/tikz/train-00000-of-00001.parquet" in listed
    assert "would push" in format_plan(dry)

    plan = push_version(params.publish)
    repo = hub.state.repos[REPO]
    assert repo.tags == {"v0.1.0": plan.commit} and repo.branches["main"] == plan.commit
    assert len(repo.commits) == 2  # the repo's initial commit + one for the version

    snap = snapshot_download(REPO, repo_type="dataset", revision="v0.1.0",
                             endpoint=hub.endpoint, cache_dir=tmp_path / "dl")
    for path in listed:
        if path == "CHANGELOG.md":
            continue
        assert filecmp.cmp(out / path, f"{snap}/{path}", shallow=False), path
    log1 = Path(snap, "CHANGELOG.md").read_text()
    assert "## v0.1.0" in log1 and "first version" in log1

    with pytest.raises(PushError, match="never moved"):
        push_version(params.publish)

    # version 2: id0 removed, id1 changed (new caption), id4 added, id2/id3 unchanged
    second = [r for r in rows(["MIT", "MIT", "CC-BY-4.0", "MIT", "MIT"]) if r["id"] != "id0"]
    second[0]["caption"] = "a new caption"
    params2 = build(tmp_path, hub, "0.2.0", second)
    plan2 = push_version(params2.publish)
    assert plan2.previous == "v0.1.0"
    assert repo.commits[plan2.commit][0] == plan.commit  # one commit on top of v0.1.0
    assert repo.tags["v0.1.0"] == plan.commit  # the old tag did not move

    log2 = HfApi(endpoint=hub.endpoint).hf_hub_download(
        REPO, "CHANGELOG.md", repo_type="dataset", revision="v0.2.0",
        cache_dir=tmp_path / "dl")
    text = Path(log2).read_text()
    assert text.index("## v0.2.0") < text.index("## v0.1.0")
    entry = text[text.index("## v0.2.0"):text.index("## v0.1.0")]
    cells = {tuple(c.strip() for c in line.strip("|").split("|")[:2]):
             [int(x) for x in line.strip("|").split("|")[2:]]
             for line in entry.splitlines() if re.match(r"\| generation", line)}
    # rows(): even ids train, odd ids test → id0 (train) removed, id4 (train) added,
    # id1 (test) changed, id2 (train) and id3 (test) unchanged
    assert cells[("generation", "train")] == [1, 1, 0, 1]
    assert cells[("generation", "test")] == [0, 0, 1, 1]


def test_a_push_of_more_files_than_push_max_files_is_a_chain_of_commits(tmp_path, hub):
    params = build(tmp_path, hub, "0.1.0", rows(["MIT", "MIT", "CC-BY-4.0", "MIT"]),
                   push_max_files=4)
    out = tmp_path / "published" / params.publish.name
    dry = push_version(params.publish, dry_run=True)
    n_ops = len(dry.operations)
    assert n_ops > 8  # several commits are needed
    assert f"{-(-n_ops // 4)} commits" in format_plan(dry)

    plan = push_version(params.publish)
    repo = hub.state.repos[REPO]
    assert len(plan.commits) == -(-n_ops // 4) and plan.commit == plan.commits[-1]
    for parent, child in zip(plan.commits, plan.commits[1:], strict=False):
        assert repo.commits[child][0] == parent  # each part names the one before
    assert repo.tags == {"v0.1.0": plan.commits[-1]}  # the tag is on the last part only
    snap = snapshot_download(REPO, repo_type="dataset", revision="v0.1.0",
                             endpoint=hub.endpoint, cache_dir=tmp_path / "dl")
    for kind, path, _ in dry.operations:
        if kind == "add" and path != "CHANGELOG.md":
            assert filecmp.cmp(out / path, f"{snap}/{path}", shallow=False), path
    # the card comes with the last part: earlier parts never show a card without its files
    first = HfApi(endpoint=hub.endpoint).list_repo_files(REPO, repo_type="dataset",
                                                          revision=plan.commits[0])
    assert "README.md" not in first


def test_push_refuses_without_a_token_and_dry_run_needs_none(tmp_path, hub, monkeypatch):
    params = build(tmp_path, hub, "0.1.0", rows(["MIT", "MIT"]))
    monkeypatch.delenv("HF_TOKEN")
    with pytest.raises(PushError, match="HF_TOKEN"):
        push_version(params.publish)
    assert push_version(params.publish, dry_run=True).operations
    assert not hub.state.repos


def test_cli_push_dry_run_and_stats_compare(tmp_path, hub, monkeypatch):
    import yaml

    params = build(tmp_path, hub, "0.1.0", rows(["MIT", "MIT", "MIT"]))
    params2 = build(tmp_path, hub, "0.2.0", rows(["MIT", "MIT", "MIT", "MIT"]))
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params2.model_dump(by_alias=True)))
    runner = CliRunner()
    res = runner.invoke(app, ["--params", str(path), "push", "--dry-run"])
    assert res.exit_code == 0, res.output
    assert "would push lab/diagrams v0.2.0" in res.output
    res = runner.invoke(app, ["--params", str(path), "stats", "--compare", "v0.1.0"])
    assert res.exit_code == 0, res.output
    # rows(): format i % 3, split i % 2 → the fourth row (id3) is a tikz test diagram
    assert "configs/generation/test/tikz/rows: - → 1" in res.output
    assert "totals/generation: 3 → 4 (+1)" in res.output
    del params


def test_the_hub_push_stage_is_gated_by_publish_push(tmp_path, hub):
    params = build(tmp_path, hub, "0.1.0", rows(["MIT", "MIT"]))
    stats = run_named("hub-push", params)
    assert stats.extra["pushed"] == 0 and not hub.state.repos
    on = params.model_copy(update={"publish": params.publish.model_copy(update={"push": True})})
    stats = run_named("hub-push", on)
    assert stats.extra["pushed"] == 1 and "v0.1.0" in hub.state.repos[REPO].tags
    with pytest.raises(PushError, match="never moved"):
        run_named("hub-push", on)


def test_stats_compare_reads_an_older_version_from_the_hub(tmp_path, hub):
    import shutil

    import yaml

    from diagramforge.commands import previous_stats

    push_version(build(tmp_path, hub, "0.1.0", rows(["MIT", "MIT", "MIT"])).publish)
    params = build(tmp_path, hub, "0.2.0", rows(["MIT", "MIT"]))
    shutil.rmtree(tmp_path / "releases")  # another machine: no local history
    assert previous_stats(params, "v0.1.0")["totals"]["generation"] == 3
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params.model_dump(by_alias=True)))
    res = CliRunner().invoke(app, ["--params", str(path), "stats", "--compare", "v0.1.0"])
    assert res.exit_code == 0 and "totals/generation: 3 → 2 (-1)" in res.output
    res = CliRunner().invoke(app, ["--params", str(path), "stats", "--compare", "v9.9.9"])
    assert res.exit_code == 1
