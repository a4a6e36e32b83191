"""How Mermaid diagrams are tiered by difficulty (``split.difficulty.mermaid``'s default).

A terse language, as DOT: terciles of its own tokens and of its own structure graphs' sizes
(``graph_nodes + graph_edges``); the harder tier wins.
"""

TIERS = {"structure": True}
