"""Code first, image second: which evidence decides, disagreement flagged, never rejected."""

from __future__ import annotations

from diagramforge.classifier.decide import (
    COLUMNS,
    IMAGE,
    IMAGE_DRAWN,
    REJECTED,
    UNCERTAIN,
    decide,
)
from diagramforge.classifier.evidence import Evidence
from diagramforge.classifier.settings import ClassifierParams
from diagramforge.filter.diagram_type import verdict

CFG = ClassifierParams(checkpoint="x")
PHOTO = {"natural_image": 0.7, "bar_chart": 0.2, "graph": 0.1}


def test_code_decides_and_a_disagreeing_image_is_only_flagged() -> None:
    typed = decide(Evidence("circuit", "tikz.circuitikz"), PHOTO, CFG)
    assert (typed.label, typed.source, typed.prob) == ("circuit", "code:tikz.circuitikz", None)
    assert (typed.image_label, typed.image_prob, typed.disagree) == ("natural_image", 0.7, True)
    v = verdict(typed, CFG)
    assert v.keep and set(v.metrics) == set(COLUMNS)
    assert v.metrics["diagram_type_disagree"] is True


def test_agreement_is_judged_by_acl_fig_category() -> None:
    typed = decide(Evidence("commutative_diagram", "tikz.tikzcd"), {"graph": 0.9, "tree": .1},
                   CFG)
    assert typed.disagree is False


def test_charts_with_code_are_kept_and_labelled() -> None:
    v = verdict(decide(Evidence("bar_chart", "tikz.pgfplots_bar"), PHOTO, CFG), CFG)
    assert v.keep and v.metrics["diagram_type"] == "bar_chart"


def test_silent_drawing_never_becomes_a_photo() -> None:
    """The issue's grids of squares typed "photo": a drawing takes the image's best drawable
    kind, and an unsure image does not reject it."""
    typed = decide(Evidence(None, "tikz.silent"), PHOTO, CFG)
    assert (typed.label, typed.source, typed.prob) == ("bar_chart", IMAGE_DRAWN, 0.2)
    assert typed.image_label == "natural_image"
    assert verdict(typed, CFG).keep


def test_image_alone_decides_for_pdf_cutouts() -> None:
    photo = verdict(decide(None, PHOTO, CFG), CFG)
    assert (photo.keep, photo.reason) == (False, REJECTED)
    assert photo.metrics["diagram_type_source"] == IMAGE
    unsure = verdict(decide(None, {"graph": 0.4, "tree": 0.35, "table": 0.25}, CFG), CFG)
    assert (unsure.keep, unsure.reason) == (False, UNCERTAIN)
    sure = verdict(decide(None, {"graph": 0.8, "tree": 0.2}, CFG), CFG)
    assert sure.keep and sure.metrics["diagram_type"] == "graph"


def test_a_raster_inside_the_code_lets_the_image_say_photo() -> None:
    typed = decide(Evidence(None, "tikz.silent", drawn=False), PHOTO, CFG)
    assert (typed.label, typed.source) == ("natural_image", IMAGE)


def test_image_only_mode_ignores_the_code() -> None:
    cfg = ClassifierParams(checkpoint="x", evidence="image")
    typed = decide(Evidence("circuit", "tikz.circuitikz"), PHOTO, cfg)
    assert (typed.label, typed.source) == ("natural_image", IMAGE)


def test_unmapped_checkpoint_label_is_uncertain() -> None:
    v = verdict(decide(None, {"Bar charts": 0.9, "graph": 0.1}, CFG), CFG)
    assert (v.keep, v.reason) == (False, UNCERTAIN) and "label_map" in v.detail
