"""Evidence for the text diagram languages: Graphviz DOT and Mermaid say what they draw.

A DOT file is a graph by construction (its language has nothing else); a Mermaid diagram
opens with its kind (``flowchart``, ``sequenceDiagram``, ``erDiagram``, ``pie``…), the same
kinds Mermaid's own SVG names in ``aria-roledescription`` (``svg.py`` reads those). Neither
embeds a raster image, so both are drawn. Without these rules the image classifier alone
typed them and, unsure, dropped real graphs and flowcharts from the pool.
"""

from __future__ import annotations

import re

from diagramforge.filters.classifier.evidence.base import Evidence
from diagramforge.filters.classifier.evidence.svg import (
    MERMAID_FAMILIES,
    MERMAID_KINDS,
    MERMAID_NOT_GRAPH_LIKE,
)

_DOT_RECORD = re.compile(r"\bshape\s*=\s*\"?M?record\b", re.I)
_MERMAID_FRONT = re.compile(r"\A\s*---\n.*?\n---\s*\n", re.S)
_MERMAID_SKIP = re.compile(r"\A(?:\s*(?:%%[^\n]*)?\n)*\s*")
_MERMAID_KEYWORD = re.compile(r"([A-Za-z][\w-]*)")

MERMAID_KEYWORDS = {
    "graph": "flowchart", "flowchart": "flowchart", "sequenceDiagram": "sequence",
    "classDiagram": "classDiagram", "classDiagram-v2": "classDiagram",
    "stateDiagram": "stateDiagram", "stateDiagram-v2": "stateDiagram", "erDiagram": "er",
    "gantt": "gantt", "pie": "pie", "mindmap": "mindmap", "gitGraph": "gitGraph",
    "requirementDiagram": "requirement", "C4Context": "c4", "C4Container": "c4",
    "C4Component": "c4", "C4Dynamic": "c4", "C4Deployment": "c4", "xychart-beta": "xychart",
    "quadrantChart": "quadrantChart", "sankey-beta": "sankey", "block-beta": "block",
    "timeline": "timeline", "journey": "journey",
}
"""A Mermaid diagram's opening keyword → the diagram kind its SVG names (``MERMAID_KINDS``)."""


def dot_evidence(code: str) -> Evidence:
    """Every DOT file draws a graph; record-shaped nodes are graph nodes too (the data
    structures and class boxes people draw with them are still node-and-edge drawings)."""
    rule = "dot.record_graph" if _DOT_RECORD.search(code) else "dot.graph"
    head = next((ln.strip() for ln in code.splitlines() if ln.strip()), "")[:160]
    return Evidence("graph", rule, line=head)


def mermaid_evidence(code: str) -> Evidence:
    """The kind a Mermaid diagram declares on its first line (after front matter and
    ``%%`` directives); ``mermaid.silent`` for a kind this vocabulary has no name for."""
    body = _MERMAID_SKIP.sub("", _MERMAID_FRONT.sub("", code, count=1), count=1)
    m = _MERMAID_KEYWORD.match(body)
    word = m.group(1) if m else ""
    # a renderer variant keeps its kind: flowchart-elk is a flowchart laid out by ELK
    kind = MERMAID_KEYWORDS.get(word) or MERMAID_KEYWORDS.get(word.split("-", 1)[0])
    if kind is None or kind not in MERMAID_KINDS:
        return Evidence(None, "mermaid.silent")
    label = MERMAID_KINDS[kind]
    line = body.split("\n", 1)[0].strip()[:160]
    return Evidence(label, f"mermaid.{kind}", line=line, family=MERMAID_FAMILIES.get(kind),
                    graph_like=False if kind in MERMAID_NOT_GRAPH_LIKE or label is None
                    else None)
