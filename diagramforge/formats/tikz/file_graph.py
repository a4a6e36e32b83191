"""How ``diagramforge score`` tells a TikZ file and reads its graph (the ``file_graph``
capability, :mod:`diagramforge.formats.file_graphs`): the source, and a PDF as TikZ's
compiled page.

A PDF is read here because the page reader is TikZ's: :func:`~.graph.pdf_graph` reads each
page as a standalone TikZ file compiles one picture per page and combines them as TikZ's
pictures are combined, the same reading ``--compile-tikz`` merges with the source's graph.
"""

from __future__ import annotations

import re

from diagramforge.formats.file_graphs import Clue, FileReading, named
from diagramforge.graphs.model import Graph

_COMMAND = re.compile(rb"\\(?:begin\{tikzpicture\}|tikz\b|node\b|draw\b)")

CLUES = (
    Clue(20, lambda data, name: data[:5] == b"%PDF-" or name.endswith(".pdf"),
         "a PDF's magic number or name: no diagram source starts with %PDF-, and a page is "
         "read as drawn whatever else it mentions; after graph JSON only", kind="pdf"),
    Clue(30, named(".tex", ".tikz"),
         "TikZ's own file names: a name a language owns comes before any content marker "
         "(a .tex file may quote draw.io XML or an <svg>); first of the source names"),
    Clue(90, lambda data, name: _COMMAND.search(data) is not None,
         "a TikZ command anywhere in the file: after the XML formats (SVG text or a draw.io "
         "label may hold a backslash command), before Mermaid's and DOT's head keywords, "
         "which a TeX file's prose could start with"),
)


def read(data: bytes, kind: str, reading: FileReading) -> Graph:
    """The compiled page's geometry for a PDF; else the source's graph, merged with its
    compiled page's when ``reading.render``."""
    # lazy: loads pymupdf, scipy
    from diagramforge.formats.tikz.graph import pdf_graph, tikz_graph

    if kind == "pdf":
        return pdf_graph(data, reading.graph)
    # lazy: loads pymupdf
    from diagramforge.formats.tikz.texcompile import compile_tikz

    code = data.decode("utf-8", "replace")
    return tikz_graph(code, compile_tikz(code) if reading.render else None, reading.graph)
