"""Each DOT node's and edge's style (the ``style`` capability, asked by
:mod:`diagramforge.cards.evaluate.styles`): nodes are named, an edge is its ends and its
rank among the edges between them, and every attribute that is not identity, text or
layout is style — read from Graphviz's own parse (:func:`.engine.check`)."""

from __future__ import annotations

from collections import Counter

from diagramforge.formats.dot.engine import Caps, check

NOT_STYLE = frozenset({"_gvid", "name", "label", "pos", "width", "height", "tail", "head",
                       "nodes", "edges", "subgraphs", "bb", "lp"})
"""DOT attributes that are identity, text or layout, not style (text is the graph's)."""


def styles(code: str) -> dict[str, dict[str, str]]:
    """``node:<name>`` and ``edge:<tail>-><head>#<k>`` → their style attributes."""
    doc = check(code, Caps())
    objs = doc.get("objects", [])
    name = {o["_gvid"]: str(o.get("name")) for o in objs}
    out = {f"node:{o.get('name')}": {k: str(v) for k, v in o.items() if k not in NOT_STYLE}
           for o in objs if "nodes" not in o}  # clusters are not elements
    seen: Counter[tuple[str, str]] = Counter()
    for e in doc.get("edges", []):
        ends = (name.get(e.get("tail"), "?"), name.get(e.get("head"), "?"))
        out[f"edge:{ends[0]}->{ends[1]}#{seen[ends]}"] = {
            k: str(v) for k, v in e.items() if k not in NOT_STYLE}
        seen[ends] += 1
    return out
