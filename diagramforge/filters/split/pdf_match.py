"""A figure cut out of a PDF joins the cluster of the code it was compiled from.

A paper reaches the pool twice: its TikZ pictures as code (extracted from the LaTeX source,
compiled standalone by the render stage) and the same pictures cut out of the compiled paper
(the ``pdf`` source: ``svg`` or ``raster`` records). Image hashes rarely link the two: the
standalone render and the page crop differ in scale, padding and fonts (pHash distances of
6–18 of 64 bits on the sample papers, where 4 is the near-duplicate bound). What identifies
a figure is its paper, its caption and what it draws, so a cut-out is matched, within its
paper, to the code record

* whose caption says the same (Unicode-normalised, LaTeX markup and punctuation dropped),
* whose render has the same shape (aspect ratios within ``aspect_tolerance``), and
* whose labels (the graph's node texts) agree, where both have labels;

without a caption on either side, the labels alone must agree closely. A cut-out joins at
most one code record — the best match — so two sub-figures under one caption never fuse into
one cluster. The page and figure number the cut-out came from are named in the evidence.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

import numpy as np

from diagramforge.filters.split.settings import PdfMatchParams
from diagramforge.store.records import Format, SourceKind

_LATEX_CMD = re.compile(r"\\[A-Za-z@]+\*?")
_NON_WORD = re.compile(r"[^\w]+")


def is_cut_out(row: Mapping) -> bool:
    """A figure cut from a PDF page (or any figure without source code)."""
    return row.get("source") == SourceKind.PDF or row.get("format") == Format.RASTER


def norm_caption(text: str | None) -> str:
    """Caption words, as both sides would print them: NFKC (ligatures split), LaTeX
    commands, braces, math shifts and punctuation dropped, lower case."""
    t = unicodedata.normalize("NFKC", text or "")
    t = _LATEX_CMD.sub(" ", t)
    return " ".join(_NON_WORD.sub(" ", t).lower().split())


def _label(text: str) -> str:
    return _NON_WORD.sub("", unicodedata.normalize("NFKC", text).lower()).replace("_", "")


def labels(graph: str | None) -> Counter:
    """The multiset of a graph's non-empty node texts, normalised (spaces and punctuation
    go: a PDF's text layer splits and joins words differently than the source)."""
    try:
        nodes = json.loads(graph or "{}").get("nodes") or []
    except ValueError:
        return Counter()
    return Counter(x for x in (_label(str(n.get("text") or "")) for n in nodes) if x)


def label_overlap(a: Counter, b: Counter) -> float | None:
    """Share of the smaller label multiset found in the other; ``None`` if either is empty
    (a picture of circles and arrows has nothing to compare)."""
    if not a or not b:
        return None
    return sum((a & b).values()) / min(sum(a.values()), sum(b.values()))


def _aspect(row: Mapping) -> float | None:
    w, h = row.get("width"), row.get("height")
    return w / h if w and h else None


@dataclass(frozen=True)
class Match:
    """Why a cut-out is the picture of a code record."""

    caption: float | None
    labels: float | None
    aspect: float
    where: str
    jaccard: float = 0.0
    """Labels shared over labels in either: ranks a code record whose labels are exactly the
    figure's above one whose labels are only a subset of them."""

    def score(self) -> float:
        return (self.caption or 0.0) + self.jaccard - abs(math.log(self.aspect))

    def evidence(self) -> str:
        parts = [f"same figure in its paper ({self.where})"]
        if self.caption is not None:
            parts.append(f"caption {self.caption:.2f}")
        if self.labels is not None:
            parts.append(f"labels {self.labels:.2f}")
        parts.append(f"aspect {self.aspect:.2f}")
        return ", ".join(parts)


def _where(row: Mapping) -> str:
    """"p2 Figure 1" from a cut-out's meta (0-based page) and label."""
    try:
        page = json.loads(row.get("meta") or "{}").get("page")
    except ValueError:
        page = None
    label = row.get("label") or ""
    return " ".join(x for x in (f"p{page + 1}" if isinstance(page, int) else "", label) if x) \
        or str(row.get("source_id"))


def _features(row: Mapping, cache: dict[int, tuple[str, Counter]]) -> tuple[str, Counter]:
    """(normalised caption, labels) of a row, computed once per row of a run."""
    key = id(row)
    if key not in cache:
        cache[key] = (norm_caption(row.get("caption")), labels(row.get("graph")))
    return cache[key]


def match(cut: Mapping, code: Mapping, cfg: PdfMatchParams,
          cache: dict[int, tuple[str, Counter]] | None = None) -> Match | None:
    """The evidence that ``cut`` is the compiled picture of ``code``, or ``None``."""
    a, b = _aspect(cut), _aspect(code)
    if a is None or b is None:
        return None
    ratio = a / b
    if abs(math.log(ratio)) > math.log(cfg.aspect_tolerance):
        return None
    cache = {} if cache is None else cache
    (ca, la), (cb, lb) = _features(cut, cache), _features(code, cache)
    cap = SequenceMatcher(None, ca, cb, autojunk=False).ratio() if ca and cb else None
    lab = label_overlap(la, lb)
    if cap is not None:
        if cap < cfg.caption_similarity or (lab is not None and lab < cfg.label_overlap):
            return None
    elif lab is None or lab < cfg.label_overlap_alone \
            or min(sum(la.values()), sum(lb.values())) < cfg.min_labels_alone:
        return None
    jac = sum((la & lb).values()) / sum((la | lb).values()) if lab is not None else 0.0
    return Match(cap, lab, ratio, _where(cut), jac)


def pairs(rows: Sequence[Mapping], cfg: PdfMatchParams,
          also_in: Mapping[int, set[str]] | None = None
          ) -> tuple[np.ndarray, dict[tuple[int, int], str]]:
    """Index pairs ``(i, j)`` (``i < j``) linking each cut-out to its best code record in the
    same paper (``group``), and the evidence of each. ``also_in`` adds papers a code row
    stands for (an exact duplicate kept once for several papers)."""
    if not cfg.enabled:
        return np.empty((0, 2), dtype=np.int64), {}
    code_by_paper: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        if not is_cut_out(r):
            for g in {r.get("group"), *(also_in or {}).get(i, ())} - {None}:
                code_by_paper[str(g)].append(i)
    out: list[tuple[int, int]] = []
    evidence: dict[tuple[int, int], str] = {}
    cache: dict[int, tuple[str, Counter]] = {}
    for i, r in enumerate(rows):
        if not is_cut_out(r) or r.get("group") is None:
            continue
        found = [(m.score(), -j, j, m) for j in code_by_paper.get(str(r["group"]), ())
                 if (m := match(r, rows[j], cfg, cache)) is not None]
        if not found:
            continue
        _, _, j, m = max(found)
        key = (min(i, j), max(i, j))
        out.append(key)
        evidence[key] = m.evidence()
    arr = np.array(sorted(out), dtype=np.int64).reshape(-1, 2)
    return arr, evidence
