"""Each operation as a plain step: descriptions from its refs, colour names, directions."""

from __future__ import annotations

from diagramforge.graphs.model import Graph, Node
from diagramforge.synth.referents.steps import colour, instruction, step

BOX = {"node": {"text": 'the empty box below "Artist:"', "kind": "neighbour"}}
EDGE = {"edge": {"text": 'the arrow from "Load" to "Clean"', "kind": "edge_ends"}}


def op(name: str, refs: dict, **params: object) -> dict:
    return {"op": name, "target": {"id": "x", "text": "", "kind": "node"}, "params": params,
            "refs": refs}


def test_steps_use_the_descriptions_and_words_never_numbers():
    g = Graph(nodes=[Node(id="n", bbox=[0, 0, 80, 40])])
    assert step(op("node_colour", BOX, node="n", colour="#dae8fc")) == \
        'change the colour of the empty box below "Artist:" to light blue'
    assert step(op("node_shape", BOX, node="n", shape="ellipse")) == \
        'change the shape of the empty box below "Artist:" to an ellipse'
    assert step(op("move_node", BOX, node="n", bbox=[60, 0, 80, 40]), graph=g) == \
        'move the empty box below "Artist:" to the right'
    assert step(op("node_size", BOX, node="n", bbox=[0, 0, 40, 20]), graph=g) == \
        'make the empty box below "Artist:" smaller'
    assert step(op("edge_style", EDGE, dashed=True, width=3)) == \
        'make the arrow from "Load" to "Clean" dashed and thicker'
    assert step(op("redirect_edge", {**EDGE, "new_target": {"text": 'the box "Train"'}})) == \
        'make the arrow from "Load" to "Clean" point to the box "Train" instead'
    assert step(op("add_edge", {"source": {"text": 'the box "A"'},
                                "target": {"text": "the leftmost diamond"}})) == \
        'add an arrow from the box "A" to the leftmost diamond'


def test_instruction_joins_steps_in_order():
    ops = [op("delete_node", BOX), op("delete_edge", EDGE)]
    assert instruction(ops) == ('Delete the empty box below "Artist:"; then remove the arrow '
                                'from "Load" to "Clean".')


def test_colour_words_for_new_colours():
    assert colour("#f8cecc") == "light red" and colour("violet!20") == "light purple"
    assert colour("teal") == "teal" and colour("#zzzzzz") == "a new colour"
