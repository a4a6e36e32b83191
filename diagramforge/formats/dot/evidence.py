"""Graphviz DOT evidence: a DOT file says what it draws — a graph.

Its language has nothing else, and it embeds no raster image, so it is drawn.  Without this
rule the image classifier alone typed DOT files and, unsure, dropped real graphs from the pool.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from diagramforge.formats.evidence import EXCERPT, Evidence

_DOT_RECORD = re.compile(r"\bshape\s*=\s*\"?M?record\b", re.I)


def evidence(code: str, record: Mapping | None = None) -> Evidence:
    """Every DOT file draws a graph; record-shaped nodes are graph nodes too (the data
    structures and class boxes people draw with them are still node-and-edge drawings)."""
    rule = "dot.record_graph" if _DOT_RECORD.search(code) else "dot.graph"
    head = next((ln.strip() for ln in code.splitlines() if ln.strip()), "")[:EXCERPT]
    return Evidence("graph", rule, line=head)
