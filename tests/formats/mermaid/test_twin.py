"""Mermaid's twin writer: what Mermaid cannot draw as plain text is refused, not altered."""

from __future__ import annotations

import pytest

from diagramforge.formats.mermaid.twin import write
from diagramforge.formats.twin_layout import WriteError
from diagramforge.graphs.model import Graph, Node


@pytest.mark.parametrize("text", ['say "hi"', "x #35; y", "`code` first"])
def test_what_mermaid_cannot_draw_is_refused_not_altered(text: str) -> None:
    with pytest.raises(WriteError) as e:
        write(Graph(nodes=[Node(id="a", text=text)]))
    assert e.value.reason == "twin_text_unexpressible"
