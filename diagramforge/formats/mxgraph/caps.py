"""draw.io's element caps and what it counts from code (the ``extremes`` filter's ``caps``).

Thousands of cells are an export of a data model, not a drawing.  The graph columns give
nodes and edges when the render stage filled them; otherwise the cells are counted in the
code: ``vertex="1"`` and ``edge="1"``.
"""

from __future__ import annotations

import re

CAPS = {"max_nodes": 500, "max_edges": 1000}
"""The default ``filter.extremes.caps.mxgraph`` (path commands are not counted)."""

_VERTEX = re.compile(r'\bvertex\s*=\s*"1"')
_EDGE = re.compile(r'\bedge\s*=\s*"1"')


def counts(code: str) -> dict[str, int]:
    """Vertex and edge cells, for a diagram whose graph columns are empty."""
    return {"nodes": len(_VERTEX.findall(code)), "edges": len(_EDGE.findall(code))}
