"""DOT states its kind: the code decides, not an unsure image classifier."""

import pytest

from diagramforge.formats.dot.evidence import evidence


@pytest.mark.parametrize(("code", "label", "rule"), [
    ("digraph { a -> b }", "graph", "dot.graph"),
    ('graph G { n [shape="Mrecord", label="{a|b}"]; n -- m }', "graph", "dot.record_graph"),
])
def test_dot_is_a_graph(code: str, label: str, rule: str) -> None:
    ev = evidence(code)
    assert (ev.label, ev.rule, ev.drawn) == (label, rule, True)
