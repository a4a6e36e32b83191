"""Raster figures (from PDFs): pixels with no code; their graph is the text OCR reads.

A ``raster`` record arrives from extract with its PNG already cropped from the page, so
"rendering" is checking it like any other render (decodable, not blank, not extreme).  Its
graph has one node per text block that ``rapidocr`` reads (PP-OCR detection and recognition
models shipped inside the wheel: nothing is downloaded), lines merged into blocks by the same
DiagramEval rule as SVG text (K, τ); edges are left empty, since connectors drawn in pixels
cannot be told from the rest of the picture without a detector this toolkit does not have.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from diagramforge.formats.rasterize import check_render, keep_render
from diagramforge.formats.registry import DiagramFormat, register
from diagramforge.formats.svg.document import png_ink
from diagramforge.graphs.geometry import TextItem, build_graph
from diagramforge.stage import Outcome
from diagramforge.store.records import Format, Rejection

if TYPE_CHECKING:  # the graph layer loads only when a graph is built (not in extract)
    from diagramforge.graphs.model import Graph


def ocr_graph(png: bytes, engine: Any, params: Any) -> Graph:  # noqa: ANN401
    """Text nodes (bbox in pixels) from OCR; no edges (see the module notes)."""
    from PIL import Image

    im = Image.open(io.BytesIO(png)).convert("RGB")
    import numpy as np

    res = engine(np.asarray(im))
    texts: list[TextItem] = []
    if res.boxes is not None:
        for quad, txt in zip(res.boxes.tolist(), res.txts, strict=True):
            xs, ys = [p[0] for p in quad], [p[1] for p in quad]
            box = (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
            texts.append(TextItem(text=str(txt), box=box, size=max(1.0, box[3] * 0.8)))
    g = build_graph(texts, [], params)
    return g.model_copy(update={"edges": []})


@register
class RasterFormat(DiagramFormat):
    name = Format.RASTER
    title = "raster figures from PDFs"
    has_code = False
    _ocr: Any = None

    def render(self, rows: list[dict]) -> Outcome:
        rp = self.params.render.raster
        out = Outcome()
        for row in rows:
            try:
                w, h, ink = png_ink(row["image"] or b"")
            except Exception as exc:  # noqa: BLE001 - PIL raises many kinds on bad bytes
                out.rejections.append(Rejection(self.locator(row), "raster_unreadable",
                                                repr(exc)[:300], id=row["id"]))
                continue
            keep_render(out, self.locator(row), row, check_render(w, h, ink, rp), w, h,
                        "pdf-crop")
        return out

    def _engine(self) -> Any:  # noqa: ANN401
        if self._ocr is None:
            from rapidocr import RapidOCR

            self._ocr = RapidOCR(params={"Global.log_level": "error"})
        return self._ocr

    def to_graph(self, record: dict, rendered: bytes | None = None) -> Graph | None:
        return ocr_graph(record["image"], self._engine(), self.params.graph)

    def close(self) -> None:
        self._ocr = None

    def environment(self) -> dict:
        from importlib.metadata import version

        return {"rapidocr": version("rapidocr")}
