"""How ``diagramforge score`` tells a PlantUML file and reads its graph (the ``file_graph``
capability, :mod:`diagramforge.formats.file_graphs`): through the handler's extractor (its
refusals of what reaches outside the file) and PlantUML's own model, as the pipeline reads
it."""

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

_START = re.compile(rb"^(?:\s|'[^\n]*\n)*@start[a-z]+\b", re.I)

CLUES = (
    Clue(55, named(".puml", ".plantuml", ".pu"),
         "PlantUML's own file names, which no other format uses: beside the other names, "
         "before any content marker"),
    Clue(95, opens_with(_START),
         "a file opening with `@startuml` (or another `@start…`): after SVG's, since "
         "PlantUML writes its source into the SVGs it draws, and after TikZ's commands"),
)


def read(data: bytes, kind: str, reading: FileReading) -> Graph:
    """The graph of PlantUML's model of the file's first diagram."""
    # lazy: loads pymupdf
    from diagramforge.formats.plantuml.handler import PlantUmlFormat

    return engine_graph(PlantUmlFormat, data, reading)
