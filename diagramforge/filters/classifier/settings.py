"""The classifier's two sections: how the checkpoint is trained, and how the diagram-type
filter uses it.

``classifier`` (:class:`ClassifierTrainParams`, the ``classifier-train`` stage) says how a
checkpoint is (re)trained; ``filter.diagram_type`` (:class:`ClassifierParams`, a
:class:`FilterSection` checked by the filter registry) says which checkpoint gives the
image's opinion, which types the diagram pool itself rejects, how sure the image must be
where it decides alone.  Two sections so that a threshold change never retrains and
retraining never needs a threshold.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from diagramforge.params import FilterSection, Section
from diagramforge.store.paths import ProjectSettings, stage_paths
from diagramforge.vocabulary import LABELS, POOL_REJECT


class ClassifierTrainParams(Section):
    """``classifier``: how the ``classifier-train`` stage trains the pipeline's own
    diagram-type checkpoint (no weights can be downloaded here).  Apart from the filter's
    section (``filter.diagram_type``: which checkpoint, what to keep) so that changing a
    threshold never retrains and retraining never needs a threshold."""

    train: bool = False
    """``false``: use the checkpoint shipped with the package (trained on real figures,
    versioned; the same on every machine).  ``true``: retrain from scratch on this corpus's
    renders with the settings below (the weights then depend on the machine's CPU)."""
    seed: int = 1234
    architecture: Literal["resnet", "vit", "convnext"] = "resnet"
    image_size: Annotated[int, Field(ge=16, le=512)] = 96
    """Training side in pixels (the saved processor carries it to inference); at 64 px a
    small tikz-cd diagram's letters and arrows already blur into a chart's tick marks."""
    epochs: Annotated[int, Field(ge=1)] = 20
    """20, not 12: on 120 freshly compiled TikZ pictures keep/reject went 109→116 (seed 1234),
    98→105 (7), 92→98 (9); the seed still matters more than it should on this little data."""
    lr: Annotated[float, Field(gt=0)] = 3e-3
    weight_decay: Annotated[float, Field(ge=0)] = 1e-4
    batch_size: Annotated[int, Field(ge=1)] = 32
    hidden_sizes: list[Annotated[int, Field(ge=4)]] = [16, 32, 64, 96]
    """Stage widths (ResNet/ConvNeXt); a ViT uses the last one as its hidden size."""
    depths: list[Annotated[int, Field(ge=1)]] = [1, 1, 1, 1]
    """Blocks per stage (ResNet/ConvNeXt); a ViT uses ``len(depths)`` layers."""
    vit_heads: Annotated[int, Field(ge=1)] = 4
    vit_patch_size: Annotated[int, Field(ge=2)] = 8
    held_out: Annotated[float, Field(gt=0, lt=1)] = 0.25
    """Share of each class kept out of training for the reported accuracy."""
    min_class_count: Annotated[int, Field(ge=1)] = 6
    """Classes with fewer images fold into their ACL-Fig parent, then ``fallback_label``."""
    fallback_label: str = "architecture_diagram"
    augment_copies: Annotated[int, Field(ge=0)] = 2
    """Deterministic crop/pad/shift variants added per training image (never to held-out)."""
    negatives: dict[str, Annotated[int, Field(ge=0)]] = {
        "chart": 120, "table": 60, "natural_image": 60, "screenshot": 30}
    """Generated non-diagrams per kind (``filters/classifier/negatives.py``: matplotlib charts
    labelled line/bar/scatter/pie/histogram, tables, photographs, screenshots)."""
    positives: Annotated[int, Field(ge=0)] = 240
    """Generated diagrams (``filters/classifier/positives.py``: graphs, trees, grids, layered
    networks, Venn diagrams), each labelled with its kind: a corpus's own few weakly
    labelled diagrams alone teach "a diagram is one of these few pictures"."""
    threads: Annotated[int, Field(ge=1)] = 1
    """torch threads.  One: this model is too small to gain from two, and two threads stall
    at every barrier while another process holds a core (measured on a shared 2-core
    machine: fit 7 s with one thread, 13 s with two; 142 s with two under heavy load).  The
    weights depend on it (reduction order), so it is a param."""
    max_train_rows: Annotated[int, Field(ge=1)] = 20_000
    """At most this many corpus renders are trained on: a stratified, seeded sample by weak
    label (``filters/classifier/sample.py``), read shard by shard — training holds ≈ 330 KB per
    image (tensors, augmented copies), so 20k ≈ 6.6 GB at 96 px. A smaller corpus is taken
    whole."""


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
    second_opinion: Annotated[float, Field(ge=0, le=1)] = 0.9
    """Where the code has an author but states no kind, the image's top label is taken only
    at this probability or above (and only when it agrees with the family the code states);
    below it the type is unknown (published null, its reason counted).  The image is a second
    opinion, not the fallback: on real figures nobody here drew, its best guesses below this
    were mostly wrong (``benchmarks/types.py``)."""
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

    def resolved(self, params: ProjectSettings) -> ClassifierParams:
        """A copy whose ``checkpoint`` is concrete (``null`` → the pipeline's own)."""
        if self.checkpoint is not None:
            return self

        ckpt = stage_paths(params, TRAIN_STAGE).root / "checkpoint"
        return self.model_copy(update={"checkpoint": str(ckpt)})
