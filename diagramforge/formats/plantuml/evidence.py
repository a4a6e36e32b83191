"""What a PlantUML diagram says it is: the type evidence of its code.

PlantUML decides a diagram's kind itself when it parses it (``UmlDiagramType``: ``CLASS``,
``SEQUENCE``, ``STATE``, ``ACTIVITY``, ``DESCRIPTION`` — component, deployment and use-case
diagrams —, ``OBJECT``, ``MINDMAP``, ``WBS``, ``TIMING``…; a non-UML diagram by its class,
``GanttDiagram``), and the render keeps it in ``render_engine`` (``plantuml:sequence``).
That is the first evidence; a record not yet rendered is read from its text: the
``@start<kind>`` line, then a few constructs only one kind has, conservatively (silent
otherwise: the image classifier names it).

Labels, as the other formats give them: class, object, sequence, state, component,
deployment and use-case diagrams are ``uml`` (Mermaid's sequence, class and state diagrams
are; TikZ's ``tikz-uml`` and draw.io's UML shapes are); a sequence diagram is not
graph-like (messages in time, not links).  An activity diagram is a ``flowchart``: it draws
actions, decisions, forks and merges from a start to a stop — the picture Mermaid's
``flowchart`` draws, and what people asking for flowcharts mean — though UML names it.
Mind maps are ``mind_map``, work breakdowns ``tree``, Gantt charts ``gantt_chart``, timing
diagrams ``timing_diagram``, network diagrams ``network_diagram``, Salt wireframes
``wireframe``; a C4 model drawn with the standard library ``architecture_diagram``.
No PlantUML diagram embeds a raster image once ``<img:…>`` and sprites from files are
refused, so every one is drawn.

The answer is an :class:`~diagramforge.formats.evidence.Evidence`, as every format's
``evidence`` capability gives it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from diagramforge.formats.evidence import Evidence

KINDS: dict[str, str | None] = {
    "CLASS": "uml", "OBJECT": "uml", "SEQUENCE": "uml", "STATE": "uml",
    "DESCRIPTION": "uml", "COMPOSITE": "uml", "ACTIVITY": "flowchart", "FLOW": "flowchart",
    "BPM": "bpmn", "MINDMAP": "mind_map", "WBS": "tree", "TIMING": "timing_diagram",
    "NWDIAG": "network_diagram", "WIRE": "wireframe", "GANTTDIAGRAM": "gantt_chart",
    "PSYSTEMSALT": "wireframe", "C4": "architecture_diagram",
}
"""PlantUML's kind (upper case) → the vocabulary's label; ``None``: no name for it."""
NOT_GRAPH_LIKE = frozenset({"SEQUENCE", "TIMING", "GANTTDIAGRAM"})
START_KINDS = {"mindmap": "MINDMAP", "wbs": "WBS", "gantt": "GANTTDIAGRAM",
               "salt": "PSYSTEMSALT", "nwdiag": "NWDIAG", "timing": "TIMING"}
"""``@start<kind>`` lines that name the kind themselves."""

R = re.compile
_C4 = R(r"^\s*!include\s+<C4/|^\s*(?:Person|System|Container|Component|Rel)(?:_Ext|Db|_Boundary)?"
        r"\s*\(", re.M | re.I)
_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("SEQUENCE", R(r"^\s*(?:participant|boundary|control|collections|queue)\s+\S|"
                   r"^\s*(?:activate|deactivate|autonumber)\b|^\s*(?:alt|loop|opt|par)\s+\S"
                   r"[^\n]*\n(?:.*\n)*?\s*end\s*$", re.M)),
    ("STATE", R(r"\[\*\]|^\s*state\s+[\w\"]", re.M)),
    ("ACTIVITY", R(r"^\s*(?:start|stop)\s*$|^\s*:[^\n]*;\s*$|\(\*\)", re.M)),
    ("DESCRIPTION", R(r"^\s*(?:usecase|component|node|cloud|artifact|rectangle)\s+\S|"
                      r"^\s*\[[^\]\n]+\]|[-.>]\s*\[[^\]\n]+\]\s*(?::.*)?$|"
                      r"^\s*\([^)\n]+\)|[-.>]\s*\([^)\n]+\)\s*(?::.*)?$|"
                      r"^\s*:[^:\n]+:\s*(?:as\s+\w+)?\s*$", re.M)),
    ("CLASS", R(r"^\s*(?:abstract\s+class|class|interface|enum|annotation|object)\s+[\w\"]",
                re.M)),
    # PlantUML's own default: a text of bare messages is a sequence diagram
    ("SEQUENCE", R(r"^\s*[\w\"]+\s*(?:<?-+>>?|-\\|\\-|//--|->o|o\\--|<->o?)\s*[\w\"]+\s*(?::.*)?$",
                   re.M)),
]
"""The text's rules, in order; the first that fires names the kind (an object diagram is
PlantUML's ``CLASS`` kind: it parses it as one)."""
_START = R(r"^\s*@start(\w+)", re.M | re.I)


def kind_of(record: Mapping) -> tuple[str | None, str]:
    """PlantUML's kind for the record and where it was read: ``engine`` (the render's) or
    ``code`` (the text's rules); ``(None, "")`` when neither says."""
    engine = str(record.get("render_engine") or "")
    if engine.startswith("plantuml:") and engine != "plantuml:":
        return engine.split(":", 1)[1].upper(), "engine"
    code = record.get("code") or ""
    m = _START.search(code)
    start = m.group(1).lower() if m else "uml"
    if start in START_KINDS:
        return START_KINDS[start], "code"
    for name, pattern in _RULES:
        if pattern.search(code):
            return name, "code"
    return None, ""


def _answer(label: str | None, rule: str, line: str | None = None,
            family: str | None = None, graph_like: bool | None = None) -> Evidence:
    return Evidence(label, rule, drawn=True, line=line, family=family, graph_like=graph_like)


def evidence(code: str, record: Mapping | None = None) -> Evidence:
    """The type of a PlantUML diagram (``plantuml.<kind>`` names the rule; ``plantuml.c4``
    for a C4 model, whatever kind carries it; ``plantuml.silent`` when nothing does): the
    render's kind when ``record`` has one, else the text's."""
    record = {**(record or {}), "code": code}
    head = next((ln.strip() for ln in code.splitlines()
                 if ln.strip() and not ln.strip().startswith(("@start", "'"))), "")[:160]
    if _C4.search(code):
        return _answer("architecture_diagram", "plantuml.c4", line=head)
    kind, where = kind_of(record)
    if kind is None or kind not in KINDS:
        return _answer(None, "plantuml.silent", family="diagram" if kind else None)
    label = KINDS[kind]
    return _answer(label, f"plantuml.{kind.lower()}", line=f"{where}: {head}",
                   family=None if label else "diagram",
                   graph_like=False if kind in NOT_GRAPH_LIKE or label is None else None)
