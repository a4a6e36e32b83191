"""SVG as a twin target and source: SVG code *is* a drawing, so a twin into SVG is the source
engine's own drawing of the diagram (its ``export_svg``: the method is the source's
``EXPORT_METHOD``), keeping ``layout+style``, compared as a reader of a drawing sees it (text
nodes) and measured for readability on its own code; an SVG source is its own drawing, its
edges read from strokes (the protocol: :mod:`diagramforge.formats.twin_base`)."""

from __future__ import annotations

from diagramforge.formats.grounding import Verdict
from diagramforge.formats.twin_base import LAYOUT_STYLE
from diagramforge.graphs.model import Graph

DRAWING = True
EXPORT_METHOD = None
EDGES_FROM_STROKES = True


def preserves(g: Graph) -> str:
    """The engine's own drawing: its layout and its style."""
    return LAYOUT_STYLE


def source_check(code: str | None) -> Verdict | None:
    return None
