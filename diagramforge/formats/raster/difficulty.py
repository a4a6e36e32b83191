"""How raster figures are tiered by difficulty (``split.difficulty.raster``'s default).

Pixels have no tokens: tiered by the OCR graph's size (``graph_nodes + graph_edges``) alone.
"""

TIERS = {"structure": True}
