"""DOT and Mermaid state their kind: the code decides, not an unsure image classifier."""

import pytest

from diagramforge.filters.classifier.evidence import code_evidence


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


@pytest.mark.parametrize(("code", "graph_like"), [
    ("sequenceDiagram\n A->>B: nope\n A->>B: try", False),  # messages in time order
    ("flowchart LR\n A --> B", None),  # the kind decides: a flowchart is graph-like
    ("classDiagram\n A <|-- B", None),
])
def test_a_sequence_diagram_is_uml_but_no_node_link_drawing(code: str,
                                                            graph_like: bool | None) -> None:
    ev = code_evidence({"format": "mermaid", "code": code, "source": "repo"})
    assert ev.graph_like is graph_like and ev.line == code.split("\n", 1)[0]


@pytest.mark.parametrize(("code", "family"), [
    ("timeline\n title History\n 2002 : LinkedIn", "diagram"),
    ("gitGraph\n commit\n branch dev", "diagram"),
    ("sankey-beta\n a,b,10", "chart"),
])
def test_kinds_without_a_name_are_unknown_of_their_family(code: str, family: str) -> None:
    """A timeline is no architecture diagram: a kind the vocabulary cannot name is unknown,
    its family stated, and not graph-like."""
    ev = code_evidence({"format": "mermaid", "code": code, "source": "repo"})
    assert (ev.label, ev.family, ev.graph_like) == (None, family, False)
    assert ev.rule != "mermaid.silent"
