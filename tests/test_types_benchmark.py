"""benchmarks/types.py's scoring on tiny hand-made inputs: how label keys reach pictures, what
counts as an abstention or a wrong type, the confusion matrix, labeller agreement (no TeX,
no browser, no classifier)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def types():  # noqa: ANN201 - the benchmark module
    spec = importlib.util.spec_from_file_location("types_benchmark",
                                                  REPO / "benchmarks" / "types.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["types_benchmark"] = mod
    spec.loader.exec_module(mod)
    return mod


def _pictures(types):  # noqa: ANN001, ANN202
    """A file with two rendered pictures, one with a picture that failed to render, one whose
    extraction gave nothing, and Mermaid's derived-file alias."""
    pics = [
        {"key": "c/a.tex#1", "file_key": "c/a.tex", "corpus": "c", "n": 1,
         "status": "rendered", "stage": None, "reason": None},
        {"key": "c/a.tex#2", "file_key": "c/a.tex", "corpus": "c", "n": 2,
         "status": "rendered", "stage": None, "reason": None},
        {"key": "c/a.tex#3", "file_key": "c/a.tex", "corpus": "c", "n": 3,
         "status": "extract", "stage": "extract", "reason": "too_small"},
        {"key": "c/b.tex#1", "file_key": "c/b.tex", "corpus": "c", "n": 1,
         "status": "render", "stage": "render", "reason": "compile_error"},
        {"key": "m/x.md#2", "file_key": "m/x.md", "corpus": "m", "n": 2,
         "status": "rendered", "stage": None, "reason": None},
    ]
    files = [{"file_key": "c/a.tex", "corpus": "c"}, {"file_key": "c/b.tex", "corpus": "c"},
             {"file_key": "c/e.tex", "corpus": "c", "file_stage": "extract",
              "file_reason": "no_diagrams"},
             {"file_key": "m/x.md", "corpus": "m"}]
    return types.Pictures.build(pics, files, {"m/_extracted_mmd/x__02.mmd": "m/x.md#2"})


def _lab(types, key, typ, gl=False, who="alice", unsure=False):  # noqa: ANN001, ANN202
    return types.Label(who, key, typ, gl, unsure)


def test_a_file_key_labels_every_extracted_picture_and_a_picture_key_overrides_it(types):
    pics = _pictures(types)
    labels = [_lab(types, "c/a.tex", "geometry"), _lab(types, "c/a.tex#2", "function_plot"),
              _lab(types, "c/b.tex", "circuit"), _lab(types, "c/e.tex", "tree"),
              _lab(types, "c/nowhere.tex", "tree"),
              _lab(types, "m/_extracted_mmd/x__02.mmd", "uml", True)]
    per, unplaced = types.assign(labels, pics)
    # the extract-rejected third picture of a.tex is not covered by the file's label
    assert {k: [lab.type for lab in v] for k, v in per.items()} == {
        "c/a.tex#1": ["geometry"], "c/a.tex#2": ["function_plot"], "c/b.tex#1": ["circuit"],
        "m/x.md#2": ["uml"]}
    assert {u["key"]: u["why"] for u in unplaced} == {
        "c/e.tex": "extract:no_diagrams", "c/nowhere.tex": "not in the data"}
    # the picture that failed to render is labelled, but its status says it was not drawn
    assert pics.status["c/b.tex#1"]["status"] == "render"


def test_the_author_render_name_finds_its_tex_file(types):
    assert types.Pictures.expand(_pictures(types), "c/a.png") == (["c/a.tex#1", "c/a.tex#2"],
                                                                  None)


def test_published_reads_added_columns_when_present(types):
    plain = types.published({"diagram_type": "flowchart", "diagram_type_source": "code:x"})
    assert (plain.family, plain.graph_like) == ("diagram", True)
    abstained = types.published({"diagram_type": None, "diagram_family": "diagram",
                                 "graph_like": None, "diagram_type_evidence": "weak"})
    assert (abstained.type, abstained.family, abstained.graph_like, abstained.evidence) == \
        (None, "diagram", False, "weak")
    told = types.published({"diagram_type": "circuit", "graph_like": True})
    assert told.graph_like is True  # the filter's own verdict over the vocabulary's
    # a record the pool drops for its decided type still published that type; one the
    # filter could not type did not
    assert types.published({"diagram_type": "screenshot"}, False,
                           types.TYPE_REJECTED).type == "screenshot"
    assert types.published({"diagram_type": "graph"}, False,
                           "diagram_type_uncertain").type is None


def test_abstention_wrong_and_parent_level_agreement(types):
    P = types.Published
    pairs = [
        (_lab(types, "k1", "geometry"), P(None, None, False)),                 # abstains
        (_lab(types, "k2", "feynman_diagram"), P("block_diagram", "diagram", True)),  # wrong
        (_lab(types, "k3", "function_plot"), P("line_chart", "chart", False)),  # parent right
        (_lab(types, "k4", "tree", True), P("tree", "diagram", True)),          # exact
    ]
    s = types.score(pairs)
    assert s["counts"] == {"exact": 1, "parent": 2, "family": 3, "graph_like": 3,
                           "abstain": 1, "wrong": 1}
    assert s["of_all"]["abstain"] == 0.25 and s["of_all"]["wrong"] == 0.25
    assert s["answered"] == 3 and s["of_answered"]["parent"] == round(2 / 3, 3)
    assert s["graph_like_matrix"]["eye_no_pub_yes"] == 1


def test_illustration_is_scored_through_the_extra_table_and_other_is_counted_apart(types):
    P = types.Published
    scored = {"a": (_lab(types, "a", "illustration"), P("geometry", "diagram", False)),
              "b": (_lab(types, "b", "other:timeline"), P(None, None, False))}
    s = types.summary(scored, {"a": "c", "b": "c"})
    assert s["overall"]["n"] == 1
    assert s["overall"]["counts"]["parent"] == 1  # both under graph
    assert s["apart"]["other"] == {"other:timeline": 1}
    assert s["apart"]["published_for_them"] == {"null": 1}


def test_confusion_matrix_has_a_null_column(types):
    P = types.Published
    pairs = [(_lab(types, "a", "geometry"), P(None, None, False)),
             (_lab(types, "b", "geometry"), P("architecture_diagram", "diagram", True)),
             (_lab(types, "c", "geometry"), P(None, None, False))]
    assert types.confusion(pairs) == {"geometry": {"null": 2, "architecture_diagram": 1}}


def test_labeller_agreement_and_truth_modes(types):
    per = {"p1": [_lab(types, "p1", "geometry", who="b"), _lab(types, "p1", "illustration",
                                                              who="a")],
           "p2": [_lab(types, "p2", "tree", True, who="a"),
                  _lab(types, "p2", "graph", False, who="b")],
           "p3": [_lab(types, "p3", "table", who="b")]}
    ag = types.agreement(per)
    assert ag["pictures"] == 2
    assert (ag["all"]["exact"], ag["all"]["parent"], ag["all"]["graph_like"]) == (0, 1, 1)
    first = types.truth(per, ["a", "b"], "first")
    assert {k: lab.type for k, lab in first.items()} == {"p1": "illustration", "p2": "tree",
                                                        "p3": "table"}
    agreed = types.truth(per, ["a", "b"], "agreed")
    assert {k: lab.type for k, lab in agreed.items()} == {"p1": "illustration"}


def test_read_labels_parses_the_guide_format(types, tmp_path):
    f = tmp_path / "bob.csv"
    f.write_text("key,type,graph_like,unsure,note\n"
                 'c/a.tex,geometry,no,1,"a, b"\n'
                 "c/a.tex#2,tree,yes,,\n\n")
    labs = types.read_labels(f)
    assert [(lab.labeller, lab.key, lab.type, lab.graph_like, lab.unsure) for lab in labs] == [
        ("bob", "c/a.tex", "geometry", False, True), ("bob", "c/a.tex#2", "tree", True, False)]
