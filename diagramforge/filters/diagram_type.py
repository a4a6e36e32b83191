"""Diagram type: a ``transformers`` image classifier types each render; plots, tables and
photographs are rejected, diagrams kept (SKETikZ keeps trees, graphs, architecture
diagrams, neural networks… as typed by a ViT trained on ACL-Fig).

The checkpoint is named in params (``filter.diagram_type.checkpoint``): ``null`` is the one
the ``classifier-train`` stage trains from this very corpus; a local directory or a cached Hub
id swaps in a real model.  The pipeline's own model knows one generic ``diagram`` class
(a sample corpus has too few of each kind to learn them apart); a kept generic diagram is
named more precisely by what its code declares, when it declares it.  Inference is batched:
the filter stage hands each unit's surviving rows to ``batch`` at once, and the model is
loaded once per worker, on first use.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from PIL import Image

from diagramforge.classifier.model import classify, resolve_checkpoint, verdict
from diagramforge.classifier.params import ClassifierParams
from diagramforge.classifier.weak_labels import weak_label
from diagramforge.filters.base import FilterFn, Verdict, register
from diagramforge.params import Params


def checkpoint_digest(ref: str) -> dict:
    """What identifies the checkpoint's weights: the files' digest for a local directory,
    the cached snapshot (a commit id) for a Hub id."""
    path = Path(ref)
    if path.is_dir():
        h = hashlib.sha256()
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            h.update(f.relative_to(path).as_posix().encode())
            h.update(f.read_bytes())
        return {"checkpoint": ref, "sha256": h.hexdigest()[:16]}
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(ref, "config.json")
    return {"checkpoint": ref,
            "snapshot": Path(cached).parent.name if isinstance(cached, str) else None}


GENERIC = "diagram"
"""The label the pipeline's own checkpoint gives every kind of diagram it keeps."""


def _refined(record: dict, cfg: ClassifierParams) -> str:
    """A kept generic ``diagram`` typed by what its code declares (``weak_labels``: tikz-cd →
    commutative_diagram, forest → tree, mxGraph stencils → architecture…) when that is a kept
    type; the image decided keep or reject, the code only names the kind."""
    label = weak_label(record)
    return label if label in cfg.keep else GENERIC


def _readable(image: bytes | None) -> str | None:
    """Why ``image`` cannot be classified, or ``None``."""
    if not image:
        return "no render"
    try:
        with Image.open(io.BytesIO(image)) as img:
            img.load()
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        return repr(exc)
    return None


@register("diagram_type", params=ClassifierParams, writes=("diagram_type", "diagram_type_prob"))
def make_diagram_type_filter(cfg: ClassifierParams, params: Params) -> FilterFn:
    """Type renders with the configured checkpoint; keep ``keep`` labels at ≥ threshold."""
    cfg = cfg.resolved(params)
    assert cfg.checkpoint is not None
    resolve_checkpoint(cfg.checkpoint)  # a missing one fails here, in the driver, not per row

    def batch(records: list[dict]) -> list[Verdict]:
        out: list[Verdict | None] = [None] * len(records)
        todo = []
        for i, r in enumerate(records):
            why = _readable(r.get("image"))
            if why is None:
                todo.append(i)
            else:
                out[i] = Verdict.reject("image_unreadable", why)
        typed = classify([records[i]["image"] for i in todo], cfg) if todo else []
        for i, (label, prob) in zip(todo, typed, strict=True):
            v = verdict(label, prob, cfg)
            if v.keep and label == GENERIC:
                v.metrics["diagram_type"] = _refined(records[i], cfg)
            out[i] = v
        return out  # type: ignore[return-value]

    def check(record: dict) -> Verdict:
        return batch([record])[0]

    check.batch = batch  # type: ignore[attr-defined]
    check.environment = checkpoint_digest(cfg.checkpoint)  # type: ignore[attr-defined]
    return check
