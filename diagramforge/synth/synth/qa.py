"""QA: counting, identification, relationship (VCG-Bench) and reachability (SciFlow) of
graphs; axes, series and values of charts (ChartQA, PlotQA: :mod:`.qa_chart`); messages in
order of sequence diagrams (:mod:`.qa_sequence`).

Code writes each question from what the picture is — its structure graph only when the
picture is a graph and the graph explains its render (:class:`Ground`, decided by the stage
through :mod:`diagramforge.synth.referents.grounded`), a chart's own data, a sequence diagram's
messages — and computes its answer and its multiple-choice distractors; the model only
paraphrases the question, and :func:`~diagramforge.synth.synth.checks.paraphrase_problems`
rejects a paraphrase that could change the answer (``qa_paraphrase_changed``). Questions
name elements only by texts that are unique in the diagram, so every referent is
unambiguous; a question with more than one right answer on the picture is not asked (two
parallel edges from A to B: no "label of the connection from A to B"), and
:func:`one_answer` drops, before any call, questions of one diagram that share an id or a
question text with different answers (``qa_not_unique``).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx

from diagramforge.formats.charts import Chart
from diagramforge.synth.llm.types import Request
from diagramforge.synth.synth import qa_chart, qa_sequence
from diagramforge.synth.synth.checks import paraphrase_problems
from diagramforge.synth.synth.facts import Facts, FNode
from diagramforge.synth.synth.items import Item, item_id
from diagramforge.synth.synth.prompt import load_prompt
from diagramforge.synth.synth.qa_common import Question
from diagramforge.synth.synth.qa_common import numbers as _numbers
from diagramforge.synth.synth.qa_common import q as _q
from diagramforge.synth.synth.settings import SynthParams

CONFIG = "qa"
CHANGED = "qa_paraphrase_changed"
NOT_UNIQUE = "qa_not_unique"
GRAPH, CHART, SEQUENCE = "graph", "chart", "sequence"
SCHEMA = {"type": "object", "properties": {"question": {"type": "string", "minLength": 8,
                                                        "maxLength": 400}},
          "required": ["question"], "additionalProperties": False}
MAX_TOKENS = 200
"""Output cap of a paraphrase call (the schema allows 400 characters)."""
SHAPES = ("rectangle", "ellipse", "circle", "diamond", "triangle", "hexagon", "cylinder",
          "parallelogram")
ALIKE = {"ellipse": {"circle"}, "circle": {"ellipse"}}
"""Shapes one of which is the other (a circle is an ellipse): never each other's wrong option,
and not counted apart — a reader looking at a round shape can rightly give either name."""
YES, NO = "Yes", "No"
OPTIONS = "ABCDEFGH"
"""Letters of the multiple-choice options (``answer_option`` is the answer's letter)."""
_CONN = "connection|connect|edge|link|arrow|line"


def counting(f: Facts, rng: random.Random, n: int) -> list[Question]:
    out = []
    if not any(x.shape == "container" for x in f.elements):
        # a group's frame (a package, a cluster, a concurrent region) is an element to one
        # reader and not to another: with one drawn, "how many elements" has no one answer
        out.append(Question("counting", "nodes", "How many elements does the diagram contain?",
                            "count", str(len(f.elements)), _numbers(len(f.elements), rng, n),
                            keywords=["element|node|box|shape|item|component"]))
    if f.edges:
        out.append(Question("counting", "edges", "How many connections does the diagram have?",
                            "count", str(len(f.edges)), _numbers(len(f.edges), rng, n),
                            keywords=[_CONN]))
    degree = {u.id: 0 for u in f.nodes}
    for e in f.attached:
        degree[e.source] += 1
        if e.target != e.source:
            degree[e.target] += 1
    for node in f.unique_nodes:
        if degree[node.id]:
            out.append(Question("counting", f"degree:{node.id}",
                                f"How many connections does {_q(node.text)} have?", "count",
                                str(degree[node.id]), _numbers(degree[node.id], rng, n),
                                referents=[node.text], keywords=[_CONN]))
    shapes = {n.shape for n in f.nodes if n.shape in SHAPES}
    if len(shapes) > 1:
        for shape in sorted(shapes):
            if ALIKE.get(shape, set()) & shapes:
                continue
            k = sum(1 for x in f.nodes if x.shape == shape)
            out.append(Question("counting", f"shape:{shape}",
                                f"How many {shape} shapes are there in the diagram?", "count",
                                str(k), _numbers(k, rng, n), keywords=[shape]))
    return out


def _other_labels(f: Facts, exclude: set[str], rng: random.Random, n: int) -> list[str]:
    pool = [t for t in f.element_labels if t not in exclude]
    return rng.sample(pool, min(n, len(pool)))


def identification(f: Facts, rng: random.Random, n: int) -> list[Question]:
    out: list[Question] = []
    unique = {x.id: x for x in f.unique_nodes}
    for node in f.unique_nodes:
        succ = [e.target for e in f.attached if e.directed and e.source == node.id]
        if len(succ) == 1 and succ[0] in unique and succ[0] != node.id:
            target = unique[succ[0]].text
            out.append(Question("identification", f"succ:{node.id}",
                                f"Which element does the arrow from {_q(node.text)} point to?",
                                "which", target,
                                _other_labels(f, {target, node.text}, rng, n),
                                referents=[node.text], keywords=[_CONN]))
    between = Counter((e.source, e.target) for e in f.attached)
    for e in f.attached:
        if between[(e.source, e.target)] > 1:
            continue  # parallel edges: "the label of the connection" has several answers
        if e.label and e.source in unique and e.target in unique and e.source != e.target:
            a, b = unique[e.source].text, unique[e.target].text
            others = [x for x in f.edge_labels if x != e.label]
            if others:
                out.append(Question("identification", f"elabel:{e.source}:{e.target}",
                                    f"What is the label of the connection from {_q(a)} to "
                                    f"{_q(b)}?", "which", e.label,
                                    rng.sample(others, min(n, len(others))),
                                    referents=[a, b], keywords=["label|text|say|read"],
                                    order=(a, b)))
    if len({x.shape for x in f.nodes if x.shape in SHAPES}) > 1:
        for node in f.unique_nodes:
            if node.shape in SHAPES:
                alike = ALIKE.get(node.shape, set())
                wrong = [s for s in SHAPES if s != node.shape and s not in alike]
                out.append(Question("identification", f"shape:{node.id}",
                                    f"What shape is the element {_q(node.text)}?", "which",
                                    node.shape, rng.sample(wrong, min(n, len(wrong))),
                                    referents=[node.text], keywords=["shape|form"]))
    return out


def _pairs(nodes: list[FNode], rng: random.Random, limit: int = 200) -> list[tuple[FNode, FNode]]:
    pairs = [(a, b) for a in nodes for b in nodes if a.id != b.id]
    rng.shuffle(pairs)
    return pairs[:limit]


def relationship(f: Facts, rng: random.Random, n: int) -> list[Question]:
    g = f.digraph
    out: list[Question] = []
    yes = no = None
    for a, b in _pairs(f.unique_nodes, rng):
        # asked about arrows, only an arrow is a yes (a line between them is neither answer)
        linked = (f.arrows if f.directed else g).has_edge(a.id, b.id)
        if linked and yes is None:
            yes = (a, b)
        if not linked and not g.has_edge(b.id, a.id) and no is None:
            no = (a, b)
    for pair, answer in ((yes, YES), (no, NO)):
        if pair is None:
            continue
        a, b = pair
        if f.directed:
            text = f"Is there a direct arrow from {_q(a.text)} to {_q(b.text)}?"
            order = (a.text, b.text)
        else:
            text = f"Are {_q(a.text)} and {_q(b.text)} directly connected?"
            order = None
        out.append(Question("relationship", f"adj:{a.id}:{b.id}", text, "yesno", answer,
                            [NO if answer == YES else YES], referents=[a.text, b.text],
                            keywords=[_CONN], order=order))
    return out


def reachability(f: Facts, rng: random.Random, n: int) -> list[Question]:
    if not f.directed:
        return []
    g, arrows = f.digraph, f.arrows
    yes = no = None
    for a, b in _pairs(f.unique_nodes, rng):
        # yes along arrows alone; no when not even a line leads there; a way that needs a
        # line (a note's tie, an interface's socket) answers neither, so is not asked
        if yes is None and nx.has_path(arrows, a.id, b.id) and not g.has_edge(a.id, b.id):
            yes = (a, b)  # a path of two or more steps: the interesting case
        if no is None and not nx.has_path(g, a.id, b.id):
            no = (a, b)
    out = []
    for pair, answer in ((yes, YES), (no, NO)):
        if pair is not None:
            a, b = pair
            out.append(Question("reachability", f"path:{a.id}:{b.id}",
                                f"Following the arrows, can you get from {_q(a.text)} to "
                                f"{_q(b.text)}?", "yesno", answer,
                                [NO if answer == YES else YES], referents=[a.text, b.text],
                                keywords=["arrow|follow|path|reach|route|get"],
                                order=(a.text, b.text)))
    return out


@dataclass
class Ground:
    """What a picture's questions are computed from: its structure graph (``graph``), its
    chart's data (``chart``) or its messages in order (``sequence``).  ``shows`` says
    whether a text is on the picture's render (a chart question quotes only those);
    ``participants``, the node shapes the format's reader gives a sequence diagram's
    participants (its ``sequence`` capability: the title or a note is no participant)."""

    kind: str
    facts: Facts
    chart: Chart | None = None
    shows: Callable[[str], bool] = lambda _text: True
    participants: frozenset[str] = frozenset()


def _graph(gen: Callable[[Facts, random.Random, int], list[Question]]
           ) -> Callable[[Ground, random.Random, int], list[Question]]:
    return lambda g, rng, n: gen(g.facts, rng, n)


def _sequence(gen: Callable[[Facts, random.Random, int], list[Question]]
              ) -> Callable[[Ground, random.Random, int], list[Question]]:
    return lambda g, rng, n: gen(qa_sequence.participants_only(g.facts, g.participants),
                                 rng, n)


def _chart(gen: Callable[..., list[Question]]
           ) -> Callable[[Ground, random.Random, int], list[Question]]:
    return lambda g, rng, n: gen(g.chart, g.shows, rng, n) if g.chart is not None else []


GENERATORS: dict[str, tuple[str, Callable[[Ground, random.Random, int], list[Question]]]] = {
    "counting": (GRAPH, _graph(counting)), "identification": (GRAPH, _graph(identification)),
    "relationship": (GRAPH, _graph(relationship)),
    "reachability": (GRAPH, _graph(reachability)),
    **{t: (CHART, _chart(fn)) for t, fn in qa_chart.GENERATORS.items()},
    **{t: (SEQUENCE, _sequence(fn)) for t, fn in qa_sequence.GENERATORS.items()},
}
"""``qa_type`` → (the grounding it needs, its generator)."""


def questions(ground: Ground, params: SynthParams, diagram_id: str) -> list[Question]:
    """Up to ``qa_per_type`` questions of each type in ``params.qa_types`` that the
    picture's grounding answers, seeded per diagram so a rerun asks the same ones."""
    rng = random.Random(f"{params.seed}:{diagram_id}")
    out: list[Question] = []
    for t in params.qa_types:
        kind, gen = GENERATORS[t]
        if kind != ground.kind:
            continue
        # a choice among one option is no question: "which element does the arrow from Hi
        # point to? (Plain)" in a two-box diagram (7 of 214 sample questions were)
        cands = [q for q in gen(ground, rng, params.choices - 1)
                 if q.form != "which" or q.distractors]
        out += rng.sample(cands, min(params.qa_per_type, len(cands)))
    return out


def one_answer(qs: list[Question]) -> tuple[list[Question], list[tuple[Question, str]]]:
    """The questions that are unique by construction: one per key (the row's id) and one
    answer per question text.  The rest, with why, are ledgered (never a validation
    failure of the release)."""
    keys = Counter(x.key for x in qs)
    answers: dict[str, set[str]] = {}
    for x in qs:
        answers.setdefault(x.text, set()).add(x.answer)
    kept, dropped = [], []
    for x in qs:
        if keys[x.key] > 1:
            dropped.append((x, f"{keys[x.key]} questions share the key {x.key!r}"))
        elif len(answers[x.text]) > 1:
            dropped.append((x, f"{x.text!r} has {len(answers[x.text])} right answers: "
                            + ", ".join(repr(a) for a in sorted(answers[x.text])[:4])))
        else:
            kept.append(x)
    return kept, dropped


def choices_of(q: Question, rng: random.Random) -> tuple[list[str], int]:
    """The answer among its distractors, in a seeded order, and its index."""
    opts = [q.answer, *q.distractors]
    if q.form == "yesno":
        opts = [YES, NO]
    elif q.form == "count":
        opts.sort(key=int)
    else:
        rng.shuffle(opts)
    return opts, opts.index(q.answer)


def items(row: dict[str, Any], ground: Ground, params: SynthParams
          ) -> tuple[list[Item], list[tuple[str, str, str]]]:
    """The diagram's QA items, and ``(item id, reason, detail)`` of the questions
    :func:`one_answer` dropped."""
    prompt = load_prompt(CONFIG)
    out = []
    facts = ground.facts
    rng = random.Random(f"{params.seed}:{row['id']}:choices")
    kept, dropped = one_answer(questions(ground, params, row["id"]))
    labels = sorted({*facts.labels, *facts.edge_labels}) if ground.kind != GRAPH \
        else facts.labels
    for q in kept:
        choices, index = choices_of(q, rng)
        ctx = {"template_question": q.text, "question_tail": q.text[0].lower() + q.text[1:],
               "qa_type": q.qa_type, "answer": q.answer}
        req = Request(task=CONFIG, system=prompt.system, user=prompt.render(**ctx),
                      json_schema=SCHEMA, context=ctx, templates=prompt.offline,
                      max_tokens=min(params.max_tokens, MAX_TOKENS))

        def check(data: dict[str, Any], q: Question = q) -> tuple[str, str]:
            bad = paraphrase_problems(q.text, data["question"], q.form, q.referents,
                                      q.answer, labels, q.keywords, q.order)
            return (CHANGED, f"{'; '.join(bad)}: {data['question'][:200]!r}") if bad \
                else ("", "")

        out.append(Item(
            id=item_id(row["id"], CONFIG, q.key), config=CONFIG, diagram_id=row["id"],
            request=req, prompt=prompt, check=check,
            output=lambda d: {"question": d["question"].strip()},
            base={"qa_type": q.qa_type, "template_question": q.text, "answer": q.answer,
                  "choices": json.dumps(choices, ensure_ascii=False),
                  "answer_option": OPTIONS[index],
                  "referents": json.dumps(q.referents, ensure_ascii=False),
                  "grounding": ground.kind}))
    return out, [(item_id(row["id"], CONFIG, q.key), NOT_UNIQUE, why) for q, why in dropped]
