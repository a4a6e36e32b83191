"""Optional model-judged metrics (VCG-Bench): decomposed requirements and style consistency.

VCG-Bench scores instruction following with XDRFR — the share of an instruction's decomposed
yes/no requirements a judge answers "yes", "performed purely on the XML text" — and style
with SCS, dimension scores on a 0–10 scale averaged and divided by 10 (generation: visual,
layout, aesthetic, ``/30``; editing: style and aesthetic, ``/20``, not penalising the
intended change).  Here:

- ``judge_requirements`` (editing): one requirement per intended operation (the item's
  ``operations``, worded by :func:`requirement`), judged on the source and predicted code;
  score = requirements answered "yes" / requirements.
- ``judge_style`` (editing and generation): the seed's dimensions on the seed's scale,
  normalised to 0–1, judged on the code (reference or source vs prediction).  The LLM layer
  sends text, so the judge reads code, not renders — stated in the prompt and the report.

Requests go through the synth LLM layer (:class:`~diagramforge.synth.llm.LLM`): the same
backends, content cache keyed on the request, budget, rate limits and metering.  Nothing
here raises for one item: an answer that is not the schema (after the layer's one repair)
or does not add up (a missing requirement, a score off the scale) is ``judge_unparsed``; a
call past ``budget_usd`` is ``judge_budget``; a backend failure ``judge_error`` — the
item's judged score is then unset (not a zero: the model under test did nothing wrong).
An item whose prediction did not execute scores 0 without a call, like the other metrics;
an item without a usable prediction (an input problem of :mod:`.inputs`) is unset.

The offline backend answers from the code-measured evidence (``edit_verified``,
``style_preserved``, ``ssim``…) put in each request's ``context``: it exercises the whole path
without a key and is no judgement.  These are a model's opinion: ``edit_verified`` stays the
primary editing metric, and the report prints judged metrics in their own table.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from diagramforge.cards.evaluate.inputs import InputError
from diagramforge.cards.evaluate.report import aggregate
from diagramforge.cards.evaluate.settings import JudgeParams
from diagramforge.store import atomic
from diagramforge.synth.llm.client import LLM
from diagramforge.synth.llm.types import (
    BUDGET_EXHAUSTED,
    LLM_INVALID_OUTPUT,
    BackendCall,
    LLMCallError,
    Outcome,
    Request,
)

REQUIREMENTS = "judge_requirements"
STYLE = "judge_style"
METRIC_OF = {"requirements": REQUIREMENTS, "style": STYLE}
TASK_METRICS = {"editing": (REQUIREMENTS, STYLE), "generation": (STYLE,)}
"""What the seed defines per task (XDRFR is an editing metric)."""
NOT_COMPUTED_PREFIX = "LLM-judged"
REQUESTS_FILE = "judge-requests.jsonl"


class JudgeReason(StrEnum):
    UNPARSED = "judge_unparsed"
    BUDGET = "judge_budget"
    ERROR = "judge_error"
    NO_REQUIREMENTS = "judge_no_requirements"


class JudgeConfigError(InputError):
    """The judge cannot run as configured (e.g. the backend's key is not set)."""


# -- requirements ---------------------------------------------------------------------------
_DOES = {
    "node_colour": "fills {what} with colour {colour}",
    "node_shape": "gives {what} the shape {shape}",
    "node_size": "resizes {what}",
    "node_text": 'changes the text of {what} to "{text}"',
    "delete_node": "deletes {what} (and its edges)",
    "add_node": 'adds a node "{text}"',
    "move_node": "moves {what}",
    "edge_colour": "colours {what} {colour}",
    "edge_style": "changes the line style of {what}",
    "edge_arrow": "changes the arrow head or direction of {what}",
    "delete_edge": "deletes {what}",
    "add_edge": "adds an edge from {source} to {target}",
    "redirect_edge": "makes {what} point to {new_target}",
    "edge_path": "changes the path of {what}",
}


def requirement(op: dict[str, Any]) -> str:
    """One yes/no requirement for one atomic operation: a readable phrase plus the exact
    parameters (ids are the code's own, so the judge can find them in the text)."""
    name = str(op.get("op", "?"))
    target = op.get("target") or {}
    params = op.get("params") or {}
    kind, text, tid = target.get("kind") or "element", target.get("text"), target.get("id")
    what = f'{kind} "{text}" (id {tid})' if text else f"{kind} {tid}"
    try:
        phrase = _DOES[name].format(what=what, **{k: v for k, v in params.items() if k != "what"})
    except (KeyError, IndexError, ValueError):
        phrase = f"applies {name} to {what}"
    return f"The edited code {phrase} [{name}: {json.dumps(params, sort_keys=True)}]."


def requirements(ref: dict[str, Any]) -> list[str]:
    try:
        ops = json.loads(ref.get("operations") or "[]")
    except (TypeError, ValueError):
        return []
    return [requirement(op) for op in ops if isinstance(op, dict)] if isinstance(ops, list) \
        else []


# -- prompts and schemas --------------------------------------------------------------------
_CODE_NOTE = "You see code, not pictures: judge what the code would draw."
REQ_SYSTEM = (
    "You check an edit of a diagram written as code. The instruction is decomposed into "
    "numbered yes/no requirements. Compare the original code with the edited code and, for "
    "each requirement, answer \"yes\" only if the edited code satisfies it. " + _CODE_NOTE
    + " Reply with only the JSON object the schema describes.")
STYLE_EDIT_SYSTEM = (
    "You rate an edit of a diagram written as code on a 0-10 scale per dimension. style: do "
    "the parts the instruction did not ask to change keep the original's colours, line and "
    "node styles, and is the whole still coherent? aesthetic: visual balance, alignment, "
    "overall look; deduct for obvious errors (overlaps, misplaced text, layout chaos). Do "
    "not penalise the changes the instruction asks for. " + _CODE_NOTE
    + " Reply with only the JSON object the schema describes.")
STYLE_GEN_SYSTEM = (
    "You compare a generated diagram's code with the reference diagram's code on a 0-10 "
    "scale per dimension. visual: colour palette, line styles, node shapes. layout: spatial "
    "arrangement, alignment, spacing. aesthetic: overall visual harmony and professional "
    "look. " + _CODE_NOTE + " Reply with only the JSON object the schema describes.")
EDIT_DIMENSIONS = ("style", "aesthetic")
GEN_DIMENSIONS = ("visual", "layout", "aesthetic")
SCALE = 10.0


def requirements_schema(n: int) -> dict[str, Any]:
    answer = {"type": "object", "properties": {
        "requirement": {"type": "integer", "minimum": 1, "maximum": n},
        "answer": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["requirement", "answer"], "additionalProperties": False}
    return {"type": "object", "properties": {"answers": {
        "type": "array", "items": answer, "minItems": n, "maxItems": n}},
        "required": ["answers"], "additionalProperties": False}


def style_schema(dims: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "object", "properties": {
        d: {"type": "number", "minimum": 0, "maximum": SCALE} for d in dims},
        "required": list(dims), "additionalProperties": False}


def _code(label: str, code: str, limit: int) -> str:
    cut = code if len(code) <= limit else code[:limit]
    note = "" if cut is code else f" (first {limit} of {len(code)} characters)"
    return f"{label}{note}:\n```\n{cut}\n```"


# -- parsing (defensive: a wrong answer is an item reason, never an exception) --------------
def parse_requirements(data: dict[str, Any], n: int) -> tuple[float, list[str]] | None:
    """``(share of yes, answers in requirement order)``, or ``None`` if the answers do not
    name each requirement exactly once with yes or no."""
    answers = data.get("answers")
    if not isinstance(answers, list) or len(answers) != n:
        return None
    got: dict[int, str] = {}
    for a in answers:
        if not isinstance(a, dict):
            return None
        k, v = a.get("requirement"), a.get("answer")
        if isinstance(k, bool) or not isinstance(k, int) or not isinstance(v, str):
            return None
        v = v.strip().lower()
        if k in got or not 1 <= k <= n or v not in ("yes", "no"):
            return None
        got[k] = v
    ordered = [got[k] for k in range(1, n + 1)]
    return ordered.count("yes") / n, ordered


def parse_style(data: dict[str, Any], dims: tuple[str, ...]) -> float | None:
    """The seed's normalisation: the dimensions' sum over ``10 × len(dims)``."""
    vals = [data.get(d) for d in dims]
    if any(isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v)
           or not 0 <= v <= SCALE for v in vals):
        return None
    return sum(float(v) for v in vals) / (SCALE * len(dims))


# -- planning -------------------------------------------------------------------------------
@dataclass
class Ask:
    """One judge request for one item and metric, and how to read its answer."""

    item: dict[str, Any]
    metric: str
    request: Request
    read: Callable[[dict[str, Any]], tuple[float, dict[str, Any]] | None]


def metrics_for(task: str, p: JudgeParams) -> tuple[str, ...]:
    wanted = {METRIC_OF[m] for m in p.metrics}
    return tuple(m for m in TASK_METRICS.get(task, ()) if m in wanted)


def _evidence(item: dict[str, Any], key: str) -> float:
    v = item.get(key)
    return round(SCALE * float(v), 3) if isinstance(v, int | float) else 0.0


def _ask_requirements(ref: dict[str, Any], item: dict[str, Any], out: str,
                      p: JudgeParams) -> Ask | None:
    reqs = requirements(ref)
    if not reqs:
        item |= {REQUIREMENTS: None, "judge_reason": JudgeReason.NO_REQUIREMENTS}
        return None
    n = len(reqs)
    listed = "\n".join(f"{i}. {r}" for i, r in enumerate(reqs, 1))
    user = (f"Format: {ref['format']}\nInstruction: {ref.get('instruction') or ''}\n\n"
            f"Requirements:\n{listed}\n\n"
            + _code("Original code", str(ref.get("source_code") or ""), p.max_code_chars)
            + "\n\n" + _code("Edited code", out, p.max_code_chars))
    verdict = "yes" if item.get("edit_verified") == 1.0 else "no"
    offline = {"answers": [{"requirement": i, "answer": verdict} for i in range(1, n + 1)]}

    def read(data: dict[str, Any]) -> tuple[float, dict[str, Any]] | None:
        got = parse_requirements(data, n)
        return None if got is None else (got[0], {"judge_answers": got[1]})

    return Ask(item, REQUIREMENTS, Request(task="judge_requirements", system=REQ_SYSTEM,
                                           user=user, json_schema=requirements_schema(n),
                                           context=offline), read)


def _ask_style(task: str, ref: dict[str, Any], item: dict[str, Any], out: str,
               p: JudgeParams) -> Ask:
    if task == "editing":
        dims, system = EDIT_DIMENSIONS, STYLE_EDIT_SYSTEM
        user = (f"Format: {ref['format']}\nInstruction: {ref.get('instruction') or ''}\n\n"
                + _code("Original code", str(ref.get("source_code") or ""), p.max_code_chars)
                + "\n\n" + _code("Edited code", out, p.max_code_chars))
        offline = {"style": _evidence(item, "style_preserved"),
                   "aesthetic": _evidence(item, "ssim")}
    else:
        dims, system = GEN_DIMENSIONS, STYLE_GEN_SYSTEM
        user = (f"Format: {ref['format']}\n\n"
                + _code("Reference code", str(ref.get("code") or ""), p.max_code_chars)
                + "\n\n" + _code("Generated code", out, p.max_code_chars))
        offline = {"visual": _evidence(item, "pixel"), "layout": _evidence(item, "node_f1"),
                   "aesthetic": _evidence(item, "ssim")}

    def read(data: dict[str, Any]) -> tuple[float, dict[str, Any]] | None:
        got = parse_style(data, dims)
        scores = {d: float(data[d]) for d in dims} if got is not None else {}
        return None if got is None else (got, {"judge_scores": scores})

    return Ask(item, STYLE, Request(task=f"judge_style_{task}", system=system, user=user,
                                    json_schema=style_schema(dims), context=offline), read)


def plan(task: str, refs: list[dict[str, Any]], outputs: dict[str, str | None],
         items: list[dict[str, Any]], p: JudgeParams) -> list[Ask]:
    """The requests for every item that executed; an item that did not scores 0 here, and
    an item that had no usable prediction at all (an input problem: not UTF-8, too large,
    a duplicated id…) is left unset with that reason — nothing was there to judge."""
    metrics = metrics_for(task, p)
    asks: list[Ask] = []
    for ref, item in zip(refs, items, strict=True):
        item.setdefault("judge_reason", "")
        if item.get("input_problem"):
            item |= dict.fromkeys(metrics) | {"judge_reason": str(item.get("reason") or "")}
            continue
        if not item.get("execution_success"):
            item |= dict.fromkeys(metrics, 0.0)
            continue
        out = str(outputs.get(str(ref["id"])) or "")
        for m in metrics:
            ask = (_ask_requirements(ref, item, out, p) if m == REQUIREMENTS
                   else _ask_style(task, ref, item, out, p))
            if ask is not None:
                asks.append(ask)
    return asks


# -- running --------------------------------------------------------------------------------
def client(p: JudgeParams) -> LLM:
    try:
        return LLM.from_params(p.llm())
    except LLMCallError as exc:
        raise JudgeConfigError(f"evaluate.judge: {exc}") from None


def _settle(ask: Ask, oc: Outcome) -> None:
    item = ask.item
    if oc.ok and oc.data is not None:
        got = ask.read(oc.data)
        if got is not None:
            item[ask.metric] = got[0]
            item |= got[1]
            return
        reason, detail = JudgeReason.UNPARSED, json.dumps(oc.data)[:300]
    else:
        reason = {LLM_INVALID_OUTPUT: JudgeReason.UNPARSED,
                  BUDGET_EXHAUSTED: JudgeReason.BUDGET}.get(oc.reason, JudgeReason.ERROR)
        detail = oc.detail
    item[ask.metric] = None
    if not item.get("judge_reason"):  # the first failure names the item
        item |= {"judge_reason": str(reason), "judge_detail": f"{ask.metric}: {detail}"[:500]}


def _section(task: str, p: JudgeParams, items: list[dict[str, Any]], group_by: str,
             **extra: Any) -> dict[str, Any]:
    metrics = metrics_for(task, p)
    rows = [{**r, "reason": r.get("judge_reason")} for r in items]
    return {"backend": p.backend, "model": p.model, "metrics": list(metrics),
            "inputs": "code", "aggregate": aggregate(rows, metrics, group_by), **extra}


def _not_computed(result: dict[str, Any], task: str, p: JudgeParams) -> list[str]:
    keep = [x for x in result["not_computed"] if not x.startswith(NOT_COMPUTED_PREFIX)]
    left = [m for m in METRIC_OF if METRIC_OF[m] in TASK_METRICS.get(task, ())
            and m not in p.metrics]
    return keep + ([f"{NOT_COMPUTED_PREFIX} metrics ({', '.join(left)}): not in "
                    "evaluate.judge.metrics"] if left else [])


def attach(result: dict[str, Any], refs: list[dict[str, Any]],
           outputs: dict[str, str | None], p: JudgeParams, *,
           requests_path: Path | None = None, llm: LLM | None = None) -> dict[str, Any]:
    """Judge ``result``'s items in place (or, with ``requests_path``, write the requests a
    run would send and send nothing) and add the ``judge`` section (``p``:
    ``evaluate.judge``)."""
    task, items, group_by = result["task"], result["items"], result["group_by"]
    if not metrics_for(task, p):
        result["judge"] = {"metrics": [], "note": f"no judged metric for task {task!r}"}
        return result
    asks = plan(task, refs, outputs, items, p)
    if requests_path is not None:
        result["judge"] = {"dry_run": dry_run(asks, p, requests_path, llm),
                           "requests": str(requests_path), "metrics": []}
        return result
    llm = llm or client(p)
    for ask, oc in zip(asks, llm.complete_many([a.request for a in asks]), strict=True):
        _settle(ask, oc)
    result["judge"] = _section(task, p, items, group_by, llm=llm.meter.as_dict(),
                               budget_usd=p.budget_usd)
    result["not_computed"] = _not_computed(result, task, p)
    return result


def wire(llm: LLM, call: BackendCall) -> dict[str, Any]:
    """What goes over the wire for ``call``: OpenAI's exact ``chat.completions`` body (its
    builder needs only the params, so no key is needed to write it), else the backend-neutral
    call (messages, schema, sampling) the Gemini/offline backend translates."""
    if llm.params.backend == "openai":
        # lazy: loads openai
        from diagramforge.synth.llm.openai_backend import OpenAIBackend

        return OpenAIBackend.body(SimpleNamespace(params=llm.params), call)  # type: ignore[arg-type]
    return {"backend": llm.params.backend, "model": llm.params.model,
            "messages": call.messages, "schema": call.schema, "sampling": call.sampling}


def dry_run(asks: list[Ask], p: JudgeParams, path: Path, llm: LLM | None = None
            ) -> dict[str, Any]:
    """Write one JSON line per request (item, metric, cache key, whether the cache already
    holds it, the wire body) and return the layer's estimate. Nothing is sent; no key is
    needed (pricing uses the offline backend when the key is missing)."""
    key_missing = False
    if llm is None:
        try:
            llm = client(p)
        except JudgeConfigError:
            # lazy: loads tiktoken
            from diagramforge.synth.llm.offline import OfflineBackend

            params = p.llm()
            llm, key_missing = LLM(params, OfflineBackend(params)), True
    lines = []
    for a in asks:
        key = llm.key(a.request)
        call = BackendCall(task=a.request.task, messages=a.request.messages(),
                           schema=a.request.json_schema,
                           sampling=a.request.sampling(llm.params), custom_id=key)
        lines.append(json.dumps({"id": a.item["id"], "metric": a.metric, "cache_key": key,
                                 "cached": key in llm.cache, "body": wire(llm, call)},
                                sort_keys=True))
    atomic.write_text(path, "".join(line + "\n" for line in lines))
    return {**llm.dry_run([a.request for a in asks]), "key_missing": key_missing}
