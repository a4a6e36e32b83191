"""The offline backend: deterministic answers filled from the JSON schema, no key, no network.

It is the embedded default so ``dvc repro`` runs anywhere.  The answer is built from the
request's structured ``context`` (the facts the prompt was written from) and ``templates``
(format strings over that context, keyed by schema property name), walking the schema:

- a context value under the property's name that is valid for its sub-schema is used as is
  (the answer code computed, the chosen labels…); a dict or list is walked into, so an array
  of objects gets one item per context item;
- a string with a template is the template formatted over the context in scope (the current
  object's context first, then the enclosing ones); a list of templates is a choice of
  wordings; ``{labels}`` of a list joins it with ", ", ``{labels[0]}`` indexes it;
- anything else is filled by construction: strings from the words of the context (or of the
  user message), enums take their first value, numbers their minimum or 0, arrays their
  minimum length (at least one item).

Every choice comes from an RNG seeded with the request hash, so the same request always gets
the same answer and a different seed may word it differently.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections import ChainMap
from typing import Any

import jsonschema

from diagramforge.store.cache import content_key
from diagramforge.synth.llm.settings import LLMParams
from diagramforge.synth.llm.tokens import count_tokens, text_tokens
from diagramforge.synth.llm.types import BackendCall, Completion

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")
_ABSENT = object()


class OfflineBackend:
    """Template answers; usage counted with the same tokenizer as the estimates."""

    name = "offline"

    def __init__(self, params: LLMParams) -> None:
        self.params = params

    def __repr__(self) -> str:
        return "OfflineBackend()"

    def complete(self, call: BackendCall) -> Completion:
        seed = content_key(call.messages, call.schema, call.sampling, call.task,
                           call.context, call.templates)
        rng = random.Random(int(seed[:16], 16))
        words = _context_words(call.context)
        if not words:
            user = [m["content"] for m in call.messages if m["role"] == "user"]
            words = _WORD.findall(user[0] if user else "")
        data = fill(call.schema, rng, words or ["item"], call.task,
                    call.context or _ABSENT, call.templates)
        text = json.dumps(data, sort_keys=True)
        return Completion(text=text, input_tokens=count_tokens(call.messages),
                          output_tokens=text_tokens(text), finish_reason="stop")


class _Joined(list):
    """A context list that formats as ``a, b, c`` but still indexes."""

    def __format__(self, spec: str) -> str:
        return format(", ".join(str(x) for x in self), spec)


def _scoped(ctx: dict[str, Any]) -> dict[str, Any]:
    return {k: _Joined(v) if isinstance(v, list) else v for k, v in ctx.items()}


def _context_words(ctx: Any) -> list[str]:
    """The words of every string in the context, in order."""
    if isinstance(ctx, str):
        return _WORD.findall(ctx)
    if isinstance(ctx, dict):
        return [w for v in ctx.values() for w in _context_words(v)]
    if isinstance(ctx, list):
        return [w for v in ctx for w in _context_words(v)]
    return []


def _valid(value: Any, schema: dict[str, Any]) -> bool:
    try:
        return jsonschema.Draft202012Validator(schema).is_valid(value)
    except Exception:  # noqa: BLE001 - e.g. a $ref unresolvable out of context: do not trust
        return False


class _Filler:
    def __init__(self, rng: random.Random, words: list[str],
                 templates: dict[str, str | list[str]]) -> None:
        self.rng, self.words, self.templates = rng, words, templates

    def fill(self, schema: dict[str, Any], ctx: Any, scope: ChainMap, name: str = "") -> Any:
        """A value valid against ``schema`` (the subset structured outputs use)."""
        if ctx is not _ABSENT and not isinstance(ctx, dict | list) and _valid(ctx, schema):
            return ctx
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            templated = self._template(name, scope)
            return templated if templated in schema["enum"] else schema["enum"][0]
        for alt in ("anyOf", "oneOf"):
            if schema.get(alt):
                for option in schema[alt]:  # the first option the context fits, else the first
                    if ctx is not _ABSENT and _valid(ctx, option):
                        return self.fill(option, ctx, scope, name)
                return self.fill(schema[alt][0], ctx, scope, name)
        if schema.get("allOf"):
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                merged.update(part)
            return self.fill(merged, ctx, scope, name)
        kind = schema.get("type", "object" if "properties" in schema else "string")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind == "object":
            local = ctx if isinstance(ctx, dict) else {}
            inner = scope.new_child(_scoped(local)) if local else scope
            return {k: self.fill(v, local.get(k, _ABSENT), inner, k)
                    for k, v in schema.get("properties", {}).items()}
        if kind == "array":
            return self._array(schema, ctx, scope, name)
        if kind in ("integer", "number"):
            lo = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1)
            value = max(0, lo) if schema.get("maximum", 0) >= 0 else schema["maximum"]
            return int(value) if kind == "integer" else float(value)
        if kind == "boolean":
            return False
        if kind == "null":
            return None
        text = self._template(name, scope)
        return self._fit(text if text is not None else self._words(name), schema)

    def _array(self, schema: dict[str, Any], ctx: Any, scope: ChainMap, name: str) -> list[Any]:
        lo = int(schema.get("minItems", 0 if isinstance(ctx, list) else 1))
        hi = int(schema.get("maxItems", 10**9))
        items = schema.get("items", {})
        given = ctx if isinstance(ctx, list) else []
        out = [self.fill(items, c, scope, name) for c in given[:hi]]
        while len(out) < min(max(lo, 1 if not given else 0), hi):
            out.append(self.fill(items, _ABSENT, scope, name))
        return out

    def _template(self, name: str, scope: ChainMap) -> str | None:
        options = self.templates.get(name)
        if not options:
            return None
        if isinstance(options, str):
            options = [options]
        template = options[self.rng.randrange(len(options))]
        try:
            return template.format_map(scope)
        except (KeyError, IndexError, AttributeError, ValueError, TypeError):
            return None  # a template naming a fact this request lacks: fall back

    def _words(self, name: str) -> str:
        n = min(len(self.words), self.rng.randint(3, 8))
        start = self.rng.randrange(0, max(1, len(self.words) - n + 1))
        text = " ".join(self.words[start:start + n])
        return f"{name.replace('_', ' ')}: {text}" if name else text

    def _fit(self, text: str, schema: dict[str, Any]) -> str:
        lo = int(schema.get("minLength", 0))
        hi = int(schema.get("maxLength", 10**6))
        while len(text) < lo:
            text += " " + self.rng.choice(self.words)
        text = text[:hi]
        return text.rstrip() if len(text.rstrip()) >= lo else text


def fill(schema: dict[str, Any], rng: random.Random, words: list[str], name: str = "",
         context: Any = _ABSENT, templates: dict[str, str | list[str]] | None = None) -> Any:
    """A value valid against ``schema``, from ``context`` and ``templates`` where they fit."""
    filler = _Filler(rng, words, templates or {})
    scope = ChainMap(_scoped(context) if isinstance(context, dict) else {})
    return filler.fill(copy.deepcopy(schema), context, scope, name)
