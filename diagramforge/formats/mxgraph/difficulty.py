"""How draw.io diagrams are tiered by difficulty (``split.difficulty.mxgraph``'s default).

VCG-Bench tiers mxGraph code by cl100k tokens with fixed cut points: easy < 8,645,
medium 8,645–14,000, hard > 14,000 (``TierParams.thresholds``' default) — the one format
with a published scale, so its tiers stay comparable with that benchmark's.
"""

TIERS = {"method": "thresholds"}
