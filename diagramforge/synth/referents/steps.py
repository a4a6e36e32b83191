"""Each atomic edit as one plain step, naming its elements by their referring expressions.

A step never carries an id, a coordinate or an attribute value: elements are the
descriptions :mod:`.naming` wrote (``op["refs"]``), colours are colour names, moves and
resizes are directions. The edit stage joins the steps into its template instruction; the
synth stage gives them to the model to phrase, then checks the phrasing still resolves.
"""

from __future__ import annotations

import re
from typing import Any

from diagramforge.formats.colours import shade_of
from diagramforge.graphs.model import Graph

_ARROWS = {"block": "a filled arrowhead", "classic": "a filled arrowhead",
           "open": "an open arrowhead", "diamond": "a diamond arrowhead",
           "oval": "a round end", "none": "no arrowhead"}
_SHAPES = {"rhombus": "diamond", "cylinder3": "cylinder", "process": "process box",
           "rectangle": "rectangle"}


def colour(value: Any) -> str:
    """A colour as words (``#f8cecc`` → ``light red``, xcolor ``green!25`` → ``light
    green``), never a code: the nearest palette name (an edit states the colour it sets,
    so the nearest name is the best word for it, certain or not)."""
    s = shade_of(str(value), margin=0.0, tex=not str(value).startswith("#"))
    if s is None or s.unknown or not s.names:
        return str(value) if re.fullmatch(r"[A-Za-z ]+", str(value)) else "a new colour"
    return sorted(s.names)[0]


def _box(graph: Graph | None, nid: Any) -> list[float] | None:
    if graph is None:
        return None
    return next((n.bbox for n in graph.nodes if n.id == str(nid)), None)


def _direction(old: list[float] | None, new: list[float] | None,
               p: dict[str, Any] | None = None) -> str:
    if p and ("dx" in p or "dy" in p):  # TikZ: a shift in TikZ's y-up axes
        dx, dy = float(p.get("dx") or 0), -float(p.get("dy") or 0)
    elif not (old and new):
        return "to a new position"
    else:
        dx, dy = new[0] - old[0], new[1] - old[1]
    parts = [w for w, on in (("right", dx > 0), ("left", dx < 0), ("down", dy > 0),
                             ("up", dy < 0)) if on]
    return ("to the " if len(parts) == 1 and parts[0] in ("right", "left") else "") + \
        " and ".join(parts) if parts else "to a new position"


def _a(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def ref(refs: dict[str, Any], role: str) -> str:
    r = refs.get(role)
    if isinstance(r, dict):
        return str(r.get("text") or "")
    return str(r or "")


def step(op: dict[str, Any], refs: dict[str, Any] | None = None, graph: Graph | None = None
         ) -> str:
    """One operation as a plain step; ``refs`` (default ``op["refs"]``) holds the
    description of each element it acts on, ``graph`` is the diagram it is applied to
    (for the direction of a move or a resize)."""
    refs = refs if refs is not None else (op.get("refs") or {})
    name = str(op.get("op") or "edit")
    p = op.get("params") or {}
    node, edge = ref(refs, "node"), ref(refs, "edge")
    if name == "node_colour":
        return f"change the colour of {node} to {colour(p.get('colour'))}"
    if name == "node_shape":
        shape = str(p.get("shape", "different shape"))
        return f"change the shape of {node} to {_a(_SHAPES.get(shape, shape))}"
    if name == "node_size":
        old, new = p.get("old_bbox") or _box(graph, p.get("node")), p.get("bbox")
        bigger = bool(old and new and new[2] * new[3] > old[2] * old[3])
        return f"make {node} {'larger' if bigger else 'smaller'}"
    if name == "node_text":
        return f'change the text of {node} to "{p.get("text", "")}"'
    if name == "delete_node":
        return f"delete {node}"
    if name == "add_node":
        shape = str(p.get("shape") or "node")
        label = str(p.get("text") or "")
        return f'add a new {shape} labelled "{label}"' if label else f"add a new {shape}"
    if name == "move_node":
        where = _direction(p.get("old_bbox") or _box(graph, p.get("node")), p.get("bbox"), p)
        return f"move {node} {where}"
    if name == "edge_colour":
        return f"change the colour of {edge} to {colour(p.get('colour'))}"
    if name == "edge_style":
        if isinstance(p.get("style"), str):  # a TikZ line style: already words
            return f"make {edge} {p['style']}"
        look = ["dashed" if p.get("dashed") or p.get("dash") else "solid"]
        if p.get("width"):
            look.append("thicker")
        return f"make {edge} {' and '.join(look)}"
    if name == "edge_arrow":
        if p.get("tips") == "<->":
            return f"give {edge} arrowheads at both ends"
        if p.get("directed") is False or p.get("end") == "none" and p.get("start") in (
                None, "none"):
            return f"remove the arrowheads from {edge}"
        if p.get("tips") == "->":
            return f"give {edge} an arrowhead at its end"
        return f"give {edge} {_ARROWS.get(str(p.get('end')), 'a different arrowhead')}"
    if name == "delete_edge":
        return f"remove {edge}"
    if name == "add_edge":
        return f"add an arrow from {ref(refs, 'source')} to {ref(refs, 'target')}"
    if name == "redirect_edge":
        return f"make {edge} point to {ref(refs, 'new_target')} instead"
    if name == "edge_path":
        return f"reroute {edge} with a bend"
    return f"{name.replace('_', ' ')} {node or edge}".strip()


def instruction(ops: list[dict[str, Any]], graphs: list[Graph] | None = None) -> str:
    """The operations as one template instruction, in order (``graphs[k]``: the diagram
    step *k* is applied to)."""
    parts = [step(op, None, graphs[k] if graphs and k < len(graphs) else None)
             for k, op in enumerate(ops)]
    text = "; then ".join(parts)
    return text[:1].upper() + text[1:] + "."
