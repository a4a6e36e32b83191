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


def test_classifier_train_alias_runs_the_stage(tmp_path):
    """`diagramforge classifier train` (the issue's spelling) is the classifier-train stage."""
    from typer.testing import CliRunner

    from diagramforge.cli import app
    from diagramforge.store.paths import stage_paths
    from tests.conftest import make_params, seed_stage
    from tests.filters.classifier.conftest import diagram_records

    tiny = {"train": True, "image_size": 32, "epochs": 1, "batch_size": 8,
            "hidden_sizes": [8, 16], "depths": [1, 1], "augment_copies": 0,
            "min_class_count": 3, "negatives": {"chart": 4, "table": 0, "natural_image": 0,
                                                "screenshot": 0}, "positives": 4}
    params = make_params(tmp_path, classifier=tiny)
    seed_stage(params, "render", diagram_records(6))
    data = params.model_dump(by_alias=True, mode="json")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(data))
    res = CliRunner().invoke(app, ["--params", str(tmp_path / "params.yaml"), "classifier",
                                   "train"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("classifier-train: in=6")
    assert (stage_paths(params, "classifier-train").root / "checkpoint" / "config.json").is_file()
