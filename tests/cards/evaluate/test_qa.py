from __future__ import annotations

import json

import pytest

from diagramforge.cards.evaluate.qa import picked_option, score_item


@pytest.mark.parametrize(("output", "want"), [
    ("B", "B"), ("(b)", "B"), ("C. Save", "C"), ("Save", "C"), ("save!", "C"),
    ("A node", None), ("D", None), ("", None)])
def test_picked_option(output: str, want: str | None) -> None:
    assert picked_option(output, ["Load", "Parse", "Save"]) == want


def test_choice_text_wins_over_a_letter() -> None:
    """A node named "A" that is option B: answering its name picks B."""
    assert picked_option("A", ["C", "A", "B"]) == "B"


def test_inclusion_needs_whole_words() -> None:
    ref = {"id": "q", "answer": "3", "choices": json.dumps(["3", "13"]),
           "answer_option": "A", "qa_type": "counting"}
    assert score_item(ref, "13 nodes")["inclusion"] == 0.0
    assert score_item(ref, "there are 3 nodes")["inclusion"] == 1.0
    assert score_item(ref, None)["reason"] == "no_prediction"
