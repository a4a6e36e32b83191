"""The ``filter`` section of ``params.yaml``: ``filter.order`` and the unit size, plus one
sub-section per filter, held as written here and parsed by the filter registry
(``filters/filter/base.check_sections``) with the model each filter module declares.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from diagramforge.params import PluginSections


class FilterParams(PluginSections):
    """``filter.order`` plus one section per filter, validated by the filter's own params
    model (each filter module owns its section; the filter registry checks them after
    loading, ``filters/base.check_sections``)."""

    order: list[str] = ["licence", "tokens", "extremes", "colour_entropy", "diagram_type"]
    batch_size: Annotated[int, Field(ge=1)] = 32
    """Rows per unit of work: a filter with a ``batch`` hook (the classifier) sees them at
    once; the others still see one row at a time."""
