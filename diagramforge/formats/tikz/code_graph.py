"""A TikZ picture's structure graph from its source alone, no compile (the ``code_graph``
capability: what synth's facts and evaluate's captions fall back on when a record has no
``graph``): the picture's statements read as TikZ draws them (:mod:`.graph.source`)."""

from __future__ import annotations

from diagramforge.graphs.model import Graph


def graph(code: str) -> Graph:
    """The source's graph, every picture of ``code`` in one."""
    # lazy: loads pymupdf, scipy
    from diagramforge.formats.tikz.graph import tikz_source_graph

    return tikz_source_graph(code)
