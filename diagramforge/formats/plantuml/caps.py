"""PlantUML's element caps (the ``extremes`` filter's ``caps``).

A pool diagram past 300 entities or 600 links is no diagram a person reads (the largest of
the regression corpus has 12 entities); render itself refuses text past
``formats.plantuml.max_lines`` (5,000) and ``max_bytes``.  Counted on the structure graph
(``graph_nodes``/``graph_edges``): the code gives nothing the graph does not, and PlantUML
draws no path commands of the author's.
"""

from __future__ import annotations

CAPS = {"max_nodes": 300, "max_edges": 600}
"""The default ``filter.extremes.caps.plantuml``."""


def counts(code: str) -> dict[str, int]:
    """Nothing from the code: the graph columns count PlantUML's entities and links."""
    return {}
