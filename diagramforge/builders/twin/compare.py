"""When is a twin the same diagram as its source?  When their structure graphs agree on what
the issue of cross-format controls needs: the multiset of node texts, the number of edges,
and each edge's ends (by text), direction — forward, none (a line) or both (a double
arrow, :attr:`~diagramforge.graphs.model.Edge.both_heads`) — and label.

Ids differ between languages (``n3`` in DOT, a cell id in draw.io), so edges are compared by
the texts of their ends; text is compared as the scorers compare it
(:func:`~diagramforge.graphs.score.normalise_text`: case, Unicode form and punctuation do
not count) and without spaces (:func:`key`).  An edge's label is part of the edge: a twin
that drew "yes" as a box of its own beside the arrow (a writer's or a reader's slip) is not
the decision tree it came from, though its node count would show it only when the label is
not also a node text.  Shapes, colours and positions are not compared: a structure twin does
not claim them (a method's ``preserves`` says what else it keeps).
"""

from __future__ import annotations

from collections import Counter

from diagramforge.graphs.model import Graph, Node
from diagramforge.graphs.score import normalise_text


class Mismatch:
    """Why a twin's graph is not its source's (the ledger's ``detail`` starts with one)."""

    TEXTS = "texts"
    EDGE_COUNT = "edge_count"
    EDGES = "edges"
    LABELS = "edge_labels"


def key(text: str) -> str:
    """A node text as compared: normalised as the scorers do, and without spaces — where a
    word gap falls is typography (an SVG reader finds ``expert 1`` drawn as glyph runs
    ``expert1``), the words are the same."""
    return normalise_text(text).replace(" ", "")


def _texts(g: Graph) -> Counter:
    return Counter(key(n.text) for n in g.nodes)


def _edges(g: Graph) -> Counter:
    text = {n.id: key(n.text) for n in g.nodes}  # a free end (None) stays None
    out: Counter = Counter()
    for e in g.edges:
        a, b = text.get(e.source or ""), text.get(e.target or "")
        # an undirected edge is a line or, drawn with a head at each end, a double arrow
        out[(a, b, True) if e.directed else (*sorted([a or "", b or ""]),
                                              "<->" if e.both_heads else False)] += 1
    return out


def _labelled(g: Graph) -> Counter:
    text = {n.id: key(n.text) for n in g.nodes}
    out: Counter = Counter()
    for e in g.edges:
        a, b = text.get(e.source or ""), text.get(e.target or "")
        ends = (a, b) if e.directed else tuple(sorted([a or "", b or ""]))
        out[(*ends, key(e.label))] += 1
    return out


def _show(c: Counter, limit: int = 4) -> str:
    items = sorted(c.elements(), key=str)
    return ", ".join(map(repr, items[:limit])) + (f" (+{len(items) - limit})"
                                                   if len(items) > limit else "")


def differences(source: Graph, twin: Graph) -> list[str]:
    """Empty when ``twin`` is the same diagram as ``source``; else what differs, each item
    starting with a :class:`Mismatch` kind."""
    out = []
    a, b = _texts(source), _texts(twin)
    if a != b:
        out.append(f"{Mismatch.TEXTS}: missing {_show(a - b)}; extra {_show(b - a)}")
    if len(source.edges) != len(twin.edges):
        out.append(f"{Mismatch.EDGE_COUNT}: {len(source.edges)} in the source, "
                   f"{len(twin.edges)} in the twin")
    ea, eb = _edges(source), _edges(twin)
    if not out and ea != eb:
        out.append(f"{Mismatch.EDGES}: missing {_show(ea - eb)}; extra {_show(eb - ea)}")
    la, lb = _labelled(source), _labelled(twin)
    if not out and la != lb:
        out.append(f"{Mismatch.LABELS}: missing {_show(la - lb)}; extra {_show(lb - la)}")
    return out


def same(source: Graph, twin: Graph) -> bool:
    return not differences(source, twin)


def as_text_nodes(g: Graph) -> Graph:
    """The graph as a reader that finds nodes by their text (DiagramEval's SVG rules) sees
    it.  An SVG twin is compared with this, since an SVG has no notion of a node, only of
    text, shapes and lines:

    * each edge label is a node of its own (text near a line), and no longer the edge's;
    * a node without text is no node: a box with nothing written in it is never a node
      to such a reader.  An edge's end at one is a free end (``None``), which the twin's
      reader also finds (a line ending at a shape that is no node), so such an edge is
      still compared, by its labelled end and its direction;
    * an undirected edge with a free end and no heads is no edge: to the reader an
      undecorated stroke that does not join two nodes is a border or a divider.

    Everything the reader can see is still compared exactly (every text, every edge
    between labelled nodes with its direction); only what no text-based reader can read
    from any SVG is left out."""
    blank = {n.id for n in g.nodes if not n.text.strip()}  # ";" is a text, "" none
    nodes = [n for n in g.nodes if n.id not in blank]
    edges = []
    for e in g.edges:
        src = None if e.source in blank else e.source
        tgt = None if e.target in blank else e.target
        if not e.directed and not e.both_heads and (src is None or tgt is None):
            continue
        edges.append(e.model_copy(update={"source": src, "target": tgt, "label": ""}))
    extra = [Node(id=f"label:{k}", text=e.label, shape="text")
             for k, e in enumerate(g.edges) if e.label.strip()]
    return g.model_copy(update={"nodes": [*nodes, *extra], "edges": edges})
