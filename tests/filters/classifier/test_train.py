"""Training writes a loadable checkpoint, metrics, a DVC-plot confusion CSV; it is seeded."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from diagramforge.filters.classifier.dataset import build_samples, load_records, split
from diagramforge.filters.classifier.model import Classifier
from diagramforge.filters.classifier.settings import ClassifierParams, TrainParams
from diagramforge.filters.classifier.train import train
from tests.filters.classifier.conftest import diagram_records


def _render_dir(root: Path, rows: list[dict]) -> Path:
    """Shaped like the render stage's output: ``records/part-*.parquet`` + a ledger shard."""
    (root / "records").mkdir(parents=True)
    (root / "rejections").mkdir()
    half = len(rows) // 2
    pq.write_table(pa.Table.from_pylist(rows[:half]), root / "records" / "part-00000.parquet")
    pq.write_table(pa.Table.from_pylist(rows[half:]), root / "records" / "part-00001.parquet")
    pq.write_table(pa.table({"id": ["x"], "reason": ["too_big"]}),
                   root / "rejections" / "part-00000.parquet")
    return root


def test_samples_dedupe_fold_and_split(tiny_train: TrainParams) -> None:
    recs = diagram_records(6)
    recs.append(dict(recs[0], id="copy"))  # an export of the same picture
    recs.append({"id": "u", "format": "tikz", "code": r"\draw (0,0)--(1,1);",
                 "image": recs[1]["image"][:-1] + b"\0"})
    circuit = {"id": "c", "format": "tikz",
               "code": r"\begin{circuitikz}\draw (0,0) to[R] (2,0);\end{circuitikz}",
               "image": diagram_records(1, start=50)[0]["image"]}
    samples, summary = build_samples(recs + [circuit], tiny_train)
    assert summary["duplicates"] == 1 and summary["unlabelled"] == 1
    # 1 circuit < min_class_count (3): into its ACL-Fig parent (architecture_diagram), which is
    # as rare (it is the fallback too), so into the largest diagram class
    assert summary["folded"]["circuit"] == "graph"
    labels = {s.label for s in samples}
    assert {"graph", "natural_image"} <= labels and "circuit" not in labels
    train_set, test_set = split(samples, 0.25, seed=1)
    assert {s.digest for s in train_set}.isdisjoint(s.digest for s in test_set)
    # every class with two or more images is both trained on and held out; one stays in train
    assert {"graph", "natural_image"} <= {s.label for s in test_set}
    assert {s.label for s in train_set} == labels
    assert split(samples, 0.25, seed=1) == (train_set, test_set)


def test_train_writes_checkpoint_metrics_and_confusion(
        tiny_params: ClassifierParams, tiny_train: TrainParams, tmp_path: Path) -> None:
    src = _render_dir(tmp_path / "render", diagram_records(12))
    assert len(load_records(src)) == 12
    out = tmp_path / "clf"
    metrics = train(src, tiny_train, out)

    # the output holds everything but the timings (they vary by machine: metrics/ only)
    assert json.loads((out / "metrics.json").read_text()) == {
        k: v for k, v in metrics.items() if k != "seconds"}
    assert set(metrics["seconds"]) == {"prepare", "fit", "total"}
    assert metrics["weak_labels"] == {"graph": 12}
    assert {"graph", "natural_image"} <= set(metrics["classes"])
    # 25 % of each class (12 graphs, 6 charts, 6 photos), at least one where there are two
    held = metrics["held_out"]
    assert sum(c["held_out"] for c in metrics["classes"].values()) == held and 6 <= held <= 8
    assert 0.0 <= metrics["accuracy"] <= 1.0
    with open(out / "confusion.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == held and set(rows[0]) == {"actual", "predicted"}
    right = sum(r["actual"] == r["predicted"] for r in rows)
    assert metrics["accuracy"] == round(right / held, 4)

    clf = Classifier.load(tiny_params)  # checkpoint = <tmp>/clf/checkpoint
    assert set(clf.id2label.values()) == set(metrics["classes"])
    assert len(clf.classify([r["image"] for r in diagram_records(3, start=100)])) == 3
    index = (out / "images" / "index.csv").read_text().splitlines()
    assert len(index) == 1 + 24 and all((out / "images" / line.split(",")[0])
                                         .is_file() for line in index[1:])


def test_same_seed_same_weights(tiny_train: TrainParams, tmp_path: Path) -> None:
    rows = diagram_records(8)
    a, b = tmp_path / "a", tmp_path / "b"
    train(rows, tiny_train, a)
    train(rows, tiny_train, b)
    weights = "checkpoint/model.safetensors"
    assert (a / weights).read_bytes() == (b / weights).read_bytes()
    assert (a / "confusion.csv").read_bytes() == (b / "confusion.csv").read_bytes()


@pytest.mark.slow
def test_full_training_run_separates_diagrams_from_plots_and_photos(tmp_path: Path) -> None:
    """Default model size and epochs on a corpus-sized set (its time: the benchmark)."""
    metrics = train(diagram_records(80), TrainParams(), tmp_path / "clf")
    assert metrics["held_out"] >= 50
    assert metrics["keep_reject_accuracy"] >= 0.9
    assert metrics["accuracy"] >= 0.85
