"""Edits and their referents: which elements an operation acts on, their descriptions in
the diagram as it is when the operation comes, and the check that an instruction's text
still singles each of them out.

**Multi-step edits.** Step *k* of an instruction is read against the diagram as it is after
steps 1…k−1 — the way a person follows "…; then …": a node added in step 1 is found by its
new text in step 3, a node recoloured in step 2 by its new colour, a node moved in step 2 by
where it now is. The sampler names each step on the code it is applied to, and the check
replays the operations from the source code to rebuild those states.
"""

from __future__ import annotations

from typing import Any

from diagramforge.formats import capabilities
from diagramforge.formats.colours import UNKNOWN
from diagramforge.formats.scenes import Element, Scene, edge_key, one_line
from diagramforge.graphs.model import Graph
from diagramforge.synth.referents.describe import Describer
from diagramforge.synth.referents.grammar import maximal, phrases
from diagramforge.synth.referents.resolve import DEFAULT, Rules, norm, resolve

EDGE_OPS = frozenset({"edge_colour", "edge_style", "edge_arrow", "delete_edge",
                      "redirect_edge", "edge_path"})
TEXT_PARAMS = ("text", "label", "new_text", "new_label")


def roles(op: dict[str, Any], graph: Graph) -> dict[str, str | None]:
    """The existing elements ``op`` acts on, by role (``node``, ``edge``, ``source``,
    ``target``, ``new_target``), as scene ids in ``graph`` (the state it is applied to);
    ``None`` for an element the graph does not have."""
    name = str(op.get("op") or "")
    p, t = op.get("params") or {}, op.get("target") or {}
    if name == "add_node":
        return {}
    if name == "add_edge":
        return {"source": _node(graph, p.get("source")), "target": _node(graph, p.get("target"))}
    if name in EDGE_OPS or t.get("kind") == "edge":
        out = {"edge": edge_key(graph, p.get("source"), p.get("target"), p.get("label"))}
        if name == "redirect_edge":
            out["new_target"] = _node(graph, p.get("new_target"))
        return out
    return {"node": _node(graph, p.get("node", t.get("id")))}


def _node(graph: Graph, nid: Any) -> str | None:
    return str(nid) if nid is not None and any(n.id == str(nid) for n in graph.nodes) else None


def scene_of(fmt: str, code: str, graph: Graph, colour_margin: float = 3.0) -> Scene:
    """The scene of ``code`` (format ``fmt``) whose structure graph is ``graph``: its nodes
    as the format's ``scene`` capability reads them (``formats/<fmt>/scene.py``: colour,
    shape, visibility), its edges the graph's, the same for every format.  A format without
    the capability (DOT, PlantUML: their code states no colour a reader could be sure of) is
    read from its graph alone (:func:`graph_scene`)."""
    module = capabilities.of(fmt, "scene")
    scene = graph_scene(graph) if module is None else module.scene(code, graph, colour_margin)
    for k, e in enumerate(graph.edges):
        scene.edges[f"e{k}"] = Element(f"e{k}", "edge", one_line(e.label), "edge", None,
                                       None, e.source, e.target, e.directed)
    return scene


def graph_scene(graph: Graph) -> Scene:
    """The nodes of a graph as a reader of a format that says nothing of their look sees
    them: each its text, its colour unknown (it matches every colour word) and its shape
    generic — so a description names a node by its words or its place, never by a look no
    code stated, and a doubtful fact can only make a description ambiguous, never wrongly
    unique.  Before, such a format's every edit failed when its targets were named (the
    samples' 12 Graphviz edits were ledgered ``edit_error: KeyError('dot')``)."""
    scene = Scene()
    for n in graph.nodes:
        scene.nodes[n.id] = Element(n.id, "node", one_line(n.text), "shape", UNKNOWN,
                                    tuple(n.bbox) if n.bbox else None)  # type: ignore[arg-type]
    return scene


def name_op(describer: Describer, op: dict[str, Any], graph: Graph
            ) -> dict[str, dict[str, str]] | None:
    """``{role: {"text", "kind"}}`` for every element ``op`` acts on, or ``None`` when one
    of them has no description that singles it out."""
    refs = {}
    for role, eid in roles(op, graph).items():
        d = describer.describe(eid) if eid is not None else None
        if d is None:
            return None
        refs[role] = {"text": d.text, "kind": d.kind}
    return refs


class Namer:
    """Names an edit's targets on the code it is about to be applied to (the sampler's
    filter: a target with no unique description is not drawn). Keeps the describers of the
    last few codes it saw: the candidates of one step share one, and every composition of
    a diagram starts from the same source."""

    KEEP = 8

    def __init__(self, fmt: str, rules: Rules = DEFAULT) -> None:
        self.fmt, self.rules = fmt, rules
        self._seen: dict[str, Describer] = {}

    def describer(self, code: str, graph: Graph) -> Describer:
        d = self._seen.pop(code, None)
        if d is None:
            d = Describer(scene_of(self.fmt, code, graph, self.rules.colour_margin),
                          self.rules)
        self._seen[code] = d  # most recent last
        while len(self._seen) > self.KEEP:
            del self._seen[next(iter(self._seen))]
        return d

    def __call__(self, code: str, graph: Graph, op: dict[str, Any]
                 ) -> dict[str, dict[str, str]] | None:
        return name_op(self.describer(code, graph), op, graph)


def scenes(fmt: str, states: list[tuple[str, Graph]], rules: Rules = DEFAULT) -> list[Scene]:
    return [scene_of(fmt, c, g, rules.colour_margin) for c, g in states]


def unresolved(text: str, ops: list[dict[str, Any]], states: list[tuple[str, Graph]],
               views: list[Scene], rules: Rules = DEFAULT) -> list[str]:
    """Why ``text`` does not single out every element the operations act on (empty when
    it does). Each element of step *k* must be meant, alone, by some description in the
    text read against state *k*; and no description may stay vague — meaning several
    elements in every state and one in none (*the unlabelled node*). Quoted new texts
    are content, not references."""
    found = phrases(text)
    new = {norm(str(v)) for op in ops for k, v in (op.get("params") or {}).items()
           if k in TEXT_PARAMS and isinstance(v, str) and op.get("op") not in EDGE_OPS}
    memo: dict[tuple[int, int], set[str]] = {}

    def means(i: int, k: int) -> set[str]:
        if (i, k) not in memo:
            memo[(i, k)] = resolve(found[i].query, views[k], rules)
        return memo[(i, k)]

    problems = []
    for k, op in enumerate(ops):
        for role, eid in roles(op, states[k][1]).items():
            if eid is None:
                problems.append(f"step {k + 1} ({op.get('op')}): its {role} is not in the "
                                "diagram")
            elif not any(means(i, k) == {eid} for i in range(len(found))):
                problems.append(f"step {k + 1} ({op.get('op')}): no description singles out "
                                f"its {role}")
    index = {id(p): i for i, p in enumerate(found)}
    for p in maximal(found):
        q = p.query
        if q.kind == "node" and q.label is not None and norm(q.label) in new and q.noun is None:
            continue
        sizes = [len(means(index[id(p)], k)) for k in range(len(views))]
        if 1 not in sizes and max(sizes, default=0) >= 2:
            problems.append(f"vague: {text[p.start:p.end]!r} means {max(sizes)} elements")
    return problems
