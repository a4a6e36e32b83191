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

from diagramforge.filters.classifier.determinism import pin_environment, pin_torch, rounded, top
from diagramforge.filters.classifier.images import prepare
from diagramforge.filters.classifier.settings import ClassifierParams
from diagramforge.vocabulary import LABELS

Probs = dict[str, float]
"""Our label → probability (rounded), for one image."""


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
        pin_environment()  # before torch loads: portable kernels (determinism.py)
        from transformers import AutoImageProcessor, AutoModelForImageClassification
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # one "Loading weights" bar per worker: noise

        if params.checkpoint is None:
            raise CheckpointError("no classifier checkpoint given (resolve the default first)")
        pin_torch(params.threads)
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

    def probabilities(self, images: Sequence[bytes]) -> list[Probs]:
        """Each image's softmax over our labels (a checkpoint label mapped by
        :func:`normalise`; several mapping to one label add up), rounded to
        ``params.decimals`` places."""
        import torch

        names = [normalise(self.id2label[i], self.params) for i in range(len(self.id2label))]
        out: list[Probs] = []
        for start in range(0, len(images), self.params.batch_size):
            batch = [prepare(b, self.size) for b in images[start:start + self.params.batch_size]]
            inputs = self.processor(images=batch, return_tensors="pt")
            with torch.inference_mode():
                logits = self.model(pixel_values=inputs["pixel_values"]).logits
            for row in logits.double().softmax(dim=-1).tolist():
                probs: Probs = {}
                for name, p in zip(names, row, strict=True):
                    probs[name] = probs.get(name, 0.0) + p
                out.append(dict(zip(probs, rounded(list(probs.values()),
                                                    self.params.decimals), strict=True)))
        return out

    def classify(self, images: Sequence[bytes]) -> list[tuple[str, float]]:
        """Top-1 label and its (rounded) probability; ties go to vocabulary order."""
        return [top(p, list(LABELS)) for p in self.probabilities(images)]


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


def probabilities(images: Sequence[bytes], params: ClassifierParams) -> list[Probs]:
    """Every label's probability for each of ``images`` (see :meth:`Classifier.probabilities`)."""
    return _cached(params).probabilities(images)
