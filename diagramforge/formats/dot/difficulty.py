"""How Graphviz DOT files are tiered by difficulty (``split.difficulty.dot``'s default).

A terse language: an edge is a few tokens, so a large graph can be short, and long labels
or styling make code long without making the diagram harder.  Terciles of its own tokens and
of its own structure graphs' sizes (``graph_nodes + graph_edges``, as SciFlow-Bench tiers
by graph size); the harder tier wins.
"""

TIERS = {"structure": True}
