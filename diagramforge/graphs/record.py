"""A record's graph columns: ``graph`` (JSON) and the ``graph_*`` statistics.

The render stage fills them for every record it keeps (the format handler says how to build
the graph: :meth:`DiagramFormat.to_graph`).  A graph that cannot be built does not cost the
diagram: its columns stay null and the reason is counted in the render metrics
(``graph_null_<reason>``), next to ``graph_built`` — a structure extractor failing on an odd
drawing says something about the extractor, not about the diagram.
"""

from __future__ import annotations

from collections.abc import Callable

from diagramforge.graphs.model import Graph, graph_stats
from diagramforge.measure.timing import GRAPH, in_phase

GRAPH_COLUMNS: tuple[str, ...] = ("graph", "graph_nodes", "graph_edges", "graph_components",
                                  "graph_longest_path")
"""Record columns this module fills (all null when no graph could be built)."""

BUILT = "graph_built"
NULL_PREFIX = "graph_null_"
UNSUPPORTED = "unsupported"
"""``to_graph`` returned ``None``: the format has no structure extractor."""


@in_phase(GRAPH)
def graph_columns(build: Callable[[], Graph | None], counts: dict[str, int]) -> dict:
    """Run ``build`` and return the graph columns; count ``graph_built`` or
    ``graph_null_<reason>`` into ``counts`` (an :class:`~diagramforge.stage.Outcome`'s
    ``extra``, so the reasons reach ``metrics/render.json``)."""
    try:
        g = build()
    except Exception as exc:  # noqa: BLE001 - an extractor bug nulls the graph, not the row
        reason = f"error_{type(exc).__name__}"
    else:
        if g is not None:
            st = graph_stats(g)
            counts[BUILT] = counts.get(BUILT, 0) + 1
            return {"graph": g.to_json(), "graph_nodes": st["nodes"],
                    "graph_edges": st["edges"], "graph_components": st["components"],
                    "graph_longest_path": st["longest_path"]}
        reason = UNSUPPORTED
    key = NULL_PREFIX + reason
    counts[key] = counts.get(key, 0) + 1
    return dict.fromkeys(GRAPH_COLUMNS)
