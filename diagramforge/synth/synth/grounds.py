"""What each picture's QA is grounded in — decided per picture, before any question.

* **sequence**: a sequence diagram (participants drawn as lifelines) whose reading lists its
  messages in the order they are sent (its format's ``sequence`` capability: Mermaid's parse,
  PlantUML's model) — questions about messages in order;
* **chart**: a picture with one chart whose source says what it draws (its format's
  ``chart`` capability: :mod:`diagramforge.formats.charts`, TikZ's pgfplots) — questions
  about its axes, series and values, answered from that data;
* **graph**: a picture that is graph-like and whose structure graph explains its render
  (:func:`diagramforge.synth.referents.grounded.verdicts`: the shared check of
  :mod:`diagramforge.formats.grounding`) — questions about connections, counts, reachability;
* none: captions only.  A picture the ``qa`` config takes but no grounding answers is left
  out of ``qa`` as a selection is (counted as ``not_selected.qa.<reason>`` in the stage's
  metrics), not ledgered: its captions still describe it.

The render is read once per picture that needs it (charts: which texts are on it; graphs:
the text check), batched per format through the format handlers' own SVG export.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from diagramforge.formats import capabilities
from diagramforge.formats.charts import Chart
from diagramforge.formats.grounding import MIN_TEXT_SHARE, is_sequence
from diagramforge.formats.registry import DiagramFormat
from diagramforge.graphs.model import Graph
from diagramforge.synth.referents.grounded import Reading, read_drawings, verdicts
from diagramforge.synth.synth.facts import Facts
from diagramforge.synth.synth.qa import CHART, GRAPH, SEQUENCE, Ground

NO_CHART_DATA = "chart_without_data"
CHARTS = "several_charts"
SEQUENCE_ORDER = "sequence_order_unknown"


@dataclass
class Decision:
    """A picture's grounding, or why it has none (a ``not_selected.qa`` reason)."""

    ground: Ground | None
    why: str = ""


def _assets(row: Mapping) -> dict[str, bytes]:
    try:
        meta = json.loads(row.get("meta") or "{}")
        return {k: base64.b64decode(v) for k, v in (meta.get("assets") or {}).items()}
    except (ValueError, TypeError, AttributeError):
        return {}


def chart_of(row: Mapping) -> tuple[Chart | None, str]:
    """The picture's one chart with something to ask (its format's ``chart`` capability),
    or why not."""
    reader = capabilities.of(str(row.get("format") or ""), "chart")
    if reader is None:
        return None, ""
    charts = reader.charts(str(row.get("code") or ""), _assets(row))
    if not charts:
        return None, ""
    if len(charts) > 1:
        return None, CHARTS
    c = charts[0]
    if not (c.xlabel or c.ylabel or c.legend or any(s.points or s.expression
                                                    for s in c.series)):
        return None, NO_CHART_DATA
    return c, ""


def decide(handlers: Mapping[str, DiagramFormat], rows: Sequence[Mapping],
           facts: Sequence[Facts], min_share: float = MIN_TEXT_SHARE) -> list[Decision]:
    """Each picture's :class:`Decision` (``rows`` and their ``facts``, in order)."""
    out: list[Decision | None] = [None] * len(rows)
    graphs: list[Graph | None] = []
    for f in facts:
        text = f.extra.get("graph_json")
        graphs.append(Graph.from_json(text) if text else None)
    charts: dict[int, Chart] = {}
    for k, (row, f, g) in enumerate(zip(rows, facts, graphs, strict=True)):
        if g is not None and is_sequence(g):
            seq = capabilities.of(str(row.get("format") or ""), "sequence")
            out[k] = Decision(Ground(SEQUENCE, f, participants=seq.PARTICIPANTS)) \
                if seq is not None else Decision(None, SEQUENCE_ORDER)
            continue
        chart, why = chart_of(row)
        if chart is not None:
            charts[k] = chart
        elif why:
            out[k] = Decision(None, why)
    todo = [k for k in range(len(rows)) if out[k] is None]
    readings: list[Reading | None] = [None] * len(rows)
    need = [k for k in todo if k in charts]
    for k, r in zip(need, read_drawings(handlers, [rows[k] for k in need]), strict=True):
        readings[k] = r
    for k in need:
        reading = readings[k]
        assert reading is not None
        out[k] = Decision(Ground(CHART, facts[k], charts[k], reading.shows))
    rest = [k for k in todo if k not in charts]
    found = verdicts(handlers, [rows[k] for k in rest], [graphs[k] for k in rest], min_share)
    for k, v in zip(rest, found, strict=True):
        out[k] = Decision(Ground(GRAPH, facts[k])) if v is None else Decision(None, v.reason)
    return [d if d is not None else Decision(None, "undecided") for d in out]
