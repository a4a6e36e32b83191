"""Difficulty tiers from cl100k token counts, per format.

VCG-Bench tiers mxGraph code by tokens: easy < 8,645, medium 8,645–14,000, hard > 14,000.
Every format uses the same two cut points ``(medium_from, hard_above)``: ``easy`` when
``tokens < medium_from``, ``medium`` when ``tokens <= hard_above``, else ``hard``. A format's
cut points are either fixed in params (``method: thresholds``) or corpus quantiles of its
token counts (``method: quantiles``). Quantile cut points move as the corpus grows, so the
ones used are written to metrics and to the split stage's assignments file, and a later
version reads them back (``split.pinned``) — a version's tiers are reproducible, and an item
keeps its tier in the next release unless its code changes.
"""

from __future__ import annotations

import numpy as np

from diagramforge.params import DifficultyParams

TIERS = ("easy", "medium", "hard")


def cut_points(tokens_by_format: dict[str, list[int]], cfg: DifficultyParams,
               frozen: dict[str, list[int]] | None = None) -> dict[str, tuple[int, int]]:
    """``format → (medium_from, hard_above)`` for every configured format.

    ``frozen`` (from a previous release) replaces quantile cut points; fixed thresholds in
    params always win, because they are the user's explicit choice.
    """
    out: dict[str, tuple[int, int]] = {}
    for fmt, tier in cfg.formats().items():
        if tier.method == "thresholds":
            out[fmt] = (tier.thresholds[0], tier.thresholds[1])
        elif frozen and fmt in frozen:
            out[fmt] = (int(frozen[fmt][0]), int(frozen[fmt][1]))
        else:
            toks = tokens_by_format.get(fmt) or []
            if not toks:
                continue
            lo, hi = np.quantile(np.asarray(toks, dtype=float), tier.quantiles)
            out[fmt] = (int(np.ceil(lo)), int(np.floor(hi)))
    return out


def tier(tokens: int | None, cuts: tuple[int, int] | None) -> str | None:
    """The tier of one record (``None`` without a token count or cut points)."""
    if tokens is None or cuts is None:
        return None
    medium_from, hard_above = cuts
    if tokens < medium_from:
        return "easy"
    return "medium" if tokens <= hard_above else "hard"
