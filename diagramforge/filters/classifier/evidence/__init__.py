"""What a diagram's code says it is: the strongest evidence of its type.

A pgfplots ``axis`` is a chart, ``tikzcd`` a commutative diagram, ``circuitikz`` a circuit, an
mxGraph ``umlLifeline`` a UML diagram, matplotlib's SVG a chart.  Each format has an ordered
list of named rules (``tikz.py``, ``mxgraph.py``, ``svg.py``, ``text_languages.py`` for
DOT and Mermaid); the first that fires decides,
and its name travels with the label (``diagram_type_source``), so every decision can be
traced to one rule.  Rules are conservative: when nothing fires the code "says nothing" and
the image classifier names the kind.

Even silent code says something: a TikZ picture, a draw.io page or an SVG that embeds no
raster image is *drawn* — it cannot be a photograph or a screenshot, so the image classifier
is not allowed those answers for it (``Evidence.drawn``).

Figures cut out of PDFs (``source == "pdf"``) carry a machine transcription of the page, not
an author's code: no evidence is read from them, the image decides.
"""

from __future__ import annotations

from diagramforge.filters.classifier.evidence import mxgraph, svg, text_languages, tikz
from diagramforge.filters.classifier.evidence.base import Evidence

__all__ = ["Evidence", "PDF_SOURCE", "code_evidence", "code_label"]


PDF_SOURCE = "pdf"


def code_evidence(record: dict) -> Evidence | None:
    """The evidence in ``record``'s code, or ``None`` when it has no author's code
    (a raster figure, or any figure cut out of a PDF)."""
    code = record.get("code") or ""
    if not code or record.get("source") == PDF_SOURCE:
        return None
    fmt = record.get("format")
    if fmt == "tikz":
        return tikz.evidence(code)
    if fmt == "mxgraph":
        return mxgraph.evidence(code)
    if fmt == "svg":
        return svg.evidence(code, record.get("graph"))
    if fmt == "dot":
        return text_languages.dot_evidence(code)
    if fmt == "mermaid":
        return text_languages.mermaid_evidence(code)
    return None


def code_label(record: dict) -> str | None:
    """Just the label (``None`` when the code says nothing): the training-label reader."""
    ev = code_evidence(record)
    return ev.label if ev else None
