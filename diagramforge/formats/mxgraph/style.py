"""Each draw.io cell's style, by the cell's id (the ``style`` capability, asked by
:mod:`diagramforge.cards.evaluate.styles`): a cell's id is stable across edits and its style
string (``key=value;…``) is all the cell's look, so a prediction that recolours cells
outside the edit shows here."""

from __future__ import annotations

from diagramforge.formats.mxgraph.notation import decode, parse_xml


def styles(code: str) -> dict[str, dict[str, str]]:
    """Cell id → its style's keys and values (the first page holding a model)."""
    root = parse_xml(code)
    if root.tag != "mxGraphModel":
        root = next(p.model for p in decode(code.encode()) if p.model is not None)
    out: dict[str, dict[str, str]] = {}
    for cell in root.iter("mxCell"):
        style = {}
        for part in (cell.get("style") or "").split(";"):
            if part.strip():
                k, _, v = part.partition("=")
                style[k.strip()] = v.strip()
        out[str(cell.get("id"))] = style
    return out
