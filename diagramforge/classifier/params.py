"""Parameters of the diagram-type filter: which evidence decides, what the pool rejects.

This is the ``filter.diagram_type`` section (a :class:`FilterSection`): which checkpoint
gives the image's opinion, which types the diagram pool itself rejects, how sure the image
must be where it decides alone.  How a checkpoint is (re)trained is a separate section
(``classifier``, :class:`diagramforge.params.ClassifierTrainParams`), so a threshold change
never retrains and retraining never needs a threshold.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from diagramforge.params import ClassifierTrainParams, FilterSection, Params
from diagramforge.paths import stage_paths
from diagramforge.vocabulary import LABELS, POOL_REJECT

TrainParams = ClassifierTrainParams
"""The ``classifier`` section (training), under the name the training code uses."""

TRAIN_STAGE = "classifier-train"
"""The stage whose output directory holds the checkpoint the pipeline uses by default (the
shipped one, copied, or one it retrained)."""


class ClassifierParams(FilterSection):
    """Type each diagram from its code first, its render second; reject what is no diagram."""

    checkpoint: str | None = None
    """``null``: ``<project.data_dir>/classifier-train/checkpoint`` — the checkpoint shipped
    with the package (copied there by the ``classifier-train`` stage), or the one that stage
    retrained when ``classifier.train`` is true.  Otherwise a local directory written by
    ``save_pretrained`` or a cached Hub id (``org/name``), plus ``label_map`` if its label
    names differ from ours (an ACL-Fig model: ``{"Bar charts": bar_chart, …}``)."""
    local_files_only: bool = True
    """Never touch the network: a Hub id must already be in the local cache."""
    evidence: Literal["code_first", "image"] = "code_first"
    """``code_first``: a rule on the code decides where one fires, the image elsewhere (and
    only among drawn kinds when the code draws vectors).  ``image``: the image alone, as before
    code evidence existed — for comparisons."""
    reject: list[str] = list(POOL_REJECT)
    """Types the diagram pool rejects.  Charts and tables are kept and labelled; per-config
    keep lists choose among them."""
    label_map: dict[str, str] = {}
    """Checkpoint label → our label (names are also normalised: lower case, spaces and
    hyphens to ``_``).  Two checkpoint labels may map to one of ours (their probabilities add)."""
    threshold: Annotated[float, Field(ge=0, le=1)] = 0.5
    """Where the image decides alone (no author's code: figures cut from PDFs), a top
    probability below this is ledgered as uncertain.  Never applied against code evidence."""
    decimals: Annotated[int, Field(ge=1, le=8)] = 3
    """Probabilities are rounded to this many places before they are compared or written, so
    float noise between CPUs cannot flip a decision (``determinism.py``)."""
    batch_size: Annotated[int, Field(ge=1)] = 32
    threads: Annotated[int, Field(ge=1)] = 1
    """torch threads per filter worker: the stage already runs one worker per core, and one
    thread fixes the reduction order."""

    @model_validator(mode="after")
    def _labels(self) -> ClassifierParams:
        unknown = sorted(set(self.reject) - set(LABELS))
        bad_map = sorted(set(self.label_map.values()) - set(LABELS))
        if unknown or bad_map:
            raise ValueError(f"not diagram types: {unknown + bad_map}; known: "
                             f"{', '.join(LABELS)}")
        return self

    def resolved(self, params: Params) -> ClassifierParams:
        """A copy whose ``checkpoint`` is concrete (``null`` → the pipeline's own)."""
        if self.checkpoint is not None:
            return self

        ckpt = stage_paths(params, TRAIN_STAGE).root / "checkpoint"
        return self.model_copy(update={"checkpoint": str(ckpt)})
