"""The classifier's training set: renders labelled by their code plus generated figures,
split.

Renders come from the render stage's Parquet shards (``format``, ``code``, ``image``).  The
same picture often appears twice (a ``.drawio`` and its ``.drawio.svg`` export), so images
are de-duplicated by content *before* the split: otherwise a copy in held-out would be
memorised, not recognised.  Classes too rare to learn fold into their ACL-Fig parent
(``vocabulary.py``), and failing that into the fallback label.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from PIL import Image

from diagramforge.filters.classifier.evidence import code_label
from diagramforge.filters.classifier.images import prepare
from diagramforge.filters.classifier.negatives import negatives
from diagramforge.filters.classifier.positives import positives
from diagramforge.filters.classifier.settings import TrainParams
from diagramforge.vocabulary import Family, acl_fig, family


@dataclass(frozen=True)
class Sample:
    label: str
    image: bytes
    origin: str
    """``record:<id>``, ``negative:<label>`` or ``positive:<label>`` — where the image came
    from, for the index."""

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.image).hexdigest()


def load_records(src: str | Path | Iterable[dict]) -> list[dict]:
    """Rows with an image from a render output directory (its ``*.parquet`` shards) or rows."""
    if not isinstance(src, str | Path):
        return [r for r in src if r.get("image")]
    root = Path(src)
    files = sorted(root.glob("records/*.parquet")) or sorted(root.rglob("*.parquet"))
    if not files:
        raise FileNotFoundError(f"no Parquet shards under {root}")
    rows: list[dict] = []
    for f in files:
        have = set(pq.read_schema(f).names)
        if not {"format", "code", "image"} <= have:
            continue
        cols = [c for c in ("id", "format", "code", "image") if c in have]
        rows.extend(r for r in pq.read_table(f, columns=cols).to_pylist() if r["image"])
    return rows


def build_samples(records: list[dict], tp: TrainParams) -> tuple[list[Sample], dict]:
    """Weak-label ``records``, de-duplicate, fold rare classes, add generated images.

    Returns the samples and a summary (counts per weak label, unlabelled, duplicates, folds)
    that goes into the training metrics so a reader sees where the labels came from.
    """
    seen: set[str] = set()
    labelled: list[Sample] = []
    unlabelled = duplicates = 0
    for i, rec in enumerate(records):
        label = code_label(rec)
        if label is None:
            unlabelled += 1
            continue
        s = Sample(label, rec["image"], f"record:{rec.get('id') or i}")
        if s.digest in seen:
            duplicates += 1
            continue
        seen.add(s.digest)
        labelled.append(s)
    extra = [Sample(k, b, f"negative:{k}") for k, b in negatives(tp.negatives, tp.seed)]
    extra += [Sample(k, b, f"positive:{k}") for k, b in positives(tp.positives, tp.seed)]
    folded = fold(Counter(s.label for s in labelled + extra), tp.min_class_count,
                  tp.fallback_label)
    samples = [Sample(folded.get(s.label, s.label), s.image, s.origin)
               for s in labelled + extra]
    summary = {"weak_labels": dict(sorted(Counter(s.label for s in labelled).items())),
               "unlabelled": unlabelled, "duplicates": duplicates, "folded": folded,
               "negatives": dict(sorted(Counter(s.label for s in extra
                                                if s.origin.startswith("negative")).items())),
               "positives": tp.positives}
    return samples, summary


def fold(counts: Counter, min_count: int, fallback: str) -> dict[str, str]:
    """Label → the label it is trained as, for labels that move.  A class with fewer than
    ``min_count`` images joins its ACL-Fig parent (``circuit`` → ``architecture_diagram``);
    one still too rare with what joined it joins the largest class of its family (``fallback``
    for diagrams), never a class of another family (a rare chart kind is no diagram)."""
    target = {lab: lab if n >= min_count else acl_fig(lab) for lab, n in counts.items()}
    merged: Counter = Counter()
    for lab, n in counts.items():
        merged[target[lab]] += n
    out = {}
    for lab, t in target.items():
        if merged[t] < min_count:
            fam = family(t)
            peers = [(n, p) for p, n in merged.items()
                     if p != t and family(p) == fam and n >= min_count]
            t = fallback if fam == Family.DIAGRAM and fallback != t else \
                max(peers)[1] if peers else t
        out[lab] = t
    return {k: v for k, v in out.items() if k != v}


def split(samples: list[Sample], held_out: float, seed: int
          ) -> tuple[list[Sample], list[Sample]]:
    """Stratified, seeded split; a class with ≥ 2 images gets ≥ 1 held out and ≥ 1 trained."""
    by_label: dict[str, list[Sample]] = defaultdict(list)
    for s in sorted(samples, key=lambda s: (s.label, s.digest)):
        by_label[s.label].append(s)
    rng = np.random.default_rng(seed)
    train, test = [], []
    for label in sorted(by_label):
        items = by_label[label]
        order = rng.permutation(len(items))
        n_test = 0 if len(items) < 2 else min(len(items) - 1, max(1, round(held_out * len(items))))
        test += [items[i] for i in order[:n_test]]
        train += [items[i] for i in order[n_test:]]
    return train, test


def augment(img: Image.Image, rng: np.random.Generator) -> Image.Image:
    """A crop of 80–100 % of each side placed on a white margin: diagrams appear cropped,
    padded and off-centre in papers; flips and colour changes would not be realistic."""
    w, h = img.size
    cw, ch = max(1, int(w * rng.uniform(0.8, 1.0))), max(1, int(h * rng.uniform(0.8, 1.0)))
    x, y = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
    crop = img.crop((x, y, x + cw, y + ch))
    m = int(max(w, h) * rng.uniform(0.0, 0.2))
    out = Image.new("RGB", (cw + 2 * m, ch + 2 * m), "white")
    out.paste(crop, (int(rng.integers(0, m + 1)), int(rng.integers(0, m + 1))))
    return out


def expand(train: list[Sample], copies: int, size: int, seed: int
           ) -> list[tuple[str, Image.Image]]:
    """Prepared training images plus ``copies`` seeded augmentations of each."""
    out: list[tuple[str, Image.Image]] = []
    for s in train:
        out.append((s.label, prepare(s.image, size)))
        if copies:
            base = prepare(s.image, 2 * size)
            rng = np.random.default_rng([seed, int(s.digest[:12], 16)])
            out += [(s.label, prepare(augment(base, rng), size)) for _ in range(copies)]
    return out
