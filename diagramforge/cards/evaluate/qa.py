"""QA: exact, inclusion and option accuracy per question type (VCG-Bench's counting,
identification, relationship; reachability).

Answers are compared after the graph layer's text normalisation
(:func:`diagramforge.graphs.score.normalise_text`: case, Unicode form, punctuation and
spacing do not count).  ``exact``: the output is the answer.  ``inclusion``: the answer
appears in the output as whole words.  ``option``: the option the output picks — a leading
choice whose text the output is, else a leading letter (``B``, ``(B)``, ``B.``) among the
item's choices — is ``answer_option``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from diagramforge.cards.evaluate.registry import QA
from diagramforge.graphs.score import normalise_text
from diagramforge.synth.synth.qa import OPTIONS

METRICS = QA.metrics
GROUP_BY = QA.group_by
_LETTER = re.compile(r"^\s*\(?([A-Za-z])\)?(?:[.):]|\s|$)")


def picked_option(output: str, choices: list[str]) -> str | None:
    """The option letter the output picks, or ``None``.  An output that is one choice's
    text picks that choice first (a node named "A" among the choices is that node, not
    option A), then a leading option letter."""
    letters = OPTIONS[:len(choices)]
    norm = normalise_text(output)
    hits = [letters[k] for k, c in enumerate(choices) if normalise_text(c) == norm]
    if len(hits) == 1:
        return hits[0]
    m = _LETTER.match(output)
    if m and m.group(1).upper() in letters and (len(output.strip()) <= 3 or m.group(0)[-1:]
                                                in ".):"):
        return m.group(1).upper()
    return None


def score_item(ref: dict[str, Any], output: str | None) -> dict[str, Any]:
    answer = normalise_text(str(ref["answer"]))
    out = normalise_text(output or "")
    choices = json.loads(ref["choices"]) if ref.get("choices") else []
    pick = picked_option(output or "", choices) if choices else None
    included = bool(answer) and re.search(rf"(?<!\w){re.escape(answer)}(?!\w)", out) is not None
    return {"id": ref["id"], GROUP_BY: ref.get(GROUP_BY) or "",
            "exact": float(out == answer), "inclusion": float(included),
            "option": None if not choices else float(pick == ref.get("answer_option")),
            "picked": pick, "reason": None if output is not None else "no_prediction"}
