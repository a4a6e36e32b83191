"""mxGraph (draw.io): pages decoded from any container, validated, drawn by draw.io itself.

What is kept is exactly what is valid ∧ rendered (VCG-Bench's Execution Success), counted in
the metrics.
"""

from __future__ import annotations

import json
import subprocess
from typing import TYPE_CHECKING

from diagramforge.formats.browser import svg_export
from diagramforge.formats.mxgraph import execution
from diagramforge.formats.mxgraph import notation as mxgraph
from diagramforge.formats.mxgraph.engine import (
    DrawioRenderer,
    default_pages,
    find_chromium,
    find_drawio,
)
from diagramforge.formats.mxgraph.graph import mxgraph_graph
from diagramforge.formats.rasterize import check_render, keep_render
from diagramforge.formats.registry import DiagramFormat, register
from diagramforge.stage import Outcome
from diagramforge.store.records import Format, Refusal, Rejection, Unit, empty_record, make_id

if TYPE_CHECKING:  # the graph layer loads only when a graph is built (not in extract)
    from diagramforge.graphs.model import Graph


def mxgraph_records(data: bytes, path: str, base: dict, locator: str, unit: Unit
                    ) -> tuple[list[dict], list[Rejection]]:
    """One record per page; a file that cannot be decoded is one rejection."""
    try:
        pages = mxgraph.decode(data, path)
    except mxgraph.MxGraphError as exc:
        return [], [Rejection(locator, exc.reason, exc.detail, unit=unit)]
    out, rejections = [], []
    for page in pages:
        if page.model is None:
            rejections.append(Rejection(f"{locator}#page{page.index + 1}", "mxgraph_empty_page",
                                        page.name, unit=Unit.CANDIDATE))
            continue
        code = mxgraph.normalise(page.model)
        out.append(empty_record(**{
            **base, "id": make_id(Format.MXGRAPH, code), "format": Format.MXGRAPH,
            "code": code, "source_id": f"{base['source_id']}#page{page.index + 1}",
            "meta": json.dumps({"page": page.index, "page_name": page.name, "file": path}),
        }))
    return out, rejections


@register
class MxGraphFormat(DiagramFormat):
    name = Format.MXGRAPH
    title = "draw.io/mxGraph"
    suffixes = (".drawio", ".drawio.xml", ".xml", ".drawio.svg", ".drawio.png", ".dio")
    generic_suffixes = (".xml",)
    """Suffixes most of whose files are not draw.io's: claimed only with an mxGraph root."""
    _renderer: DrawioRenderer | None = None

    def claims_file(self, path: str, data: bytes) -> bool:
        p = path.lower()
        if not self.claims(p):
            return False
        if p.endswith(self.generic_suffixes) and not p.endswith(".drawio.xml"):
            return b"<mxfile" in data or b"<mxGraphModel" in data
        return True

    def extract_file(self, data: bytes, path: str, base: dict, locator: str, unit: Unit
                     ) -> tuple[list[dict], list[Rejection]]:
        return mxgraph_records(data, path, base, locator, unit)

    def batch_key(self, record: dict) -> str:
        return record.get("group") or record["id"]

    def batch_size(self) -> int:
        return self.params.render.mxgraph.batch_size

    def unit_timeout(self) -> float | None:
        # a draw.io call cannot be interrupted from Python: the unit's deadline is the batch's
        return self.params.render.mxgraph.timeout_s

    def to_graph(self, record: dict, rendered: bytes | None = None) -> Graph | None:
        """Exact, from the cells (``graphs.mxgraph``)."""
        return mxgraph_graph(record["code"], self.params.graph)

    def environment(self) -> dict:
        drawio = find_drawio()
        chromium = find_chromium()
        return {
            "drawio": json.loads((drawio / "package.json").read_text()).get("version")
            if drawio else None,
            "chromium": subprocess.run([chromium, "--version"], capture_output=True,
                                       text=True, timeout=30).stdout.strip()
            if chromium else None,
        }

    def _drawio(self) -> DrawioRenderer:
        if self._renderer is None:
            mp = self.params.render.mxgraph
            self._renderer = DrawioRenderer(
                timeout_s=mp.timeout_s,
                pages=mp.pages or default_pages(self.params.runner.workers or 1))
        return self._renderer

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
        self._renderer = None

    def export_svg(self, rows: list[dict]) -> list[str | Refusal]:
        """draw.io's own SVG (``Graph.getSvg``, plain-text labels), sanitised."""
        try:
            results = self._drawio().render_many([mxgraph.for_render(r["code"]) for r in rows],
                                                 svg=True, png=False)
        except Exception as exc:  # noqa: BLE001 - a dead browser fails this batch only
            self.close()
            return [Refusal("mxgraph_render_failed", repr(exc)[:300])] * len(rows)
        return [svg_export(res, "mxgraph_render_failed") for res in results]

    def render(self, rows: list[dict]) -> Outcome:
        """Validate, render with draw.io (PNG in the browser), check extremes.

        A drawing larger than ``max_side_px`` at the pipeline's DPI is scaled down to fit,
        not rejected; what is still degenerate after that (too thin, blank) is rejected by
        the shared extremes policy."""
        rp = self.params.render.raster
        out = Outcome(extra={execution.PAGES: len(rows)})
        valid: list[dict] = []
        for row in rows:
            errs = mxgraph.validate(mxgraph.parse_xml(row["code"]))
            if errs:
                out.rejections.append(Rejection(self.locator(row), "mxgraph_invalid",
                                                "; ".join(errs[:5]), id=row["id"]))
            else:
                valid.append(row)
        out.extra[execution.VALID] = len(valid)
        size = self.batch_size()
        rendered = 0
        for k in range(0, len(valid), size):
            batch = valid[k:k + size]
            try:
                results = self._drawio().render_many(
                    [mxgraph.for_render(r["code"]) for r in batch], svg=False, png=True,
                    scale=rp.dpi / 96.0, max_side=rp.max_side_px,
                    ink_enough=rp.min_ink_fraction)
            except Exception as exc:  # noqa: BLE001 - a dead browser fails this batch only
                self.close()
                out.rejections += [Rejection(self.locator(r), "mxgraph_render_failed",
                                             repr(exc)[:300], id=r["id"]) for r in batch]
                continue
            for row, res in zip(batch, results, strict=True):
                if not res.ok or not res.png:
                    out.rejections.append(Rejection(self.locator(row), "mxgraph_render_failed",
                                                    res.error or "no PNG", id=row["id"]))
                    continue
                w, h = int(res.width), int(res.height)
                if keep_render(out, self.locator(row), row, check_render(w, h, res.ink, rp),
                               w, h, "drawio", res.png) is not None:
                    rendered += 1
        out.extra[execution.RENDERED] = rendered
        return out
