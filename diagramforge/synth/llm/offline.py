"""The offline backend: deterministic answers filled from the JSON schema, no key, no network.

It is the embedded default so ``dvc repro`` runs anywhere.  Answers are schema-valid by
construction: strings are built from the request's own words (picked by an RNG seeded with
the request hash, so the same request always gets the same answer), enums take their first
value, numbers their minimum or 0, arrays their minimum length (at least one item).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from diagramforge.cache import content_key
from diagramforge.synth.llm.params import LLMParams
from diagramforge.synth.llm.tokens import count_tokens, text_tokens
from diagramforge.synth.llm.types import Completion, Message

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")


class OfflineBackend:
    """Template answers; usage counted with the same tokenizer as the estimates."""

    name = "offline"

    def __init__(self, params: LLMParams) -> None:
        self.params = params

    def __repr__(self) -> str:
        return "OfflineBackend()"

    def complete(self, messages: list[Message], schema: dict[str, Any], task: str,
                 sampling: dict[str, Any]) -> Completion:
        seed = content_key(messages, schema, sampling, task)
        rng = random.Random(int(seed[:16], 16))
        user = [m["content"] for m in messages if m["role"] == "user"]
        words = _WORD.findall(user[0] if user else "") or ["item"]
        data = fill(schema, rng, words, name=task)
        text = json.dumps(data, sort_keys=True)
        return Completion(text=text, input_tokens=count_tokens(messages),
                          output_tokens=text_tokens(text),
                          finish_reason="stop")


def _text(rng: random.Random, words: list[str], name: str, schema: dict[str, Any]) -> str:
    lo = int(schema.get("minLength", 0))
    hi = int(schema.get("maxLength", 200))
    n = min(len(words), rng.randint(3, 8))
    start = rng.randrange(0, max(1, len(words) - n + 1))
    text = " ".join(words[start:start + n])
    text = f"{name.replace('_', ' ')}: {text}" if name else text
    while len(text) < lo:
        text += " " + rng.choice(words)
    return text[:hi].rstrip() if len(text[:hi].rstrip()) >= lo else text[:hi]


def fill(schema: dict[str, Any], rng: random.Random, words: list[str],
         name: str = "") -> Any:
    """A value valid against ``schema`` (the subset structured outputs use)."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for alt in ("anyOf", "oneOf"):
        if schema.get(alt):
            return fill(schema[alt][0], rng, words, name)
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(part)
        return fill(merged, rng, words, name)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: fill(v, rng, words, k) for k, v in props.items()}
    if kind == "array":
        n = max(int(schema.get("minItems", 1)), 1)
        if "maxItems" in schema:
            n = min(n, int(schema["maxItems"]))
        return [fill(schema.get("items", {}), rng, words, name) for _ in range(n)]
    if kind in ("integer", "number"):
        lo = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1)
        value = max(0, lo) if schema.get("maximum", 0) >= 0 else schema["maximum"]
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return _text(rng, words, name, schema)
