"""Diagram files (mxGraph containers and SVG) → candidate records.

Used for repository files and for the .svg files found in arXiv sources alike.
"""

from __future__ import annotations

import json

from diagramforge.formats import mxgraph, svg
from diagramforge.params import SvgExtractParams
from diagramforge.records import Format, Rejection, Unit, empty_record, make_id

MXGRAPH_SUFFIXES = (".drawio", ".drawio.xml", ".xml", ".drawio.svg", ".drawio.png", ".dio")


def is_mxgraph_file(path: str) -> bool:
    p = path.lower()
    return p.endswith(MXGRAPH_SUFFIXES)


def is_svg_file(path: str) -> bool:
    p = path.lower()
    return p.endswith(".svg") and not p.endswith(".drawio.svg")


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
            "graph": mxgraph.to_graph(code),
            "meta": json.dumps({"page": page.index, "page_name": page.name, "file": path}),
        }))
    return out, rejections


def svg_record(data: bytes, path: str, base: dict, locator: str, cfg: SvgExtractParams,
               unit: Unit) -> tuple[list[dict], list[Rejection]]:
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
