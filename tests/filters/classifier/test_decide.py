"""Code first, image second: which evidence decides, disagreement flagged, never rejected."""

from __future__ import annotations

from diagramforge.filters.classifier.decide import (
    COLUMNS,
    IMAGE,
    IMAGE_DRAWN,
    REJECTED,
    UNCERTAIN,
    UNKNOWN,
    decide,
)
from diagramforge.filters.classifier.evidence import Evidence
from diagramforge.filters.classifier.settings import ClassifierParams
from diagramforge.filters.filter.diagram_type import verdict

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


def test_silent_drawing_is_unknown_not_a_guess() -> None:
    """A drawing no rule names: the image's best guess below ``second_opinion`` is not
    published as its type (the old fallback made physics sketches architecture diagrams);
    the type is unknown, kept, counted, and no graph rows are written from it."""
    typed = decide(Evidence(None, "tikz.silent", family="diagram"), PHOTO, CFG)
    assert (typed.label, typed.source, typed.family, typed.graph_like) == (
        None, UNKNOWN + "silent", "diagram", False)
    assert typed.image_label == "natural_image" and "bar_chart p=0.2" in typed.evidence
    v = verdict(typed, CFG)
    assert v.keep and v.metrics["diagram_type"] is None
    assert v.metrics["diagram_family"] == "diagram"


def test_a_sure_image_is_a_second_opinion_within_the_code_s_family() -> None:
    sure = decide(Evidence(None, "tikz.silent", family="diagram"),
                  {"tree": 0.95, "bar_chart": 0.05}, CFG)
    assert (sure.label, sure.source, sure.prob, sure.graph_like) == (
        "tree", IMAGE_DRAWN, 0.95, False)
    contradicted = decide(Evidence(None, "tikz.silent", family="diagram"),
                          {"bar_chart": 0.95, "tree": 0.05}, CFG)
    assert (contradicted.label, contradicted.source, contradicted.family) == (
        None, UNKNOWN + "unsure", "diagram")
    no_family = decide(Evidence(None, "tikz.silent"), {"line_chart": 0.6,
                                                      "bar_chart": 0.35, "tree": 0.05}, CFG)
    assert (no_family.label, no_family.family) == (None, "chart")


def test_a_connector_kind_is_not_taken_for_a_picture_that_joins_nothing() -> None:
    """A grid of cells (a draw.io Gantt chart, 0 edges) the image calls a block diagram at
    0.997: block diagrams are drawn with connectors, so the reading is refused (unknown);
    the same image with links, or with no structure graph to count, is taken."""
    sure = {"block_diagram": 0.997, "table": 0.003}
    grid = decide(Evidence(None, "mxgraph.cells", family="diagram"), sure, CFG, links=0)
    assert (grid.label, grid.source) == (None, UNKNOWN + "unsure")
    assert "joins nothing" in grid.evidence
    joined = decide(Evidence(None, "mxgraph.cells", family="diagram"), sure, CFG, links=4)
    assert (joined.label, joined.graph_like) == ("block_diagram", True)
    unread = decide(Evidence(None, "mxgraph.cells", family="diagram"), sure, CFG)
    assert unread.label == "block_diagram"


def test_graph_like_is_the_picture_s_own() -> None:
    """The code's own verdict where it gives one (a sequence diagram is UML, no node-link
    drawing), the kind's otherwise; a graph without links is never graph-like."""
    seq = decide(Evidence("uml", "tikz.uml_package", graph_like=False), PHOTO, CFG)
    cls = decide(Evidence("uml", "tikz.uml_package"), PHOTO, CFG)
    assert (seq.graph_like, cls.graph_like) == (False, True)
    assert decide(Evidence("tree", "tikz.child"), PHOTO, CFG, links=0).graph_like is False
    assert decide(Evidence("tree", "tikz.child"), PHOTO, CFG, links=3).graph_like is True


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
