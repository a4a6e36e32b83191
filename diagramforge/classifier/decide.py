"""Combine the code's evidence and the image's opinion into one type, and say which decided.

1. A rule on the code fired: its label is the type (``diagram_type_source = code:<rule>``).
   The image's top label is still recorded, and where its ACL-Fig category differs from the
   code's the row is flagged (``diagram_type_disagree``) — flagged, never rejected: a
   disagreement is a question for a person or for the next classifier, not a verdict.
2. The code says nothing but draws vectors (a TikZ picture, a draw.io page, an SVG with no
   embedded raster): the image picks the kind among everything but photographs and
   screenshots (``image:drawn``).  Nothing is rejected for being unsure here either: it is a
   drawing, we only do not know which kind.
3. No author's code (raster figures, anything cut out of a PDF): the image decides alone
   (``image``); below the threshold the row is ledgered as uncertain.

Then the pool's own policy: a type in ``reject`` (by default only what is no diagram of any
kind: photographs and screenshots) is ledgered.
"""

from __future__ import annotations

from dataclasses import dataclass

from diagramforge.classifier.determinism import top
from diagramforge.classifier.evidence import Evidence
from diagramforge.classifier.settings import ClassifierParams
from diagramforge.vocabulary import KINDS, LABELS, Family, acl_fig

REJECTED = "diagram_type_rejected"
UNCERTAIN = "diagram_type_uncertain"
IMAGE = "image"
IMAGE_DRAWN = "image:drawn"
CODE = "code:"

COLUMNS = ("diagram_type", "diagram_type_prob", "diagram_type_source", "diagram_type_image",
           "diagram_type_image_prob", "diagram_type_disagree")
"""What the filter writes: the type, the probability of the image's pick where the image
decided (null where code did), which evidence decided, the image's own top label and its
probability, and whether code and image disagree (null where there was no code to disagree
with)."""


@dataclass(frozen=True)
class Typed:
    label: str
    prob: float | None
    source: str
    image_label: str | None
    image_prob: float | None
    disagree: bool | None

    def columns(self) -> dict:
        return dict(zip(COLUMNS, (self.label, self.prob, self.source, self.image_label,
                                  self.image_prob, self.disagree), strict=True))


def _drawable(probs: dict[str, float]) -> dict[str, float]:
    """The image's probabilities restricted to kinds a vector drawing can be."""
    return {lab: p for lab, p in probs.items()
            if lab not in KINDS or KINDS[lab].family != Family.IMAGE}


def decide(ev: Evidence | None, probs: dict[str, float] | None,
           cfg: ClassifierParams) -> Typed:
    """The type of one record from its evidence and its image's (rounded) probabilities;
    ``probs`` may be ``None`` only when the code decides."""
    order = list(LABELS)
    image_label, image_prob = top(probs, order) if probs else (None, None)
    if cfg.evidence == "code_first" and ev is not None and ev.label is not None:
        disagree = None if image_label is None or image_label not in KINDS else \
            acl_fig(image_label) != acl_fig(ev.label)
        return Typed(ev.label, None, f"{CODE}{ev.rule}", image_label, image_prob, disagree)
    assert probs, "the image must be classified where the code does not decide"
    if cfg.evidence == "code_first" and ev is not None and ev.drawn:
        drawable = _drawable(probs)
        if drawable:
            label, prob = top(drawable, order)
            return Typed(label, prob, IMAGE_DRAWN, image_label, image_prob, None)
    assert image_label is not None and image_prob is not None
    return Typed(image_label, image_prob, IMAGE, image_label, image_prob, None)
