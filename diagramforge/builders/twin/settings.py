"""The ``twin`` section of ``params.yaml``: which languages every split diagram is
re-expressed in, and the gate a twin must pass.  The format registry checks the target names
after loading (``formats/registry.check_sections``).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from diagramforge.formats import capabilities
from diagramforge.params import Section


class TwinParams(Section):
    """The ``twin`` stage: every split diagram re-expressed in the other diagram languages,
    each twin compiled by its real engine and kept only when its structure graph equals
    the source's (the ``translation`` config; ``diagramforge/builders/twin/``)."""

    targets: list[str] = Field(default_factory=lambda: [
        fmt for fmt in capabilities.folders() if capabilities.has(fmt, "twin")])
    """Target languages (registered formats: the format registry checks the names after
    loading); a diagram's own format is skipped.  By default every format whose folder has
    a twin writer (``formats/<name>/twin.py``), by name: a new format takes twins by its
    folder alone.  ``svg`` is the source engine's own SVG export; the others are written
    from the structure graph.  The order is the order a diagram's twins are written in, and
    so of the ledger rows of those that cannot be."""
    max_nodes: Annotated[int, Field(ge=1)] = 200
    """A source graph with more nodes gets no twin (ledgered ``twin_too_large``)."""
    min_text_share: Annotated[float, Field(ge=0.0, le=1.0)] = 0.95
    """Share of the text runs on a diagram's own render that must be in a node text or an
    edge label of its graph for it to be twinned: below it the graph does not explain the
    drawing (``twin_graph_incomplete``; ``builders/twin/gate.py``)."""
    min_text_px: Annotated[float, Field(ge=0.0)] = 10.0
    """Smallest font size, in pixels of its published raster, a twin may set any text at:
    a twin shrunk below it (a dense graph laid out wide, an org chart) is not written
    (``twin_text_too_small``; ``builders/twin/readable.py``), nor is one whose text runs overlap
    (``twin_text_overlaps``)."""
