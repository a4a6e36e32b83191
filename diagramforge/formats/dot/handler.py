"""Graphviz DOT (``.dot``, ``.gv``): each graph of a file is a diagram, laid out and drawn
by Graphviz itself (``formats/dot/engine.py``: safety, the sandboxed engine, the graph from its
layout), its SVG rasterised like any SVG."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Annotated, ClassVar

from pydantic import Field

from diagramforge.formats.dot import engine as dot
from diagramforge.formats.registry import DiagramFormat, register
from diagramforge.formats.svg import document as svgfmt
from diagramforge.graphs.record import graph_columns
from diagramforge.params import FormatSection
from diagramforge.stage import Outcome
from diagramforge.store.records import Refusal, Rejection, Unit, empty_record, make_id

if TYPE_CHECKING:
    from diagramforge.graphs.model import Graph


class DotParams(FormatSection):
    """``formats.dot``: Graphviz's limits (hostile input: huge graphs, endless layouts)."""

    max_bytes: Annotated[int, Field(ge=1)] = 1_000_000
    max_nodes: Annotated[int, Field(ge=1)] = 2_000
    """Checked on the engine's parse, before any layout (dot's layout is superlinear)."""
    max_edges: Annotated[int, Field(ge=1)] = 5_000
    timeout_s: Annotated[float, Field(gt=0)] = 20.0
    """Per graph; the process group is killed past it."""
    memory_mb: Annotated[int, Field(ge=64)] = 1024
    batch_size: Annotated[int, Field(ge=1)] = 16


def _points(svg: str) -> tuple[float, float] | None:
    """Width and height Graphviz declares (pt)."""
    m = re.search(r'<svg\b[^>]*?\swidth="([0-9.]+)pt"[^>]*?\sheight="([0-9.]+)pt"', svg)
    return (float(m.group(1)), float(m.group(2))) if m else None


def _decode(data: bytes) -> str | None:
    if b"\0" in data[:4096]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # Graphviz's other charset


@register
class DotFormat(DiagramFormat):
    name = "dot"
    title = "Graphviz DOT"
    suffixes = (".dot", ".gv")
    params_model = DotParams
    graphs_in_render: ClassVar[bool] = True  # the layout exists only inside the run
    graph_unit_pt: ClassVar[float] = 1.0  # boxes in pt

    @property
    def caps(self) -> dot.Caps:
        s: DotParams = self.section  # type: ignore[assignment]
        return dot.Caps(s.max_bytes, s.max_nodes, s.max_edges)

    def extract_file(self, data: bytes, path: str, base: dict, locator: str, unit: Unit
                     ) -> tuple[list[dict], list[Rejection]]:
        text = _decode(data)
        graphs = dot.split_graphs(text) if text is not None else []
        if not graphs:
            return [], [Rejection(locator, dot.DotReason.NO_GRAPH, path, unit=unit)]
        s: DotParams = self.section  # type: ignore[assignment]
        out, rejections = [], []
        for k, code in enumerate(graphs):
            where = locator if len(graphs) == 1 else f"{locator}#graph{k + 1}"
            try:
                dot.check(code, self.caps, s.timeout_s)
            except dot.DotError as exc:
                rejections.append(Rejection(where, exc.reason, exc.detail,
                                            unit=unit if len(graphs) == 1 else Unit.CANDIDATE))
                continue
            out.append(empty_record(**{
                **base, "id": make_id(self.name, code), "format": self.name, "code": code,
                "source_id": base["source_id"] if len(graphs) == 1
                else f"{base['source_id']}#graph{k + 1}",
                "meta": json.dumps({"file": path, "graph": k, "graphs": len(graphs)}),
            }))
        if len(graphs) > 1 and not out:  # the file as a whole yields nothing: one input
            rejections.append(Rejection(locator, "no_diagrams", f"{len(graphs)} graphs, "
                                        "none usable", unit=unit))
        return out, rejections

    def batch_size(self) -> int:
        return self.section.batch_size  # type: ignore[attr-defined]

    def _draw(self, code: str) -> dot.Rendered:
        s: DotParams = self.section  # type: ignore[assignment]
        return dot.render(code, self.caps, s.timeout_s, s.memory_mb)

    def render(self, rows: list[dict]) -> Outcome:
        # lazy: loads pymupdf
        from diagramforge.formats.svg.handler import png_record
        out = Outcome()
        for row in rows:
            try:
                drawn = self._draw(row["code"])
                cleaned = svgfmt.clean(drawn.svg).code
            except (dot.DotError, svgfmt.SvgError) as exc:
                out.rejections.append(Rejection(self.locator(row), exc.reason, exc.detail,
                                                id=row["id"]))
                continue
            before = len(out.records)
            # a layout larger than max_side at the pipeline's dpi is drawn smaller to fit, as
            # draw.io's are, not refused: its size is the engine's choice, not the author's
            rp, size = self.params.render.raster, _points(cleaned)
            scale = rp.dpi / 96.0
            if size and max(size) * 4 / 3 * scale > rp.max_side_px:
                scale = rp.max_side_px / (max(size) * 4 / 3) * 0.999
            png_record(row, cleaned, "graphviz", self.params, self.locator, out, scale=scale)
            if len(out.records) > before:
                rec = out.records[-1]
                rec.update(graph_columns(lambda g=drawn.graph: g, out.extra))
        return out

    def export_svg(self, rows: list[dict]) -> list[str | Refusal]:
        """Graphviz's own SVG (sanitised)."""
        out: list[str | Refusal] = []
        for row in rows:
            try:
                out.append(svgfmt.clean(self._draw(row["code"]).svg).code)
            except (dot.DotError, svgfmt.SvgError) as exc:
                out.append(exc)
        return out

    def to_graph(self, record: dict, rendered: bytes | None = None) -> Graph | None:
        """From Graphviz's own layout of the code (``dot -Tjson``)."""
        return self._draw(record["code"]).graph

    def environment(self) -> dict:
        return {"graphviz": dot.dot_version()}
