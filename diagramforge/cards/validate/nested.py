"""Nested Hub features for the columns the stages keep as JSON text.

The stages store ``choices``, ``referents``, ``operations`` and the structure graphs as
canonical JSON strings (one Arrow type whatever the content, stable bytes for the manifest's
row digests). Published, a JSON string is a text blob to ``datasets`` and the Hub's viewer, so
publish declares them as nested ``datasets`` features — lists of strings, lists of records, a
record of node and edge lists — and converts each value on the way out. ``load_dataset`` then
returns Python lists and dicts, in streaming mode too, and the card's ``dataset_info`` carries
the same features since it is written from the same :class:`datasets.Features`.

An operation's ``params`` differ per operation kind (a colour, a bbox, a new end…); a record
type would be the union of every kind's keys, mostly null, and would change whenever an edit
learns a parameter, so ``params`` stays a JSON string inside the typed record.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from datasets import List, Value

from diagramforge.graphs.model import Graph

_S = Value("string")

NODE = {"id": _S, "text": _S, "shape": _S, "bbox": List(Value("float64"))}
EDGE = {"source": _S, "target": _S, "label": _S, "directed": Value("bool"),
        "unattached": List(_S), "both_heads": Value("bool")}
GRAPH = {"nodes": List(NODE), "edges": List(EDGE)}
""":class:`diagramforge.graphs.model.Graph` as a record (same field names)."""

OPERATION = {"op": _S, "target": {"id": _S, "text": _S, "kind": _S},
             "params": _S, "refs": List({"role": _S, "text": _S, "kind": _S})}
"""One atomic edit (:func:`diagramforge.formats.edits.edit`); ``refs`` are the referring
expressions naming each element it acts on (role → text, kind), as a list by role."""


def _strings(text: str) -> list[str | None]:
    return [None if v is None else str(v) for v in json.loads(text)]


def _graph(text: str) -> dict[str, Any]:
    out = Graph.from_json(text).model_dump()  # every key present, defaults filled…
    for e in out["edges"]:  # …but both_heads, which the canonical JSON omits when false
        e.setdefault("both_heads", False)
    return out


def _operation(op: dict[str, Any]) -> dict[str, Any]:
    target = op.get("target") or {}
    refs = op.get("refs") or {}
    return {"op": op.get("op"),
            "target": {k: target.get(k) for k in ("id", "text", "kind")},
            "params": json.dumps(op.get("params") or {}, sort_keys=True, ensure_ascii=False),
            "refs": [{"role": role, "text": (r or {}).get("text"), "kind": (r or {}).get("kind")}
                     for role, r in sorted(refs.items())]}


def _operations(text: str) -> list[dict[str, Any]]:
    return [_operation(op) for op in json.loads(text)]


NESTED: dict[str, tuple[Any, Callable[[str], Any]]] = {
    "choices": (List(_S), _strings),
    "referents": (List(_S), _strings),
    "operations": (List(OPERATION), _operations),
    "graph": (GRAPH, _graph),
    "source_graph": (GRAPH, _graph),
    "target_graph": (GRAPH, _graph),
}
"""Column name → (published feature, JSON text → value). A column is nested only where the
stage wrote it as text: the name alone decides, so every config publishing it agrees."""


def feature(name: str) -> Any | None:
    """The nested feature of column ``name``, or ``None`` if it is published as stored."""
    got = NESTED.get(name)
    return got[0] if got else None


def convert(name: str, values: list[Any]) -> list[Any]:
    """Values of column ``name`` as published: JSON text parsed into lists and records
    (``None`` stays null; a value that is already parsed passes through)."""
    got = NESTED.get(name)
    if got is None:
        return values
    parse = got[1]
    out = []
    for v in values:
        if v is None or not isinstance(v, str | bytes):
            out.append(v)
            continue
        try:
            out.append(parse(v))
        except ValueError as e:  # json and pydantic errors both subclass ValueError
            raise ValueError(f"column {name!r}: not the JSON its stage writes: {e}") from e
    return out


def stored(name: str, value: Any) -> Any:
    """A published value of column ``name`` back in the form the stages store it (JSON
    text), for code that reads the published dataset as its reference — ``evaluate`` reads
    what users download, and scores it with the stages' own functions."""
    if name not in NESTED or value is None or isinstance(value, str | bytes):
        return value
    if name == "operations":
        value = [{"op": op.get("op"), "target": op.get("target") or {},
                  "params": json.loads(op.get("params") or "{}"),
                  "refs": {r["role"]: {"text": r.get("text"), "kind": r.get("kind")}
                           for r in op.get("refs") or []}} for op in value]
    return json.dumps(value, ensure_ascii=False)
