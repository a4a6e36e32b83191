"""DOT and Mermaid state their kind: the code decides, not an unsure image classifier."""

import pytest

from diagramforge.classifier.evidence import code_evidence


@pytest.mark.parametrize(("code", "label", "rule"), [
    ("digraph { a -> b }", "graph", "dot.graph"),
    ('graph G { n [shape="Mrecord", label="{a|b}"]; n -- m }', "graph", "dot.record_graph"),
])
def test_dot_is_a_graph(code: str, label: str, rule: str) -> None:
    ev = code_evidence({"format": "dot", "code": code, "source": "repo"})
    assert (ev.label, ev.rule, ev.drawn) == (label, rule, True)


@pytest.mark.parametrize(("code", "label"), [
    ("graph TD; A-->B", "flowchart"),
    ("%%{init: {'theme': 'dark'}}%%\nflowchart LR\n A --> B", "flowchart"),
    ("---\ntitle: Orders\n---\nerDiagram\n  A ||--o{ B : has", "er_diagram"),
    ("sequenceDiagram\n Alice->>Bob: hi", "uml"),
    ("stateDiagram-v2\n [*] --> S", "uml"),
    ("pie title Pets\n \"Dogs\" : 3", "pie_chart"),
    ("gantt\n title T", "gantt_chart"),
    ("mindmap\n  root", "mind_map"),
])
def test_mermaid_names_its_kind_on_its_first_line(code: str, label: str) -> None:
    ev = code_evidence({"format": "mermaid", "code": code, "source": "repo"})
    assert ev.label == label and ev.rule.startswith("mermaid.") and ev.drawn


def test_an_unknown_mermaid_kind_says_nothing_but_is_still_drawn() -> None:
    ev = code_evidence({"format": "mermaid", "code": "kanban\n  todo", "source": "repo"})
    assert (ev.label, ev.rule, ev.drawn) == (None, "mermaid.silent", True)
