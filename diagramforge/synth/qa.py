"""QA: counting, identification, relationship (VCG-Bench) and reachability (SciFlow).

Code writes each question from the diagram's graph and computes its answer and its
multiple-choice distractors; the model only paraphrases the question, and
:func:`~diagramforge.synth.checks.paraphrase_problems` rejects a paraphrase that could
change the answer (``qa_paraphrase_changed``). Questions name elements only by texts that
are unique in the diagram, so every referent is unambiguous.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from diagramforge.llm.types import Request
from diagramforge.synth.checks import paraphrase_problems
from diagramforge.synth.facts import Facts, FNode
from diagramforge.synth.items import Item, item_id
from diagramforge.synth.prompt import load_prompt
from diagramforge.synth.settings import SynthParams

CONFIG = "qa"
CHANGED = "qa_paraphrase_changed"
SCHEMA = {"type": "object", "properties": {"question": {"type": "string", "minLength": 8,
                                                        "maxLength": 400}},
          "required": ["question"], "additionalProperties": False}
MAX_TOKENS = 200
"""Output cap of a paraphrase call (the schema allows 400 characters)."""
SHAPES = ("rectangle", "ellipse", "circle", "diamond", "triangle", "hexagon", "cylinder",
          "parallelogram")
YES, NO = "Yes", "No"
OPTIONS = "ABCDEFGH"
"""Letters of the multiple-choice options (``answer_option`` is the answer's letter)."""
_CONN = "connection|connect|edge|link|arrow|line"


@dataclass
class Question:
    """A question code can answer: template text, form, answer, referents, checks."""

    qa_type: str
    key: str
    text: str
    form: str  # count | yesno | which
    answer: str
    distractors: list[str]
    referents: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    order: tuple[str, str] | None = None


def _q(label: str) -> str:
    return f'"{label}"'


def _numbers(answer: int, rng: random.Random, n: int) -> list[str]:
    pool = [x for x in range(max(0, answer - 3), answer + 4) if x != answer]
    return [str(x) for x in rng.sample(pool, min(n, len(pool)))]


def counting(f: Facts, rng: random.Random, n: int) -> list[Question]:
    out = [Question("counting", "nodes", "How many elements does the diagram contain?",
                    "count", str(len(f.nodes)), _numbers(len(f.nodes), rng, n),
                    keywords=["element|node|box|shape|item|component"])]
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
            k = sum(1 for x in f.nodes if x.shape == shape)
            out.append(Question("counting", f"shape:{shape}",
                                f"How many {shape} shapes are there in the diagram?", "count",
                                str(k), _numbers(k, rng, n), keywords=[shape]))
    return out


def _other_labels(f: Facts, exclude: set[str], rng: random.Random, n: int) -> list[str]:
    pool = [t for t in f.labels if t not in exclude]
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
    for e in f.attached:
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
                out.append(Question("identification", f"shape:{node.id}",
                                    f"What shape is the element {_q(node.text)}?", "which",
                                    node.shape,
                                    rng.sample([s for s in SHAPES if s != node.shape], n),
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
        linked = g.has_edge(a.id, b.id)
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
    g = f.digraph
    yes = no = None
    for a, b in _pairs(f.unique_nodes, rng):
        reach = nx.has_path(g, a.id, b.id)
        if reach and not g.has_edge(a.id, b.id) and yes is None:
            yes = (a, b)  # a path of two or more steps: the interesting case
        if not reach and no is None:
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


GENERATORS = {"counting": counting, "identification": identification,
              "relationship": relationship, "reachability": reachability}


def questions(f: Facts, params: SynthParams, diagram_id: str) -> list[Question]:
    """Up to ``qa_per_type`` questions of each type in ``params.qa_types``, seeded per
    diagram so a rerun asks the same ones."""
    rng = random.Random(f"{params.seed}:{diagram_id}")
    out: list[Question] = []
    for t in params.qa_types:
        cands = GENERATORS[t](f, rng, params.choices - 1)
        out += rng.sample(cands, min(params.qa_per_type, len(cands)))
    return out


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


def items(row: dict[str, Any], facts: Facts, params: SynthParams) -> list[Item]:
    prompt = load_prompt(CONFIG)
    out = []
    rng = random.Random(f"{params.seed}:{row['id']}:choices")
    for q in questions(facts, params, row["id"]):
        choices, index = choices_of(q, rng)
        ctx = {"template_question": q.text, "question_tail": q.text[0].lower() + q.text[1:],
               "qa_type": q.qa_type, "answer": q.answer}
        req = Request(task=CONFIG, system=prompt.system, user=prompt.render(**ctx),
                      json_schema=SCHEMA, context=ctx, templates=prompt.offline,
                      max_tokens=min(params.max_tokens, MAX_TOKENS))

        def check(data: dict[str, Any], q: Question = q) -> tuple[str, str]:
            bad = paraphrase_problems(q.text, data["question"], q.form, q.referents,
                                      q.answer, facts.labels, q.keywords, q.order)
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
                  "grounding": facts.origin}))
    return out
