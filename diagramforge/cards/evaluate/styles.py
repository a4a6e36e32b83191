"""Style outside the edited elements: what the reference edit left as it was, the
prediction must leave as it was too.

Graphs do not carry colour or line style, so :mod:`.editing`'s graph check cannot see a
prediction that recolours the rest of the diagram.  Here, for formats whose elements have
stable ids (mxGraph cells, DOT nodes and edges), each element's style is read from the
source, the reference target and the prediction by the format's ``style`` capability
(``formats/<name>/style.py``: ``styles(code)``, element id → its style); the elements whose
style the reference kept are the ones outside the edit, and ``style_preserved`` is the share
of them whose style the prediction kept (a missing element counts as not kept).  Formats
with no such capability — whose ids are positions (SVG) or whose style is not per element in
the code (TikZ) — give ``None``.
"""

from __future__ import annotations

from diagramforge.formats import capabilities


def style_preserved(fmt: str, source: str, target: str, prediction: str) -> float | None:
    """Share of the elements outside the reference edit whose style the prediction kept;
    ``None`` when the format has no per-element reading or nothing is outside the edit."""
    reader = capabilities.of(fmt, "style")
    if reader is None:
        return None
    src, tgt, pred = (reader.styles(source), reader.styles(target),
                      reader.styles(prediction))
    outside = [k for k, s in src.items() if k in tgt and tgt[k] == s]
    if not outside:
        return None
    return sum(1 for k in outside if pred.get(k) == src[k]) / len(outside)
