"""Parameters of the diagram-type classifier: what to load, what to keep, how to train.

Everything that changes which records survive (labels kept or rejected, the probability
threshold) or what the trained checkpoint is (seed, sizes, epochs) lives here so that a DVC
stage depends on it and a user swaps in a real checkpoint by changing one value.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_OUT_DIR = "data/classifier"
DEFAULT_CHECKPOINT = f"{DEFAULT_OUT_DIR}/checkpoint"

KEEP_LABELS = ["diagram", "tree", "graph", "flowchart", "architecture", "neural_network",
               "commutative_diagram", "circuit", "uml"]
"""ACL-Fig-like diagram classes SKETikZ keeps (trees, graphs, architecture, networks…)."""

REJECT_LABELS = ["plot", "table", "photo"]
"""Numerical charts, tables and photographs: not diagrams to draw as code."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TrainParams(_Section):
    """How the pipeline trains its own small checkpoint (no weights can be downloaded here)."""

    seed: int = 1234
    architecture: Literal["resnet", "vit", "convnext"] = "resnet"
    epochs: Annotated[int, Field(ge=1)] = 12
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
    """Weak-label classes with fewer distinct images are merged into ``fallback_label``: one
    example of a circuit cannot teach "circuit", but it still teaches "a diagram"."""
    fallback_label: str = "diagram"
    augment_copies: Annotated[int, Field(ge=0)] = 2
    """Deterministic crop/pad/shift variants added per training image (never to held-out)."""
    negatives: dict[str, Annotated[int, Field(ge=0)]] = {"plot": 60, "table": 40, "photo": 40}
    """Generated negatives per label (see ``negatives.py``)."""
    threads: Annotated[int, Field(ge=1)] = 2


class ClassifierParams(_Section):
    """Load a checkpoint, classify renders, map labels to keep / reject."""

    checkpoint: str = DEFAULT_CHECKPOINT
    """A local directory written by ``save_pretrained`` or a Hub id (``org/name``)."""
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
    image_size: Annotated[int, Field(ge=16, le=512)] = 64
    images_dir: str = f"{DEFAULT_OUT_DIR}/images"
    """Where training writes the labelled images it trained on (for inspection, DVC outs)."""
    train: TrainParams = TrainParams()

    @model_validator(mode="after")
    def _disjoint(self) -> ClassifierParams:
        both = set(self.keep) & set(self.reject)
        if both:
            raise ValueError(f"labels both kept and rejected: {sorted(both)}")
        return self
