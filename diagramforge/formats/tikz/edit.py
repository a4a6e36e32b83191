"""Atomic edits on TikZ source: colour, node text, line style, arrow tips, delete a node with
its edges, add an edge between named nodes, move a node.

TikZ has no tree to edit, so edits work on statements recognised in the source: a named
node ``\\node[opts] (name) [opts] at (x,y) {text};`` and a simple connection
``\\draw[opts] (a) -- node{label} (b);`` (``--``, ``to``, ``-|``, ``|-``). A diagram whose
nodes or connections are written otherwise (``\\foreach``, paths through many nodes, trees)
offers fewer edits — :func:`candidates` proposes only what these statements make exact.
Options are appended (``[..., fill=red!20]``): TikZ lets the last key win, so an edit never
has to understand the styles already there.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

from diagramforge.formats.edits import WORDS, EditError, Op, edit
from diagramforge.formats.tikz.graph import tikz_source_graph
from diagramforge.formats.tikz.graph.named_nodes import NAME as _NAME
from diagramforge.formats.tikz.graph.named_nodes import node_statements
from diagramforge.graphs.model import Graph

OPS: tuple[Op, ...] = (Op.NODE_COLOUR, Op.NODE_TEXT, Op.EDGE_STYLE, Op.EDGE_ARROW,
                       Op.EDGE_COLOUR, Op.DELETE_NODE, Op.ADD_EDGE, Op.MOVE_NODE)
COLOURS = ["red!20", "blue!20", "green!25", "orange!30", "violet!20", "yellow!40", "cyan!25"]
LINE_STYLES = ["dashed", "dotted", "very thick", "densely dashed", "ultra thick"]


def graph(code: str) -> Graph:
    """The picture's structure graph read from its source (what verification compares)."""
    return tikz_source_graph(code)


def validate(code: str) -> list[str]:
    """Balanced picture environments; compiling is the render check."""
    errs = []
    if code.count(r"\begin{tikzpicture}") != code.count(r"\end{tikzpicture}"):
        errs.append("unbalanced tikzpicture")
    if code.count("{") != code.count("}"):
        errs.append("unbalanced braces")
    return errs


_EDGE = re.compile(
    r"\\(?:draw|path)\s*(?P<opts>\[[^;]*?\])?\s*\((?P<a>" + _NAME + r")\)\s*"
    r"(?P<op>--|-\||\|-|to\s*(?:\[[^\]]*\])?)\s*"
    r"(?P<label>node\s*(?:\[[^\]]*\])?\s*\{(?:[^{}]|\{[^{}]*\})*\}\s*)?"
    r"\((?P<b>" + _NAME + r")\)\s*;")


def edge_statements(code: str) -> list[re.Match]:
    return list(_EDGE.finditer(code))


def _add_option(code: str, span: tuple[int, int] | None, insert_at: int, option: str) -> str:
    """Append ``option`` to the ``[..]`` at ``span``, or insert ``[option]`` at
    ``insert_at`` when the statement has none."""
    if span is None:
        return code[:insert_at] + f"[{option}]" + code[insert_at:]
    close = span[1] - 1
    inner = code[span[0] + 1:close].strip()
    sep = ", " if inner else ""
    return code[:close] + f"{sep}{option}" + code[close:]


def _edge_stmt(code: str, p: dict) -> re.Match:
    hits = [m for m in edge_statements(code) if (m.group("a"), m.group("b")) in
            ((p["source"], p["target"]), (p["target"], p["source"]))]
    if len(hits) != 1:
        raise EditError(f"{len(hits)} simple statements join {p['source']} and {p['target']}")
    return hits[0]


def _edge_option(code: str, m: re.Match, option: str) -> str:
    span = m.span("opts") if m.group("opts") else None
    return _add_option(code, span, m.start() + len(m.group(0).split("(")[0].split("[")[0]
                                                     .rstrip()), option)


def _references(code: str, name: str) -> int:
    return len(re.findall(r"\(" + re.escape(name) + r"(?:\.[\w ]+)?\)|\bof\s+" +
                          re.escape(name) + r"\b", code))


def _placed_relative_to(code: str, name: str) -> bool:
    """Whether another node is positioned from ``name`` (``right=of name``, ``right of=name``),
    so moving ``name`` would move it too."""
    return bool(re.search(r"\bof\s*=?\s*\{?" + re.escape(name) + r"\b", code))


def apply_edit(code: str, ed: dict) -> str:
    """``code`` (a standalone document or a picture) with the edit applied."""
    op, p = Op(ed["op"]), ed.get("params", {})
    nodes = node_statements(code)
    if op in (Op.NODE_COLOUR, Op.NODE_TEXT, Op.DELETE_NODE, Op.MOVE_NODE):
        n = nodes.get(p["node"])
        if n is None:
            raise EditError(f"no simple \\node statement named {p['node']!r}")
        if op == Op.NODE_COLOUR:
            return _add_option(code, n.opts, n.after_node, f"fill={p['colour']}")
        if op == Op.NODE_TEXT:
            return code[:n.text[0]] + p["text"] + code[n.text[1]:]
        if op == Op.MOVE_NODE:
            if _placed_relative_to(code, n.name):
                raise EditError(f"nodes are placed relative to {n.name!r}: they would move too")
            return _add_option(code, n.opts, n.after_node,
                               f"xshift={p['dx']:g}cm, yshift={p['dy']:g}cm")
        # delete: the node and every simple statement touching it, nothing else naming it
        incident = [m for m in edge_statements(code) if n.name in (m.group("a"), m.group("b"))]
        spans = sorted([(n.start, n.end)] + [m.span() for m in incident], reverse=True)
        out = code
        for a, b in spans:
            out = out[:a] + out[b:]
        if _references(out, n.name):
            raise EditError(f"node {n.name!r} is referenced by statements an edit cannot "
                            "remove exactly")
        return out
    if op == Op.ADD_EDGE:
        for end in ("source", "target"):
            if p[end] not in nodes:
                raise EditError(f"no simple \\node statement named {p[end]!r}")
        k = code.rfind(r"\end{tikzpicture}")
        if k < 0 or code.count(r"\begin{tikzpicture}") != 1:
            raise EditError("an edge is added only to a single tikzpicture")
        return code[:k] + f"  \\draw[->] ({p['source']}) -- ({p['target']});\n" + code[k:]
    m = _edge_stmt(code, p)
    if op == Op.EDGE_STYLE:
        return _edge_option(code, m, p["style"])
    if op == Op.EDGE_COLOUR:
        return _edge_option(code, m, f"draw={p['colour']}")
    if op == Op.EDGE_ARROW:
        return _edge_option(code, m, p["tips"])
    raise EditError(f"{op} is not a TikZ edit", reason="edit_unknown_op")


def candidates(code: str, rng: random.Random) -> Iterator[dict]:
    """Applicable edits, one per (operation, target). Preconditions: named simple node
    statements (no node placed relative to it for a move, which shifts it by
    ``xshift``/``yshift``);
    connections written as one simple statement, the only edge between their ends; a
    single picture and a pair not yet joined for a new edge."""
    g = tikz_source_graph(code)
    nodes = node_statements(code)
    graph_ids = {n.id: n for n in g.nodes}
    named = [graph_ids[k] for k in nodes if k in graph_ids]
    for n in named:
        yield edit(Op.NODE_COLOUR, n.id, n.text, "node", node=n.id, colour=rng.choice(COLOURS))
        yield edit(Op.NODE_TEXT, n.id, n.text, "node", node=n.id,
                   text=rng.choice([w for w in WORDS if w != n.text]))
        yield edit(Op.DELETE_NODE, n.id, n.text, "node", node=n.id)
        if not _placed_relative_to(code, n.id):
            dx, dy = rng.choice([(1, 0), (-1, 0), (0, 1), (0, -1)])
            step = rng.choice([0.5, 1.0])
            yield edit(Op.MOVE_NODE, n.id, n.text, "node", node=n.id, dx=dx * step, dy=dy * step)
    stmts = edge_statements(code)
    for e in g.edges:
        pair = {e.source, e.target}
        hits = [m for m in stmts if {m.group("a"), m.group("b")} == pair]
        same = [x for x in g.edges if {x.source, x.target} == pair]
        if len(hits) != 1 or len(same) != 1 or e.source is None or e.target is None:
            continue
        eid, ends = f"{e.source}->{e.target}", {"source": e.source, "target": e.target,
                                                 "label": e.label}
        yield edit(Op.EDGE_STYLE, eid, e.label, "edge", **ends, style=rng.choice(LINE_STYLES))
        yield edit(Op.EDGE_COLOUR, eid, e.label, "edge", **ends,
                   colour=rng.choice(["red", "blue", "teal", "orange", "violet"]))
        tips = rng.choice(["-", "<->"]) if e.directed else "->"
        yield edit(Op.EDGE_ARROW, eid, e.label, "edge", **ends, tips=tips,
                   directed=tips == "->")
    joined = {(e.source, e.target) for e in g.edges} | {(e.target, e.source) for e in g.edges}
    free = [(a.id, b.id) for a in named for b in named if a.id != b.id
            and (a.id, b.id) not in joined]
    if free and code.count(r"\begin{tikzpicture}") == 1:
        s, t = rng.choice(free)
        yield edit(Op.ADD_EDGE, f"{s}->{t}", "", "edge", source=s, target=t)
