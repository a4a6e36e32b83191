"""Comparing two dvc.lock files: same inputs must mean same data/ outputs."""

from __future__ import annotations

import copy

import yaml
from typer.testing import CliRunner

from diagramforge.cli import app
from diagramforge.tools.lockdiff import Verdict, compare

LOCK = {"schema": "2.0", "stages": {
    "crawl": {"cmd": "diagramforge crawl",
              "deps": [{"path": "diagramforge/builders/crawl.py", "md5": "c1"}],
              "params": {"params.yaml": {"crawl": {"max_papers": 10}}},
              "outs": [{"path": "data/crawl", "md5": "o1.dir"},
                       {"path": "metrics/crawl.json", "md5": "m1"}]},
    "render": {"cmd": "diagramforge render",
               "deps": [{"path": "data/crawl", "md5": "o1.dir"}],
               "outs": [{"path": "data/render", "md5": "r1.dir"}]}}}


def test_same_inputs_same_outputs():
    assert [d.verdict for d in compare(LOCK, copy.deepcopy(LOCK))] == [Verdict.SAME] * 2


def test_metrics_may_differ_data_may_not():
    other = copy.deepcopy(LOCK)
    other["stages"]["crawl"]["outs"][1]["md5"] = "m2"  # seconds live in metrics/
    assert compare(LOCK, other)[0].verdict == Verdict.SAME
    other["stages"]["render"]["outs"][0]["md5"] = "r2.dir"
    got = compare(LOCK, other)[1]
    assert got.verdict == Verdict.DIFFERS and got.outs == {"data/render": ("r1.dir", "r2.dir")}


def test_changed_code_or_params_is_stale_not_a_failure():
    other = copy.deepcopy(LOCK)
    other["stages"]["crawl"]["params"]["params.yaml"]["crawl"] = {"max_papers": 20}
    other["stages"]["crawl"]["outs"][0]["md5"] = "o2.dir"
    other["stages"]["render"]["deps"][0]["md5"] = "o2.dir"
    other["stages"]["render"]["outs"][0]["md5"] = "r2.dir"
    crawl, render = compare(LOCK, other)
    assert crawl.verdict == render.verdict == Verdict.STALE
    assert crawl.deps == ["params:params.yaml:crawl"] and render.deps == ["data/crawl"]


def test_code_moved_with_equal_outputs_is_the_same_and_with_other_outputs_stale():
    """A refactor is proved by equal data: only code files changed and the outputs are
    equal — same (the code files listed); code changed and an output too — stale (new
    behaviour, nothing to conclude)."""
    other = copy.deepcopy(LOCK)
    other["stages"]["crawl"]["deps"][0]["md5"] = "c2"
    crawl, render = compare(LOCK, other)
    assert crawl.verdict == Verdict.SAME and crawl.deps == ["diagramforge/builders/crawl.py"]
    assert render.verdict == Verdict.SAME and render.deps == []
    other["stages"]["crawl"]["outs"][0]["md5"] = "o2.dir"
    assert compare(LOCK, other)[0].verdict == Verdict.STALE


def test_cli_exits_1_when_a_stage_is_not_reproduced(tmp_path):
    a, b = tmp_path / "a.lock", tmp_path / "b.lock"
    a.write_text(yaml.safe_dump(LOCK))
    other = copy.deepcopy(LOCK)
    other["stages"]["render"]["outs"][0]["md5"] = "r2.dir"
    b.write_text(yaml.safe_dump(other))
    ok = CliRunner().invoke(app, ["lock-diff", str(a), "--against", str(a)])
    assert ok.exit_code == 0 and "render            same" in ok.output
    bad = CliRunner().invoke(app, ["lock-diff", str(b), "--against", str(a)])
    assert bad.exit_code == 1 and "data/render: r1.dir → r2.dir" in bad.output
