"""The evaluators: which published configs each scores, with which metrics.

One declaration per task, read by ``diagramforge evaluate`` to pick the scorer of a config
and by its ``--help`` to list what can be evaluated — so the help cannot describe an
evaluator that does not exist or miss one that does.  Declarations name their module by
path and import nothing, so the help stays fast; :meth:`Evaluator.module` loads the scorer
when a run needs it.  A module's ``METRICS`` and ``GROUP_BY`` are these.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from diagramforge.formats.registry import format_titles


@dataclass(frozen=True)
class Evaluator:
    task: str
    module_name: str
    summary: str
    """What the model is asked to do, for the help."""
    metrics: tuple[str, ...]
    group_by: str
    configs: tuple[str, ...]
    """Published configs scored by this evaluator (besides views named by :func:`views`)."""
    compiles: bool
    """Whether predictions are code compiled by the format handlers (an item then counts as
    *executed* when its output rendered); otherwise a text answer (*executed* = answered)."""

    def module(self) -> ModuleType:
        return importlib.import_module(self.module_name)


GRAPH_METRICS = ("node_f1", "edge_f1", "path_f1", "sciflow_node_f1", "sciflow_edge_f1",
                 "sciflow_graph_score")
IMAGE_METRICS = ("ssim", "pixel")

GENERATION = Evaluator(
    task="generation", module_name="diagramforge.cards.evaluate.generation",
    summary="image → code",
    metrics=("execution_success", *GRAPH_METRICS, *IMAGE_METRICS, "tokens"),
    group_by="format",
    configs=("generation", "sketch", "degraded", "variation", "repair"), compiles=True)
EDITING = Evaluator(
    task="editing", module_name="diagramforge.cards.evaluate.editing",
    summary="code + instruction → edited code",
    metrics=("execution_success", "edit_verified", "style_preserved", *IMAGE_METRICS),
    group_by="difficulty", configs=("editing",), compiles=True)
TRANSLATION = Evaluator(
    task="translation", module_name="diagramforge.cards.evaluate.translation",
    summary="code in one language → the same diagram in another",
    metrics=("execution_success", "graph_equal", "node_f1", "edge_f1", *IMAGE_METRICS,
             "tokens"),
    group_by="pair", configs=("translation",), compiles=True)
QA = Evaluator(
    task="qa", module_name="diagramforge.cards.evaluate.qa",
    summary="image + question → answer", metrics=("exact", "inclusion", "option"),
    group_by="qa_type", configs=("qa",), compiles=False)
CAPTIONING = Evaluator(
    task="captioning", module_name="diagramforge.cards.evaluate.captioning",
    summary="image → caption", metrics=("bleu", "chrf", "grounding"), group_by="format",
    configs=("captioning",), compiles=False)

EVALUATORS: dict[str, Evaluator] = {e.task: e for e in (GENERATION, EDITING, TRANSLATION,
                                                          QA, CAPTIONING)}

OPTIONAL_METRICS = (
    "embedding_cosine for generation, editing and translation when "
    "evaluate.embedding.checkpoint is set; caption_image_cosine for captioning when that "
    "checkpoint has a text tower; judge_style (generation, editing) and judge_requirements "
    "(editing) with --judge")
"""Metrics an evaluator adds when asked (a checkpoint, the LLM judge)."""


def views() -> tuple[str, ...]:
    """The per-format views of ``generation`` (one published config per format with code),
    read from the format registry without importing the handlers."""
    return tuple(format_titles(code_only=True))


def for_config(config: str) -> Evaluator | None:
    """The evaluator of a published config by name (``None``: not a known config)."""
    for e in EVALUATORS.values():
        if config in e.configs:
            return e
    return GENERATION if config in views() else None


def help_text() -> str:
    """The evaluators as ``evaluate --help`` lists them: config(s), task, metrics."""
    lines = []
    for e in EVALUATORS.values():
        configs = list(e.configs)
        if e is GENERATION:
            configs[1:1] = views()
        lines.append(f"{', '.join(configs)} ({e.summary}): {', '.join(e.metrics)}; "
                     f"per {e.group_by}.")
    return "\n\n".join(lines) + f"\n\nOptional: {OPTIONAL_METRICS}."
