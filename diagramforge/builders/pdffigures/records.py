"""A :class:`FigureCandidate` as a diagram record (``svg`` with code, ``raster`` without).

The record id is the usual content id: the SVG code for vector figures, the PNG's digest
for raster ones (a raster figure has no code, so its pixels are what identifies it).
"""

from __future__ import annotations

import hashlib
import io
import json

from diagramforge.builders.pdffigures.model import FigureCandidate
from diagramforge.store.records import Format, empty_record, make_id


def candidate_record(fig: FigureCandidate, source: str, source_id: str,
                     **columns: object) -> dict:
    """Record dict for one figure; ``columns`` adds licence, url and other source fields."""
    meta = {"page": fig.page, "bbox": [round(v, 2) for v in fig.bbox], "extractor": fig.source,
            "caption_bbox": [round(v, 2) for v in fig.caption_bbox] if fig.caption_bbox
            else None}
    if fig.kind == "raster":
        from PIL import Image

        png = fig.png or b""
        width, height = Image.open(io.BytesIO(png)).size
        rid = make_id(Format.RASTER, hashlib.sha256(png).hexdigest())
        values: dict[str, object] = {"format": Format.RASTER, "code": None, "image": png,
                                     "width": width, "height": height}
    else:
        rid = make_id(Format.SVG, fig.svg or "")
        values = {"format": Format.SVG, "code": fig.svg}
    return empty_record(id=rid, source=source, source_id=source_id, caption=fig.caption,
                        label=fig.label, context="\n\n".join(fig.references) or None,
                        meta=json.dumps(meta, sort_keys=True), **values, **columns)
