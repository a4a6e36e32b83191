"""The compiled page's geometry: text lines and drawn paths of each PDF page (PyMuPDF),
through the same rules as SVG (:mod:`diagramforge.graphs.geometry`)."""

from __future__ import annotations

import pymupdf

from diagramforge.formats.tikz.graph.source import combine
from diagramforge.graphs.geometry import PathItem, TextItem, bbox, build_graph
from diagramforge.graphs.model import Graph
from diagramforge.graphs.settings import GraphParams

# -- geometry of the compiled page ---------------------------------------------------------

def page_primitives(page: pymupdf.Page) -> tuple[list[TextItem], list[PathItem]]:
    """Text lines and drawn paths of one PDF page (points, y down)."""
    texts: list[TextItem] = []
    for block in page.get_text("dict").get("blocks", []):
        for line in block.get("lines", []):
            spans = [s for s in line.get("spans", []) if s.get("text", "").strip()]
            if not spans:
                continue
            text = " ".join("".join(s["text"] for s in line["spans"]).split())
            size = max(s.get("size", 10.0) for s in spans)
            x0, y0, x1, y1 = line["bbox"]
            texts.append(TextItem(text, [x0, y0, x1 - x0, y1 - y0], size))
    paths: list[PathItem] = []
    for d in page.get_drawings():
        filled = "f" in (d.get("type") or "")
        subs: list[tuple[list[tuple[float, float]], list[tuple[float, float]], list[str],
                         bool]] = []
        for item in d.get("items", []):
            op = item[0]
            if op == "re":
                r = item[1]
                subs.append(([(r.x0, r.y0), (r.x1, r.y0), (r.x1, r.y1), (r.x0, r.y1)], [],
                              ["re"], True))
                continue
            if op == "qu":
                q = item[1]
                subs.append(([(p.x, p.y) for p in (q.ul, q.ur, q.lr, q.ll)], [], ["qu"], True))
                continue
            pts = [(p.x, p.y) for p in item[1:]]
            a, b = pts[0], pts[-1]
            if subs and not subs[-1][3] and subs[-1][0] and \
                    abs(subs[-1][0][-1][0] - a[0]) < 0.05 and abs(subs[-1][0][-1][1] - a[1]) < 0.05:
                on, ext, ops, _ = subs[-1]
            else:
                on, ext, ops = [a], [], []
                subs.append((on, ext, ops, False))
            on.append(b)
            ext += pts[1:-1]
            ops.append(op)
        for idx, (on, ext, ops, closed) in enumerate(subs):
            if len(on) < 2:
                continue
            if not closed:
                closed = (bool(d.get("closePath")) and idx == len(subs) - 1) or (
                    len(on) > 3 and abs(on[0][0] - on[-1][0]) < 0.05
                    and abs(on[0][1] - on[-1][1]) < 0.05)
            kind = {"re": "rectangle", "qu": "polygon"}.get(ops[0] if ops else "", "path")
            curved = bool(ops) and all(o == "c" for o in ops)
            if kind == "path" and closed:
                kind = "ellipse" if curved else "polygon"
            paths.append(PathItem(on, closed=closed, filled=filled, curved=curved,
                                  extent=bbox(on + ext), kind=kind,
                                  straight=ops == ["l"]))
    return texts, paths


def pdf_pages(pdf: bytes, params: GraphParams | None = None
              ) -> list[tuple[Graph, list[TextItem]]]:
    """Per page of a PDF (a standalone TikZ file: one per picture): its geometric graph and
    its text lines, as typeset (what :func:`typeset_texts` gives the source's nodes)."""
    params = params or GraphParams()
    doc = pymupdf.open("pdf", pdf)
    try:
        out = []
        for page in doc:
            texts, paths = page_primitives(page)
            out.append((build_graph(texts, paths, params), texts))
        return out
    finally:
        doc.close()


def pdf_graphs(pdf: bytes, params: GraphParams | None = None) -> list[Graph]:
    """One geometric graph per page of a PDF (a standalone TikZ file: one per picture)."""
    return [g for g, _ in pdf_pages(pdf, params)]


def pdf_graph(pdf: bytes, params: GraphParams | None = None) -> Graph:
    return combine(pdf_graphs(pdf, params))
