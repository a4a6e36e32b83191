"""Parameters of the diagram-type classifier filter: what to load and what to keep.

This is the ``filter.diagram_type`` section (a :class:`FilterSection`): which checkpoint
classifies renders, which labels are kept or rejected, how sure it must be.  How the pipeline
trains its own default checkpoint is a separate section (``classifier``,
:class:`diagramforge.params.ClassifierTrainParams`), so a threshold change never retrains.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from diagramforge.filters.base import FilterSection
from diagramforge.params import ClassifierTrainParams, Params

TrainParams = ClassifierTrainParams
"""The ``classifier`` section (training), under the name the training code uses."""

TRAIN_STAGE = "classifier-train"
"""The stage whose output directory holds the pipeline's own checkpoint."""

KEEP_LABELS = ["diagram", "tree", "graph", "flowchart", "architecture", "neural_network",
               "commutative_diagram", "circuit", "uml", "plot", "table"]
"""What the pool keeps, typed: every kind of figure drawn as code — plots and tables too
(DaTikZ keeps them); which kinds a config takes is ``select`` (SKETikZ's sketches: trees,
graphs, architecture diagrams, networks, Venn diagrams)."""

REJECT_LABELS = ["photo"]
"""Photographs: no diagram at all."""


class ClassifierParams(FilterSection):
    """Load a checkpoint, classify renders, map labels to keep / reject."""

    checkpoint: str | None = None
    """``null``: the checkpoint the ``classifier-train`` stage wrote
    (``<project.data_dir>/classifier-train/checkpoint``).  Otherwise a local directory
    written by ``save_pretrained`` or a Hub id (``org/name``): swapping in a real model is
    this one value (plus ``label_map`` if its label names differ)."""
    local_files_only: bool = True
    """Never touch the network: a Hub id must already be in the local cache."""
    keep: list[str] = KEEP_LABELS
    reject: list[str] = REJECT_LABELS
    label_map: dict[str, str] = {}
    """Checkpoint label → our label, for a swapped-in model with its own vocabulary
    (e.g. ACL-Fig's ``"Bar charts"`` → ``plot``). Names are also normalised (lower case,
    spaces and hyphens to ``_``) before lookup."""
    threshold: Annotated[float, Field(ge=0, le=1)] = 0.5
    """Below this top-1 probability a record is rejected as uncertain."""
    batch_size: Annotated[int, Field(ge=1)] = 32
    threads: Annotated[int, Field(ge=1)] = 1
    """torch threads per filter worker: the stage already runs one worker per core."""

    @model_validator(mode="after")
    def _disjoint(self) -> ClassifierParams:
        both = set(self.keep) & set(self.reject)
        if both:
            raise ValueError(f"labels both kept and rejected: {sorted(both)}")
        return self

    def resolved(self, params: Params) -> ClassifierParams:
        """A copy whose ``checkpoint`` is concrete (``null`` → the trained one)."""
        if self.checkpoint is not None:
            return self
        from diagramforge.paths import stage_paths

        ckpt = stage_paths(params, TRAIN_STAGE).root / "checkpoint"
        return self.model_copy(update={"checkpoint": str(ckpt)})
