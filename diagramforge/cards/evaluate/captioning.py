"""Captioning: sentence BLEU and chrF (sacrebleu) against the published texts, and
grounding.

The references of an item are its ``caption`` and ``description`` (whichever are present):
the model is scored against the closer one, as multi-reference BLEU/chrF do.  Scores are on
sacrebleu's 0–100 scale divided by 100.  ``grounding`` is the share of the spans the output
quotes that are texts of the diagram — the check synth applies to its own captions
(:func:`diagramforge.synth.synth.checks.ungrounded_quotes` over the diagram's vocabulary from
:func:`~diagramforge.synth.synth.facts.facts_of`); ``None`` when the output quotes nothing.
"""

from __future__ import annotations

from typing import Any

import sacrebleu

from diagramforge.cards.evaluate.registry import CAPTIONING
from diagramforge.synth.synth.checks import quoted_spans, ungrounded_quotes
from diagramforge.synth.synth.facts import facts_of

METRICS = CAPTIONING.metrics
GROUP_BY = CAPTIONING.group_by
REFERENCE_COLUMNS = ("caption", "description")


def score_item(ref: dict[str, Any], output: str | None) -> dict[str, Any]:
    refs = [str(ref[c]) for c in REFERENCE_COLUMNS if ref.get(c)]
    text = output or ""
    row: dict[str, Any] = {"id": ref["id"], GROUP_BY: ref.get(GROUP_BY) or "",
                           "reason": None if output is not None else "no_prediction"}
    if refs:
        row["bleu"] = sacrebleu.sentence_bleu(text, refs).score / 100.0
        row["chrf"] = sacrebleu.sentence_chrf(text, refs).score / 100.0
    else:
        row["bleu"] = row["chrf"] = None
    quoted = quoted_spans(text)
    facts, _ = facts_of({"format": ref.get("format"), "code": ref.get("code")})
    if not quoted:
        row["grounding"] = None
    elif facts is None:
        row["grounding"], row["reason"] = None, "diagram_has_no_labels"
    else:
        bad = ungrounded_quotes(text, facts.vocabulary)
        row["grounding"] = 1.0 - len(bad) / len(quoted)
        row["ungrounded"] = bad[:10]
    return row
