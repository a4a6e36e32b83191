"""SVG: sanitised on extraction, rasterised by resvg (or cairosvg)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from diagramforge.formats.rasterize import check_render, keep_render
from diagramforge.formats.registry import DiagramFormat, register
from diagramforge.formats.settings import FormatSettings, SvgExtractParams
from diagramforge.formats.svg import document as svg
from diagramforge.formats.svg.graph import svg_graph
from diagramforge.stage import Outcome
from diagramforge.store.records import Format, Rejection, Unit, empty_record, make_id

if TYPE_CHECKING:  # the graph layer loads only when a graph is built (not in extract)
    from diagramforge.graphs.model import Graph


def svg_record(data: bytes, path: str, base: dict, locator: str, cfg: SvgExtractParams,
               unit: Unit) -> tuple[list[dict], list[Rejection]]:
    """A sanitised SVG document as a record (repository files and arXiv sources alike)."""
    caps = svg.Caps(cfg.max_bytes, cfg.max_elements, cfg.max_path_chars)
    try:
        cleaned = svg.clean(data, caps)
    except svg.SvgError as exc:
        return [], [Rejection(locator, exc.reason, exc.detail, unit=unit)]
    return [empty_record(
        **base, id=make_id(Format.SVG, cleaned.code), format=Format.SVG, code=cleaned.code,
        meta=json.dumps({"file": path, "elements": cleaned.elements,
                         "sanitized": cleaned.removed}),
    )], []


def png_record(row: dict, svg_text: str, engine: str, params: FormatSettings, locator,  # noqa: ANN001
               out: Outcome, scale: float | None = None) -> None:
    """Rasterize an SVG (at the pipeline's dpi, or ``scale``) and check its extremes: a
    record on ``out``, or a rejection."""
    rp = params.render.raster
    try:
        png = svg.render_png(svg_text, rp.dpi / 96.0 if scale is None else scale,
                             params.render.svg.engine, max_side=rp.max_side_px)
    except svg.SvgError as exc:
        out.rejections.append(Rejection(locator(row), exc.reason, exc.detail, id=row["id"]))
        return
    w, h, ink = svg.png_ink(png)
    keep_render(out, locator(row), row, check_render(w, h, ink, rp), w, h, engine, png)


@register
class SvgFormat(DiagramFormat):
    name = Format.SVG
    title = "SVG"
    suffixes = (".svg",)
    not_suffixes = (".drawio.svg",)

    def extract_file(self, data: bytes, path: str, base: dict, locator: str, unit: Unit
                     ) -> tuple[list[dict], list[Rejection]]:
        return svg_record(data, path, base, locator, self.params.extract.svg, unit)

    def render(self, rows: list[dict]) -> Outcome:
        out = Outcome()
        for row in rows:
            png_record(row, row["code"], self.params.render.svg.engine, self.params,
                       self.locator, out)
        return out

    def to_graph(self, record: dict, rendered: bytes | None = None) -> Graph | None:
        """DiagramEval's geometric rules on the sanitised SVG (``graphs.svg``)."""
        return svg_graph(record["code"], self.params.graph)

    def environment(self) -> dict:
        from importlib.metadata import version

        return {"resvg": version("resvg"), "cairosvg": version("cairosvg")}
