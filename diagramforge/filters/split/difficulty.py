"""Difficulty tiers per format, from cl100k token counts and, where asked, graph size.

VCG-Bench tiers mxGraph code by tokens: easy < 8,645, medium 8,645–14,000, hard > 14,000.
Every measure uses two cut points ``(medium_from, hard_above)``: ``easy`` when
``value < medium_from``, ``medium`` when ``value <= hard_above``, else ``hard``. A format's
cut points are either fixed in params (``method: thresholds``) or corpus quantiles of its
own values (``method: quantiles``). Quantile cut points move as the corpus grows, so the
ones used are written to metrics and to the split stage's assignments file, and a later
version reads them back (``split.pinned``) — a version's tiers are reproducible, and an item
keeps its tier in the next release unless its code changes.

A format with ``structure: true`` (DOT, Mermaid; raster figures, which have no tokens) is
also tiered by its structure graph's size, ``graph_nodes + graph_edges`` — SciFlow-Bench
tiers its diagrams by graph size — with the same method on its own sizes, and a diagram
takes the harder of its two tiers: a DOT or Mermaid file states a node or an edge in a few
tokens, so a large graph can be short, and long labels or styling make code long without
making the diagram harder.  Its structure cut points are kept under ``<format>:structure``.
"""

from __future__ import annotations

import numpy as np

from diagramforge.filters.split.settings import DifficultyParams, TierParams

TIERS = ("easy", "medium", "hard")
STRUCTURE = ":structure"
"""Suffix of a format's structure cut points in :func:`cut_points`' result."""


def size(row: dict) -> int | None:
    """A diagram's structure size, ``graph_nodes + graph_edges`` (``None`` without a
    graph)."""
    n, e = row.get("graph_nodes"), row.get("graph_edges")
    return None if n is None or e is None else int(n) + int(e)


def _cuts(values: list[int], tier: TierParams, fixed: list[int]) -> tuple[int, int] | None:
    if tier.method == "thresholds":
        return (fixed[0], fixed[1])
    if not values:
        return None
    lo, hi = np.quantile(np.asarray(values, dtype=float), tier.quantiles)
    return (int(np.ceil(lo)), int(np.floor(hi)))


def cut_points(tokens_by_format: dict[str, list[int]], cfg: DifficultyParams,
               frozen: dict[str, list[int]] | None = None,
               sizes_by_format: dict[str, list[int]] | None = None
               ) -> dict[str, tuple[int, int]]:
    """``format → (medium_from, hard_above)`` for every configured format, and
    ``format:structure → …`` for those tiered by structure too.

    ``frozen`` (from a previous release) replaces quantile cut points; fixed thresholds in
    params always win, because they are the user's explicit choice.
    """
    out: dict[str, tuple[int, int]] = {}
    for fmt, tier in cfg.formats().items():
        keys = [(fmt, tier.thresholds, tokens_by_format.get(fmt) or [])]
        if tier.structure:
            keys.append((fmt + STRUCTURE, tier.structure_thresholds,
                         (sizes_by_format or {}).get(fmt) or []))
        for key, fixed, values in keys:
            if tier.method != "thresholds" and frozen and key in frozen:
                out[key] = (int(frozen[key][0]), int(frozen[key][1]))
                continue
            got = _cuts(values, tier, fixed)
            if got is not None:
                out[key] = got
    return out


def tier(tokens: int | None, cuts: tuple[int, int] | None) -> str | None:
    """The tier of one value (``None`` without the value or cut points)."""
    if tokens is None or cuts is None:
        return None
    medium_from, hard_above = cuts
    if tokens < medium_from:
        return "easy"
    return "medium" if tokens <= hard_above else "hard"


def tier_of(row: dict, cuts: dict[str, tuple[int, int]]) -> str | None:
    """A diagram's tier: by its tokens, and for a format tiered by structure too the harder
    of that and its structure tier (either alone when the other is missing)."""
    fmt = str(row["format"])
    got = [t for t in (tier(row.get("tokens"), cuts.get(fmt)),
                       tier(size(row), cuts.get(fmt + STRUCTURE))) if t is not None]
    return max(got, key=TIERS.index) if got else None
