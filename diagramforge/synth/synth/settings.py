"""The ``synth`` section of ``params.yaml``: the LLM that writes (:class:`LLMParams`) and the
captioning, QA and editing-instruction generators.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from diagramforge.synth.llm.settings import LLMParams

SynthTask = Literal["captioning", "qa", "editing"]


SynthQAType = Literal["counting", "identification", "relationship", "reachability",
                      "chart_axes", "chart_series", "chart_values", "message_order",
                      "message_sender"]
"""Graph questions (the first four: a picture that is a graph), chart questions (from a
chart's own data) and sequence-diagram questions (messages in order): ``synth/synth/qa.py``."""


class SynthParams(LLMParams):
    """LLM settings and the captioning / QA / editing-instruction generators."""

    tasks: list[SynthTask] = ["captioning", "qa", "editing"]
    """Which task configs to generate (editing needs the ``edit`` stage's output)."""
    qa_types: list[SynthQAType] = ["counting", "identification", "relationship", "reachability",
                                   "chart_axes", "chart_series", "chart_values",
                                   "message_order", "message_sender"]
    qa_per_type: Annotated[int, Field(ge=0)] = 2
    """At most this many questions of each type per diagram (chosen by a seeded RNG)."""
    choices: Annotated[int, Field(ge=2, le=8)] = 4
    """Options of a multiple-choice question (fewer when the diagram has too few labels)."""
    max_labels: Annotated[int, Field(ge=1)] = 40
    """Node labels and edges shown in a prompt; a huge diagram is summarised, not pasted."""
    max_diagrams: Annotated[int, Field(ge=0)] | None = None
    """Only the first N diagrams (by id) — for a cheap trial run; ``None``: all."""

    def llm(self) -> LLMParams:
        """The LLM layer's own params (the task knobs stripped)."""
        return LLMParams(**self.model_dump(include=set(LLMParams.model_fields)))
