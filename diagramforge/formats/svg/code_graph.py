"""An SVG drawing's structure graph from its code (the ``code_graph`` capability: what
synth's facts and evaluate's captions fall back on when a record has no ``graph``): SVG
code is a drawing, read by geometry (:mod:`.graph`)."""

from __future__ import annotations

from diagramforge.formats.svg.graph import svg_graph
from diagramforge.graphs.model import Graph


def graph(code: str) -> Graph:
    """The drawing's geometric graph."""
    return svg_graph(code)
