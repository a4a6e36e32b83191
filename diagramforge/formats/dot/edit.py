"""VCG-Bench's atomic edits on Graphviz DOT, through pydot's parse of the code.

Graphviz lays the graph out itself, so the operations that set geometry (node size, move,
edge path) do not apply: DOT has node colour, shape and text, delete and add node, edge
colour, style and arrow, delete, add and redirect edge.  A node's attributes are changed by
a node statement after the others (DOT's own rule: the last assignment wins, wherever the
node was declared); an edge is addressed by its ends and must be the only edge between them
written ``tail -> head`` (chains are split by pydot).  The result is pydot's serialisation
of the graph (comments and layout of the text are not kept).

Verification (the edit stage's sampler, through :func:`graph`) reads the graph from
Graphviz's own parse without layout
(:func:`~diagramforge.formats.dot.engine.structure_graph`), so a changed node's position
never counts against an edit.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator

import pydot

from diagramforge.formats.dot import engine as dot
from diagramforge.formats.edits import PALETTE, WORDS, EditError, Op, edit
from diagramforge.graphs.model import Graph

DOT_SHAPE = {"rectangle": "box", "ellipse": "ellipse", "rhombus": "diamond",
             "hexagon": "hexagon", "cylinder": "cylinder", "note": "note"}
"""Graph shapes (as ``formats/dot/engine.py`` reads them back) and the DOT shape that draws each."""
STYLES = ["dashed", "dotted", "bold"]


def graph(code: str) -> Graph:
    return dot.structure_graph(dot.check(code, dot.Caps()))


def validate(code: str) -> list[str]:
    try:
        dot.check(code, dot.Caps())
    except dot.DotError as exc:
        return [f"{exc.reason}: {exc.detail}"]
    return []


def _load(code: str) -> pydot.Dot:
    try:
        with warnings.catch_warnings():  # pydot's grammar uses pyparsing's old names
            warnings.simplefilter("ignore", DeprecationWarning)
            graphs = pydot.graph_from_dot_data(code)
    except Exception as exc:  # noqa: BLE001 - pydot's parser raises what pyparsing raises
        raise EditError(f"pydot cannot parse the graph: {exc!r}"[:200]) from None
    if not graphs or len(graphs) != 1:
        raise EditError("not exactly one graph")
    return graphs[0]


def _unquote(name: str) -> str:
    return name[1:-1].replace('\\"', '"') if len(name) > 1 and name[0] == name[-1] == '"' \
        else name


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _containers(g: pydot.Graph) -> Iterator[pydot.Graph]:
    yield g
    for s in g.get_subgraphs():
        yield from _containers(s)


def _edges(g: pydot.Dot) -> list[tuple[pydot.Graph, pydot.Edge]]:
    return [(c, e) for c in _containers(g) for e in c.get_edges()]


def _edge(g: pydot.Dot, source: str, target: str) -> tuple[pydot.Graph, pydot.Edge]:
    """The only edge written ``source -> target`` (undirected: either way), drawn as
    written (no ``dir=back``)."""
    hits = [(c, e) for c, e in _edges(g)
            if {_unquote(str(e.get_source())), _unquote(str(e.get_destination()))}
            == {source, target}]
    if len(hits) != 1:
        raise EditError(f"{len(hits)} edges between {source} and {target}")
    c, e = hits[0]
    if str(e.get("dir") or "").strip('"') == "back" or not isinstance(e.get_source(), str):
        raise EditError("edge drawn against its writing, or to a subgraph")
    return c, e


def _set_node(g: pydot.Dot, name: str, **attrs: str) -> None:
    g.add_node(pydot.Node(_quote(name), **{k: _quote(v) for k, v in attrs.items()}))


def _mentioned(g: pydot.Dot) -> set[str]:
    out = set()
    for c in _containers(g):
        out |= {_unquote(n.get_name()) for n in c.get_nodes()}
        for e in c.get_edges():
            out |= {_unquote(str(e.get_source())), _unquote(str(e.get_destination()))}
    return out


def _delete_edge(g: pydot.Dot, container: pydot.Graph, e: pydot.Edge,
                 keep: tuple[str, ...] = ()) -> None:
    """Remove one edge; an end that only this edge declared stays a node (in DOT an edge
    creates its ends), unless it is in ``keep``'s complement (a node being deleted)."""
    ends = [_unquote(str(e.get_source())), _unquote(str(e.get_destination()))]
    key = (e.get_source(), e.get_destination())
    items = container.obj_dict["edges"].get(key, [])
    items.remove(e.obj_dict)
    if not items:
        del container.obj_dict["edges"][key]
    left = _mentioned(g)
    for end in ends:
        if end not in left and end in keep:
            g.add_node(pydot.Node(_quote(end)))


def apply_edit(code: str, ed: dict) -> str:
    op, p = Op(ed["op"]), ed.get("params", {})
    g = _load(code)
    if op == Op.NODE_COLOUR:
        _set_node(g, p["node"], fillcolor=p["colour"], style="filled")
    elif op == Op.NODE_SHAPE:
        _set_node(g, p["node"], shape=DOT_SHAPE[p["shape"]])
    elif op == Op.NODE_TEXT:
        _set_node(g, p["node"], label=p["text"])
    elif op == Op.ADD_NODE:
        _set_node(g, p["id"], label=p["text"], shape=DOT_SHAPE[p.get("shape", "ellipse")])
    elif op == Op.DELETE_NODE:
        others = tuple(n for n in _mentioned(g) if n != p["node"])
        for c in _containers(g):
            for n in c.get_nodes():
                if _unquote(n.get_name()) == p["node"]:
                    c.del_node(n.get_name())
            for e in c.get_edges():
                if p["node"] in (_unquote(str(e.get_source())),
                                 _unquote(str(e.get_destination()))):
                    _delete_edge(g, c, e, others)
    elif op == Op.ADD_EDGE:
        g.add_edge(pydot.Edge(_quote(p["source"]), _quote(p["target"])))
    elif op in (Op.EDGE_COLOUR, Op.EDGE_STYLE, Op.EDGE_ARROW, Op.DELETE_EDGE,
                Op.REDIRECT_EDGE):
        c, e = _edge(g, p["source"], p["target"])
        if op == Op.EDGE_COLOUR:
            e.set("color", _quote(p["colour"]))
        elif op == Op.EDGE_STYLE:
            e.set("style", p["style"])
        elif op == Op.EDGE_ARROW:
            e.set("dir", "forward" if p["directed"] else "none")
        elif op == Op.DELETE_EDGE:
            _delete_edge(g, c, e, (p["source"], p["target"]))
        else:
            _delete_edge(g, c, e, (p["source"], p["target"]))
            c.add_edge(pydot.Edge(e.get_source(), _quote(p["new_target"]),
                                  **e.get_attributes()))
    else:
        raise EditError(f"{op} does not apply to DOT: Graphviz places nodes and edges")
    return g.to_string()


def candidates(code: str, rng: random.Random) -> Iterator[dict]:
    """Applicable edits, one per (operation, target): nodes of the graph (not clusters);
    edges that are the only one between their ends, written as drawn."""
    g = graph(code)
    nodes = [n for n in g.nodes if n.shape != "container"]
    for n in nodes:
        yield edit(Op.NODE_COLOUR, n.id, n.text, "node", node=n.id, colour=rng.choice(PALETTE))
        yield edit(Op.NODE_TEXT, n.id, n.text, "node", node=n.id,
                   text=rng.choice([w for w in WORDS if w != n.text]))
        shapes = [s for s in DOT_SHAPE if s != n.shape]
        yield edit(Op.NODE_SHAPE, n.id, n.text, "node", node=n.id, shape=rng.choice(shapes))
        yield edit(Op.DELETE_NODE, n.id, n.text, "node", node=n.id)
    yield edit(Op.ADD_NODE, "_new", "", "node", id="_new",
               text=rng.choice(WORDS), shape=rng.choice(list(DOT_SHAPE)))
    for e in g.edges:
        same = [x for x in g.edges if {x.source, x.target} == {e.source, e.target}]
        if len(same) != 1:
            continue
        eid, ends = f"{e.source}->{e.target}", {"source": e.source, "target": e.target,
                                                 "label": e.label}
        yield edit(Op.EDGE_COLOUR, eid, e.label, "edge", **ends, colour=rng.choice(PALETTE))
        yield edit(Op.EDGE_STYLE, eid, e.label, "edge", **ends, style=rng.choice(STYLES))
        yield edit(Op.EDGE_ARROW, eid, e.label, "edge", **ends, directed=not e.directed)
        yield edit(Op.DELETE_EDGE, eid, e.label, "edge", **ends)
        others = [n.id for n in nodes if n.id not in (e.source, e.target)]
        if e.directed and others:
            yield edit(Op.REDIRECT_EDGE, eid, e.label, "edge", **ends,
                       new_target=rng.choice(others))
    joined = {(e.source, e.target) for e in g.edges} | {(e.target, e.source) for e in g.edges}
    free = [(a.id, b.id) for a in nodes for b in nodes if a.id != b.id
            and (a.id, b.id) not in joined]
    if free:
        s, t = rng.choice(free)
        directed = _load(code).get_graph_type() == "digraph"  # `--` in an undirected graph
        yield edit(Op.ADD_EDGE, f"{s}->{t}", "", "edge", source=s, target=t,
                   directed=directed)
