"""How ``diagramforge score`` tells a Mermaid file and reads its graph (the ``file_graph``
capability, :mod:`diagramforge.formats.file_graphs`): through the handler's extractor and
Mermaid's own parse in the browser, as the pipeline reads it."""

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

_HEAD = re.compile(
    rb"^(?:\s|%%[^\n]*\n)*(?:---\n.*?\n---\n\s*)?(?:flowchart|graph\s+(?:TB|TD|BT|RL|LR)\b|"
    rb"sequenceDiagram|classDiagram|stateDiagram|erDiagram|journey|gantt|pie|mindmap|"
    rb"timeline|gitGraph|quadrantChart|requirementDiagram|C4Context|block-beta)", re.S)

CLUES = (
    Clue(50, named(".mmd", ".mermaid"),
         "Mermaid's own file names: after TikZ's and DOT's (no name is two), before any "
         "content marker"),
    Clue(100, opens_with(_HEAD),
         "a file opening with a Mermaid diagram keyword: after TikZ's commands, before DOT's "
         "head, which `graph TD` also passes: Mermaid's head is the narrower test"),
)


def read(data: bytes, kind: str, reading: FileReading) -> Graph:
    """The graph of Mermaid's parse of the file's diagram."""
    # lazy: loads playwright, pymupdf
    from diagramforge.formats.mermaid.handler import MermaidFormat

    return engine_graph(MermaidFormat, data, reading)
