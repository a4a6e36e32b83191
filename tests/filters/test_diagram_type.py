"""The diagram_type filter end to end: the classifier-train stage trains the default
checkpoint from rendered records, the filter stage types every record in batches with it, and
one param swaps in another checkpoint (different labels) loaded through the Auto classes."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from diagramforge.classifier import model as clf_model
from diagramforge.classifier.model import Classifier, verdict
from diagramforge.classifier.negatives import negatives
from diagramforge.classifier.params import ClassifierParams, TrainParams
from diagramforge.classifier.train import build_model, fit
from diagramforge.filters.diagram_type import GENERIC, _refined
from diagramforge.filters.stage import FilterStage
from diagramforge.paths import metrics_path, stage_paths
from diagramforge.records import RECORD_SCHEMA, REJECTION_SCHEMA, empty_record
from diagramforge.runner import environment_fingerprint, fingerprint, run_named
from diagramforge.shards import ShardSet
from tests.classifier.conftest import diagram_records
from tests.conftest import make_params, seed_stage

TINY = {"image_size": 32, "epochs": 2, "batch_size": 8, "hidden_sizes": [8, 16],
        "depths": [1, 1], "augment_copies": 0, "min_class_count": 3,
        "negatives": {"plot": 5, "table": 0, "photo": 5}, "positives": 5}
ONLY = {"order": ["diagram_type"], "batch_size": 4}


def _records() -> list[dict]:
    """Rendered-looking records: node-link diagrams (TikZ), charts and photos, one broken."""
    out = [empty_record(**r, source_id=r["id"], licence="MIT") for r in diagram_records(8)]
    for i, (label, png) in enumerate(negatives({"plot": 3, "photo": 2}, seed=99)):
        out.append(empty_record(id=f"{label}{i}", format="svg", code="<svg/>", image=png,
                                source_id=f"{label}{i}"))
    out.append(empty_record(id="broken", format="svg", code="<svg/>", image=b"\x89PNG junk",
                            source_id="broken"))
    return out


@pytest.fixture
def trained(tmp_path):
    params = make_params(tmp_path, classifier=TINY, filter=ONLY)
    seed_stage(params, "render", _records())
    run_named("classifier-train", params)
    return params


def _read(params, what: str) -> list[dict]:
    p = stage_paths(params, "filter")
    if what == "records":
        return ShardSet(p.records, RECORD_SCHEMA).read_all().to_pylist()
    return ShardSet(p.rejections, REJECTION_SCHEMA).read_all().to_pylist()


def test_classifier_train_stage_writes_checkpoint_metrics_and_plot(trained):
    root = stage_paths(trained, "classifier-train").root
    assert (root / "checkpoint" / "config.json").is_file()
    metrics = json.loads((metrics_path(trained, "classifier")).read_text())
    assert metrics["weak_labels"] == {"graph": 8}  # read off the TikZ code; svg unlabelled
    assert set(metrics["classes"]) == {"graph", "diagram", "plot", "photo"}
    assert metrics["corpus_held_out"] == metrics["classes"]["graph"]["held_out"] == 2
    with open(metrics_path(trained, "classifier").parent / "classifier-confusion.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == metrics["held_out"] > 0
    assert metrics["accuracy"] == round(sum(r["actual"] == r["predicted"] for r in rows)
                                        / len(rows), 4)
    stats = json.loads(metrics_path(trained, "classifier-train").read_text())
    assert stats["in"] == 14 and stats["rejected"] == {}
    extra = stats["extra"]
    assert extra["trained"] + extra["held_out"] == 8 + 10 + 5  # corpus, negatives, drawn


def test_filter_types_every_record_in_batches(trained, monkeypatch):
    calls: list[int] = []
    real = Classifier.classify

    def spy(self, images):  # noqa: ANN001, ANN202
        calls.append(len(images))
        return real(self, images)

    monkeypatch.setattr(Classifier, "classify", spy)
    clf_model._LOADED.clear()
    stats = run_named("filter", trained)

    assert calls == [4, 4, 4, 1]  # 14 rows in units of 4, the broken image never sent
    kept, ledger = _read(trained, "records"), _read(trained, "rejections")
    assert stats.n_in == 14 and len(kept) + len(ledger) == 14
    typed = {k: v for k, v in stats.extra.items() if k.startswith("diagram_type:")}
    assert sum(typed.values()) == 13  # every readable render typed, kept or not
    assert typed == {f"diagram_type:{lab}": n for lab, n in Counter(
        [r["diagram_type"] for r in kept]
        + [r["detail"].split()[1] for r in ledger if r["id"] != "broken"]).items()}
    assert [r["locator"] for r in ledger if r["reason"] == "image_unreadable"] == ["broken"]

    # the filter says exactly what the checkpoint says, image by image
    cfg = ClassifierParams(checkpoint=str(stage_paths(trained, "classifier-train").root
                                          / "checkpoint"))
    by_id = {r["id"]: r for r in _records()}
    direct = Classifier.load(cfg)
    for r in kept:
        (label, prob), = direct.classify([by_id[r["id"]]["image"]])
        named = _refined(by_id[r["id"]], cfg) if label == GENERIC else label
        assert (r["diagram_type"], r["diagram_type_prob"]) == (named, round(prob, 6))
        assert verdict(label, prob, cfg).keep
    for r in ledger:
        if r["id"] != "broken":
            (label, prob), = direct.classify([by_id[r["id"]]["image"]])
            v = verdict(label, prob, cfg)
            assert not v.keep and r["reason"] == v.reason and label in r["detail"]


def _foreign_checkpoint(path: Path) -> None:
    """A second tiny checkpoint, a ViT speaking ACL-Fig-like label names."""
    import torch

    from diagramforge.classifier.images import prepare

    labels = ["Bar charts", "Tree", "Natural-Images"]
    images = [("Tree", r["image"]) for r in diagram_records(4)] + [
        ("Bar charts" if k == "plot" else "Natural-Images", b)
        for k, b in negatives({"plot": 4, "photo": 4}, seed=5)]
    tp = TrainParams(architecture="vit", image_size=32, epochs=3, batch_size=4,
                     hidden_sizes=[32], depths=[1], vit_heads=2, vit_patch_size=8)
    torch.manual_seed(0)
    model, processor = build_model(labels, tp)
    pixels = processor(images=[prepare(b, 32) for _, b in images],
                       return_tensors="pt")["pixel_values"]
    fit(model, pixels, torch.tensor([labels.index(lab) for lab, _ in images]), tp)
    model.save_pretrained(path)
    processor.save_pretrained(path)


def test_one_param_swaps_in_another_checkpoint(trained, tmp_path):
    ckpt = tmp_path / "acl-fig-vit"
    _foreign_checkpoint(ckpt)
    section = {"checkpoint": str(ckpt), "threshold": 0.0,
               "label_map": {"Bar charts": "plot", "natural_images": "photo"}}
    swapped = make_params(tmp_path, classifier=TINY,
                          filter={**ONLY, "diagram_type": section})
    default_fp = fingerprint(FilterStage(trained), None)
    assert fingerprint(FilterStage(swapped), None) != default_fp

    clf_model._LOADED.clear()
    run_named("filter", swapped)
    kept, ledger = _read(swapped, "records"), _read(swapped, "rejections")
    assert type(Classifier.load(swapped.filter.section("diagram_type")).model).__name__ \
        == "ViTForImageClassification"
    # "Tree" normalised; "Bar charts" mapped to plot: the pool keeps plots, labelled
    assert {r["diagram_type"] for r in kept} <= {"tree", "plot"}
    assert {r["reason"] for r in ledger} <= {"diagram_type_rejected", "image_unreadable"}
    assert len(kept) + len(ledger) == 14


def test_retraining_changes_the_filter_fingerprint(trained):
    """Same params, new weights: the filter must not reuse its committed shards."""
    def made_with() -> tuple[str, str]:  # what the runner compares before reusing shards
        stage = FilterStage(trained)
        return fingerprint(stage, None), environment_fingerprint(stage)

    before = made_with()
    weights = stage_paths(trained, "classifier-train").root / "checkpoint" / "model.safetensors"
    weights.write_bytes(weights.read_bytes() + b" ")
    assert made_with() != before


def test_missing_checkpoint_fails_the_stage_before_work(tmp_path):
    params = make_params(tmp_path, filter=ONLY)
    seed_stage(params, "render", _records()[:2])
    with pytest.raises(clf_model.CheckpointError, match="classifier-train"):
        run_named("filter", params)


def test_a_cached_hub_id_is_a_checkpoint_too(trained, tmp_path, monkeypatch):
    """``checkpoint: org/name`` loads from the Hub cache (offline: no download) through the
    same Auto classes; its snapshot (commit) is what the filter's fingerprint records."""
    import huggingface_hub.constants

    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--example-org--figure-classifier"
    _foreign_checkpoint(repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    section = {"checkpoint": "example-org/figure-classifier", "threshold": 0.0,
               "label_map": {"Bar charts": "plot", "natural_images": "photo"}}
    hub = make_params(tmp_path, classifier=TINY, filter={**ONLY, "diagram_type": section})
    assert FilterStage(hub).environment()["diagram_type"] == {
        "checkpoint": "example-org/figure-classifier", "snapshot": commit}

    clf_model._LOADED.clear()
    run_named("filter", hub)
    kept, ledger = _read(hub, "records"), _read(hub, "rejections")
    assert len(kept) + len(ledger) == 14
    typed = {r["diagram_type"] for r in kept} | {
        r["detail"].split()[1] for r in ledger if r["reason"] == "diagram_type_rejected"}
    assert typed and typed <= {"tree", "plot", "photo"}  # its names, mapped to ours
    loaded = clf_model._LOADED.popitem()[1]
    assert type(loaded.model).__name__ == "ViTForImageClassification"
    assert loaded.model.name_or_path == "example-org/figure-classifier"


@pytest.mark.parametrize(("code", "fmt", "label", "named"), [
    (r"\begin{tikzcd} A \arrow[r] & B \end{tikzcd}", "tikz", "diagram", "commutative_diagram"),
    (r"\begin{forest} [S [NP] [VP]] \end{forest}", "tikz", "diagram", "tree"),
    (r"\draw (0,0) -- (1,1);", "tikz", "diagram", "diagram"),  # the code does not say
    (r"\begin{axis}\addplot{x};\end{axis}", "tikz", "diagram", "plot"),  # kept, labelled
    (r"\begin{forest} [S] \end{forest}", "tikz", "tree", "tree"),  # a specific label stays
])
def test_a_kept_generic_diagram_is_named_by_its_code(tmp_path, monkeypatch, code, fmt, label,
                                                     named):
    """The image decides keep or reject; the code only names the kind of a generic one."""
    from diagramforge.filters import diagram_type

    monkeypatch.setattr(diagram_type, "resolve_checkpoint", lambda ref: ref)
    monkeypatch.setattr(diagram_type, "checkpoint_digest", lambda ref: {})
    monkeypatch.setattr(diagram_type, "classify", lambda images, cfg: [(label, 0.9)] * len(images))
    params = make_params(tmp_path, filter={"diagram_type": {"checkpoint": str(tmp_path)}})
    check = diagram_type.make_diagram_type_filter(params.filter.section("diagram_type"), params)
    png = diagram_records(1)[0]["image"]
    v = check({"format": fmt, "code": code, "image": png})
    assert v.keep and v.metrics == {"diagram_type": named, "diagram_type_prob": 0.9}
