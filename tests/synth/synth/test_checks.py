"""Code's checks on model wording, and the answers and steps code computes."""

from __future__ import annotations

import json

import pytest

from diagramforge.synth.referents.steps import colour
from diagramforge.synth.synth import editing, qa
from diagramforge.synth.synth.checks import (
    forbidden_references,
    paraphrase_problems,
    ungrounded_quotes,
)
from diagramforge.synth.synth.facts import facts_of
from diagramforge.synth.synth.settings import SynthParams
from tests.synth.synth.conftest import diagrams, edits, mx

VOCAB = {"start", "valid?", "save record", "stop", "yes", "no"}


def test_quotes_must_be_labels_of_the_diagram():
    assert ungrounded_quotes('From "Start" to “Save  record”, then \'Stop\'.', VOCAB) == []
    assert ungrounded_quotes('It checks "Valid?" and calls "Payment API".', VOCAB) == \
        ["Payment API"]
    assert ungrounded_quotes("The diagram's nodes don't quote anything.", VOCAB) == []


@pytest.mark.parametrize("text,kind", [
    ("Recolour node n_enc in red.", "id"),
    ("Move the box to (200, 40).", "coordinate"),
    ("Shift it right by 40px.", "coordinate"),
    ("Set fillColor of Start to red.", "attribute"),
    ("Use stroke-width 3 on the arrow.", "attribute"),
    ('Give it style="dashed".', "attribute"),
    ("Wrap it in an <mxCell> element.", "markup"),
    (r"Replace \draw with a thicker line.", "markup"),
])
def test_forbidden_references_in_instructions(text, kind):
    found = forbidden_references(text, {"n_enc", "s1"}, {"start"})
    assert any(f.startswith(kind) for f in found), found


def test_plain_instruction_and_word_ids_pass():
    text = 'Make the "Start" node red and move "Output" a little to the right.'
    assert forbidden_references(text, {"start", "new", "output"}, {"start", "output"}) == []


def test_paraphrase_keeping_the_answer_passes_and_changes_are_caught():
    t = 'Is there a direct arrow from "Start" to "Stop"?'
    ok = 'Looking at the chart, does an arrow lead directly from "Start" to "Stop"?'
    args = ("yesno", ["Start", "Stop"], "No", ["Start", "Stop", "Valid?"], ["arrow|connection"])
    assert paraphrase_problems(t, ok, *args, order=("Start", "Stop")) == []
    assert "polarity changed" in paraphrase_problems(
        t, 'Is there no direct arrow from "Start" to "Stop"?', *args)
    assert "direction swapped" in paraphrase_problems(
        t, 'Is there a direct arrow from "Stop" to "Start"?', *args, order=("Start", "Stop"))
    assert any(p.startswith("missing referent") for p in paraphrase_problems(
        t, 'Is there a direct arrow from "Start" onwards?', *args))
    assert "not a yesno question" in paraphrase_problems(
        t, 'Which arrow goes from "Start" to "Stop"?', *args)
    which = 'Which element does the arrow from "Valid?" point to?'
    assert "reveals the answer" in paraphrase_problems(
        which, 'Which element, "Save record", does the arrow from "Valid?" point to?',
        "which", ["Valid?"], "Save record", ["Save record", "Valid?"], ["arrow"])


def test_questions_carry_computed_answers_and_distinct_choices():
    facts, _ = facts_of(diagrams()[0])
    assert facts is not None
    ground = qa.Ground(qa.GRAPH, facts)
    params = SynthParams(qa_per_type=50)
    qs = qa.questions(ground, params, "flow")
    assert qs == qa.questions(ground, params, "flow")  # seeded: a rerun asks the same
    got = {q.text: q.answer for q in qs}
    assert got["How many elements does the diagram contain?"] == "4"
    assert got['How many connections does "Valid?" have?'] == "3"
    assert got['What is the label of the connection from "Valid?" to "Stop"?'] == "no"
    assert got['What shape is the element "Valid?"?'] == "diamond"
    assert got['How many ellipse shapes are there in the diagram?'] == "2"
    for q in qs:
        assert q.answer not in q.distractors and len(set(q.distractors)) == len(q.distractors)
    items, dropped = qa.items(diagrams()[0], ground, params)
    assert items and dropped == []
    for item in items:
        choices = json.loads(item.base["choices"])
        assert choices["ABCDEFGH".index(item.base["answer_option"])] == item.base["answer"]


def test_edit_steps_name_elements_by_description_and_follow_renames():
    got = editing.items(edits()[1], None, SynthParams())
    assert not isinstance(got, tuple), got
    steps = got[0].request.context["steps"]
    # step 3 reads the diagram as step 1 left it: "Encoder" is "Decoder" by then
    assert steps == ['change the text of the box "Encoder" to "Decoder"',
                     'move the box "Output" right and down',
                     'add an arrow from the box "Input" to the box "Output"']
    ops = json.loads(got[0].base["operations"])
    assert [o["refs"] for o in ops][0] == {"node": {"text": 'the box "Encoder"',
                                                    "kind": "label"}}
    assert got[0].base["template_instruction"] == steps[0][0].upper() + "; then ".join(
        steps)[1:] + "."
    assert colour("#f8cecc") == "light red" and colour("blue!20") == "light blue"
    assert editing.new_texts(ops) == ["Decoder"]
    redirect = {"op": "redirect_edge", "target": {"id": "x1", "text": "", "kind": "edge"},
                "params": {"source": "s1", "target": "d2", "label": "", "new_target": "e4"}}
    got = editing.items({**edits()[0], "operations": json.dumps([redirect])}, None,
                        SynthParams())
    assert got[0].request.context["steps"] == [
        'make the arrow from "Start" to "Valid?" point to the oval "Stop" instead']  # 80×40


def test_an_edit_whose_target_nothing_singles_out_is_ledgered():
    code = mx([("a", "", "", 0, 0), ("b", "", "", 0, 0), ("c", "Hub", "", 200, 0)], [])
    row = {**edits()[0], "source_code": code, "operations": json.dumps([
        {"op": "node_colour", "target": {"id": "a", "text": "", "kind": "node"},
         "params": {"node": "a", "colour": "#f8cecc"}}])}
    assert editing.items(row, None, SynthParams()) == (
        "instruction_unresolved", "step 1 (node_colour): no description singles out an "
                                  "element it acts on")
    broken = {**row, "source_code": "<mxGraphModel><root/></mxGraphModel>"}
    assert editing.items(broken, None, SynthParams())[0] == "instruction_unresolved"


def test_labels_that_look_like_attributes_are_what_the_reader_sees():
    code = mx([("a", "t=1 mo", "", 0, 0), ("b", "(0, 1)", "", 200, 0)], [("x1", "a", "b", "")])
    row = {**edits()[0], "source_code": code, "operations": json.dumps([
        {"op": "node_colour", "target": {"id": "a", "text": "t=1 mo", "kind": "node"},
         "params": {"node": "a", "colour": "#f8cecc"}}])}
    item = editing.items(row, None, SynthParams())[0]
    assert item.check({"instruction": 'Colour the box "t=1 mo" light red.'}) == ("", "")
    # the same words unquoted, or quoting something the diagram does not show, still fail
    assert item.check({"instruction": 'Colour the box "t=1 mo" light red, fillColor=red.'}
                      )[0] == "instruction_forbidden"
    assert item.check({"instruction": 'Colour the box "t=1 mo" at "(200, 0)" light red.'}
                      )[0] == "instruction_forbidden"
