"""The checkpoint shipped with the package: small, loadable offline, described by its manifest."""

from __future__ import annotations

import json

import pytest

from diagramforge.filters.classifier.model import Classifier
from diagramforge.filters.classifier.settings import ClassifierParams
from diagramforge.filters.classifier.shipped import MODEL_FILES, SHIPPED, install, manifest
from diagramforge.vocabulary import LABELS
from tests.filters.classifier.conftest import diagram_records


def test_shipped_files_are_small_and_complete():
    sizes = {name: (SHIPPED / name).stat().st_size for name in MODEL_FILES}
    assert all(sizes.values()) and sum(sizes.values()) < 5_000_000


def test_manifest_says_what_it_was_trained_on_and_how_it_scores():
    man = manifest()
    assert man["version"] and set(man["labels"]) <= set(LABELS)
    by_source = man["training"]["by_source"]
    assert any(s.startswith("texlive:") for s in by_source) and "synthetic" in by_source
    held = set(man["held_out_sources"])
    assert held and held.isdisjoint(by_source)  # held out by source, never trained on
    for side in ("image_alone", "combined"):
        assert 0 <= man["metrics"][side]["diagram_agreement"] <= 1
    config = json.loads((SHIPPED / "config.json").read_text())
    assert set(config["id2label"].values()) == set(man["labels"])


def test_shipped_checkpoint_loads_offline_and_types_a_diagram(tmp_path):
    install(tmp_path / "ckpt")
    clf = Classifier.load(ClassifierParams(checkpoint=str(tmp_path / "ckpt")))
    (probs,) = clf.probabilities([diagram_records(1)[0]["image"]])
    assert set(probs) <= set(LABELS) and abs(sum(probs.values()) - 1) < 0.01


def test_install_replaces_the_directory_whole(tmp_path):
    dest = tmp_path / "ckpt"
    dest.mkdir()
    (dest / "stale.bin").write_bytes(b"old")
    install(dest)
    assert sorted(p.name for p in dest.iterdir()) == sorted(MODEL_FILES)


def test_a_missing_manifest_says_how_to_rebuild(tmp_path):
    with pytest.raises(FileNotFoundError, match="classifier_ship.py"):
        manifest(tmp_path)
