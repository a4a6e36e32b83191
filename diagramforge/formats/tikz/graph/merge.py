"""Source and page together: nodes matched by text and structure, the source graph kept
where it resolves (its boxes and typeset texts from the page), the page graph where not
(:func:`tikz_graph`)."""

from __future__ import annotations

from dataclasses import dataclass

from diagramforge.formats.tikz.graph.page import pdf_pages
from diagramforge.formats.tikz.graph.source import combine, tikz_source_graphs
from diagramforge.formats.tikz.graph.statements import SourceInfo
from diagramforge.graphs.geometry import TextItem, dedupe
from diagramforge.graphs.model import Edge, Graph
from diagramforge.graphs.score import candidates, normalise_text, similarity
from diagramforge.graphs.settings import GraphParams

# -- merge ------------------------------------------------------------------------------

def match_by_text_and_structure(source: Graph, geometry: Graph, threshold: float
                                ) -> dict[str, str]:
    """Source id → page id.  Texts that occur once on each side match first; repeated
    texts (three "+" nodes in a parse tree) go, one at a time, to the candidate whose page
    neighbours are the counterparts of the source node's matched neighbours (ties: the most
    similar text, then reading order).  Last, a source node whose text matched nothing takes
    the free page node adjacent to most of its matched neighbours' counterparts, if one
    stands out (by count, then clearly by text similarity)."""
    cand = candidates(source, geometry, threshold)
    back: dict[str, set[str]] = {}
    for s, gs in cand.items():
        for g in gs:
            back.setdefault(g, set()).add(s)
    snodes = {n.id: n for n in source.nodes}
    gnodes = {n.id: n for n in geometry.nodes}
    gorder = {n.id: k for k, n in enumerate(geometry.nodes)}

    def adjacency(g: Graph) -> dict[str, set[str]]:
        adj: dict[str, set[str]] = {}
        for e in g.attached_edges():
            adj.setdefault(e.source, set()).add(e.target)
            adj.setdefault(e.target, set()).add(e.source)
        return adj

    sadj, gadj = adjacency(source), adjacency(geometry)
    m: dict[str, str] = {}
    for s, gs in cand.items():
        if len(gs) == 1:
            g = next(iter(gs))
            if len(back[g]) == 1:
                m[s] = g
    used = set(m.values())
    while True:
        best: tuple | None = None
        for s in snodes:
            if s in m:
                continue
            for g in cand[s] - used:
                support = sum(1 for t in sadj.get(s, ()) if t in m and m[t] in gadj.get(g, ()))
                key = (support, similarity(snodes[s], gnodes[g]), -gorder[g])
                if best is None or key > best[0]:
                    best = (key, s, g)
        if best is None:
            break
        m[best[1]] = best[2]
        used.add(best[2])
    # nodes whose text never matched (display math, macros): a page node that is the only
    # free neighbour of their matched neighbours' counterparts is theirs
    while True:
        found = False
        for s in snodes:
            if s in m:
                continue
            support: dict[str, int] = {}
            for t in sadj.get(s, ()):
                if t in m:
                    for g in gadj.get(m[t], ()):
                        if g not in used:
                            support[g] = support.get(g, 0) + 1
            if not support:
                continue
            top = max(support.values())
            winners = [g for g, v in support.items() if v == top]
            if len(winners) > 1:  # the texts, too dissimilar to match, may still decide
                sims = sorted(((similarity(snodes[s], gnodes[g]), g) for g in winners),
                              reverse=True)
                if sims[0][0] > sims[1][0] + 0.1:
                    winners = [sims[0][1]]
            if len(winners) == 1:
                m[s] = winners[0]
                used.add(winners[0])
                found = True
        if not found:
            return m


@dataclass
class MergeReport:
    method: str  # "source", "geometry", "none"
    source_nodes: int = 0
    source_edges: int = 0
    geometry_nodes: int = 0
    geometry_edges: int = 0
    matched_nodes: int = 0
    confirmed_edges: int = 0
    """Source edges the page also shows (a page edge between the two matched nodes)."""
    added_edges: int = 0


def _key(text: str) -> str:
    return normalise_text(text).replace(" ", "")


def _in_order(short: str, long: str) -> bool:
    """Every character of ``short`` occurs in ``long``, in order (``ball`` in ``ball1``,
    ``inputx∈d`` in ``inputx∈rd``): what the source resolved is all there, the rest is what
    it could not (a counter, a macro, ``\\mathbb``)."""
    it = iter(long)
    return all(c in it for c in short)


def _related(a: str, b: str) -> bool:
    return bool(a) and bool(b) and (_in_order(a, b) or _in_order(b, a))


def typeset_texts(g: Graph, lines: list[TextItem], tolerance: float = 1.0) -> Graph:
    """The source's nodes with the texts the page shows for them: ``ball \\theballcount``
    in a ``\\foreach`` typesets as "ball 1", ``$\\R^d$`` as "Rd" — what a reader of the
    drawing reads, and what a twin of it must say.

    Each text line of the page goes to the smallest node box (from the page, see
    :func:`merge_graphs`) that holds its centre.  A node's lines replace its text when they
    spell it with more (the source's resolved characters in order, :func:`_in_order`); a
    line that spells another node's text or an edge label instead (an edge label drawn
    inside a container's box) is not the node's.  Nodes without a box, or whose lines say
    something else, or that also spell another node's text or an edge label, keep the
    source's text."""
    boxed = [n for n in g.nodes if n.bbox and len(n.bbox) == 4]
    if not boxed or not lines:
        return g
    own: dict[str, list[TextItem]] = {}
    for t in dedupe(lines):  # a label overprinted (bold, a shadow) is one label
        cx, cy = t.box[0] + t.box[2] / 2, t.box[1] + t.box[3] / 2
        inside = [n for n in boxed
                  if n.bbox[0] - tolerance <= cx <= n.bbox[0] + n.bbox[2] + tolerance  # type: ignore[index]
                  and n.bbox[1] - tolerance <= cy <= n.bbox[1] + n.bbox[3] + tolerance]  # type: ignore[index]
        if inside:
            best = min(inside, key=lambda n: n.bbox[2] * n.bbox[3])  # type: ignore[index]
            own.setdefault(best.id, []).append(t)
    if not own:
        return g
    labels = [(n.id, _key(n.text)) for n in g.nodes] + [
        (None, _key(e.label)) for e in g.edges]
    nodes = []
    for n in g.nodes:
        mine = own.get(n.id)
        k = _key(n.text)
        if mine:
            others = [o for i, o in labels if i != n.id and o]
            kept = [t for t in mine if _related(_key(t.text), k)
                    or not any(_related(_key(t.text), o) for o in others)]
            text = "\n".join(t.text for t in kept)
            new = _key(text)
            # a line PyMuPDF joined across two boxes ("subproject 1 subproject 2") spells a
            # neighbour's text too: not this node's alone
            joined = any(len(o) > 1 and new.count(o) > k.count(o) for o in others)
            if kept and new != k and _in_order(k, new) and not joined:
                n = n.model_copy(update={"text": text})
        nodes.append(n)
    return g.model_copy(update={"nodes": nodes})


def merge_graphs(source: Graph, geometry: Graph, info: SourceInfo | None = None,
                 params: GraphParams | None = None, lines: list[TextItem] | None = None
                 ) -> tuple[Graph, MergeReport]:
    """Source names where they resolve, page geometry where the source is too macro-heavy.

    The source's edges count with their free ends (an arrow from a bare point to a node,
    axes): an edge the source cannot attribute to two nodes stays such an edge — the graph
    is incomplete there — rather than the page's geometry joining the labels it ends near
    (three axes from an unlabelled origin are not a triangle of x, y and z).  With the
    page's ``lines``, node texts are those typeset (:func:`typeset_texts`)."""
    params = params or GraphParams()
    s_edges, g_edges = source.attached_edges(), geometry.attached_edges()
    rep = MergeReport(method="none", source_nodes=len(source.nodes),
                      source_edges=len(s_edges), geometry_nodes=len(geometry.nodes),
                      geometry_edges=len(g_edges))
    m = match_by_text_and_structure(source, geometry, params.match_threshold)
    rep.matched_nodes = len(m)
    use_source = bool(source.nodes) and (
        (source.edges and len(source.edges) >= params.tikz_source_share * len(g_edges))
        or (not g_edges and len(source.nodes) >= len(geometry.nodes) * params.tikz_source_share))
    if not use_source:
        rep.method = "geometry" if geometry.nodes else ("source" if source.nodes else "none")
        return (geometry if geometry.nodes or not source.nodes else source), rep
    rep.method = "source"
    boxes = {n.id: n.bbox for n in geometry.nodes}
    nodes = [n.model_copy(update={"bbox": boxes.get(m[n.id])}) if n.id in m else n
             for n in source.nodes]
    back = {v: k for k, v in m.items()}
    pairs = {frozenset((e.source, e.target)) for e in g_edges}
    rep.confirmed_edges = sum(1 for e in s_edges
                              if e.source in m and e.target in m
                              and frozenset((m[e.source], m[e.target])) in pairs)
    edges = list(source.edges)
    if info is not None and info.unresolved:
        have = {frozenset((e.source, e.target)) for e in s_edges}
        for e in g_edges:
            a, b = back.get(e.source or ""), back.get(e.target or "")
            if a and b and a != b and frozenset((a, b)) not in have:
                edges.append(Edge(source=a, target=b, directed=e.directed,
                                  both_heads=e.both_heads, label=e.label))
                have.add(frozenset((a, b)))
                rep.added_edges += 1
    merged = Graph(nodes=nodes, edges=edges)
    return (typeset_texts(merged, lines) if lines else merged), rep


def tikz_graph(code: str, pdf: bytes | None = None, params: GraphParams | None = None
               ) -> Graph:
    """Graph of a TikZ source, cross-checked with its compiled PDF when given."""
    return tikz_graph_report(code, pdf, params)[0]


def tikz_graph_report(code: str, pdf: bytes | None = None, params: GraphParams | None = None
                      ) -> tuple[Graph, MergeReport]:
    params = params or GraphParams()
    graphs, info = tikz_source_graphs(code, params)
    source = combine(graphs) if graphs else Graph()
    if pdf is None:
        a = source.attached_edges()
        return source, MergeReport(method="source" if source.nodes else "none",
                                   source_nodes=len(source.nodes), source_edges=len(a))
    pages = pdf_pages(pdf, params)
    if len(pages) == len(graphs) and len(graphs) > 1:
        merged = [merge_graphs(s, g, info, params, lines)
                  for s, (g, lines) in zip(graphs, pages, strict=True)]
        rep = MergeReport(method="+".join(sorted({r.method for _, r in merged})))
        for _, r in merged:
            for f in ("source_nodes", "source_edges", "geometry_nodes", "geometry_edges",
                      "matched_nodes", "confirmed_edges", "added_edges"):
                setattr(rep, f, getattr(rep, f) + getattr(r, f))
        return combine([g for g, _ in merged]), rep
    # several pages as one: their coordinates overlap, so no line can be placed in a node
    return merge_graphs(source, combine([g for g, _ in pages]), info, params,
                        pages[0][1] if len(pages) == 1 else None)
