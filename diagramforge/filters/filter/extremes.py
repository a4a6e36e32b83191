"""Size and structure extremes: the render's scale and aspect, and element caps per format.

The render stage already rejects blank, tiny, huge and sliver-shaped renders
(``render.raster``); this filter applies the same policy (``formats.raster.check_render``,
same params) to every record that reaches it, whatever produced it, and adds what a render
cannot see: a diagram with thousands of nodes, edges or path commands is a data dump, not a
diagram anyone would draw or a model could learn to write.  Counts come from the graph stats
(``graph_nodes``/``graph_edges``) or the ``graph`` JSON when the render stage filled them,
else from a cheap parse of the code (mxGraph cells, SVG path data, TikZ path statements); a
count nobody can read is not capped.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field

from diagramforge.filters.filter.base import FilterFn, FilterSection, Verdict, register
from diagramforge.formats.rasterize import check_render

if TYPE_CHECKING:
    from diagramforge.config import Params


class ElementCaps(BaseModel):
    """Upper bounds for one format; ``null`` leaves a count uncapped."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    max_nodes: Annotated[int, Field(ge=1)] | None = None
    max_edges: Annotated[int, Field(ge=1)] | None = None
    max_path_commands: Annotated[int, Field(ge=1)] | None = None


class ExtremesParams(FilterSection):
    check_scale: bool = True
    """Re-apply ``render.raster`` (min/max side, max aspect) to ``width``/``height``."""
    caps: dict[str, ElementCaps] = {
        "tikz": ElementCaps(max_nodes=300, max_edges=600, max_path_commands=2000),
        "mxgraph": ElementCaps(max_nodes=500, max_edges=1000),
        "svg": ElementCaps(max_nodes=500, max_edges=1000, max_path_commands=20000),
    }


_MX_VERTEX = re.compile(r'\bvertex\s*=\s*"1"')
_MX_EDGE = re.compile(r'\bedge\s*=\s*"1"')
_SVG_D = re.compile(r'\sd\s*=\s*("[^"]*"|\'[^\']*\')')
_SVG_CMD = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]")
_SVG_POINTS = re.compile(r'\spoints\s*=\s*("[^"]*"|\'[^\']*\')')
_TIKZ_PATH = re.compile(r"\\(?:draw|path|fill|filldraw|shade|shadedraw|clip|node|coordinate|"
                        r"pic|matrix|addplot|graph|arrow)\b")


def parse_counts(record: dict) -> dict[str, int]:
    """Nodes/edges from the graph JSON, path commands (and mxGraph cells) from the code."""
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
    code, fmt = record.get("code") or "", record.get("format")
    if fmt == "mxgraph" and "nodes" not in out:
        out["nodes"], out["edges"] = len(_MX_VERTEX.findall(code)), len(_MX_EDGE.findall(code))
    elif fmt == "svg":
        out["path_commands"] = (sum(len(_SVG_CMD.findall(m)) for m in _SVG_D.findall(code))
                                + len(_SVG_POINTS.findall(code)))
    elif fmt == "tikz":
        body = code.partition("\\begin{document}")[2] or code
        out["path_commands"] = len(_TIKZ_PATH.findall(body))
    return out


@register("extremes", params=ExtremesParams)
def make_extremes_filter(cfg: ExtremesParams, params: Params) -> FilterFn:
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
