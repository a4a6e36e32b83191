"""TikZ's charts for chart QA (the ``chart`` capability, :mod:`diagramforge.formats.charts`):
a pgfplots ``axis`` states the table behind the chart — coordinates, tables, expressions —
read by :mod:`.graph.pgfplots`, expressions evaluated in pgfmath's arithmetic."""

from __future__ import annotations

from collections.abc import Mapping

from diagramforge.formats.charts import Chart
from diagramforge.formats.tikz.graph.pgfplots import read_charts


def charts(code: str, assets: Mapping[str, bytes]) -> list[Chart]:
    """One chart per pgfplots axis of ``code``; ``[]`` at once when no ``axis`` is written
    (no pgfplots environment can be there)."""
    if "axis" not in code:
        return []
    return read_charts(code, assets)
