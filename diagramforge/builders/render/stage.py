"""The ``render`` stage: render each diagram with its real tool and rasterize it.

Which tool is the format's business (``formats/<name>/handler.py``: pdflatex for TikZ, draw.io's own
engine for mxGraph, resvg for SVG); this stage only groups rows into batches the handler can
render in one call and hands them over. A diagram that does not render is rejected with the
tool's reason.
"""

from __future__ import annotations

from collections import defaultdict
from typing import ClassVar, Protocol

from diagramforge.formats.encoding import render_stored
from diagramforge.formats.registry import RendersFormats, handlers
from diagramforge.formats.settings import FormatSettings
from diagramforge.graphs.record import GRAPH_COLUMNS, graph_columns
from diagramforge.measure.timing import RENDER, phase
from diagramforge.stage import Outcome, Stage, StageSettings, WorkUnit
from diagramforge.store.records import Rejection


class RenderStageSettings(StageSettings, FormatSettings, Protocol):
    """What the render stage reads: what the format handlers are handed (the stage itself
    reads no section of its own) and the stage base's part."""


class RenderStage(RendersFormats, Stage):
    """Compile every diagram with its format's real tool (e.g. sandboxed pdflatex, lualatex
    or xelatex for TikZ, batched across sources; draw.io's own engine and Mermaid's own
    library in headless Chromium; Graphviz; PlantUML on a headless JRE; resvg for SVG;
    raster figures from PDFs are checked as cropped) and rasterize it,
    rejecting failures, blanks and extreme scales; build each kept diagram's structure
    graph (`graph` and the `graph_*` statistics; null, with the reason counted, when it
    cannot)."""

    name = "render"
    params: RenderStageSettings
    format_capability = "handler"
    upstream = "extract"
    reads = ("id", "format", "code", "group")
    writes = ("image", "width", "height", "render_status", "render_engine", "render_error",
              *GRAPH_COLUMNS)
    param_sections: ClassVar[tuple[str, ...]] = ("render", "formats", "graph")
    code = ("formats", "notation", "sandbox/process.py", "sandbox/landlock.py", "graphs")
    inputs = ("package-lock.json",)


    def units(self, rows: list[dict]) -> list[WorkUnit]:
        """Rows the format may render in one call, in chunks of its batch size (for TikZ:
        pictures sharing a pdflatex format, whatever their source)."""
        fmts = self.formats()
        groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for r in rows:
            h = fmts.get(r["format"])
            groups[(r["format"], h.batch_key(r) if h else "")].append(r)
        units = []
        for (f, g), rs in groups.items():
            h = fmts.get(f)
            step = h.batch_size() if h else len(rs)
            limit = h.unit_timeout() if h else None
            units += [WorkUnit(rs[k:k + step], f"{f}:{g}:{k}", limit)
                      for k in range(0, len(rs), step)]
        return units

    def process(self, unit: WorkUnit) -> Outcome:
        fmt = unit.rows[0]["format"]
        h = self.formats().get(fmt)
        if h is None:
            return Outcome(rejections=[
                Rejection(self.locator(r), "unsupported_format",
                          f"no renderer for {fmt}; known: {sorted(handlers())}", id=r["id"])
                for r in unit.rows])
        with phase(RENDER):
            out = render_stored(h, unit.rows)
        if not h.graphs_in_render:
            for rec in out.records:
                rec.update(graph_columns(lambda r=rec: h.to_graph(r), out.extra))
        return out
