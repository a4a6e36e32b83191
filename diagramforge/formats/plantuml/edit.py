"""VCG-Bench's atomic edits on PlantUML, written as PlantUML people write it: a line added
before ``@enduml`` or one link line changed.

PlantUML lays the diagram out itself, so the operations that set geometry (node size, move,
edge path) do not apply, nor do those its text cannot say without rewriting declarations
(a node's text, its shape).  What it can say:

* ``node_colour`` — the entity declared again with a colour (``class A #f8cecc``): PlantUML
  merges a second declaration into the first (class, object, state, use-case, component
  and other described entities; not a sequence's participants, which a late declaration
  would add again);
* ``add_node`` — ``class W``/``component W``/``state W``/``usecase W``/``participant W``
  as the diagram's kind declares its entities;
* ``delete_node`` — ``remove A`` (class and object diagrams: it takes the entity's links
  with it, as the operation means);
* ``add_edge`` — ``A --> B`` (a message ``A -> B`` in a sequence diagram);
* ``edge_colour``/``edge_style`` — ``-[#b85450]->``/``-[dashed]->`` inside the link's
  arrow (style only: the graph must not change);
* ``edge_arrow`` — the head of a one-headed link taken off (``-->`` becomes ``--``);
* ``delete_edge``/``redirect_edge`` — the link's line removed, or its far end renamed.

An activity diagram of the new syntax gets no edits: its graph is the flow PlantUML draws
from its instructions, with no entity a line of text could name.  A link is edited only
when it is the one line between its two ends and its ends are plain
names (``A``, ``[Business Logic]``, ``(Login)``, ``:Actor:``); a link line that is the
only mention of an end is not deleted or redirected (in PlantUML a link declares its ends:
the node would go too).  Verification (``edit/sampler.py``) reads the graph from
PlantUML's own model of the edited text without boxes (:func:`graph`): a re-layout moves
every node.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

from diagramforge.formats.edits import (
    PALETTE,
    WORDS,
    EditError,
    Op,
    edit,
    expected_graph,
    graph_diff,
)
from diagramforge.formats.plantuml import engine, source
from diagramforge.formats.plantuml.graph import model_graph
from diagramforge.graphs.model import Graph

OPS: tuple[Op, ...] = (Op.NODE_COLOUR, Op.ADD_NODE, Op.DELETE_NODE, Op.ADD_EDGE,
                       Op.EDGE_COLOUR, Op.EDGE_STYLE, Op.EDGE_ARROW, Op.DELETE_EDGE,
                       Op.REDIRECT_EDGE)
"""The operations PlantUML's text can say (the ``edit`` capability's protocol,
:mod:`diagramforge.formats.edits`)."""
STYLES = ["dashed", "dotted", "bold"]
DECLARE = {"CLASS": "class", "ABSTRACT_CLASS": "abstract class", "INTERFACE": "interface",
           "ENUM": "enum", "ANNOTATION": "annotation", "OBJECT": "object", "STATE": "state",
           "USECASE": "usecase"}
"""A leaf type → the keyword that declares it (for a second, colouring declaration)."""
SYMBOL_DECLARE = {"USymbolComponent1": "component", "USymbolComponent2": "component",
                  "USymbolActor": "actor", "USymbolDatabase": "database",
                  "USymbolNode": "node", "USymbolCloud": "cloud", "USymbolRect": "rectangle",
                  "USymbolArtifact": "artifact", "USymbolQueue": "queue",
                  "USymbolCard": "card", "USymbolFolder": "folder", "USymbolFrame": "frame",
                  "USymbolStorage": "storage", "USymbolAgent": "agent",
                  "USymbolInterface": "interface", "USymbolUsecase": "usecase"}
NEW_NODE = {"CLASS": "class", "OBJECT": "object", "STATE": "state", "DESCRIPTION": "component",
            "SEQUENCE": "participant"}
"""The declaration a new entity gets in a diagram of each kind."""


@dataclass(frozen=True)
class Parsed:
    kind: str
    model: dict
    graph: Graph
    """PlantUML's model's graph, boxes dropped (a re-layout moves every node)."""


@functools.lru_cache(maxsize=256)
def _parse(code: str) -> Parsed:
    source.check(code)
    d = engine.draw_many([code])[0]
    if d.error is not None:
        raise d.error
    g = model_graph(d.kind, d.model, d.svg)
    if g is None:
        raise EditError(f"PlantUML exposes no model of a {d.kind or 'this'} diagram")
    g = Graph(nodes=[n.model_copy(update={"bbox": None}) for n in g.nodes], edges=g.edges)
    return Parsed(d.kind, d.model or {}, g)


def graph(code: str) -> Graph:
    """The structure graph of the code as PlantUML reads it, without boxes."""
    return _parse(code).graph


def validate(code: str) -> list[str]:
    """What PlantUML (or the text checks) refuse in the code; empty when it draws."""
    try:
        _parse(code)
    except (engine.PumlError, EditError) as exc:
        return [f"{exc.reason}: {exc.detail}"]
    return []


# -- link lines ------------------------------------------------------------------------------
_END = r'"[^"\n]+"|\[[^\]\n]+\]|\([^)\n]+\)|:[^:\n]+:|[\w.$]+'
_LINK = re.compile(
    rf"^(?P<indent>[ \t]*)(?P<a>{_END})(?P<q1>[ \t]*\"[^\"\n]*\")?[ \t]*"
    r"(?P<arrow>[<>ox*|#}{+^\\/]*[-.=]+(?:\[[^\]\n]*\])?[-.=]*[<>ox*|#}{+^\\/]*)"
    rf"(?P<q2>[ \t]*\"[^\"\n]*\")?[ \t]*(?P<b>{_END})[ \t]*(?P<label>:[^\n]*)?[ \t]*$",
    re.M)
_PLAIN = re.compile(r"^\w+$")


def _id(token: str) -> str:
    t = token.strip()
    if len(t) > 1 and (t[0], t[-1]) in (('"', '"'), ("[", "]"), ("(", ")"), (":", ":")):
        return t[1:-1].strip()
    return t


def _links(code: str) -> list[re.Match[str]]:
    return [m for m in _LINK.finditer(code) if not m.group(0).lstrip().startswith("'")]


def _link(code: str, a: str, b: str) -> re.Match[str]:
    """The only link line between ``a`` and ``b`` (either way round)."""
    hits = [m for m in _links(code) if {_id(m.group("a")), _id(m.group("b"))} == {a, b}]
    if len(hits) != 1:
        raise EditError(f"{len(hits)} link lines between {a} and {b}")
    return hits[0]


def _mentions(code: str, nid: str) -> int:
    return len(re.findall(rf"(?<![\w$]){re.escape(nid)}(?![\w$])", code))


def _append(code: str, line: str) -> str:
    ends = list(re.finditer(r"^[ \t]*@end\w+[^\n]*$", code, re.M))
    if not ends:
        raise EditError("no @end line")
    at = ends[-1].start()
    return code[:at] + line + "\n" + code[at:]


def _in_arrow(m: re.Match[str], style: str) -> str:
    """The link's arrow with ``[style]`` inside it (after its first line character)."""
    arrow = m.group("arrow")
    if "[" in arrow:
        raise EditError("the arrow already carries a style")
    k = next(i for i, c in enumerate(arrow) if c in "-.=")
    return arrow[:k + 1] + f"[{style}]" + arrow[k + 1:]


def _replace(code: str, m: re.Match[str], group: str, text: str) -> str:
    return code[:m.start(group)] + text + code[m.end(group):]


def _leaf(model: dict, nid: str) -> dict | None:
    return next((n for n in model.get("nodes") or [] if str(n.get("id")) == nid), None)


def apply_edit(code: str, ed: dict) -> str:
    op, p = Op(ed["op"]), ed.get("params", {})
    if op == Op.NODE_COLOUR:
        parsed = _parse(code)
        leaf = _leaf(parsed.model, p["node"])
        word = None if leaf is None else (
            SYMBOL_DECLARE.get(str(leaf.get("symbol"))) if leaf.get("leaf") == "DESCRIPTION"
            else DECLARE.get(str(leaf.get("leaf"))))
        if word is None or not _PLAIN.match(p["node"]):
            raise EditError(f"no colouring declaration for {p['node']!r}")
        token = f"({p['node']})" if word == "usecase" else p["node"]
        return _append(code, f"{word} {token} {p['colour']}")
    if op == Op.ADD_NODE:
        word = NEW_NODE.get(_parse(code).kind)
        if word is None or not _PLAIN.match(p["text"]):
            raise EditError("no declaration for a new entity in this kind of diagram")
        return _append(code, f"{word} {p['text']}")
    if op == Op.DELETE_NODE:
        if _parse(code).kind not in ("CLASS", "OBJECT") or not _PLAIN.match(p["node"]):
            raise EditError("remove applies to class and object diagrams")
        return _append(code, f"remove {p['node']}")
    if op == Op.ADD_EDGE:
        if not (_PLAIN.match(p["source"]) and _PLAIN.match(p["target"])):
            raise EditError("ends that are not plain names")
        arrow = "->" if _parse(code).kind == "SEQUENCE" else "-->"
        return _append(code, f"{p['source']} {arrow} {p['target']}")
    if op in (Op.EDGE_COLOUR, Op.EDGE_STYLE, Op.EDGE_ARROW, Op.DELETE_EDGE,
              Op.REDIRECT_EDGE):
        m = _link(code, p["source"], p["target"])
        if op == Op.EDGE_COLOUR:
            return _replace(code, m, "arrow", _in_arrow(m, p["colour"]))
        if op == Op.EDGE_STYLE:
            return _replace(code, m, "arrow", _in_arrow(m, p["style"]))
        if op == Op.EDGE_ARROW:
            arrow = m.group("arrow")
            if p["directed"] or not re.fullmatch(r"-+>|<-+", arrow):
                raise EditError("only a plain one-headed arrow loses its head")
            return _replace(code, m, "arrow", arrow.strip("<>"))
        if op == Op.DELETE_EDGE:
            end = m.end() + 1 if code[m.end():m.end() + 1] == "\n" else m.end()
            return code[:m.start()] + code[end:]
        new = p["new_target"]
        side = "b" if _id(m.group("b")) == p["target"] else "a"
        if not _PLAIN.match(new):
            raise EditError("a new end that is not a plain name")
        return _replace(code, m, side, new)
    raise EditError(f"{op} does not apply to PlantUML: it lays out and shapes entities itself")


def candidates(code: str, rng: random.Random) -> Iterator[dict]:
    """Applicable edits, one per (operation, target); preconditions that need the text
    (one plain link line between two ends, ends mentioned elsewhere) are checked here."""
    parsed = _parse(code)
    if "activity" in parsed.model:  # a flow drawn from instructions: no entity to address
        return
    g = parsed.graph
    # containers and the texts around the diagram (title, caption, legend: ids ``@…``) are
    # no entity a line could colour, remove or link
    nodes = [n for n in g.nodes if n.shape != "container" and not n.id.startswith("@")]
    seq = parsed.kind == "SEQUENCE"
    for n in nodes:
        if not seq and n.text:
            yield edit(Op.NODE_COLOUR, n.id, n.text, "node", node=n.id,
                       colour=rng.choice(PALETTE))
        if parsed.kind in ("CLASS", "OBJECT"):
            yield edit(Op.DELETE_NODE, n.id, n.text, "node", node=n.id)
    if parsed.kind in NEW_NODE:
        taken = {n.text for n in g.nodes} | {n.id for n in g.nodes}
        word = rng.choice([w for w in WORDS if w not in taken])
        yield edit(Op.ADD_NODE, word, "", "node", id=word, text=word)
    lines = {(_id(m.group("a")), _id(m.group("b"))) for m in _links(code)}
    for e in g.edges:
        same = [x for x in g.edges if {x.source, x.target} == {e.source, e.target}]
        if len(same) != 1 or not ({(e.source, e.target), (e.target, e.source)} & lines):
            continue
        eid = f"{e.source}->{e.target}"
        ends = {"source": e.source, "target": e.target, "label": e.label}
        yield edit(Op.EDGE_COLOUR, eid, e.label, "edge", **ends, colour=rng.choice(PALETTE))
        if not seq:
            yield edit(Op.EDGE_STYLE, eid, e.label, "edge", **ends, style=rng.choice(STYLES))
            if e.directed:
                yield edit(Op.EDGE_ARROW, eid, e.label, "edge", **ends, directed=False)
        kept = all(_mentions(code, x) > 1 for x in (e.source, e.target))
        if kept:
            yield edit(Op.DELETE_EDGE, eid, e.label, "edge", **ends)
            others = [n.id for n in nodes if n.id not in (e.source, e.target)
                      and _PLAIN.match(n.id)]
            if e.directed and others:
                yield edit(Op.REDIRECT_EDGE, eid, e.label, "edge", **ends,
                           new_target=rng.choice(others))
    joined = {(e.source, e.target) for e in g.edges} | {(e.target, e.source) for e in g.edges}
    free = [(a.id, b.id) for a in nodes for b in nodes if a.id != b.id
            and (a.id, b.id) not in joined and _PLAIN.match(a.id) and _PLAIN.match(b.id)]
    if free:
        s, t = rng.choice(free)
        yield edit(Op.ADD_EDGE, f"{s}->{t}", "", "edge", source=s, target=t, directed=True)


def verified_edits(code: str, rng: random.Random, limit: int = 3) -> list[dict]:
    """Up to ``limit`` single edits that PlantUML confirms (the graph after is what the
    operation means): the funnel's count of editable diagrams."""
    try:
        before = graph(code)
        cands = list(candidates(code, rng))
    except (engine.PumlError, EditError):
        return []
    rng.shuffle(cands)
    kept: list[dict] = []
    seen: set[str] = set()
    for ed in cands:
        if len(kept) >= limit or ed["op"] in seen:
            continue
        try:
            after = apply_edit(code, ed)
            if validate(after) or graph_diff(expected_graph(before, ed), graph(after)):
                continue
        except (engine.PumlError, EditError):
            continue
        kept.append(ed)
        seen.add(ed["op"])
    return kept
