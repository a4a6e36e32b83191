"""How ``diagramforge score`` tells a draw.io/mxGraph file and reads its graph (the
``file_graph`` capability, :mod:`diagramforge.formats.file_graphs`): exactly, from the
first page holding a model — ``.drawio``, uncompressed ``.xml``, and the SVG and PNG exports
that carry the file."""

from __future__ import annotations

from diagramforge.formats.file_graphs import Clue, FileReading, named
from diagramforge.formats.mxgraph.graph import model_graph
from diagramforge.formats.mxgraph.notation import MxGraphError, decode, normalise, parse_xml
from diagramforge.graphs.model import Graph

_PNG = b"\x89PNG\r\n\x1a\n"
_MARKERS = (b"<mxfile", b"<mxGraphModel", b"&lt;mxfile", b"&lt;mxGraphModel")

CLUES = (
    Clue(60, lambda data, name: name.endswith((".drawio", ".drawio.svg", ".drawio.png",
                                               ".drawio.xml")) or data[:8] == _PNG,
         "draw.io's own names and any PNG (an export carries the file in a text chunk; no "
         "other format reads pixels here): after the source names of the text formats"),
    Clue(70, lambda data, name: any(m in data for m in _MARKERS),
         "draw.io's model anywhere, escaped or not: before SVG's markers, since a draw.io "
         "SVG export is an <svg> whose content attribute holds the file, read exactly here "
         "and only approximately as geometry"),
    Clue(120, named(".xml"),
         "any other .xml: the guess of last resort (draw.io's uncompressed files), after "
         "every content test"),
)


def read(data: bytes, kind: str, reading: FileReading) -> Graph | None:
    """The graph of the first page holding a model; ``None`` (SVG reads it) when the file
    holds no draw.io file but is an SVG that only mentions one."""
    try:
        page = next(p for p in decode(data, reading.name) if p.model is not None)
    except MxGraphError:
        if b"<svg" in data[:4096]:
            return None
        raise
    return model_graph(parse_xml(normalise(page.model)), reading.graph)
