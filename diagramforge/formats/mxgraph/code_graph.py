"""A draw.io diagram's structure graph from its file (the ``code_graph`` capability: what
synth's facts and evaluate's captions fall back on when a record has no ``graph``): the
model's cells and edges, exactly (:mod:`.graph`), no browser."""

from __future__ import annotations

from diagramforge.formats.mxgraph.graph import mxgraph_graph
from diagramforge.graphs.model import Graph


def graph(code: str) -> Graph:
    """The graph of the file's first page."""
    return mxgraph_graph(code)
