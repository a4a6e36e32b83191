"""Load an image-classification checkpoint and type renders: ``(label, probability)`` each.

Loading is real ``transformers`` code (``AutoImageProcessor`` + ``AutoModelForImageClassification``
``.from_pretrained``), so the checkpoint the pipeline trains itself and a real one from the Hub
go through the same path.  Nothing here downloads: with ``local_files_only`` a Hub id that is
not in the local cache fails at once with a message saying what to do, instead of hanging on
a network that is not there.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from diagramforge.classifier.images import prepare
from diagramforge.classifier.params import ClassifierParams
from diagramforge.filters.base import Verdict

REJECTED = "diagram_type_rejected"
UNCERTAIN = "diagram_type_uncertain"


class CheckpointError(RuntimeError):
    """The configured checkpoint cannot be loaded (missing path, uncached Hub id, bad files)."""


def normalise(label: str, params: ClassifierParams) -> str:
    """Map a checkpoint's label to ours: explicit ``label_map`` first, then spelling."""
    if label in params.label_map:
        return params.label_map[label]
    key = re.sub(r"[\s\-]+", "_", label.strip().lower())
    return params.label_map.get(key, key)


def _is_hub_id(ref: str) -> bool:
    """``org/name`` or ``name`` (not an existing path, not path-like): a Hub repository id."""
    if ref.startswith((".", "/", "~")) or ref.count("/") > 1 or os.sep + os.sep in ref:
        return False
    return re.fullmatch(r"[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?", ref) is not None


def resolve_checkpoint(ref: str) -> str:
    """A local directory must exist and hold a config; anything else must be a Hub id."""
    path = Path(ref).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise CheckpointError(f"classifier checkpoint {ref!r} has no config.json; "
                                  "write it with save_pretrained (diagramforge classifier-train)")
        return str(path)
    if path.exists() or not _is_hub_id(ref):
        raise CheckpointError(f"no classifier checkpoint at {ref!r}: train one with "
                              "`diagramforge classifier-train` or set filter.diagram_type."
                              "checkpoint to a local directory or a cached Hub id")
    return ref


class Classifier:
    """A loaded processor + model; ``classify`` types PNG bytes in batches."""

    def __init__(self, model, processor, params: ClassifierParams) -> None:  # noqa: ANN001
        self.model = model.eval()
        self.processor = processor
        self.params = params
        self.id2label = {int(k): v for k, v in model.config.id2label.items()}
        size = getattr(processor, "size", None) or {}
        side = size.get("height") or size.get("shortest_edge")
        self.size = int(side) if side else None
        """Images are downscaled to the processor's own input size, not below it: a real
        224-px checkpoint must not see a 64-px thumbnail upsampled."""

    @classmethod
    def load(cls, params: ClassifierParams) -> Classifier:
        """Load ``params.checkpoint`` through the Auto classes, offline unless told otherwise.

        ``params.checkpoint`` must be concrete (see :meth:`ClassifierParams.resolved`)."""
        import torch
        from transformers import AutoImageProcessor, AutoModelForImageClassification
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # one "Loading weights" bar per worker: noise

        if params.checkpoint is None:
            raise CheckpointError("no classifier checkpoint given (resolve the default first)")
        torch.set_num_threads(params.threads)
        ref = resolve_checkpoint(params.checkpoint)
        offline = params.local_files_only or os.environ.get("HF_HUB_OFFLINE") == "1"
        try:
            processor = AutoImageProcessor.from_pretrained(ref, local_files_only=offline)
            model = AutoModelForImageClassification.from_pretrained(
                ref, local_files_only=offline)
        except (OSError, ValueError) as exc:
            where = "local directory" if Path(ref).is_dir() else "Hub id (offline: cache only)"
            raise CheckpointError(f"cannot load classifier checkpoint {ref!r} as a {where}: "
                                  f"{str(exc).splitlines()[0]}") from exc
        return cls(model, processor, params)

    def classify(self, images: Sequence[bytes]) -> list[tuple[str, float]]:
        """Top-1 label (normalised, see :func:`normalise`) and its softmax probability."""
        import torch

        out: list[tuple[str, float]] = []
        for start in range(0, len(images), self.params.batch_size):
            batch = [prepare(b, self.size) for b in images[start:start + self.params.batch_size]]
            inputs = self.processor(images=batch, return_tensors="pt")
            with torch.inference_mode():
                logits = self.model(pixel_values=inputs["pixel_values"]).logits
            probs = logits.float().softmax(dim=-1)
            top = probs.max(dim=-1)
            for p, i in zip(top.values.tolist(), top.indices.tolist(), strict=True):
                out.append((normalise(self.id2label[i], self.params), float(p)))
        return out


_LOADED: dict[str, Classifier] = {}


def _cached(params: ClassifierParams) -> Classifier:
    """One loaded model per distinct params (lists in params make them unhashable)."""
    key = params.model_dump_json()
    if key not in _LOADED:
        _LOADED[key] = Classifier.load(params)
    return _LOADED[key]


def classify(images: Sequence[bytes], params: ClassifierParams) -> list[tuple[str, float]]:
    """Type ``images`` with the checkpoint in ``params`` (loaded once per process)."""
    return _cached(params).classify(images)


def verdict(label: str, prob: float, params: ClassifierParams) -> Verdict:
    """Keep a confident kept label; reject a rejected one or anything unsure.

    A label in neither list (a swapped-in checkpoint's class nobody mapped) is treated as
    uncertain rather than silently kept: the ledger then shows what to map.
    """
    metrics = {"diagram_type": label, "diagram_type_prob": round(prob, 6)}
    if prob < params.threshold:
        return Verdict(False, UNCERTAIN, f"{label} p={prob:.3f} < {params.threshold}",
                           metrics)
    if label in params.reject:
        return Verdict(False, REJECTED, f"{label} p={prob:.3f}", metrics)
    if label in params.keep:
        return Verdict(True, metrics=metrics)
    return Verdict(False, UNCERTAIN, f"{label} is in neither keep nor reject", metrics)
