"""The ``classifier-train`` stage: provide the checkpoint the ``diagram_type`` filter uses.

By default (``classifier.train: false``) it copies the checkpoint shipped with the package
(``filters/classifier/shipped.py``: trained once on real figures, versioned, with its manifest) into
its output directory: the same bytes on every machine, so the filter's decisions — and the
published dataset — do not depend on which CPU ran the pipeline.  With
``classifier.train: true`` it trains a small model from scratch on this corpus's own renders
(labels read off their code) plus generated images, seeded, and writes that instead — a
choice for a corpus unlike the shipped training data, at the price of machine-dependent
weights.  Either way the directory is a DVC output and an input of ``filter``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pyarrow as pa

from diagramforge.filters.classifier.sample import COLUMNS, stratified_rows
from diagramforge.filters.classifier.shipped import CONFUSION, SHIPPED, install
from diagramforge.filters.classifier.train import train
from diagramforge.stage import StageLog, StageSettings, TableStage
from diagramforge.store import atomic
from diagramforge.store.paths import stage_paths
from diagramforge.store.shards import Upstream

if TYPE_CHECKING:
    from diagramforge.filters.classifier.settings import ClassifierTrainParams

METRICS_FILE = "classifier.json"
CONFUSION_FILE = "classifier-confusion.csv"


class ClassifierTrainStageSettings(StageSettings, Protocol):
    """What the classifier-train stage reads: its section and the stage base's part."""

    @property
    def classifier(self) -> ClassifierTrainParams: ...


class ClassifierTrainStage(TableStage):
    """Provide the diagram-type checkpoint the diagram_type filter loads by default: the one
    shipped with the package (classifier.train: false), or one trained from scratch on this
    corpus's renders labelled by their code plus generated images (true); write its held-out
    scores (metrics/classifier.json) and confusion matrix (a DVC plot)."""

    name = "classifier-train"
    params: ClassifierTrainStageSettings
    upstream = "render"
    reads = COLUMNS
    input_columns = COLUMNS
    streams_input = True
    """Nothing is read for the shipped checkpoint; training reads a bounded sample
    (``classifier.max_train_rows``, :mod:`diagramforge.filters.classifier.sample`) shard by
    shard."""
    output_schema = None
    funnel = False
    param_sections = ("classifier",)
    code = ("filters/classifier", "formats/capabilities.py", "formats/evidence.py",
            "formats/*/evidence.py", "graphs")  # each evidence.py with what it imports beside it
    extra_metrics = (METRICS_FILE,)
    plots = ((CONFUSION_FILE, {"template": "confusion", "x": "actual", "y": "predicted",
                               "title": "diagram-type classifier, held-out images"}),)

    def run_table(self, table: pa.Table | Upstream | None, log: StageLog) -> list[dict]:
        assert table is not None
        out = stage_paths(self.params, self.name).root
        mdir = Path(self.params.project.metrics_dir)
        if not self.params.classifier.train:
            man = install(out / "checkpoint")
            held = man["metrics"]
            atomic.write_json(mdir / METRICS_FILE, {
                "checkpoint": "shipped", "version": man["version"],
                "architecture": man["architecture"]["model"].split(" ")[0].lower(),
                # flat figures the dataset card quotes (held-out real sources)
                "image_keep_reject_accuracy": held["image_alone"]["diagram_agreement"],
                "combined_keep_reject_accuracy": held["combined"]["diagram_agreement"],
                **held})
            atomic.write_bytes(mdir / CONFUSION_FILE, (SHIPPED / CONFUSION).read_bytes())
            log.stats.extra.update(trained=0, shipped=1)
            return []
        cfg = self.params.classifier
        if isinstance(table, Upstream):
            drawn: dict = {}
            rows = stratified_rows(table.tables(COLUMNS), table.tables(COLUMNS),
                                   cfg.max_train_rows, cfg.seed, drawn)
            log.stats.extra.update(with_image=drawn["with_image"], sampled=drawn["sampled"])
        else:
            rows = table.select(list(COLUMNS)).to_pylist()
        metrics = train(rows, cfg, out)
        atomic.write_json(mdir / METRICS_FILE, metrics)
        atomic.write_bytes(mdir / CONFUSION_FILE, (out / "confusion.csv").read_bytes())
        log.stats.extra.update(trained=metrics["trained"], held_out=metrics["held_out"],
                               weakly_labelled=sum(metrics["weak_labels"].values()))
        return []
