"""Combine the code's evidence and the image's opinion into one type, and say what decided.

1. A rule on the code fired: its label is the type (``diagram_type_source = code:<rule>``),
   and the line it matched is the evidence (``diagram_type_evidence``).  The image's top label
   is still recorded, and where its ACL-Fig category differs from the code's the row is
   flagged (``diagram_type_disagree``) — flagged, never rejected.
2. The code has an author but names no kind: the image is a **second opinion**.  Its label is
   taken only when it is sure (``second_opinion``, 0.9) and agrees with the family the code
   still states (a TikZ drawing without axes is a diagram); otherwise the type is **unknown**
   — published null, with the family where the code or a sure image states it, and the
   reason in ``diagram_type_source`` (``unknown:silent``, ``unknown:unsure``).  A picture no
   rule recognises used to become the image's best guess, on real physics figures mostly a
   wrong one (``architecture_diagram`` for vectors and contours): a guess published as a fact.
3. No author's code (raster figures, anything cut out of a PDF), or code drawing over a
   raster image it includes (the code cannot see what the image shows): the image decides
   alone (``image``); below the threshold the row is ledgered as uncertain.

Whether *this picture* is graph-like (``graph_like``) — the gate of every graph-grounded row
(QA about connections, edit referents, twins) — is the code's own verdict where it gives one
(a pgf-umlsd sequence diagram is UML and no node-link drawing), else its kind's; an unknown
picture is not, nor one whose structure graph has no link; a kind the image alone names is
graph-like only where the structure graph has links.

Then the pool's own policy: a type in ``reject`` (by default only what is no diagram of any
kind: photographs and screenshots) is ledgered.
"""

from __future__ import annotations

from dataclasses import dataclass

from diagramforge.filters.classifier.determinism import top
from diagramforge.filters.classifier.evidence import Evidence
from diagramforge.filters.classifier.settings import ClassifierParams
from diagramforge.vocabulary import KINDS, LABELS, Family, acl_fig, family, graph_like

REJECTED = "diagram_type_rejected"
UNCERTAIN = "diagram_type_uncertain"
IMAGE = "image"
IMAGE_DRAWN = "image:drawn"
CODE = "code:"
UNKNOWN = "unknown:"
SILENT = f"{UNKNOWN}silent"
"""The code names no kind and the image did not speak (below ``second_opinion``)."""
UNSURE = f"{UNKNOWN}unsure"
"""The code names no kind; the image named one the code's family contradicts."""

COLUMNS = ("diagram_type", "diagram_family", "graph_like", "diagram_type_prob",
           "diagram_type_source", "diagram_type_evidence", "diagram_type_image",
           "diagram_type_image_prob", "diagram_type_disagree")
"""What the filter writes: the type (null: unknown), its family (known more often than the
type), whether this picture is a node-link drawing, the probability of the image's pick where
the image decided (null where code did), which evidence decided and what it saw, the image's
own top label and its probability, and whether code and image disagree (null where there was
no code to disagree with)."""


@dataclass(frozen=True)
class Typed:
    label: str | None
    prob: float | None
    source: str
    image_label: str | None
    image_prob: float | None
    disagree: bool | None
    family: str | None = None
    graph_like: bool = False
    evidence: str | None = None

    def columns(self) -> dict:
        return dict(zip(COLUMNS, (self.label, self.family, self.graph_like, self.prob,
                                  self.source, self.evidence, self.image_label,
                                  self.image_prob, self.disagree), strict=True))


def _drawable(probs: dict[str, float]) -> dict[str, float]:
    """The image's probabilities restricted to kinds a vector drawing can be."""
    return {lab: p for lab, p in probs.items()
            if lab not in KINDS or KINDS[lab].family != Family.IMAGE}


def _family_mass(probs: dict[str, float]) -> tuple[str, float] | None:
    """The family the image puts most probability on, with that probability."""
    mass: dict[str, float] = {}
    for lab, p in probs.items():
        if lab in KINDS:
            mass[family(lab)] = mass.get(family(lab), 0.0) + p
    if not mass:
        return None
    fam = max(sorted(mass), key=lambda f: mass[f])
    return fam, round(mass[fam], 6)


def decide(ev: Evidence | None, probs: dict[str, float] | None,
           cfg: ClassifierParams, links: int | None = None) -> Typed:
    """The type of one record from its evidence and its image's (rounded) probabilities;
    ``probs`` may be ``None`` only when the code decides.  ``links``: the attached edges of
    the record's structure graph where the render built one (none: no picture is graph-like
    without links)."""
    order = list(LABELS)
    image_label, image_prob = top(probs, order) if probs else (None, None)
    linked = links is None or links > 0
    if cfg.evidence == "code_first" and ev is not None and ev.label is not None:
        disagree = None if image_label is None or image_label not in KINDS else \
            acl_fig(image_label) != acl_fig(ev.label)
        like = ev.graph_like if ev.graph_like is not None else graph_like(ev.label)
        return Typed(ev.label, None, f"{CODE}{ev.rule}", image_label, image_prob, disagree,
                     family(ev.label), bool(like and linked), ev.line)
    assert probs, "the image must be classified where the code does not decide"
    if cfg.evidence == "code_first" and ev is not None and ev.drawn:
        drawable = _drawable(probs)
        said = f"{ev.rule}" + (f" ({ev.line})" if ev.line else "")
        if drawable:
            label, prob = top(drawable, order)
            fits = label in KINDS and (ev.family is None or family(label) == ev.family)
            # a kind drawn with connectors, said of a picture with none, is a misreading
            # (a Gantt grid of cells read as a block diagram)
            unjoined = label in KINDS and graph_like(label) and links == 0
            if prob >= cfg.second_opinion and fits and not unjoined:
                like = graph_like(label) and links is not None and links > 0
                return Typed(label, prob, IMAGE_DRAWN, image_label, image_prob, None,
                             family(label), like, f"classifier p={prob}; code: {said}")
            fam = ev.family
            mass = _family_mass(drawable)
            if fam is None and mass and mass[1] >= cfg.second_opinion:
                fam = mass[0]
            if prob >= cfg.second_opinion:  # sure, but no kind of the code's family
                why = "joins nothing" if unjoined and fits else f"is no {ev.family}"
                return Typed(None, None, UNSURE, image_label, image_prob, None, fam, False,
                             f"code: {said}; classifier {label} p={prob} {why}")
            return Typed(None, None, SILENT, image_label, image_prob, None, fam, False,
                         f"code: {said}; classifier {label} p={prob} < {cfg.second_opinion}")
    assert image_label is not None and image_prob is not None
    fam = family(image_label) if image_label in KINDS else None
    return Typed(image_label, image_prob, IMAGE, image_label, image_prob, None, fam, False,
                 f"classifier p={image_prob}")
