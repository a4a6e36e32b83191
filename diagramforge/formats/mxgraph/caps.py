"""draw.io's element caps and what it counts from code (the ``extremes`` filter's ``caps``),
and its token window (the ``tokens`` filter's ``formats``).

Thousands of cells are an export of a data model, not a drawing.  The graph columns give
nodes and edges when the render stage filled them; otherwise the cells are counted in the
code: ``vertex="1"`` and ``edge="1"``.
"""

from __future__ import annotations

import re

CAPS = {"max_nodes": 500, "max_edges": 1000}
"""The default ``filter.extremes.caps.mxgraph`` (path commands are not counted)."""
TOKENS = {"min": 20, "max": 65536}
"""The default ``filter.tokens.formats.mxgraph``: real draw.io pages reach 40k cl100k tokens;
beyond 64k a page carries embedded images."""

_VERTEX = re.compile(r'\bvertex\s*=\s*"1"')
_EDGE = re.compile(r'\bedge\s*=\s*"1"')


def counts(code: str) -> dict[str, int]:
    """Vertex and edge cells, for a diagram whose graph columns are empty."""
    return {"nodes": len(_VERTEX.findall(code)), "edges": len(_EDGE.findall(code))}
