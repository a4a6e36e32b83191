"""AugTikZ variations: a diagram's code restyled, recoloured or re-spaced by an LLM.

The request asks the model for one kind of variation (``colour``, ``style`` or ``layout``)
that keeps every node and label. The offline backend answers with the rule-based variation
the format computes (its ``augment`` capability, carried in the request's ``context``), so
the whole path — request, cache, metering, checks, rendering — runs and is tested without a
key. What comes back is only a candidate: the stage keeps it if it renders, stays in the
token window, keeps the node texts, and is not a near-duplicate of the original or a kept
sibling.
"""

from __future__ import annotations

import random
from types import ModuleType

from diagramforge.formats.augments import KINDS
from diagramforge.synth.llm.types import Request

__all__ = ["KINDS", "SCHEMA", "request"]

SCHEMA = {"type": "object", "properties": {"code": {"type": "string"}},
          "required": ["code"], "additionalProperties": False}
_ASK = {"colour": "Recolour it with a different, coherent palette.",
        "style": "Change its drawing style (line widths, corner rounding, shadows).",
        "layout": "Change its spacing (distances between elements), not its structure."}


def request(code: str, fmt: ModuleType, kind: str, rng: random.Random, prompt_version: str
            ) -> Request:
    """The LLM request for one variation of code in the format whose ``augment`` capability
    is ``fmt``; its context carries the rule-based answer the offline backend returns."""
    return Request(
        task="augment_variation",
        system=f"You vary diagrams written as {fmt.LANGUAGE}. Prompt {prompt_version}.",
        user=(f"{_ASK[kind]} Keep every node, edge and text label exactly as it is, and keep "
              f"the code valid {fmt.LANGUAGE}. Answer with the complete new code.\n\n{code}"),
        json_schema=SCHEMA, context={"code": fmt.variation(code, kind, rng)})
