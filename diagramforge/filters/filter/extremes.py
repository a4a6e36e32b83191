"""Size and structure extremes: the render's scale and aspect, and element caps per format.

The render stage already rejects blank, tiny, huge and sliver-shaped renders
(``render.raster``); this filter applies the same policy (``formats.raster.check_render``,
same params) to every record that reaches it, whatever produced it, and adds what a render
cannot see: a diagram with thousands of nodes, edges or path commands is a data dump, not a
diagram anyone would draw or a model could learn to write.  Counts come from the graph stats
(``graph_nodes``/``graph_edges``) or the ``graph`` JSON when the render stage filled them,
else from a cheap parse of the code by the format's ``caps`` capability
(``formats/<name>/caps.py``: its default caps and what it counts — draw.io's cells, SVG's path
data, TikZ's path statements); a count nobody can read is not capped.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field

from diagramforge.filters.filter.base import FilterFn, FilterSection, Verdict, register
from diagramforge.formats import capabilities
from diagramforge.formats.rasterize import check_render

if TYPE_CHECKING:
    from diagramforge.filters.filter.base import FilterSettings


class ElementCaps(BaseModel):
    """Upper bounds for one format; ``null`` leaves a count uncapped."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    max_nodes: Annotated[int, Field(ge=1)] | None = None
    max_edges: Annotated[int, Field(ge=1)] | None = None
    max_path_commands: Annotated[int, Field(ge=1)] | None = None


def default_caps() -> dict[str, ElementCaps]:
    """Each format's own caps (``CAPS`` of its ``caps`` capability, ``formats/<name>/caps.py``);
    a format without one is not capped."""
    return {fmt: ElementCaps(**m.CAPS) for fmt, m in capabilities.every("caps").items()}


class ExtremesParams(FilterSection):
    check_scale: bool = True
    """Re-apply ``render.raster`` (min/max side, max aspect) to ``width``/``height``."""
    caps: dict[str, ElementCaps] = Field(default_factory=default_caps)
    """Per format; the defaults are the formats' own (:func:`default_caps`)."""


def parse_counts(record: dict) -> dict[str, int]:
    """Nodes/edges from the graph JSON, the rest (path commands; nodes and edges when the
    graph gave none) from the code, by the format's ``caps`` capability."""
    out: dict[str, int] = {}
    graph = record.get("graph")
    if record.get("graph_nodes") is not None:  # the render stage's graph stats, when filled
        out["nodes"] = record["graph_nodes"]
        out["edges"] = record.get("graph_edges") or 0
    elif graph:
        try:
            g = json.loads(graph)
            out["nodes"], out["edges"] = len(g.get("nodes") or []), len(g.get("edges") or [])
        except (ValueError, AttributeError, TypeError):
            pass  # an unreadable graph caps nothing; the graph stage ledgers its own faults
    module = capabilities.of(str(record.get("format") or ""), "caps")
    if module is not None:
        for key, n in module.counts(record.get("code") or "").items():
            out.setdefault(key, n)
    return out


@register("extremes", params=ExtremesParams)
def make_extremes_filter(cfg: ExtremesParams, params: FilterSettings) -> FilterFn:
    """Reject extreme scale/aspect (render.raster) and over-cap element counts."""
    rp = params.render.raster

    def check(record: dict) -> Verdict:
        w, h = record.get("width"), record.get("height")
        if cfg.check_scale and w and h:
            bad = check_render(w, h, 1.0, rp, ink_checked=False)
            if bad:
                return Verdict.reject(*bad)
        caps = cfg.caps.get(record.get("format") or "")
        if caps is None:
            return Verdict.ok()
        counts = parse_counts(record)
        for key, cap in (("nodes", caps.max_nodes), ("edges", caps.max_edges),
                         ("path_commands", caps.max_path_commands)):
            n = counts.get(key)
            if cap is not None and n is not None and n > cap:
                return Verdict.reject(f"too_many_{key}", f"{n} {key} > {cap}")
        return Verdict.ok()

    return check
