"""Editing instructions: phrase the edit stage's verified atomic edits (VCG-Bench style).

The ``edit`` stage (``diagramforge.synth.edit``) chose each edit's operations and targets, applied
and verified them, and named every element they act on by a description that singles it
out in the picture (``diagramforge.synth.referents``). Here code turns each operation into a
plain step ("change the colour of the empty box below "Artist:" to red") — never an id or
a coordinate — and the model phrases the steps as one instruction. Code then checks the
instruction: no element ids, coordinates, attribute names or markup
(``instruction_forbidden``), every new text an operation introduces is quoted verbatim
(``instruction_incomplete``), and every element of step *k* is still singled out by a
description in the text, read against the diagram as it is after steps 1…k−1, with no
vague description left (``instruction_unresolved``: the operations are replayed from the
source code to rebuild those states). An edit whose elements cannot be named — a row from
before the edit stage named them, with no unique description — is ledgered the same way.

Edit rows follow the contract in the edit stage: ``operations`` is a JSON list of
``{"op", "target": {"id", "text", "kind"}, "params"}``; unknown operation names and params
are phrased generically rather than dropped.
"""

from __future__ import annotations

import json
import re
from typing import Any

from diagramforge.formats.scenes import Scene
from diagramforge.graphs.model import Graph
from diagramforge.synth.edit.sampler import replay
from diagramforge.synth.llm.types import Request
from diagramforge.synth.referents.describe import Describer
from diagramforge.synth.referents.grammar import tokens
from diagramforge.synth.referents.naming import EDGE_OPS, name_op, scenes, unresolved
from diagramforge.synth.referents.resolve import DEFAULT, Rules
from diagramforge.synth.referents.steps import instruction, step
from diagramforge.synth.synth.checks import forbidden_references, mentions
from diagramforge.synth.synth.facts import Facts, norm
from diagramforge.synth.synth.items import Item
from diagramforge.synth.synth.prompt import load_prompt
from diagramforge.synth.synth.settings import SynthParams

CONFIG = "editing"
FORBIDDEN = "instruction_forbidden"
INCOMPLETE = "instruction_incomplete"
UNRESOLVED = "instruction_unresolved"
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
def new_texts(ops: list[dict[str, Any]]) -> list[str]:
    """Texts the edit introduces: the instruction must quote each one. (An edge operation's
    ``label`` is the label the edge already has — it identifies the edge, and the edge's
    description says it only when it must.)"""
    return [str(v) for op in ops for k, v in (op.get("params") or {}).items()
            if k in TEXT_PARAMS and isinstance(v, str) and v.strip()
            and not (k == "label" and op.get("op") in EDGE_OPS)]


def quotes_masked(text: str, shown: set[str]) -> str:
    """``text`` with every quoted span that is (the start of) a text the diagram shows
    blanked: a label such as "t=1 mo" or "(0, 1)" is what the reader sees, not an attribute
    or a coordinate."""
    out, at = [], 0
    for t in tokens(text):
        if t.kind != "q":
            continue
        q = norm(t.value.rstrip("…").rstrip(".").strip()) if t.value.endswith(("…", "...")) \
            else norm(t.value)
        if q in shown or (q and any(s.startswith(q) for s in shown if t.value.endswith(
                ("…", "...")))):
            out += [text[at:t.start], '"…"']
            at = t.end
    return "".join(out) + text[at:]


def _ids(ops: list[dict[str, Any]], graphs: list[Graph]) -> set[str]:
    ids: set[str] = set()
    for op in ops:
        t = op.get("target") or {}
        if t.get("id") is not None:
            ids.add(str(t["id"]))
        for k, v in (op.get("params") or {}).items():
            if k in ID_PARAMS and isinstance(v, str | int):
                ids.add(str(v))
    return ids | {n.id for g in graphs for n in g.nodes}


class _Unresolved(Exception):
    pass


def _named(edit: dict[str, Any], ops: list[dict[str, Any]], rules: Rules
           ) -> tuple[list[dict[str, Any]], list[tuple[str, Graph]], list[Scene]]:
    """The operations with the descriptions of their elements (as the edit stage wrote
    them, or written now), the replayed states and their scenes; :class:`_Unresolved`
    saying why not."""
    fmt = str(edit.get("format") or "")
    try:
        states = replay(fmt, str(edit.get("source_code") or ""), ops)
    except Exception as exc:  # noqa: BLE001 - any failure to replay leaves nothing to check
        raise _Unresolved(f"the operations do not replay on the source code: {exc!r}"[:300]
                          ) from None
    views = scenes(fmt, states, rules)
    named = []
    for k, op in enumerate(ops):
        if not op.get("refs"):
            refs = name_op(Describer(views[k], rules), op, states[k][1])
            if refs is None:
                raise _Unresolved(f"step {k + 1} ({op.get('op')}): no description singles out "
                                  "an element it acts on")
            op = {**op, "refs": refs}
        named.append(op)
    return named, states, views


def items(edit: dict[str, Any], facts: Facts | None, params: SynthParams,
          rules: Rules = DEFAULT) -> list[Item] | tuple[str, str]:
    """The editing item of one edit row, or ``(reason, detail)`` when the row is unusable."""
    try:
        ops = json.loads(edit.get("operations") or "[]")
        if not isinstance(ops, list) or not ops or not all(isinstance(o, dict) for o in ops):
            raise ValueError("operations must be a non-empty JSON list of objects")
    except (ValueError, TypeError) as exc:
        return BAD_EDIT, str(exc)[:200]
    try:
        ops, states, views = _named(edit, ops, rules)
    except _Unresolved as exc:
        return UNRESOLVED, str(exc)
    try:
        steps = [step(o, None, states[k][1]) for k, o in enumerate(ops)]
    except (ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
        return BAD_EDIT, str(exc)[:200]
    problems = unresolved("; then ".join(steps), ops, states, views, rules)
    if problems:  # descriptions written for another diagram state than this one
        return UNRESOLVED, f"{'; '.join(problems[:3])}"[:300]
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
    ids = _ids(ops, [g for _, g in states])
    words = {w for t in (facts.vocabulary if facts else set()) for w in re.findall(r"\w+", t)}
    words |= {norm(w) for t in new_texts(ops) for w in re.findall(r"\w+", t)}
    texts = new_texts(ops)

    shown = {norm(n.text) for v in views for n in v.nodes.values() if n.text} | {
        norm(e.text) for v in views for e in v.edges.values() if e.text} | {
        norm(t) for t in texts}

    def check(data: dict[str, Any]) -> tuple[str, str]:
        text = data["instruction"]
        bad = forbidden_references(quotes_masked(text, shown), ids, words)
        if bad:
            return FORBIDDEN, f"{'; '.join(bad[:5])}: {text[:200]!r}"
        missing = [t for t in texts if not mentions(text, t)]
        if missing:
            return INCOMPLETE, f"does not state the new text {missing[:3]}: {text[:200]!r}"
        lost = unresolved(text, ops, states, views, rules)
        if lost:
            return UNRESOLVED, f"{'; '.join(lost[:3])}: {text[:200]!r}"
        return "", ""

    base = {k: edit.get(k) for k in COPIED}
    base["operations"] = json.dumps(ops, sort_keys=True)  # with the descriptions checked
    base["template_instruction"] = instruction(ops, [g for _, g in states])
    base["grounding"] = facts.origin if facts else None
    return [Item(id=str(edit["id"]), config=CONFIG, diagram_id=str(edit["diagram_id"]),
                 request=req, prompt=prompt, check=check,
                 output=lambda d: {"instruction": d["instruction"].strip()}, base=base)]
