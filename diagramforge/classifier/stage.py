"""The ``classifier-train`` stage: train the checkpoint the ``diagram_type`` filter uses.

Weights cannot be downloaded here, so the pipeline trains its own small model on what it has
already rendered (weak labels read off the code) plus negatives it generates, and writes an
ordinary ``save_pretrained`` checkpoint into its output directory.  That directory is a DVC
output (cached: a no-op ``dvc repro`` does not retrain) and an input of ``filter``.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from diagramforge import atomic
from diagramforge.classifier.train import train
from diagramforge.paths import stage_paths
from diagramforge.stage import StageLog, TableStage

METRICS_FILE = "classifier.json"
CONFUSION_FILE = "classifier-confusion.csv"


class ClassifierTrainStage(TableStage):
    """Train the diagram-type classifier (a small ResNet built from a transformers config,
    seeded) on weak labels read off the rendered records' code plus generated charts, tables
    and photographs; write the checkpoint the diagram_type filter loads by default, held-out
    accuracy (metrics/classifier.json) and a confusion matrix (a DVC plot)."""

    name = "classifier-train"
    upstream = "render"
    reads = ("id", "format", "code", "image")
    output_schema = None
    funnel = False
    param_sections = ("classifier",)
    code = ("classifier", "formats/latex.py")
    extra_metrics = (METRICS_FILE,)
    plots = ((CONFUSION_FILE, {"template": "confusion", "x": "actual", "y": "predicted",
                               "title": "diagram-type classifier, held-out images"}),)

    def run_table(self, table: pa.Table | None, log: StageLog) -> list[dict]:
        assert table is not None
        out = stage_paths(self.params, self.name).root
        rows = table.select(list(self.reads)).to_pylist()
        metrics = train(rows, self.params.classifier, out)
        mdir = Path(self.params.project.metrics_dir)
        atomic.write_json(mdir / METRICS_FILE, metrics)
        atomic.write_bytes(mdir / CONFUSION_FILE, (out / "confusion.csv").read_bytes())
        log.stats.extra.update(trained=metrics["trained"], held_out=metrics["held_out"],
                               weakly_labelled=sum(metrics["weak_labels"].values()))
        return []
