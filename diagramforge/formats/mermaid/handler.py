"""Mermaid (``.mmd``, ``.mermaid``, and ```` ```mermaid ```` blocks in Markdown): drawn by
Mermaid's own library in locked-down headless Chromium (``formats/mermaid/engine.py``), its
graph from Mermaid's own parse."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, ClassVar

from pydantic import Field

from diagramforge.formats import markdown
from diagramforge.formats.browser import svg_export
from diagramforge.formats.mermaid.engine import MermaidRenderer, find_mermaid, mermaid_version
from diagramforge.formats.rasterize import check_render, keep_render
from diagramforge.formats.registry import DiagramFormat, register
from diagramforge.graphs.model import Graph
from diagramforge.graphs.record import graph_columns
from diagramforge.notation.declarations import UNSAFE_XML, declaration
from diagramforge.params import FormatSection
from diagramforge.stage import Outcome
from diagramforge.store.records import Refusal, Rejection, Unit, empty_record, make_id

if TYPE_CHECKING:
    from diagramforge.graphs.model import Graph

class MermaidReason:
    NO_BLOCKS = "mermaid_no_blocks"
    TOO_LARGE = "mermaid_too_large"
    NOT_TEXT = "mermaid_not_text"
    FAILED = "mermaid_render_failed"


class MermaidParams(FormatSection):
    """``formats.mermaid``: Mermaid's limits, enforced inside Mermaid (a diagram's own
    directives cannot raise them)."""

    max_text_size: Annotated[int, Field(ge=1)] = 50_000
    """Characters of one diagram (Mermaid's ``maxTextSize``)."""
    max_edges: Annotated[int, Field(ge=1)] = 500
    """Mermaid's ``maxEdges``: a flowchart with more is refused by Mermaid itself."""
    timeout_s: Annotated[float, Field(gt=0)] = 60.0
    """Per batch sent to the page (a Mermaid call cannot be interrupted from Python)."""
    batch_size: Annotated[int, Field(ge=1)] = 32


@register
class MermaidFormat(DiagramFormat):
    name = "mermaid"
    title = "Mermaid"
    suffixes = (".mmd", ".mermaid")
    fences = ("mermaid",)
    params_model = MermaidParams
    graphs_in_render: ClassVar[bool] = True  # the graph comes from the page that drew it
    _renderer: MermaidRenderer | None = None

    def vet(self, code: str) -> Refusal | None:
        cap = self.section.max_text_size  # type: ignore[attr-defined]
        if len(code) > cap:
            return Refusal(MermaidReason.TOO_LARGE, f"{len(code)} characters > {cap}")
        why = declaration(code)  # labels are markup: refused as in every format
        return None if why is None else Refusal(UNSAFE_XML, why)

    def extract_file(self, data: bytes, path: str, base: dict, locator: str, unit: Unit
                     ) -> tuple[list[dict], list[Rejection]]:
        """A ``.mmd`` file is one diagram (Markdown: the registry's ``extract``)."""
        if markdown.named(path):
            return super().extract_file(data, path, base, locator, unit)
        try:
            code = data.decode("utf-8")
        except UnicodeDecodeError:
            return [], [Rejection(locator, MermaidReason.NOT_TEXT, path, unit=unit)]
        if not code.strip():
            return [], [Rejection(locator, MermaidReason.NO_BLOCKS, path, unit=unit)]
        refused = self.vet(code)
        if refused is not None:
            return [], [Rejection(locator, refused.reason, refused.detail, unit=unit)]
        return [empty_record(**{
            **base, "id": make_id(self.name, code), "format": self.name, "code": code,
            "source_id": base["source_id"], "meta": json.dumps({"file": path})})], []

    def batch_size(self) -> int:
        return self.section.batch_size  # type: ignore[attr-defined]

    def unit_timeout(self) -> float | None:
        return self.section.timeout_s  # type: ignore[attr-defined]

    def _mermaid(self) -> MermaidRenderer:
        if self._renderer is None:
            s: MermaidParams = self.section  # type: ignore[assignment]
            self._renderer = MermaidRenderer(timeout_s=s.timeout_s,
                                             max_text_size=s.max_text_size,
                                             max_edges=s.max_edges)
        return self._renderer

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
        self._renderer = None

    def _draw(self, rows: list[dict], png: bool) -> list:
        rp = self.params.render.raster
        try:
            return self._mermaid().render_many([r["code"] for r in rows], png=png,
                                               scale=rp.dpi / 96.0, max_side=rp.max_side_px)
        except Exception as exc:  # noqa: BLE001 - a dead or hung page fails this batch only
            self.close()
            return [exc] * len(rows)

    def render(self, rows: list[dict]) -> Outcome:
        """Mermaid's SVG drawn to PNG in the page, checked like every render; the graph
        (flowcharts) from Mermaid's parse."""
        rp = self.params.render.raster
        out = Outcome()
        for row, res in zip(rows, self._draw(rows, png=True), strict=True):
            if isinstance(res, Exception) or not res.ok or not res.png:
                why = repr(res)[:300] if isinstance(res, Exception) else res.error or "no PNG"
                out.rejections.append(Rejection(self.locator(row), MermaidReason.FAILED, why,
                                                id=row["id"]))
                continue
            w, h = int(res.width), int(res.height)
            keep_render(out, self.locator(row), row, check_render(w, h, res.ink, rp), w, h,
                        f"mermaid:{res.kind}", res.png,
                        lambda _rec, g=res.graph: graph_columns(
                            lambda: None if g is None else Graph.model_validate(g),
                            out.extra))
        return out

    def export_svg(self, rows: list[dict]) -> list[str | Refusal]:
        """Mermaid's own SVG (sanitised)."""
        return [svg_export(res, MermaidReason.FAILED) for res in self._draw(rows, png=False)]

    def to_graph(self, record: dict, rendered: bytes | None = None) -> Graph | None:
        res = self._draw([record], png=False)[0]
        if isinstance(res, Exception):
            raise res
        if not res.ok:
            raise Refusal(MermaidReason.FAILED, res.error or "")
        return None if res.graph is None else Graph.model_validate(res.graph)

    def environment(self) -> dict:
        return {"mermaid": mermaid_version(find_mermaid())}
