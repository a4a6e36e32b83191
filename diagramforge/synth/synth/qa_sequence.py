"""Sequence-diagram QA: questions about the messages in the order they are sent.

A sequence diagram is its messages in time, down the lifelines — not a node-link graph
(two messages "nope" and "try" from A to B are two moments, not two answers to "what is
the label of the connection from A to B?").  The reading is the format's own: a format
whose reader lists a sequence diagram's messages in the order they are sent declares a
``sequence`` capability (``formats/<name>/sequence.py``, with ``PARTICIPANTS``, the node
shapes its participants get: Mermaid's parse and PlantUML's model, participants of shape
``actor``, messages the edges in the order the diagram sends them; a draw.io page's edges
are in drawing order, not in time, so it has none).  Nodes of other shapes (a PlantUML
title or legend) are not participants.  Only questions with one right answer are asked:

* ``message_order`` — the k-th message from A to B ("What is the 2nd message from "A" to
  "B"?"), asked for a pair that exchanges two or more messages; the first message of the
  whole diagram;
* ``message_sender`` — who sends a message whose text occurs once in the diagram ("Who
  sends "try"?"), the sender's name among the other participants.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from diagramforge.synth.synth.facts import Facts, norm
from diagramforge.synth.synth.qa_common import Question, q


@dataclass(frozen=True)
class Message:
    sender: str
    receiver: str
    text: str


def participants_only(f: Facts, shapes: frozenset[str]) -> Facts:
    """The facts with only the participants as nodes (nodes of one of ``shapes``): what
    the questions name and choose among."""
    return Facts([n for n in f.nodes if n.shape in shapes], f.edges, f.origin, f.extra)


def messages(f: Facts) -> list[Message]:
    """The messages in order, by participant text (participants must have unique texts)."""
    names = {n.id: n.text for n in f.nodes}
    if len({norm(t) for t in names.values()}) < len(names) or not all(names.values()):
        return []  # two participants of one name: "from A" would not say which
    return [Message(names[e.source], names[e.target], e.label) for e in f.edges
            if e.source in names and e.target in names and e.label]


def ordinal(k: int) -> str:
    if 10 <= k % 100 <= 20:
        return f"{k}th"
    return f"{k}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def order(f: Facts, rng: random.Random, n: int) -> list[Question]:
    msgs = messages(f)
    out: list[Question] = []
    if len({norm(m.text) for m in msgs}) < 2:
        return out
    texts = list(dict.fromkeys(m.text for m in msgs))
    first = msgs[0]
    others = [t for t in texts if norm(t) != norm(first.text)]
    out.append(Question("message_order", "first", "What is the first message of the "
                        "sequence diagram?", "which", first.text,
                        rng.sample(others, min(n, len(others))), keywords=["first"]))
    pairs: dict[tuple[str, str], list[Message]] = {}
    for m in msgs:
        pairs.setdefault((m.sender, m.receiver), []).append(m)
    for (a, b), seq in pairs.items():
        if len(seq) < 2 or a == b:
            continue
        k = rng.randrange(len(seq))
        answer = seq[k].text
        others = [t for t in texts if norm(t) != norm(answer)]
        if not others:
            continue
        out.append(Question("message_order", f"nth:{a}:{b}:{k + 1}",
                            f"What is the {ordinal(k + 1)} message from {q(a)} to {q(b)}?",
                            "which", answer, rng.sample(others, min(n, len(others))),
                            referents=[a, b], keywords=[ordinal(k + 1)], order=(a, b)))
    return out


def sender(f: Facts, rng: random.Random, n: int) -> list[Question]:
    msgs = messages(f)
    count: dict[str, int] = {}
    for m in msgs:
        count[norm(m.text)] = count.get(norm(m.text), 0) + 1
    people = list(dict.fromkeys(x.text for x in f.nodes if x.text))
    out = []
    for m in msgs:
        if count[norm(m.text)] != 1 or m.sender == m.receiver:
            continue
        others = [p for p in people if p != m.sender]
        if not others:
            continue
        out.append(Question("message_sender", f"sender:{m.text}", f"Who sends {q(m.text)}?",
                            "which", m.sender, rng.sample(others, min(n, len(others))),
                            referents=[m.text], keywords=["send|sent|sender"]))
    return out


GENERATORS = {"message_order": order, "message_sender": sender}
