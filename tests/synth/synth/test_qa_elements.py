"""What a graph question may treat as an element, an arrow and a shape — as a person reads
the picture. Built on the sample PlantUML activity diagram checked by eye ("Conditional -
Activity Diagram": a title over the flow, a note tied to an action by a line, a decision
hexagon, start and stop dots), where the questions once counted the title as an element,
named it in reachability questions, answered "yes, an arrow" for a note's tie and offered
"circle" as the wrong answer for a round interface."""

from __future__ import annotations

import random

from diagramforge.synth.synth import qa
from diagramforge.synth.synth.facts import Facts, FEdge, FNode


def _activity() -> Facts:
    nodes = [FNode("@title", "Conditional - Activity Diagram", "text"),
             FNode("s", "", "circle"), FNode("eat", "Eat Hot Wings", "rounded"),
             FNode("n1", "This is a note to the right", "note"),
             FNode("drink", "Drink Homebrew", "rounded"),
             FNode("game", "Turn On The Game?", "hexagon"),
             FNode("fun", "Having Fun!!!", "rounded"), FNode("no", "Not Having Fun", "rounded"),
             FNode("bed", "Go To Bed", "rounded"), FNode("e", "", "circle")]
    arrows = [("s", "eat"), ("eat", "drink"), ("drink", "game"), ("game", "fun"),
              ("game", "no"), ("fun", "bed"), ("no", "bed"), ("bed", "e")]
    edges = [FEdge(a, b) for a, b in arrows] + [FEdge("n1", "eat", directed=False)]
    return Facts(nodes, edges, "graph")


def _all(f: Facts, seed: int) -> list[qa.Question]:
    rng = random.Random(seed)
    return [q for gen in (qa.counting, qa.identification, qa.relationship, qa.reachability)
            for q in gen(f, rng, 3)]


def test_a_title_is_not_an_element_nor_a_referent_nor_an_option():
    f = _activity()
    assert f.annotations == {"@title"}
    title = "Conditional - Activity Diagram"
    for seed in range(30):
        for q in _all(f, seed):
            assert title not in q.referents and title not in q.distractors and q.answer != title
    count = next(q for q in qa.counting(f, random.Random(0), 3) if q.key == "nodes")
    assert count.answer == "9"  # two dots, five actions, the test, the note: not the title


def test_an_undrawn_text_with_an_arrow_is_an_element():
    """A tikz-cd object is a bare text joined by arrows: it is what the diagram is made of."""
    f = Facts([FNode("a", "A", "text"), FNode("b", "B", "text"), FNode("t", "Title", "text")],
              [FEdge("a", "b")], "graph")
    assert f.annotations == {"t"}
    assert [n.id for n in f.unique_nodes] == ["a", "b"]


def test_a_line_is_not_an_arrow():
    f = _activity()
    for seed in range(40):
        for q in qa.relationship(f, random.Random(seed), 3):
            if q.answer == qa.YES:
                a, b = q.key.split(":")[1:]
                assert (a, b) != ("n1", "eat")  # the note's tie
            else:
                a, b = q.key.split(":")[1:]
                assert {a, b} != {"n1", "eat"}  # joined by a line: not "no" either
        for q in qa.reachability(f, random.Random(seed), 3):
            a, b = q.key.split(":")[1:]
            # from the note: no arrow leaves it, yet a line ties it on — neither answer holds
            assert a != "n1", q.text
            assert b != "n1" or q.answer == qa.NO  # towards it: only "no arrow leads there"


def test_reachability_along_arrows_is_still_asked():
    f = _activity()
    found = {q.answer for seed in range(20) for q in qa.reachability(f, random.Random(seed), 3)}
    assert found == {qa.YES, qa.NO}


def test_a_frame_makes_the_element_count_unasked():
    """A package's or a concurrent region's frame is an element to one reader and not to
    another: no single answer, no question."""
    f = Facts([FNode("p", "Features", "container"), FNode("a", "Login", "ellipse"),
               FNode("b", "Employee", "umlActor")], [FEdge("b", "a")], "graph")
    assert not [q for q in qa.counting(f, random.Random(0), 3) if q.key == "nodes"]


def test_a_round_shape_is_never_offered_its_other_name():
    f = Facts([FNode("i", "IMath", "circle"), FNode("u", "Login", "ellipse"),
               FNode("b", "Business Logic", "rectangle")],
              [FEdge("b", "i"), FEdge("b", "u")], "graph")
    for seed in range(40):
        for q in qa.identification(f, random.Random(seed), 7):
            if q.key.startswith("shape:") and q.answer in ("circle", "ellipse"):
                assert not {"circle", "ellipse"} & set(q.distractors), q
        counted = {q.key for q in qa.counting(f, random.Random(seed), 3)}
        assert "shape:circle" not in counted and "shape:ellipse" not in counted
        assert "shape:rectangle" in counted


def test_a_choice_among_one_option_is_not_asked():
    """Two boxes and an arrow: "which element does the arrow from Hi point to?" has no wrong
    option to offer, so it is not a multiple-choice question at all."""
    from diagramforge.synth.synth.settings import SynthParams

    f = Facts([FNode("a", "Hi", "rounded"), FNode("b", "Plain", "rounded")], [FEdge("a", "b")],
              "graph")
    ground = qa.Ground(qa.GRAPH, f)
    asked = qa.questions(ground, SynthParams(), "two-boxes")
    assert asked and all(q.form != "which" or q.distractors for q in asked)
    assert any(q.key == "succ:a" for q in qa.identification(f, random.Random(0), 3))
