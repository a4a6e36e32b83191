"""The classifier-train stage's DVC declaration: a cached checkpoint out, the classifier
metrics, and a confusion-matrix plot that `dvc plots show` renders."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import yaml

from diagramforge.pipeline import dvc_yaml


def test_dvc_yaml_declares_checkpoint_metrics_and_plot():
    stages = yaml.safe_load(dvc_yaml())["stages"]
    ct = stages["classifier-train"]
    assert ct["outs"] == ["data/classifier-train"]  # cached, not persist: DVC restores it
    assert {"metrics/classifier.json": {"cache": False}} in ct["metrics"]
    (plot,) = ct["plots"]
    assert plot["metrics/classifier-confusion.csv"]["template"] == "confusion"
    assert ct["params"] == ["classifier", "runner.shard_size"]  # not filter: no retrain
    assert "data/classifier-train/checkpoint" in stages["filter"]["deps"]
    names = list(stages)
    assert names.index("render") < names.index("classifier-train") < names.index("filter")


def test_dvc_plots_show_renders_the_confusion_matrix(tmp_path):
    (tmp_path / "dvc.yaml").write_text(dvc_yaml())
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "classifier-confusion.csv").write_text(
        "actual,predicted\ndiagram,diagram\ndiagram,plot\nplot,plot\nphoto,photo\n")
    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    dvc = [sys.executable, "-m", "dvc"]
    subprocess.run([*dvc, "init", "--no-scm", "-q"], cwd=tmp_path, env=env, check=True)
    out = subprocess.run([*dvc, "plots", "show", "--json", "metrics/classifier-confusion.csv"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    (shown,) = json.loads(out.stdout)["data"]["metrics/classifier-confusion.csv"]
    spec = shown["content"]
    assert spec["title"]["text"].startswith("diagram-type classifier")
    assert spec["spec"]["encoding"]["x"]["field"] == "actual"
    assert spec["spec"]["encoding"]["y"]["field"] == "predicted"
    assert len(spec["data"]["values"]) == 4
