"""What the twin writers' tests share (``tests/formats/test_twin_writers.py`` and each
format's ``test_twin.py``): the writers as the registry finds them, which engine each needs,
and a twin rendered and read back by its own format's handler."""

from __future__ import annotations

import shutil
from collections.abc import Callable

import pytest

from diagramforge.formats.registry import DiagramFormat, handlers
from diagramforge.graphs.model import Graph
from diagramforge.graphs.record import graph_columns
from tests.conftest import needs_browser, needs_tex

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz not installed")
ENGINES = {"dot": needs_dot, "mermaid": needs_browser, "tikz": needs_tex,
           "mxgraph": needs_browser}
"""The engine each written twin's check needs."""


def writer(name: str) -> Callable[..., str]:
    """The format's twin writer (``formats/<name>/twin.py``'s ``write``)."""
    twin = handlers()[name].capability("twin")
    assert twin is not None and not twin.DRAWING
    return twin.write


def writers() -> dict[str, Callable[..., str]]:
    """Every format's writer: the formats with a twin capability whose code is no drawing."""
    return {name: cap.write for name, h in handlers().items()
            if (cap := h.capability("twin")) is not None and not cap.DRAWING}


def rendered_graph(handler: DiagramFormat, code: str) -> tuple[Graph, dict]:
    """The twin ``code`` rendered by its format's handler, and the graph read back from it."""
    out = handler.render([{"id": "t", "code": code, "format": handler.name, "meta": None,
                           "group": None, "source_id": "t"}])
    assert not out.rejections, out.rejections
    rec = out.records[0]
    if not handler.graphs_in_render:
        rec.update(graph_columns(lambda: handler.to_graph(rec), {}))
    return Graph.from_json(rec["graph"]), rec
