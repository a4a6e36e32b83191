"""Style outside the edited elements: what the reference edit left as it was, the
prediction must leave as it was too.

Graphs do not carry colour or line style, so :mod:`.editing`'s graph check cannot see a
prediction that recolours the rest of the diagram.  Here, for formats whose elements have
stable ids (mxGraph cells, DOT nodes and edges), each element's style is read from the
source, the reference target and the prediction; the elements whose style the reference
kept are the ones outside the edit, and ``style_preserved`` is the share of them whose style
the prediction kept (a missing element counts as not kept).  Formats whose ids are
positions (SVG) or whose style is not per element in the code (TikZ) give ``None``.
"""

from __future__ import annotations

from collections import Counter

from diagramforge.formats.dot import engine as dot
from diagramforge.formats.mxgraph.notation import decode, parse_xml

Styles = dict[str, dict[str, str]]

DOT_NOT_STYLE = frozenset({"_gvid", "name", "label", "pos", "width", "height", "tail",
                           "head", "nodes", "edges", "subgraphs", "bb", "lp"})
"""DOT attributes that are identity, text or layout, not style (text is the graph's)."""


def _mx_styles(code: str) -> Styles:
    root = parse_xml(code)
    if root.tag != "mxGraphModel":
        root = next(p.model for p in decode(code.encode()) if p.model is not None)
    out: Styles = {}
    for cell in root.iter("mxCell"):
        style = {}
        for part in (cell.get("style") or "").split(";"):
            if part.strip():
                k, _, v = part.partition("=")
                style[k.strip()] = v.strip()
        out[str(cell.get("id"))] = style
    return out


def _dot_styles(code: str) -> Styles:
    doc = dot.check(code, dot.Caps())
    objs = doc.get("objects", [])
    name = {o["_gvid"]: str(o.get("name")) for o in objs}
    out: Styles = {f"node:{o.get('name')}": {k: str(v) for k, v in o.items()
                                             if k not in DOT_NOT_STYLE}
                   for o in objs if "nodes" not in o}  # clusters are not elements
    seen: Counter[tuple[str, str]] = Counter()
    for e in doc.get("edges", []):
        ends = (name.get(e.get("tail"), "?"), name.get(e.get("head"), "?"))
        out[f"edge:{ends[0]}->{ends[1]}#{seen[ends]}"] = {
            k: str(v) for k, v in e.items() if k not in DOT_NOT_STYLE}
        seen[ends] += 1
    return out


READERS = {"mxgraph": _mx_styles, "dot": _dot_styles}


def style_preserved(fmt: str, source: str, target: str, prediction: str) -> float | None:
    """Share of the elements outside the reference edit whose style the prediction kept;
    ``None`` when the format has no per-element reading or nothing is outside the edit."""
    read = READERS.get(fmt)
    if read is None:
        return None
    src, tgt, pred = read(source), read(target), read(prediction)
    outside = [k for k, s in src.items() if k in tgt and tgt[k] == s]
    if not outside:
        return None
    return sum(1 for k in outside if pred.get(k) == src[k]) / len(outside)
