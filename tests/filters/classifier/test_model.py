"""Loading through the Auto classes, batched rounded probabilities, and clear load errors."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from diagramforge.filters.classifier.model import (
    CheckpointError,
    Classifier,
    classify,
    probabilities,
)
from diagramforge.filters.classifier.negatives import negatives
from diagramforge.filters.classifier.settings import ClassifierParams, TrainParams
from diagramforge.filters.classifier.train import build_model, fit
from tests.filters.classifier.conftest import diagram_records


def _tiny_trained(labels: list[str], tp: TrainParams, images: list[tuple[str, bytes]]):
    """A model built from a config and trained a few steps (so its weights are not init)."""
    import torch

    from diagramforge.filters.classifier.images import prepare

    torch.manual_seed(0)
    model, processor = build_model(labels, tp)
    pixels = processor(images=[prepare(b, tp.image_size) for _, b in images],
                       return_tensors="pt")["pixel_values"]
    targets = torch.tensor([labels.index(lab) for lab, _ in images])
    fit(model, pixels, targets, tp)
    return model, processor


@pytest.fixture(scope="module")
def images() -> list[tuple[str, bytes]]:
    diagrams = [("graph", r["image"]) for r in diagram_records(5)]
    return diagrams + [("natural_image" if lab == "natural_image" else "line_chart", b)
                       for lab, b in negatives({"chart": 5, "natural_image": 3}, seed=3)]


def test_saved_checkpoint_classifies_like_the_model_in_memory(
        tiny_params: ClassifierParams, tiny_train: TrainParams,
        images: list[tuple[str, bytes]], tmp_path: Path) -> None:
    model, processor = _tiny_trained(["graph", "line_chart", "natural_image"], tiny_train,
                                     images)
    ckpt = Path(tiny_params.checkpoint)
    model.save_pretrained(ckpt)
    processor.save_pretrained(ckpt)
    pngs = [b for _, b in images]  # 13 images, batch size 4: a ragged last batch

    in_memory = Classifier(model, processor, tiny_params).classify(pngs)
    loaded = Classifier.load(tiny_params)
    assert type(loaded.model).__name__ == "ResNetForImageClassification"
    assert loaded.classify(pngs) == in_memory
    assert classify(pngs, tiny_params) == in_memory
    assert {lab for lab, _ in in_memory} <= {"graph", "line_chart", "natural_image"}
    assert all(0.0 < p <= 1.0 for _, p in in_memory)
    probs = probabilities(pngs, tiny_params)
    assert [max(p.values()) for p in probs] == [p for _, p in in_memory]
    assert all(abs(sum(p.values()) - 1) < 0.01 and all(v == round(v, 3) for v in p.values())
               for p in probs)  # rounded to filter.diagram_type.decimals (3)


def test_swapped_in_checkpoint_with_its_own_label_names(
        tmp_path: Path, images: list[tuple[str, bytes]]) -> None:
    """A "real" checkpoint (here a second tiny ViT) speaks ACL-Fig-like names; one param
    (``checkpoint``) swaps it in and ``label_map``/normalisation map its names to ours."""
    foreign = ["Bar charts", "Tree", "Natural-Images"]
    params = ClassifierParams(checkpoint=str(tmp_path / "acl"),
                              label_map={"Bar charts": "bar_chart",
                                         "natural_images": "natural_image"})
    vit = TrainParams(architecture="vit", image_size=32, epochs=2, hidden_sizes=[32],
                      depths=[1, 1], vit_heads=2, vit_patch_size=8)
    mapped = [("Tree" if lab == "graph" else "Natural-Images" if lab == "natural_image"
               else "Bar charts", b) for lab, b in images]
    model, processor = _tiny_trained(foreign, vit, mapped)
    model.save_pretrained(params.checkpoint)
    processor.save_pretrained(params.checkpoint)

    got = Classifier.load(params).probabilities([b for _, b in images])
    assert all(set(p) == {"bar_chart", "tree", "natural_image"} for p in got)


def test_labels_in_params_must_be_diagram_types() -> None:
    with pytest.raises(ValueError, match="not diagram types"):
        ClassifierParams(reject=["photo"])
    with pytest.raises(ValueError, match="not diagram types"):
        ClassifierParams(label_map={"Bar charts": "plot"})


def test_missing_local_checkpoint_says_how_to_get_one(tmp_path: Path) -> None:
    for ref in (str(tmp_path / "nope"), "data/classifier/checkpoint", "./ckpt"):
        with pytest.raises(CheckpointError, match="diagramforge classifier-train"):
            Classifier.load(ClassifierParams(checkpoint=ref))
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointError, match="no config.json"):
        Classifier.load(ClassifierParams(checkpoint=str(tmp_path / "empty")))


def test_uncached_hub_id_fails_fast_offline(monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty cache
    t = time.perf_counter()
    with pytest.raises(CheckpointError, match="Hub id"):
        Classifier.load(ClassifierParams(checkpoint="example-org/figure-classifier"))
    assert time.perf_counter() - t < 10
