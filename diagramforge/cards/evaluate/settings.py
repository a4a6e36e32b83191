"""The ``evaluate`` section of ``params.yaml`` (``diagramforge evaluate``, never part of
``dvc repro``): the graph scorers (``graphs/settings.py``), the input limit, the model judge
and the embedding similarity.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, Protocol

from pydantic import Field

from diagramforge.graphs.settings import GraphScoreParams
from diagramforge.params import Section
from diagramforge.synth.llm.settings import LLMParams

if TYPE_CHECKING:
    from diagramforge.synth.edit.settings import EditParams

JudgeMetric = Literal["requirements", "style"]


class JudgeParams(LLMParams):
    """``evaluate.judge``: VCG-Bench's model-judged metrics (decomposed requirements, style
    consistency) through the synth LLM layer — same backends, cache, budget and dry-run.
    Off by default: they cost money and are a model's opinion, not a check by code."""

    enabled: bool = False
    """``diagramforge evaluate --judge`` turns it on for one run."""
    metrics: list[JudgeMetric] = ["requirements", "style"]
    max_code_chars: Annotated[int, Field(ge=200)] = 12000
    """Each code shown to the judge is cut to this many characters (the prompt says so)."""

    def llm(self) -> LLMParams:
        """The LLM layer's own params (the judge knobs stripped)."""
        return LLMParams(**self.model_dump(include=set(LLMParams.model_fields)))


class EmbeddingParams(Section):
    """Optional embedding similarity of predicted and reference renders
    (:mod:`diagramforge.cards.evaluate.embed`): an image–text model of the CLIP/SigLIP family."""

    checkpoint: str | None = None
    """A local model directory or a Hub id (loaded by ``transformers``); ``null``: off."""
    local_files_only: bool = True
    """Load only what is on disk (the directory, or the Hub cache): a run never downloads
    weights midway, and the scores belong to the checkpoint that was pinned there."""
    batch_size: Annotated[int, Field(ge=1)] = 16
    device: Annotated[str, Field(pattern=r"^(cpu|cuda(:\d+)?|mps)$")] = "cpu"


class EvaluateParams(Section):
    """``diagramforge evaluate`` (scores a model; never part of ``dvc repro``): the graph
    scorers, the input limit and the optional, model-based metrics."""

    scores: GraphScoreParams = GraphScoreParams()
    max_prediction_bytes: Annotated[int, Field(ge=1)] = 2_000_000
    """A prediction larger than this (UTF-8 bytes) scores 0 with ``prediction_too_large``
    and is never compiled or counted in token statistics; the default is the largest file
    any format's extractor takes (SVG's ``max_bytes``)."""
    judge: JudgeParams = JudgeParams()
    embedding: EmbeddingParams = EmbeddingParams()


class ScoreSettings(Protocol):
    """What a task's ``score_item`` is handed besides its reference, output and compiler:
    the ``evaluate`` section (the graph scorers' weights) and ``edit`` (the editing task's
    bounding-box tolerance). The loaded ``Params`` is one."""

    @property
    def evaluate(self) -> EvaluateParams: ...
    @property
    def edit(self) -> EditParams: ...
