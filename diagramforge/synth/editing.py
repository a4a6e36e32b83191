"""Editing instructions: phrase the edit stage's verified atomic edits (VCG-Bench style).

The ``edit`` stage (``diagramforge.edits``) chose each edit's operations and targets, applied
and verified them, and wrote a template instruction. Here code turns each operation into a
plain step ("change the colour of "Start" to red") — never an id or a coordinate — and the
model phrases the steps as one instruction. Code then checks the instruction: no element
ids, coordinates, attribute names or markup (``instruction_forbidden``), and every new text
an operation introduces is quoted verbatim (``instruction_incomplete``).

Edit rows follow the contract in the edit stage: ``operations`` is a JSON list of
``{"op", "target": {"id", "text", "kind"}, "params"}``; unknown operation names and params
are phrased generically rather than dropped.
"""

from __future__ import annotations

import json
import re
from typing import Any

from diagramforge.synth.checks import forbidden_references, mentions
from diagramforge.synth.facts import Facts, norm
from diagramforge.synth.items import Item
from diagramforge.synth.llm import Request
from diagramforge.synth.params import SynthParams
from diagramforge.synth.prompt import load_prompt

CONFIG = "editing"
FORBIDDEN = "instruction_forbidden"
INCOMPLETE = "instruction_incomplete"
BAD_EDIT = "edit_unreadable"
SCHEMA = {"type": "object", "properties": {"instruction": {"type": "string", "minLength": 8,
                                                           "maxLength": 1000}},
          "required": ["instruction"], "additionalProperties": False}
MAX_TOKENS = 400
"""Output cap of an instruction call (the schema allows 1,000 characters)."""
COPIED = ("format", "split", "source_code", "source_image", "target_code", "target_image",
          "operations", "difficulty", "source_graph", "target_graph")
"""Edit-table columns an ``editing`` row carries over unchanged."""
TEXT_PARAMS = ("text", "label", "new_text", "new_label")
ID_PARAMS = ("node", "id", "source", "target", "new_target")
_COLOURS = {"#ff0000": "red", "#00ff00": "green", "#0000ff": "blue", "#000000": "black",
            "#ffffff": "white", "#ffff00": "yellow", "#ffa500": "orange", "#800080": "purple",
            "#808080": "grey", "#ffc0cb": "pink", "#00ffff": "cyan", "#a52a2a": "brown",
            "#dae8fc": "light blue", "#d5e8d4": "light green", "#f8cecc": "light red",
            "#fff2cc": "light yellow", "#e1d5e7": "light purple", "#ffe6cc": "light orange",
            "#f5f5f5": "light grey", "#6c8ebf": "blue", "#82b366": "green", "#b85450": "red",
            "#d6b656": "yellow", "#9673a6": "purple", "#d79b00": "orange"}
"""Colour names for the edit stage's palette (draw.io swatches) and common hex codes."""
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
_ARROWS = {"block": "a filled arrowhead", "classic": "a filled arrowhead",
           "open": "an open arrowhead", "diamond": "a diamond arrowhead",
           "oval": "a round end", "none": "no arrowhead"}


class _Names:
    """Node texts by id (the edit's source graph), so steps name elements, never ids."""

    def __init__(self, graph: str | None) -> None:
        try:
            nodes = json.loads(graph or "{}").get("nodes", [])
            self.nodes = {str(n["id"]): n for n in nodes}
        except (ValueError, TypeError, KeyError, AttributeError):
            self.nodes = {}

    def node(self, node_id: Any, kind: str = "node", text: str = "") -> str:
        text = text or str((self.nodes.get(str(node_id)) or {}).get("text") or "").strip()
        return f'the {kind} "{text}"' if text else f"the unlabelled {kind}"

    def after(self, op: dict[str, Any]) -> None:
        """Follow the edit: a node added or renamed by one operation is named by its new
        text in the next ones."""
        p = op.get("params") or {}
        if op.get("op") == "add_node" and p.get("id") is not None:
            self.nodes[str(p["id"])] = {"id": p["id"], "text": p.get("text") or "",
                                        "bbox": p.get("bbox")}
        elif op.get("op") == "node_text" and p.get("node") is not None:
            node = dict(self.nodes.get(str(p["node"])) or {"id": p["node"]})
            node["text"] = p.get("text") or ""
            self.nodes[str(p["node"])] = node

    def box(self, node_id: Any) -> list[float] | None:
        return (self.nodes.get(str(node_id)) or {}).get("bbox")

    def edge(self, p: dict[str, Any], label: str = "") -> str:
        a = self.node(p.get("source")).removeprefix("the node ")
        b = self.node(p.get("target")).removeprefix("the node ")
        s = f"the connection from {a} to {b}"
        return s + (f' labelled "{label}"' if label else "")


_TINT = re.compile(r"^([A-Za-z]+)!(\d+)$")


def colour(value: Any) -> str:
    """A colour as words (``#f8cecc`` → ``light red``, xcolor ``blue!20`` → ``light
    blue``), never a code."""
    v = str(value)
    if _HEX.match(v):
        return _COLOURS.get(v.lower(), "a new colour")
    tint = _TINT.match(v)
    if tint:
        return ("light " if int(tint.group(2)) < 60 else "") + tint.group(1).lower()
    return v


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


def step(op: dict[str, Any], names: _Names) -> str:
    """One operation (the edit stage's fourteen, else generic) as a plain step, with no id,
    coordinate or attribute value."""
    name = str(op.get("op") or "edit")
    target = op.get("target") or {}
    p = op.get("params") or {}
    kind = str(target.get("kind") or "element")
    text = str(target.get("text") or "").strip()
    node = names.node(p.get("node", target.get("id")), kind if kind != "edge" else "node",
                      text)
    edge = names.edge(p, text if kind == "edge" else "")
    if name == "node_colour":
        return f"change the colour of {node} to {colour(p.get('colour'))}"
    if name == "node_shape":
        return f"change the shape of {node} to a {str(p.get('shape', 'different shape'))}"
    if name == "node_size":
        old, new = p.get("old_bbox") or names.box(p.get("node")), p.get("bbox")
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
        where = _direction(p.get("old_bbox") or names.box(p.get("node")), p.get("bbox"), p)
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
        return f"add an arrow {edge.removeprefix('the connection ')}"
    if name == "redirect_edge":
        return (f"make {edge} point to "
                f"{names.node(p.get('new_target')).removeprefix('the node ')} instead")
    if name == "edge_path":
        return f"reroute {edge} with a bend"
    rest = ", ".join(f"{k.replace('_', ' ')} {colour(v)}" for k, v in p.items()
                     if k not in ID_PARAMS and isinstance(v, str | bool))
    return f"{name.replace('_', ' ')} {node if kind != 'edge' else edge}" + \
        (f" ({rest})" if rest else "")


def new_texts(ops: list[dict[str, Any]]) -> list[str]:
    """Texts the edit introduces: the instruction must quote each one."""
    return [str(v) for op in ops for k, v in (op.get("params") or {}).items()
            if k in TEXT_PARAMS and isinstance(v, str) and v.strip()]


def _ids(ops: list[dict[str, Any]], graph: str | None) -> set[str]:
    ids: set[str] = set()
    for op in ops:
        t = op.get("target") or {}
        if t.get("id") is not None:
            ids.add(str(t["id"]))
        for k, v in (op.get("params") or {}).items():
            if k in ID_PARAMS and isinstance(v, str | int):
                ids.add(str(v))
    ids |= set(_Names(graph).nodes)
    return ids


def items(edit: dict[str, Any], facts: Facts | None, params: SynthParams
          ) -> list[Item] | tuple[str, str]:
    """The editing item of one edit row, or ``(reason, detail)`` when the row is unusable."""
    try:
        ops = json.loads(edit.get("operations") or "[]")
        if not isinstance(ops, list) or not ops or not all(isinstance(o, dict) for o in ops):
            raise ValueError("operations must be a non-empty JSON list of objects")
        names = _Names(edit.get("source_graph"))
        steps = []
        for o in ops:
            steps.append(step(o, names))
            names.after(o)
    except (ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
        return BAD_EDIT, str(exc)[:200]
    prompt = load_prompt(CONFIG)
    labels = facts.labels[:params.max_labels] if facts else []
    ctx = {"format": edit.get("format") or "diagram", "difficulty": edit.get("difficulty")
           or "", "n_ops": len(ops), "steps": steps,
           "steps_sentence": "; then ".join(steps)}
    user = prompt.render(**ctx, labels_line=", ".join(f'"{x}"' for x in labels) or "(none)",
                         steps_block="\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)))
    req = Request(task=CONFIG, system=prompt.system, user=user, json_schema=SCHEMA,
                  context=ctx, templates=prompt.offline,
                  max_tokens=min(params.max_tokens, MAX_TOKENS))
    ids = _ids(ops, edit.get("source_graph"))
    words = {w for t in (facts.vocabulary if facts else set()) for w in re.findall(r"\w+", t)}
    words |= {norm(w) for t in new_texts(ops) for w in re.findall(r"\w+", t)}
    texts = new_texts(ops)

    def check(data: dict[str, Any]) -> tuple[str, str]:
        text = data["instruction"]
        bad = forbidden_references(text, ids, words)
        if bad:
            return FORBIDDEN, f"{'; '.join(bad[:5])}: {text[:200]!r}"
        missing = [t for t in texts if not mentions(text, t)]
        if missing:
            return INCOMPLETE, f"does not state the new text {missing[:3]}: {text[:200]!r}"
        return "", ""

    base = {k: edit.get(k) for k in COPIED}
    base["template_instruction"] = edit.get("instruction")
    base["grounding"] = facts.origin if facts else None
    return [Item(id=str(edit["id"]), config=CONFIG, diagram_id=str(edit["diagram_id"]),
                 request=req, prompt=prompt, check=check,
                 output=lambda d: {"instruction": d["instruction"].strip()}, base=base)]
