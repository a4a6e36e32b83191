"""How ``diagramforge score`` tells an SVG file and reads its graph (the ``file_graph``
capability, :mod:`diagramforge.formats.file_graphs`): by geometry, as DiagramEval reads a
drawing."""

from __future__ import annotations

from diagramforge.formats.file_graphs import Clue, FileReading, head
from diagramforge.formats.svg.graph import svg_graph
from diagramforge.graphs.model import Graph

CLUES = (
    Clue(80, lambda data, name: name.endswith(".svg") or b"<svg" in head(data),
         "an .svg name or an <svg> element in the first 4 KiB: after draw.io's markers (an "
         "export is an SVG carrying the exact file), before TikZ's commands, which an SVG's "
         "text may hold"),
)


def read(data: bytes, kind: str, reading: FileReading) -> Graph:
    """The geometric graph of the drawing."""
    return svg_graph(data, reading.graph)
