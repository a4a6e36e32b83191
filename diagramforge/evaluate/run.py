"""Evaluate a predictions file on one published config/split: dispatch to the task's
scorer, item by item, and aggregate.

The task is the config's: ``qa``, ``editing`` and ``captioning`` by name; any other config
whose rows carry ``format`` and ``code`` (``generation`` and its per-format views, the
sketch/degraded/variation configs) is scored as generation — the model writes the code.
Every reference item gets a row (a missing prediction scores as a failure with reason
``no_prediction``); predictions for ids the split does not hold are listed, not dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from diagramforge.evaluate import captioning, editing, embed, generation, qa
from diagramforge.evaluate.compile import Compiler
from diagramforge.evaluate.inputs import InputError, read_predictions, reference_rows
from diagramforge.evaluate.report import aggregate
from diagramforge.params import Params

TEXT_TASKS = {"qa": qa, "captioning": captioning}
CODE_TASKS = {"editing": editing}


def published_root(params: Params) -> Path:
    return Path(params.publish.out_dir) / params.publish.name


def task_of(config: str, rows: list[dict[str, Any]]) -> str:
    if config in TEXT_TASKS or config in CODE_TASKS:
        return config
    if rows and "format" in rows[0] and "code" in rows[0]:
        return "generation"
    raise InputError(f"no evaluator for config {config!r} (rows without format and code)")


def evaluate(params: Params, predictions: str | Path, config: str, split: str,
             root: Path | None = None, *, judge: bool | None = None,
             judge_requests: Path | None = None) -> dict[str, Any]:
    """Score every item of ``config``/``split`` against ``predictions``; the result dict
    :mod:`.report` writes.  ``judge`` (default ``evaluate.judge.enabled``) adds the
    model-judged metrics (:mod:`.judge`); ``judge_requests`` writes the judge's requests
    there instead of sending them."""
    needs = getattr(CODE_TASKS.get(config), "REFERENCE_COLUMNS", ())
    refs = reference_rows(root or published_root(params), config, split, resolve=needs)
    preds = read_predictions(predictions)
    task = task_of(config, refs)
    items: list[dict[str, Any]] = []
    not_computed = ["LLM-judged metrics (style consistency, decomposed requirements)"]
    embedder = embed.for_task(params.evaluate.embedding, task)  # a bad checkpoint fails here
    tap = embed.RenderTap(params) if embedder and task not in TEXT_TASKS else None
    if task in TEXT_TASKS:
        module = TEXT_TASKS[task]
        items = [module.score_item(r, preds.outputs.get(str(r["id"]))) for r in refs]
    else:
        module = CODE_TASKS.get(task, generation)
        with tap or Compiler(params) as compiler:
            items = [module.score_item(r, preds.outputs.get(str(r["id"])), compiler, params)
                     for r in refs]
    metrics = (*module.METRICS, *embed.add_scores(
        embedder, params.evaluate.embedding, task, refs, preds.outputs,
        tap.renders if tap else {}, items, not_computed))
    extra = {"embedding": embedder.describe()} if embedder else {}
    known = {str(r["id"]) for r in refs}
    result = {"config": config, "split": split, "task": task, "predictions": str(predictions),
              "metrics": list(metrics), "group_by": module.GROUP_BY,
              "aggregate": aggregate(items, metrics, module.GROUP_BY),
              "unknown_ids": sorted(set(preds.outputs) - known),
              "duplicate_ids": sorted(set(preds.duplicates)), "items": items,
              "not_computed": not_computed, **extra}
    if judge_requests is not None or (params.evaluate.judge.enabled if judge is None
                                      else judge):
        from diagramforge.evaluate.judge import attach

        attach(result, refs, preds.outputs, params, requests_path=judge_requests)
    return result
