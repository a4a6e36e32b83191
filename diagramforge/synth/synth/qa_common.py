"""What every QA generator shares: the question code can answer, and its helpers."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass
class Question:
    """A question code can answer: template text, form, answer, referents, checks.

    ``key`` identifies the question within its diagram — what makes it unique (the
    element, the pair, the message's place) — and so the row's id."""

    qa_type: str
    key: str
    text: str
    form: str  # count | yesno | which
    answer: str
    distractors: list[str]
    referents: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    order: tuple[str, str] | None = None


def q(label: str) -> str:
    return f'"{label}"'


def numbers(answer: int, rng: random.Random, n: int) -> list[str]:
    pool = [x for x in range(max(0, answer - 3), answer + 4) if x != answer]
    return [str(x) for x in rng.sample(pool, min(n, len(pool)))]
