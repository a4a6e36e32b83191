"""Mermaid evidence: a Mermaid diagram opens with its kind.

``flowchart``, ``sequenceDiagram``, ``erDiagram``, ``pie``… — the same kinds Mermaid's own
SVG names in ``aria-roledescription`` (``formats/svg/evidence.py`` reads those with the
tables here).  It embeds no raster image, so it is drawn.  Without these rules the image
classifier alone typed Mermaid diagrams and, unsure, dropped real flowcharts from the pool.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from diagramforge.formats.evidence import EXCERPT, Evidence

MERMAID_KINDS: dict[str, str | None] = {
    "flowchart": "flowchart", "flowchart-v2": "flowchart", "sequence": "uml",
    "classDiagram": "uml", "class": "uml", "stateDiagram": "uml", "state": "uml",
    "er": "er_diagram", "gantt": "gantt_chart", "pie": "pie_chart", "mindmap": "mind_map",
    "gitGraph": None, "requirement": "uml", "c4": "architecture_diagram",
    "xychart": "line_chart", "quadrantChart": "scatter_plot", "sankey": None,
    "block": "block_diagram", "timeline": None, "journey": None,
}
"""A Mermaid kind → its vocabulary label; ``None`` for a kind the vocabulary has no name for
(a git history, a Sankey flow, a timeline, a user journey): unknown, of the family in
:data:`MERMAID_FAMILIES`, never the nearest name (a timeline is no architecture)."""
MERMAID_FAMILIES = {"gitGraph": "diagram", "sankey": "chart", "timeline": "diagram",
                    "journey": "diagram"}
MERMAID_NOT_GRAPH_LIKE = frozenset({"sequence"})
"""Kinds of a graph-like name whose picture is no node-link drawing: a sequence diagram's
messages are ordered in time down lifelines (several between the same two participants)."""

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


def evidence(code: str, record: Mapping | None = None) -> Evidence:
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
    line = body.split("\n", 1)[0].strip()[:EXCERPT]
    return Evidence(label, f"mermaid.{kind}", line=line, family=MERMAID_FAMILIES.get(kind),
                    graph_like=False if kind in MERMAID_NOT_GRAPH_LIKE or label is None
                    else None)
