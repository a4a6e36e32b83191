"""How ``diagramforge score`` tells a Graphviz DOT file and reads its graph (the
``file_graph`` capability, :mod:`diagramforge.formats.file_graphs`): through the handler's
extractor and Graphviz's layout, as the pipeline reads it."""

from __future__ import annotations

import re

from diagramforge.formats.file_graphs import (
    Clue,
    FileReading,
    engine_graph,
    named,
    opens_with,
)
from diagramforge.graphs.model import Graph

_HEAD = re.compile(rb"^(?:\s|//[^\n]*\n|/\*.*?\*/|#[^\n]*\n)*(?:strict\s+)?(?:di)?graph\b",
                   re.I | re.S)

CLUES = (
    Clue(40, named(".dot", ".gv"),
         "DOT's own file names: after TikZ's (the order they were always checked in; no "
         "name is both), before any content marker"),
    Clue(110, opens_with(_HEAD),
         "a file opening with [strict] (di)graph: last of the head keywords, since "
         "Mermaid's `graph TD` would pass it too (TD read as the graph's name)"),
)


def read(data: bytes, kind: str, reading: FileReading) -> Graph:
    """The graph of Graphviz's layout of the file's first graph."""
    # lazy: loads pymupdf
    from diagramforge.formats.dot.handler import DotFormat

    return engine_graph(DotFormat, data, reading)
