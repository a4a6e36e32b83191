"""What the stages will ask the PlantUML folder for: type evidence (against PlantUML's own
kind), atomic edits composed by the real sampler and verified on PlantUML's model, twins
written as PlantUML and read back by PlantUML, and the tiers' and caps' numbers."""

from __future__ import annotations

import random

import pytest

from diagramforge.formats.edits import graph_diff
from diagramforge.formats.plantuml import caps, difficulty, engine, evidence, graph, twin
from diagramforge.formats.plantuml import edit as edits
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.synth.edit import sampler
from diagramforge.vocabulary import kind

needs_plantuml = pytest.mark.skipif(engine.find_java() is None, reason="plantuml not installed")

CLASSES = """@startuml
class Dwelling
class House
class Door
Dwelling <|-- House
Dwelling *-- Door : has
@enduml
"""


@pytest.mark.parametrize(("record", "label", "rule"), [
    ({"code": "@startuml\nparticipant A\nA -> B : hi\n@enduml\n"}, "uml", "plantuml.sequence"),
    ({"code": "@startuml\nBob -> Alice\n@enduml\n"}, "uml", "plantuml.sequence"),
    ({"code": "@startuml\nstart\n:work;\nstop\n@enduml\n"}, "flowchart", "plantuml.activity"),
    ({"code": "@startuml\n[*] --> A\n@enduml\n"}, "uml", "plantuml.state"),
    ({"code": "@startuml\n[Web] --> [Db]\n@enduml\n"}, "uml", "plantuml.description"),
    ({"code": "@startuml\nUser --> (Login)\n@enduml\n"}, "uml", "plantuml.description"),
    ({"code": "@startmindmap\n* a\n** b\n@endmindmap\n"}, "mind_map", "plantuml.mindmap"),
    ({"code": "@startgantt\n[T] lasts 2 days\n@endgantt\n"}, "gantt_chart",
     "plantuml.ganttdiagram"),
    ({"code": "@startuml\n!include <C4/C4_Container>\nPerson(u, \"U\")\n@enduml\n"},
     "architecture_diagram", "plantuml.c4"),
    # the render's kind is PlantUML's own and wins over the text's rules
    ({"code": "@startuml\nA -> B\n@enduml\n", "render_engine": "plantuml:class"}, "uml",
     "plantuml.class"),
])
def test_evidence_names_a_vocabulary_label_and_its_rule(record, label, rule):
    ev = evidence.evidence(record["code"], record)
    assert (ev.label, ev.rule) == (label, rule) and ev.drawn
    kind(ev.label)


def test_a_sequence_is_uml_but_not_graph_like_and_nothing_silent_guesses():
    assert evidence.evidence("@startuml\nparticipant A\n@enduml\n").graph_like is False
    ev = evidence.evidence("@startuml\nskinparam x y\n@enduml\n")
    assert ev.label is None and ev.rule == "plantuml.silent"


@needs_plantuml
def test_the_sampler_finds_and_composes_verified_plantuml_edits():
    assert "plantuml" in sampler.FORMATS  # the registry found formats/plantuml/edit.py
    got = sampler.compose(CLASSES, "plantuml", 3, random.Random(1))
    assert got.ok, (got.reason, got.detail)
    assert len(got.edits) == 3 and got.target_code != CLASSES
    assert edits.validate(got.target_code) == []
    assert not graph_diff(got.target_graph, edits.graph(got.target_code))


@needs_plantuml
@pytest.mark.parametrize(("op", "params", "line"), [
    ("edge_colour", {"source": "House", "target": "Dwelling", "colour": "#b85450"},
     "Dwelling <|-[#b85450]- House"),
    ("edge_style", {"source": "House", "target": "Dwelling", "style": "dashed"},
     "Dwelling <|-[dashed]- House"),
    ("add_edge", {"source": "House", "target": "Door"}, "House --> Door"),
    ("delete_node", {"node": "Door"}, "remove Door"),
    ("node_colour", {"node": "Door", "colour": "#d5e8d4"}, "class Door #d5e8d4"),
])
def test_each_edit_is_one_line_of_plantuml(op, params, line):
    ed = {"op": op, "target": {"id": "x", "text": "", "kind": "edge"}, "params": params}
    after = edits.apply_edit(CLASSES, ed)
    assert line in after and edits.validate(after) == []


def test_an_edit_plantuml_cannot_say_is_refused():
    from diagramforge.formats.edits import EditError

    with pytest.raises(EditError):
        edits.apply_edit(CLASSES, {"op": "move_node", "params": {"node": "House"}})


@needs_plantuml
def test_a_twin_written_as_plantuml_reads_back_as_the_same_graph():
    g = Graph(nodes=[Node(id="a", text="Start", shape="rounded", bbox=[0, 0, 50, 20]),
                     Node(id="b", text="Check\ninput", shape="rectangle", bbox=[0, 40, 50, 20]),
                     Node(id="c", text="Store", shape="cylinder", bbox=[0, 80, 50, 20]),
                     Node(id="box", text="Backend", shape="container",
                          bbox=[-5, 35, 60, 70])],
              edges=[Edge(source="a", target="b", label="go"),
                     Edge(source="b", target="c", directed=False),
                     Edge(source="c", target="a", directed=False, both_heads=True)])
    code = twin.write(g)
    d = engine.draw_many([code])[0]
    assert d.error is None
    back = graph.model_graph(d.kind, d.model, d.svg)

    def bare(x: Graph) -> Graph:
        return Graph(nodes=[n.model_copy(update={"bbox": None}) for n in x.nodes],
                     edges=x.edges)

    assert graph_diff(bare(g), bare(back)) == []


@pytest.mark.parametrize(("node", "reason"), [
    (Node(id="a", text="**bold**"), "twin_text_unexpressible"),
    (Node(id="a", text='say "hi"'), "twin_text_unexpressible"),
    (Node(id="a", text="Choice", shape="rhombus"), "twin_structure_undrawable"),
])
def test_what_plantuml_would_draw_differently_is_refused(node, reason):
    from diagramforge.formats.twin_layout import WriteError

    with pytest.raises(WriteError) as e:
        twin.write(Graph(nodes=[node]))
    assert e.value.reason == reason


def test_plantuml_is_a_twin_target_by_its_folder():
    from diagramforge.formats.registry import handlers

    assert handlers()["plantuml"].has_capability("twin")
    assert twin.preserves(Graph()) == "structure" and twin.EXPORT_METHOD == "plantuml-svg"


def test_the_numbers_fit_the_stages_settings():
    from diagramforge.filters.filter.extremes import ElementCaps
    from diagramforge.filters.split.settings import TierParams

    assert TierParams(**difficulty.TIERS).structure
    assert ElementCaps(**caps.CAPS).max_nodes == 300 and caps.counts("@startuml\nA -> B\n") == {}
