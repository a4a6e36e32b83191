"""Evaluate a predictions file on one published config/split: dispatch to the config's
evaluator (:mod:`.registry`), item by item, and aggregate.

Every reference item gets a row, and nothing one item holds stops the run: an item whose
predictions row gives no usable output (none, no output field, not UTF-8, too large, its id
given twice: :class:`~.inputs.InputReason`) scores 0 with that reason and is never
compiled; rows that name no item of the split (malformed, without an id, unknown ids) are
counted in the result's ``inputs``.  A config the registry does not name is scored as
generation when its rows carry ``format`` and ``code`` (a task config added later).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from diagramforge.cards.evaluate import embed
from diagramforge.cards.evaluate.compile import Compiler
from diagramforge.cards.evaluate.inputs import (
    InputError,
    InputReason,
    read_predictions,
    reference_rows,
)
from diagramforge.cards.evaluate.registry import EVALUATORS, GENERATION, Evaluator, for_config
from diagramforge.cards.evaluate.report import EXECUTED, aggregate
from diagramforge.cards.evaluate.settings import ScoreSettings
from diagramforge.formats.settings import FormatSettings

if TYPE_CHECKING:
    from diagramforge.cards.publish.settings import PublishParams


class EvaluateSettings(ScoreSettings, FormatSettings, Protocol):
    """What scoring a model reads: the scorers' sections (``evaluate``, ``edit``), what the
    format handlers that compile the outputs are handed, and where the release is
    (``publish``). ``diagramforge evaluate`` hands the loaded ``Params``."""

    @property
    def publish(self) -> PublishParams: ...


def published_root(publish: PublishParams) -> Path:
    return Path(publish.out_dir) / publish.name


def evaluator_of(config: str, rows: list[dict[str, Any]]) -> Evaluator:
    found = for_config(config)
    if found is not None:
        return found
    if rows and "format" in rows[0] and "code" in rows[0]:
        return GENERATION
    known = sorted({c for e in EVALUATORS.values() for c in e.configs})
    raise InputError(f"no evaluator for config {config!r} (its rows have no format and "
                     f"code); evaluable: {', '.join(known)} and the per-format views")


def task_of(config: str, rows: list[dict[str, Any]]) -> str:
    return evaluator_of(config, rows).task


def _mark(item: dict[str, Any], reason: str, detail: str) -> dict[str, Any]:
    """An item whose prediction never reached the scorer: scored as no output (0 on every
    metric its task gives a missing output), with the input reason instead."""
    return item | {"reason": reason, "detail": detail, "input_problem": True}


def evaluate(params: EvaluateSettings, predictions: str | Path, config: str, split: str,
             root: Path | None = None, *, judge: bool | None = None,
             judge_requests: Path | None = None) -> dict[str, Any]:
    """Score every item of ``config``/``split`` against ``predictions``; the result dict
    :mod:`.report` writes.  ``judge`` (default ``evaluate.judge.enabled``) adds the
    model-judged metrics (:mod:`.judge`); ``judge_requests`` writes the judge's requests
    there instead of sending them."""
    found = for_config(config)
    # columns the config may publish as references to generation's (validate/references.py)
    needs = getattr(found.module(), "FROM_GENERATION", ()) if found is not None else ()
    refs = reference_rows(root or published_root(params.publish), config, split, resolve=needs)
    preds = read_predictions(predictions, params.evaluate.max_prediction_bytes)
    ev = evaluator_of(config, refs)
    module = ev.module()
    known = {str(r["id"]) for r in refs}
    for rid in sorted((set(preds.outputs) | set(preds.problems)) - known):
        preds.row_problem(preds.row_of.get(rid, 0), InputReason.UNKNOWN_ID, rid)
    not_computed = ["LLM-judged metrics (style consistency, decomposed requirements)"]
    embedder = embed.for_task(params.evaluate.embedding, ev.task)  # a bad checkpoint fails here
    tap = embed.RenderTap(params) if embedder and ev.compiles else None
    outputs = {k: v for k, v in preds.outputs.items() if k not in preds.problems}

    def one(ref: dict[str, Any], compiler: Compiler | None) -> dict[str, Any]:
        rid = str(ref["id"])
        problem = preds.problems.get(rid)
        args = (compiler, params) if compiler is not None else ()
        if problem is not None:
            return _mark(module.score_item(ref, None, *args), *problem)
        item = module.score_item(ref, outputs.get(rid), *args)
        if rid not in outputs and not item.get("reason"):
            item["reason"] = InputReason.NO_PREDICTION
        return item

    if ev.compiles:
        with tap or Compiler(params) as compiler:
            items = [one(r, compiler) for r in refs]
    else:
        items = [one(r, None) for r in refs]
    for item in items:
        item[EXECUTED] = bool(item.get("execution_success")) if ev.compiles else (
            not item.get("input_problem") and outputs.get(str(item["id"])) is not None)
    metrics = (*ev.metrics, *embed.add_scores(
        embedder, params.evaluate.embedding, ev.task, refs, outputs,
        tap.renders if tap else {}, items, not_computed))
    extra = {"embedding": embedder.describe()} if embedder else {}
    inputs = dict(Counter(r["reason"] for r in preds.rows).most_common())
    if preds.duplicates:
        inputs["duplicate_rows"] = len(preds.duplicates)
    result = {"config": config, "split": split, "task": ev.task,
              "predictions": str(predictions), "metrics": list(metrics),
              "group_by": ev.group_by, "executed_means": "executed items" if ev.compiles
              else "answered items",
              "aggregate": aggregate(items, metrics, ev.group_by),
              "inputs": inputs, "input_rows": preds.rows,
              "unknown_ids": sorted(r["detail"] for r in preds.rows
                                    if r["reason"] == InputReason.UNKNOWN_ID),
              "duplicate_ids": sorted(set(preds.duplicates)), "items": items,
              "not_computed": not_computed, **extra}
    if judge_requests is not None or (params.evaluate.judge.enabled if judge is None
                                      else judge):
        # lazy: loads datasets, google, openai, tiktoken
        from diagramforge.cards.evaluate.judge import attach

        attach(result, refs, outputs, params.evaluate.judge, requests_path=judge_requests)
    return result
