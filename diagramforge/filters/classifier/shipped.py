"""The checkpoint shipped inside the package: a versioned artifact, not a per-machine result.

``diagramforge/filters/classifier/checkpoint/`` holds an ordinary ``save_pretrained`` directory
(``config.json``, ``model.safetensors``, ``preprocessor_config.json``) plus ``manifest.json``:
its version, what it was trained on (sources, licences, images per label and source), how
(``scripts/classifier_ship.py`` and its settings), and its scores on held-out real sources
(``benchmarks/classifier_real.py``), and ``confusion.csv`` (held-out ``actual,predicted``).
A fresh clone on any machine uses these bytes; retraining is a choice (``classifier.train``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from diagramforge.store import atomic

SHIPPED = Path(__file__).resolve().parent / "checkpoint"
MODEL_FILES = ("config.json", "model.safetensors", "preprocessor_config.json")
MANIFEST = "manifest.json"
CONFUSION = "confusion.csv"


def manifest(root: Path = SHIPPED) -> dict:
    path = root / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(f"no shipped classifier manifest at {path}; rebuild it with "
                                "scripts/classifier_data.py and scripts/classifier_ship.py")
    return json.loads(path.read_text())


def install(dest: Path, root: Path = SHIPPED) -> dict:
    """Copy the shipped model files to ``dest`` (replaced whole); return the manifest."""
    man = manifest(root)
    tmp = dest.with_name(f".{dest.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name in MODEL_FILES:
        shutil.copyfile(root / name, tmp / name)
    old = dest.with_name(f".{dest.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if dest.exists():
        dest.rename(old)
    tmp.rename(dest)
    shutil.rmtree(old, ignore_errors=True)
    return man


def write_shipped(src_checkpoint: Path, man: dict, confusion_csv: str,
                  root: Path = SHIPPED) -> None:
    """Replace the shipped checkpoint by ``src_checkpoint`` (a save_pretrained dir) with its
    manifest and held-out confusion (used by ``scripts/classifier_ship.py``)."""
    root.mkdir(parents=True, exist_ok=True)
    for name in MODEL_FILES:
        atomic.write_bytes(root / name, (src_checkpoint / name).read_bytes())
    atomic.write_text(root / CONFUSION, confusion_csv)
    atomic.write_json(root / MANIFEST, man)
