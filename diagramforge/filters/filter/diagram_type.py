"""Diagram type: from the strongest evidence — the code first, the render second.

Every record with an author's code is typed by the rule its code triggers (each format's
``formats/<name>/evidence.py``, found by ``filters/classifier/evidence.py``: pgfplots axes →
chart kinds, tikz-cd → commutative diagram, draw.io UML shapes → uml…); the image classifier
types what the code does not name, decides alone for figures with no code (cut from PDFs),
and gives a second opinion everywhere (``filters/classifier/decide.py``).  The pool rejects
only the types in ``reject`` (photographs and screenshots by default): charts and tables stay,
labelled, for the per-config keep lists.

The checkpoint is named in params (``filter.diagram_type.checkpoint``): ``null`` is the one
the ``classifier-train`` stage provides (the package's shipped checkpoint, or a retrained
one); a local directory or a cached Hub id swaps in a real model.  Inference is batched and
deterministic (``filters/classifier/determinism.py``); the model is loaded once per worker.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from diagramforge.filters.classifier.decide import (
    COLUMNS,
    IMAGE,
    REJECTED,
    UNCERTAIN,
    Typed,
    decide,
)
from diagramforge.filters.classifier.evidence import code_evidence
from diagramforge.filters.classifier.model import probabilities, resolve_checkpoint
from diagramforge.filters.classifier.settings import ClassifierParams
from diagramforge.filters.filter.base import FilterFn, Verdict, register
from diagramforge.vocabulary import KINDS

if TYPE_CHECKING:
    from diagramforge.filters.filter.base import FilterSettings


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


def graph_links(record: dict) -> int | None:
    """Edges joining two nodes in the record's structure graph, ``None`` where the render
    built none (a format without a reader, a page it could not read)."""
    text = record.get("graph")
    if not text:
        return None
    try:
        g = json.loads(text)
    except ValueError:
        return None
    ids = {n.get("id") for n in g.get("nodes") or [] if isinstance(n, dict)}
    return sum(1 for e in g.get("edges") or [] if isinstance(e, dict)
               and e.get("source") in ids and e.get("target") in ids
               and e.get("source") != e.get("target"))


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


def verdict(typed: Typed, cfg: ClassifierParams) -> Verdict:
    """Keep, or ledger: a rejected type, an unsure image deciding alone, an unknown label."""
    metrics = typed.columns()
    if typed.source == IMAGE and typed.prob is not None and typed.prob < cfg.threshold:
        return Verdict(False, UNCERTAIN, f"{typed.label} p={typed.prob} < {cfg.threshold}",
                       metrics)
    if typed.label is None:
        return Verdict(True, metrics=metrics)  # unknown: kept, published null, counted
    if typed.label in cfg.reject:
        detail = typed.label if typed.prob is None else f"{typed.label} p={typed.prob}"
        return Verdict(False, REJECTED, f"{detail} ({typed.source})", metrics)
    if typed.label not in KINDS:
        return Verdict(False, UNCERTAIN, f"{typed.label} is not a diagram type (map it with "
                       "filter.diagram_type.label_map)", metrics)
    return Verdict(True, metrics=metrics)


@register("diagram_type", params=ClassifierParams, writes=COLUMNS)
def make_diagram_type_filter(cfg: ClassifierParams, params: FilterSettings) -> FilterFn:
    """Type each record (code first, image second); reject only ``cfg.reject`` types and,
    where the image decides alone, uncertain ones."""
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
        probs = probabilities([records[i]["image"] for i in todo], cfg) if todo else []
        for i, p in zip(todo, probs, strict=True):
            out[i] = verdict(decide(code_evidence(records[i]), p, cfg,
                                    graph_links(records[i])), cfg)
        return out  # type: ignore[return-value]

    def check(record: dict) -> Verdict:
        return batch([record])[0]

    check.batch = batch  # type: ignore[attr-defined]
    check.free_text = ("diagram_type_evidence",)  # type: ignore[attr-defined]
    check.environment = checkpoint_digest(cfg.checkpoint)  # type: ignore[attr-defined]
    return check
