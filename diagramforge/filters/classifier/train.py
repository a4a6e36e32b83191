"""Train the pipeline's own diagram-type checkpoint: a small model from a ``transformers`` config.

No weights can be downloaded here, so the default checkpoint is trained from scratch on
weakly labelled renders plus generated negatives and diagrams (``dataset.py``) in a
few minutes on CPU.
The result is an ordinary ``save_pretrained`` directory (model with ``id2label`` plus image
processor): the inference code cannot tell it from a Hub checkpoint, so swapping in a real
one is a change of ``filter.diagram_type.checkpoint`` only.  Seeded and single-process so a
rerun with the same inputs (and ``threads``) writes the same weights.
"""

from __future__ import annotations

import csv
import io
import shutil
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from diagramforge.filters.classifier.dataset import (
    Sample,
    build_samples,
    expand,
    load_records,
    split,
)
from diagramforge.filters.classifier.images import prepare
from diagramforge.filters.classifier.settings import TrainParams
from diagramforge.store import atomic
from diagramforge.vocabulary import Family, family


def build_model(labels: list[str], tp: TrainParams):  # noqa: ANN201 - torch module
    """A freshly initialised classifier and its processor, sized by ``tp``."""
    from transformers import (
        AutoModelForImageClassification,
        ConvNextConfig,
        ResNetConfig,
        ViTConfig,
        ViTImageProcessorPil,
    )

    ids = {"id2label": dict(enumerate(labels)), "label2id": {v: i for i, v in enumerate(labels)}}
    if tp.architecture == "vit":
        hidden = tp.hidden_sizes[-1] - tp.hidden_sizes[-1] % tp.vit_heads
        config = ViTConfig(image_size=tp.image_size, patch_size=tp.vit_patch_size,
                           hidden_size=hidden, num_hidden_layers=len(tp.depths),
                           num_attention_heads=tp.vit_heads, intermediate_size=2 * hidden, **ids)
    elif tp.architecture == "convnext":
        config = ConvNextConfig(hidden_sizes=tp.hidden_sizes, depths=tp.depths,
                                num_stages=len(tp.depths), **ids)
    else:
        config = ResNetConfig(embedding_size=tp.hidden_sizes[0], hidden_sizes=tp.hidden_sizes,
                              depths=tp.depths, layer_type="basic", **ids)
    model = AutoModelForImageClassification.from_config(config)
    size = tp.image_size
    processor = ViTImageProcessorPil(size={"height": size, "width": size},
                                     image_mean=[0.5] * 3, image_std=[0.5] * 3)
    return model, processor


def _pixels(processor, images: list) -> object:  # noqa: ANN001
    return processor(images=images, return_tensors="pt")["pixel_values"]


def fit(model, pixels, targets, tp: TrainParams) -> list[float]:  # noqa: ANN001
    """AdamW on class-weighted cross-entropy (negatives outnumber each diagram class)."""
    import torch

    counts = torch.bincount(targets, minlength=model.config.num_labels).float().clamp(min=1)
    weights = (counts.sum() / counts) / (counts.sum() / counts).mean()
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
    opt = torch.optim.AdamW(model.parameters(), lr=tp.lr, weight_decay=tp.weight_decay)
    steps = tp.epochs * -(-len(targets) // tp.batch_size)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=tp.lr, total_steps=steps)
    gen = torch.Generator().manual_seed(tp.seed)
    losses = []
    model.train()
    for _ in range(tp.epochs):
        order, total = torch.randperm(len(targets), generator=gen), 0.0
        for start in range(0, len(order), tp.batch_size):
            idx = order[start:start + tp.batch_size]
            loss = loss_fn(model(pixel_values=pixels[idx]).logits, targets[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        losses.append(round(total / len(targets), 5))
    model.eval()
    return losses


def predict(model, pixels, batch_size: int) -> list[int]:  # noqa: ANN001
    import torch

    out: list[int] = []
    with torch.inference_mode():
        for start in range(0, len(pixels), batch_size):
            out += model(pixel_values=pixels[start:start + batch_size]).logits.argmax(-1).tolist()
    return out


def _swap_dir(tmp: Path, final: Path) -> None:
    """Replace ``final`` by the complete ``tmp`` directory (never a half-written checkpoint)."""
    old = final.with_name(f".{final.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)


def _write_images(samples: list[Sample], held: set[int], root: Path) -> None:
    """The labelled images trained on, one PNG per image under ``<label>/`` plus an index."""
    tmp = root.with_name(f".{root.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["path", "label", "split", "origin"])
    for i, s in enumerate(samples):
        rel = f"{s.label}/{s.digest[:16]}.png"
        atomic.write_bytes(tmp / rel, s.image)
        w.writerow([rel, s.label, "held_out" if i in held else "train", s.origin])
    atomic.write_text(tmp / "index.csv", buf.getvalue())
    _swap_dir(tmp, root)


def train(src: str | Path | Iterable[dict], tp: TrainParams, out_dir: str | Path) -> dict:
    """Train on render output ``src`` (shard dir or rows); write checkpoint, metrics, confusion.

    Writes ``out_dir/checkpoint`` (``save_pretrained``: model + processor),
    ``out_dir/images`` (the labelled images, with ``index.csv``), ``out_dir/metrics.json``
    and ``out_dir/confusion.csv`` (``actual,predicted`` per held-out image, for a DVC
    confusion plot); returns the metrics.
    """
    import torch

    t0 = time.perf_counter()
    out = Path(out_dir)
    torch.manual_seed(tp.seed)
    torch.set_num_threads(tp.threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    samples, summary = build_samples(load_records(src), tp)
    train_set, test_set = split(samples, tp.held_out, tp.seed)
    labels = sorted({s.label for s in samples})
    lid = {lab: i for i, lab in enumerate(labels)}
    model, processor = build_model(labels, tp)
    expanded = expand(train_set, tp.augment_copies, tp.image_size, tp.seed)
    pixels = _pixels(processor, [img for _, img in expanded])
    targets = torch.tensor([lid[lab] for lab, _ in expanded])
    t1 = time.perf_counter()
    losses = fit(model, pixels, targets, tp)
    t2 = time.perf_counter()
    test_px = _pixels(processor, [prepare(s.image, tp.image_size) for s in test_set])
    predicted = [labels[i] for i in predict(model, test_px, tp.batch_size)] if test_set else []
    actual = [s.label for s in test_set]

    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # a bar per save in a stage's log says nothing
    ckpt = out / "checkpoint"
    tmp = out / ".checkpoint.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    processor.save_pretrained(tmp)
    _swap_dir(tmp, ckpt)
    _write_images(train_set + test_set,
                  set(range(len(train_set), len(train_set) + len(test_set))),
                  out / "images")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["actual", "predicted"])
    w.writerows(zip(actual, predicted, strict=True))
    atomic.write_text(out / "confusion.csv", buf.getvalue())

    def side(label: str) -> str:  # a drawn diagram, or anything else (chart, table, photo…)
        return "keep" if family(label) == Family.DIAGRAM else "reject"

    corpus = [(a, p) for s, a, p in zip(test_set, actual, predicted, strict=True)
              if s.origin.startswith("record:")]
    correct = Counter(a for a, p in zip(actual, predicted, strict=True) if a == p)
    n_train, n_test = Counter(s.label for s in train_set), Counter(actual)
    metrics = {
        "accuracy": round(float(np.mean([a == p for a, p in zip(actual, predicted, strict=True)]))
                          if actual else 0.0, 4),
        "keep_reject_accuracy": round(float(np.mean(
            [side(a) == side(p) for a, p in zip(actual, predicted, strict=True)]))
            if actual else 0.0, 4),
        "corpus_held_out": len(corpus),
        "corpus_keep_reject_accuracy": round(float(np.mean(
            [side(a) == side(p) for a, p in corpus])) if corpus else 0.0, 4),
        "held_out": len(actual), "trained": len(train_set), "trained_with_augments": len(targets),
        "classes": {lab: {"train": n_train[lab], "held_out": n_test[lab],
                          "correct": correct[lab]} for lab in labels},
        "architecture": tp.architecture, "parameters": sum(p.numel() for p in model.parameters()),
        "epoch_loss": losses, "seconds": {"prepare": round(t1 - t0, 2), "fit": round(t2 - t1, 2),
                                          "total": round(time.perf_counter() - t0, 2)},
        **summary,
    }
    # timings vary by machine: they go to metrics/ (the stage writes them there), never
    # into the stage's output, whose hash must be the same on every machine
    atomic.write_json(out / "metrics.json", {k: v for k, v in metrics.items() if k != "seconds"})
    return metrics
