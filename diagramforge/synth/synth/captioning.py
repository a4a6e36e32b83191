"""Captioning: a short caption for diagrams without one, a detailed description for all.

Grounded: the prompt carries the diagram's labels and connections (its graph, or a parse of
its code), and the answer is rejected (``caption_ungrounded``) if it quotes a text the
diagram does not show. An author's caption is kept as the caption (``caption_source =
"author"``); the model then writes only the description.
"""

from __future__ import annotations

from typing import Any

from diagramforge.synth.llm.types import Request
from diagramforge.synth.synth.checks import ungrounded_quotes
from diagramforge.synth.synth.facts import Facts
from diagramforge.synth.synth.items import Item, item_id
from diagramforge.synth.synth.prompt import bullet, load_prompt
from diagramforge.synth.synth.settings import SynthParams

CONFIG = "captioning"
UNGROUNDED = "caption_ungrounded"

MAX_TOKENS = 768
"""Output cap of a captioning call (the schema allows ~2,300 characters): bounds the budget's
worst case per call without cutting a valid answer."""
_TEXT = {"type": "string", "minLength": 10, "maxLength": 2000}


def schema(with_caption: bool) -> dict[str, Any]:
    props = {"caption": {"type": "string", "minLength": 5, "maxLength": 300}} \
        if with_caption else {}
    props["description"] = _TEXT
    return {"type": "object", "properties": props, "required": sorted(props),
            "additionalProperties": False}


def items(row: dict[str, Any], facts: Facts, params: SynthParams) -> list[Item]:
    """One captioning item for the diagram ``row``."""
    prompt = load_prompt(CONFIG)
    author = (row.get("caption") or "").strip()
    ctx = facts.context(params.max_labels)
    ctx["format"] = row.get("format") or "diagram"
    ask = ("Write a detailed description (2-5 sentences) of the diagram's structure."
           if author else
           "Write a one-sentence caption and a detailed description (2-5 sentences).")
    user = prompt.render(**ctx, labels_block=bullet(ctx["labels"]),
                         edges_block=bullet(ctx["edges"]),
                         caption_or_none=author or "(none)", ask=ask)
    req = Request(task=CONFIG, system=prompt.system, user=user, json_schema=schema(not author),
                  context=ctx, templates=prompt.offline,
                  max_tokens=min(params.max_tokens, MAX_TOKENS))

    def check(data: dict[str, Any]) -> tuple[str, str]:
        bad = [q for k in ("caption", "description") if k in data
               for q in ungrounded_quotes(data[k], facts.vocabulary)]
        return (UNGROUNDED, f"quotes labels the diagram lacks: {bad[:5]}") if bad else ("", "")

    def output(data: dict[str, Any]) -> dict[str, Any]:
        return {"caption": author or data["caption"].strip(),
                "caption_source": "author" if author else "generated",
                "description": data["description"].strip()}

    return [Item(id=item_id(row["id"], CONFIG), config=CONFIG, diagram_id=row["id"],
                 request=req, prompt=prompt, check=check, output=output,
                 base={"grounding": facts.origin})]
