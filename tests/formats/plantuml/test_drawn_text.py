"""The graph holds every text PlantUML draws: a title, caption and legend around the
diagram, a class box's member rows, a link's end labels and an activity's notes — so the
grounding check (`formats/grounding.py`) finds the render explained by the graph, and what
is hidden (``hide methods``) is not in it."""

from __future__ import annotations

import pytest

from diagramforge.formats.grounding import drawn_texts, structure_check, text_check
from diagramforge.formats.plantuml import engine, graph

pytestmark = pytest.mark.skipif(engine.find_java() is None,
                                reason="plantuml not installed (./dev setup installs it)")

CLASS = """@startuml
title Shapes Overview
class Dwelling {
  +Int Windows
  +void LockTheDoor()
}
class Door
class Room
Door "many" *-- "1" Dwelling : part
Room --> Dwelling
note "Doors open" as N1
N1 .. Door
caption Figure 1
@enduml
"""
HIDDEN = """@startuml
hide methods
class Dwelling {
  +Int Windows
  +void LockTheDoor()
}
class Door
Door --> Dwelling
@enduml
"""
ACTIVITY = """@startuml
title Evening
start
:Eat Wings;
note right: a note beside it
:Go To Bed;
stop
legend
Key text
endlegend
@enduml
"""
USECASE = """@startuml
actor Clerk
actor Boss
usecase Withdraw
Clerk --> Withdraw
Boss --> Withdraw
@enduml
"""


@pytest.fixture(scope="module")
def drawn():
    return engine.draw_many([CLASS, HIDDEN, ACTIVITY, USECASE])


def _graph(d):
    return graph.model_graph(d.kind, d.model, d.svg)


def test_title_caption_members_end_labels_and_notes_are_in_the_graph(drawn):
    g = _graph(drawn[0])
    texts = {n.id: (n.text, n.shape) for n in g.nodes}
    assert texts["@title"] == ("Shapes Overview", "text")
    assert texts["@caption"] == ("Figure 1", "text")
    assert texts["Dwelling"][0] == "Dwelling\nInt Windows\nvoid LockTheDoor()"
    assert ("Dwelling", "Door", "part\nmany\n1") in {(e.source, e.target, e.label)
                                                     for e in g.edges}  # the diamond: Door
    title = next(n for n in g.nodes if n.id == "@title")
    assert title.bbox is not None and title.bbox[1] < min(
        n.bbox[1] for n in g.nodes if n.id == "Dwelling" and n.bbox)


def test_hidden_members_are_not_in_the_graph(drawn):
    texts = {n.id: n.text for n in _graph(drawn[1]).nodes}
    assert texts["Dwelling"] == "Dwelling\nInt Windows"


def test_an_activity_note_is_a_note_joined_to_its_action(drawn):
    g = _graph(drawn[2])
    notes = [n for n in g.nodes if n.shape == "note"]
    assert [n.text for n in notes] == ["a note beside it"]
    action = next(n.id for n in g.nodes if n.text == "Eat Wings")
    assert [(e.target, e.directed) for e in g.edges if e.source == notes[0].id] == [
        (action, False)]
    assert {n.text for n in g.nodes if n.shape == "text"} == {"Evening", "Key text"}


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_the_render_is_explained_by_the_graph(drawn, k):
    g = _graph(drawn[k])
    assert structure_check(g) is None  # use-case actors are no sequence's lifelines
    assert text_check(g, drawn_texts(drawn[k].svg)) is None
