"""The ``split`` section of ``params.yaml``: split shares and grouping, near-duplicate
clustering (code, image, PDF-figure matching), difficulty tiers per format and
decontamination.  Read by the split stage alone.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import Field, model_validator

from diagramforge.params import Section


class NearDupCodeParams(Section):
    threshold: Annotated[float, Field(gt=0, le=1)] = 0.8
    """Estimated Jaccard similarity of code shingles at which two diagrams are one."""
    num_perm: Annotated[int, Field(ge=16, le=1024)] = 128
    shingle: Annotated[int, Field(ge=1)] = 5
    """Tokens per shingle."""
    seed: int = 1


class NearDupImageParams(Section):
    max_distance: Annotated[int, Field(ge=0, le=16)] = 4
    """pHash Hamming distance (of 64 bits) at or below which two renders are one."""
    hash_size: Annotated[int, Field(ge=4, le=8)] = 8


class PdfMatchParams(Section):
    """A figure cut from a PDF joins the cluster of its code (``split.pdf_match``): within
    its paper, by caption, shape and labels — image hashes rarely link a page crop to a
    standalone render."""

    enabled: bool = True
    caption_similarity: Annotated[float, Field(ge=0, le=1)] = 0.85
    """Normalised caption text similarity (difflib ratio) at which two captions are one."""
    label_overlap: Annotated[float, Field(ge=0, le=1)] = 0.3
    """With a matching caption the labels only must not contradict it: share of the smaller
    set of node texts found in the other, when both have labels (a PDF's text layer splits
    superscripts, math and ligatures its own way: a log-scale plot's ticks agree at 0.43)."""
    label_overlap_alone: Annotated[float, Field(ge=0, le=1)] = 0.8
    """Without a caption on either side the labels alone must agree this closely…"""
    min_labels_alone: Annotated[int, Field(ge=1)] = 3
    """…over at least this many labels."""
    aspect_tolerance: Annotated[float, Field(ge=1)] = 1.25
    """Width/height ratios of the two renders may differ by this factor (crop padding)."""


class NearDupParams(Section):
    enabled: bool = True
    keep: Literal["first", "most_tokens", "fewest_tokens", "all"] = "first"
    """Which member of a cluster stays (``first``: earliest by group, source, id); ``all``
    keeps every member, tagged with its ``dup_cluster`` and kept in one split."""
    code: NearDupCodeParams = NearDupCodeParams()
    image: NearDupImageParams = NearDupImageParams()
    max_bucket: Annotated[int, Field(ge=2)] = 256
    """LSH buckets larger than this are linked as a star (linear work on boilerplate)."""
    pdf: PdfMatchParams = PdfMatchParams()


class TierParams(Section):
    method: Literal["thresholds", "quantiles"] = "quantiles"
    thresholds: Annotated[list[int], Field(min_length=2, max_length=2)] = [8645, 14000]
    """``[medium_from, hard_above]``: easy < medium_from <= medium <= hard_above < hard."""
    quantiles: Annotated[list[float], Field(min_length=2, max_length=2)] = [0.3333, 0.6667]
    structure: bool = False
    """Also tier the format's diagrams by their structure graph's size (``graph_nodes +
    graph_edges``), with the same method on the format's own sizes (``structure_thresholds``
    for fixed cut points); a diagram's tier is the harder of the two (SciFlow-Bench tiers by
    graph size).  For terse languages (DOT, Mermaid) a few tokens can hold a large graph and
    long labels or styling inflate tokens without adding structure; a diagram without a
    graph is tiered by tokens alone, one without tokens by structure alone."""
    structure_thresholds: Annotated[list[int], Field(min_length=2, max_length=2)] = [20, 50]

    @model_validator(mode="after")
    def _ordered(self) -> TierParams:
        if self.thresholds[0] > self.thresholds[1] or self.quantiles[0] > self.quantiles[1] \
                or self.structure_thresholds[0] > self.structure_thresholds[1]:
            raise ValueError("thresholds and quantiles must be in increasing order")
        if not all(0 <= q <= 1 for q in self.quantiles):
            raise ValueError("quantiles must lie in [0, 1]")
        return self


class DifficultyParams(Section):
    """Per format, how ``difficulty`` is tiered (:mod:`diagramforge.filters.split.difficulty`);
    a test fails when a registered format has no entry here."""

    mxgraph: TierParams = TierParams(method="thresholds")
    """VCG-Bench's cl100k tiers."""
    tikz: TierParams = TierParams()
    svg: TierParams = TierParams()
    dot: TierParams = TierParams(structure=True)
    """Terciles of its own tokens and of its own graph sizes, the harder tier wins."""
    mermaid: TierParams = TierParams(structure=True)
    raster: TierParams = TierParams(structure=True)
    """Pixels have no tokens: tiered by the OCR graph's size alone."""

    def formats(self) -> dict[str, TierParams]:
        return {"mxgraph": self.mxgraph, "tikz": self.tikz, "svg": self.svg, "dot": self.dot,
                "mermaid": self.mermaid, "raster": self.raster}


class DecontamParams(Section):
    """Test items whose code shares a long token run with train or with named external
    datasets (:mod:`diagramforge.filters.split.decontam`)."""

    enabled: bool = True
    ngram: Annotated[int, Field(ge=4)] = 50
    """Shared run length in code tokens (identifiers, numbers, single symbols; whitespace
    ignored) that counts as contamination."""
    min_shared: Annotated[int, Field(ge=1)] = 1
    """A test item is contaminated when at least this many of its n-grams occur elsewhere."""
    boilerplate_docs: Annotated[int, Field(ge=2)] = 5
    """An n-gram found in this many distinct documents of the pool (every split, plus the
    external sets) is boilerplate — a format's page header, a common preamble — not
    contamination, and is ignored."""
    action: Literal["flag", "move"] = "flag"
    """``flag``: keep the item in test with the reason in ``contamination``; ``move``: its
    whole leakage component goes to train (the reason stays in ``contamination``)."""
    against: list[str] = []
    """External datasets: a local Parquet file or directory, or a Hub id, read through
    ``datasets`` (offline: from its cache); every split, column ``code_column``."""
    code_column: str = "code"


class SplitParams(Section):
    seed: int = 1234
    train: Annotated[float, Field(ge=0, le=1)] = 0.8
    validation: Annotated[float, Field(ge=0, le=1)] = 0.1
    test: Annotated[float, Field(ge=0, le=1)] = 0.1
    group_by: Literal["source", "file"] = "source"
    """The unit no split may share: the whole paper/repository, or one file of it."""
    group_by_overrides: dict[str, Literal["source", "file"]] = {"repo": "file"}
    """Per source kind (``repo``, ``arxiv``) or per group (``repo:name``, which wins)."""
    min_groups: Annotated[int, Field(ge=3)] = 3
    """A format (or format × difficulty stratum) with this many groups gets all splits."""
    pinned: str = ""
    """Assignments file of a previous release (``data/split/assignments.json`` copied
    aside): its groups and ids keep their split and its quantile tiers are reused."""
    near_dup: NearDupParams = NearDupParams()
    difficulty: DifficultyParams = DifficultyParams()
    test_after: date | None = None
    """Test items only from sources dated after this day (DaTikZ); older or undated sources
    go to train/validation. ``null``: off."""
    decontaminate: DecontamParams = DecontamParams()

    @model_validator(mode="after")
    def _sums(self) -> SplitParams:
        total = self.train + self.validation + self.test
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"train + validation + test must be 1.0, got {total:g}")
        return self
