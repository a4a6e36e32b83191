"""What an atomic edit is, and the graph it should leave behind.

An edit is ``{"op": <name>, "target": {"id", "text", "kind"}, "params": {...}}`` (the edit
table's ``operations`` items). The operations are VCG-Bench's fourteen; each format's
``edit`` capability (``formats/<name>/edit.py``, found by
:meth:`~diagramforge.formats.registry.DiagramFormat.capability`) applies the ones that make
sense for it and proposes applicable edits for a diagram (their preconditions checked
there). Such a module declares, with these signatures:

* ``OPS: tuple[Op, ...]`` — the operations it offers;
* ``apply_edit(code, edit) -> str`` — one edit applied, :class:`EditError` when its
  precondition does not hold;
* ``candidates(code, rng) -> Iterator[dict]`` — edits whose preconditions hold on ``code``;
* ``graph(code) -> Graph`` — the structure graph verification reads (the format's own
  reader, as extraction reads it);
* ``validate(code) -> list[str]`` — what is wrong with the code for the format (empty: valid);
* optionally ``settle(code, graph, edit, tol) -> dict`` — a drawn edit's parameters settled
  on a choice the format's reading confirms (SVG, whose graph is a reading of geometry).

Verification does not trust the format module: :func:`expected_graph` states, independently
of any format, what each operation does to the structure graph (``diagramforge.graphs``), and
the target's extracted graph must equal it. Style-only operations (colours, dashes, arrow
heads that keep the direction, edge paths) must leave the graph unchanged.
"""

from __future__ import annotations

from enum import StrEnum

from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.store.records import Refusal


class Op(StrEnum):
    """VCG-Bench's fourteen atomic operations."""

    NODE_COLOUR = "node_colour"
    NODE_SHAPE = "node_shape"
    NODE_SIZE = "node_size"
    NODE_TEXT = "node_text"
    DELETE_NODE = "delete_node"
    ADD_NODE = "add_node"
    MOVE_NODE = "move_node"
    EDGE_COLOUR = "edge_colour"
    EDGE_STYLE = "edge_style"
    EDGE_ARROW = "edge_arrow"
    DELETE_EDGE = "delete_edge"
    ADD_EDGE = "add_edge"
    REDIRECT_EDGE = "redirect_edge"
    EDGE_PATH = "edge_path"


STYLE_ONLY = frozenset({Op.NODE_COLOUR, Op.EDGE_COLOUR, Op.EDGE_STYLE, Op.EDGE_PATH})
"""Operations that change how the diagram looks, never its structure graph."""

PALETTE = ["#f8cecc", "#d5e8d4", "#dae8fc", "#fff2cc", "#e1d5e7", "#ffe6cc", "#b85450",
           "#82b366", "#6c8ebf", "#d6b656", "#9673a6", "#d79b00"]
"""Colours an edit may choose (draw.io's own swatches, so they look natural)."""

WORDS = ["Cache", "Parser", "Logger", "Router", "Store", "Queue", "Worker", "Gateway",
         "Monitor", "Scheduler", "Index", "Buffer", "Decoder", "Encoder", "Filter", "Mixer"]
"""Plain words for new or changed labels (no markup, so every format writes them as is)."""


class EditReason(StrEnum):
    PRECONDITION = "edit_precondition"
    UNKNOWN_OP = "edit_unknown_op"


class EditError(Refusal):
    """An edit that cannot be applied to this code (its precondition does not hold)."""

    def __init__(self, detail: str, reason: str = EditReason.PRECONDITION):
        super().__init__(reason, detail)


def edit(op_: str, id_: str, text_: str, kind_: str, /, **params: object) -> dict:
    """An edit dict in the edit table's shape."""
    return {"op": str(op_), "target": {"id": id_, "text": text_, "kind": kind_},
            "params": params}


def find_edge(g: Graph, source: str | None, target: str | None, label: str | None = None
              ) -> int | None:
    """Index of the first edge ``source → target`` (with ``label`` when given)."""
    for k, e in enumerate(g.edges):
        if e.source == source and e.target == target and (label is None or e.label == label):
            return k
    return None


def expected_graph(g: Graph, ed: dict) -> Graph:
    """The structure graph after ``ed``, derived from the operation's meaning alone.

    Node and edge params name graph node ids (``params.node`` / ``params.source`` /
    ``params.target``). A bbox of ``None`` in the result means "anywhere" (the format cannot
    say where the engine will put it)."""
    op, p = Op(ed["op"]), ed.get("params", {})
    # shallow copies: below, fields are only ever reassigned, never changed in place (a
    # deep copy of every node and edge was a twelfth of an edit's sampling)
    nodes = [n.model_copy() for n in g.nodes]
    edges = [e.model_copy() for e in g.edges]
    by_id = {n.id: n for n in nodes}
    if op in STYLE_ONLY:
        pass
    elif op == Op.NODE_TEXT:
        n = by_id[p["node"]]
        n.text = p["text"]
        if n.shape == "text":  # a bare label's box is its text's: it changes with the text
            n.bbox = None
    elif op == Op.NODE_SHAPE:
        by_id[p["node"]].shape = p["shape"]
    elif op in (Op.NODE_SIZE, Op.MOVE_NODE):
        n = by_id[p["node"]]
        if n.bbox is not None and p.get("bbox") is not None:
            dx, dy = p["bbox"][0] - n.bbox[0], p["bbox"][1] - n.bbox[1]
            n.bbox = list(p["bbox"])
            # what a moved container holds moves with it (``carried``: those nodes' ids)
            for k in p.get("carried", []) if op == Op.MOVE_NODE else []:
                if k in by_id and by_id[k].bbox is not None:
                    b = by_id[k].bbox
                    by_id[k].bbox = [b[0] + dx, b[1] + dy, b[2], b[3]]
    elif op == Op.DELETE_NODE:
        nodes = [n for n in nodes if n.id != p["node"]]
        edges = [e for e in edges if p["node"] not in (e.source, e.target)]
    elif op == Op.ADD_NODE:
        nodes.append(Node(id=p.get("id", "_new"), text=p["text"], shape=p.get("shape", "*"),
                          bbox=p.get("bbox")))
    elif op == Op.ADD_EDGE:
        edges.append(Edge(source=p["source"], target=p["target"], label=p.get("label", ""),
                          directed=p.get("directed", True)))
    else:  # an operation on one existing edge
        k = find_edge(g, p["source"], p["target"], p.get("label"))
        if k is None:
            raise EditError(f"{op}: no edge {p['source']} -> {p['target']}")
        if op == Op.DELETE_EDGE:
            del edges[k]
        elif op == Op.REDIRECT_EDGE:
            edges[k].target = p["new_target"]
        elif op == Op.EDGE_ARROW:
            edges[k].directed = bool(p["directed"])
            edges[k].both_heads = edges[k].both_heads and not edges[k].directed
            if p.get("reverse"):
                edges[k].source, edges[k].target = edges[k].target, edges[k].source
    return Graph(nodes=nodes, edges=edges)


def remap(old: list[float], new: list[float], x: float, y: float) -> tuple[float, float]:
    """Where a point on or near box ``old`` goes when the box becomes ``new``: the same
    place relative to the box, the same distance outside it (an edge end on a node that
    moves or grows stays on it)."""
    out = []
    for k, v in ((0, x), (1, y)):
        lo, size = old[k], old[k + 2]
        c = min(max(v, lo), lo + size)
        rel = (c - lo) / size if size else 0.0
        out.append(new[k] + rel * new[k + 2] + (v - c))
    return out[0], out[1]


def _close(a: list[float] | None, b: list[float] | None, tol: float) -> bool:
    if a is None or b is None:
        return True
    return all(abs(x - y) <= tol + 0.02 * abs(y) for x, y in zip(a, b, strict=True))


def _node_ok(want: Node, got: Node, tol: float) -> bool:
    return want.text == got.text and want.shape in ("*", got.shape) \
        and _close(want.bbox, got.bbox, tol)


def graph_diff(want: Graph, got: Graph, tol: float = 1.0) -> list[str]:
    """What differs between the expected and the extracted graph, ids ignored (formats like
    SVG number their nodes by position, so a deletion renames the rest): nodes are matched
    by text, shape and box (within ``tol`` plus 2 %), edges by matched ends (either way
    round when undirected; an unattached end matches an unattached end), label and
    direction. An empty list means equal."""
    problems: list[str] = []
    match: dict[str, str] = {}
    free = list(got.nodes)
    for w in want.nodes:
        hit = next((n for n in free if _node_ok(w, n, tol)), None)
        if hit is None:
            problems.append(f"missing node {w.text!r} ({w.shape}, {w.bbox})")
            continue
        free.remove(hit)
        match[w.id] = hit.id
    problems += [f"unexpected node {n.text!r} ({n.shape}, {n.bbox})" for n in free]

    def key(e: Edge, ids: dict[str, str] | None) -> tuple:
        def end(nid: str | None) -> str | None:
            # an unattached end (None) stays unattached; a node that found no match is "?id"
            return nid if ids is None or nid is None else ids.get(nid, f"?{nid}")
        s, t = end(e.source), end(e.target)
        if not e.directed and str(t) < str(s):  # an undirected edge a—b is b—a
            s, t = t, s
        return s, t, e.label, e.directed

    got_edges = [key(e, None) for e in got.edges]
    for w in want.edges:
        k = key(w, match)
        if k in got_edges:
            got_edges.remove(k)
        else:
            problems.append(f"missing edge {k}")
    problems += [f"unexpected edge {k}" for k in got_edges]
    return problems
