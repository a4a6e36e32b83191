"""Edits and their referents: every step is named on the diagram as the earlier steps left
it, the sampler passes over targets it cannot name, and an instruction's text is checked by
resolving it again."""

from __future__ import annotations

import random

from diagramforge.formats import capabilities
from diagramforge.formats.colours import UNKNOWN
from diagramforge.synth.edit.sampler import compose, replay
from diagramforge.synth.referents.describe import Describer
from diagramforge.synth.referents.naming import (
    Namer,
    name_op,
    roles,
    scene_of,
    scenes,
    unresolved,
)
from diagramforge.synth.referents.steps import instruction
from tests.synth.referents.conftest import FORMATS, mx, storyboard

FORM = mx([("l1", "Artist:", "text;", 0, 0, 60, 20), ("l2", "Title:", "text;", 200, 0, 60, 20),
           ("f1", "", "", 0, 30, 120, 30), ("f2", "", "", 200, 30, 120, 30)],
          [("e1", "f1", "f2")])


def op(name: str, tid: str, kind: str = "node", **params: object) -> dict:
    return {"op": name, "target": {"id": tid, "text": "", "kind": kind}, "params": params}


def named(code: str, ops: list[dict]) -> tuple[list[dict], list, list]:
    states = replay("mxgraph", code, ops)
    views = scenes("mxgraph", states)
    out = []
    for k, o in enumerate(ops):
        refs = name_op(Describer(views[k]), o, states[k][1])
        assert refs is not None, (k, o)
        out.append({**o, "refs": refs})
    return out, states, views


def test_later_steps_read_the_diagram_as_earlier_steps_left_it():
    ops = [op("add_node", "df1", id="df1", text="Cache", shape="rectangle",
              bbox=[400, 30, 120, 30]),
           op("node_colour", "f1", node="f1", colour="#f8cecc"),
           op("move_node", "df1", node="df1", old_bbox=[400, 30, 120, 30],
              bbox=[400, 90, 120, 30]),
           op("node_text", "f2", node="f2", text="Encoder"),
           op("delete_node", "f2", node="f2")]
    ops, states, views = named(FORM, ops)
    refs = [o["refs"] for o in ops]
    assert refs[0] == {}
    assert refs[1]["node"]["text"] == 'the box below "Artist:"'
    assert refs[2]["node"]["text"] == 'the box "Cache"'  # added in step 1
    assert refs[4]["node"]["text"] == 'the box "Encoder"'  # renamed in step 4
    text = instruction(ops, [g for _, g in states])
    assert text.startswith('Add a new rectangle labelled "Cache"; then change the colour of '
                           'the box below "Artist:" to light red; then move the box "Cache" '
                           "down")
    assert unresolved(text, ops, states, views) == []
    # read against the source diagram alone, the later steps' elements are not there
    assert unresolved(text, ops, states, [views[0]] * len(views))


def test_a_rewording_must_still_single_out_every_element():
    ops = [op("node_colour", "f1", node="f1", colour="#f8cecc"),
           op("delete_edge", "e1", "edge", source="f1", target="f2", label="")]
    ops, states, views = named(FORM, ops)
    template = instruction(ops, [g for _, g in states])
    # step 2 sees step 1's colour: the boxes are told apart by it now
    assert template == ('Change the colour of the box below "Artist:" to light red; then '
                        "remove the arrow from the light red box to the white box.")

    def check(text: str) -> list[str]:
        return unresolved(text, ops, states, views)

    assert check(template) == []
    assert check('Colour the blank rectangle underneath "Artist:" light red, then delete the '
                 "connection from the pale red rectangle to the white rectangle.") == []
    lost = check("Colour the unlabelled node light red and remove the arrow from the light "
                 "red box to the white box.")
    assert any("step 1" in p for p in lost) and any("vague" in p for p in lost)
    assert check('Colour the box below "Artist:" light red and remove its arrow.')
    assert check("Colour the empty box light red; then remove the arrow from the light red "
                 "box to the white box.")
    # any description that singles the element out in its step's diagram will do
    assert check('Colour the box below "Artist:" light red; then remove the arrow from the '
                 'light red box to the box below "Title:".') == []


def test_roles_of_each_operation():
    g = FORMATS["mxgraph"].graph(FORM)
    assert roles(op("delete_node", "f1", node="f1"), g) == {"node": "f1"}
    assert roles(op("redirect_edge", "e1", "edge", source="f1", target="f2", label="",
                    new_target="l1"), g) == {"edge": "e0", "new_target": "l1"}
    assert roles(op("add_edge", "x", "edge", source="l1", target="l2"), g) == {
        "source": "l1", "target": "l2"}
    assert roles(op("add_node", "x", text="A"), g) == {}
    assert roles(op("delete_node", "gone", node="gone"), g) == {"node": None}


def test_sampler_passes_over_targets_it_cannot_name():
    # two identical empty boxes on top of each other: nothing tells them apart
    code = mx([("a", "", "", 0, 0, 80, 40), ("b", "", "", 0, 0, 80, 40),
               ("c", "Hub", "", 300, 0, 80, 40), ("d", "Leaf", "", 300, 200, 80, 40)],
              [("e1", "c", "d")])
    namer = Namer("mxgraph")
    seen_unnamed = 0
    for seed in range(12):
        res = compose(code, "mxgraph", 3, random.Random(seed), namer=namer)
        seen_unnamed += sum(res.unnamed.values())
        for ed in res.edits:
            assert ed["target"]["id"] not in ("a", "b")
            assert ed["params"].get("new_target") not in ("a", "b")
            assert {ed["params"].get("source"), ed["params"].get("target")}.isdisjoint(
                {"a", "b"})
            assert all(r["text"] for r in ed["refs"].values())
    assert seen_unnamed > 0


def test_sampler_on_a_storyboard_keeps_its_rows_and_names_every_panel():
    code = storyboard()
    namer = Namer("mxgraph")
    for seed in range(6):
        before = compose(code, "mxgraph", 5, random.Random(seed))
        after = compose(code, "mxgraph", 5, random.Random(seed), namer=namer)
        assert before.ok and after.ok
        states = replay("mxgraph", code, after.edits)
        text = instruction(after.edits, after.graphs)
        assert "unlabelled" not in text
        assert unresolved(text, after.edits, states, scenes("mxgraph", states)) == []


def test_a_scene_is_the_formats_scene_capability_with_the_graphs_edges():
    code = mx([("a", "A", "", 0, 0, 80, 40), ("b", "B", "ellipse;", 200, 0, 80, 40)],
              [("x", "a", "b", "calls")])
    g = FORMATS["mxgraph"].graph(code)
    scene = scene_of("mxgraph", code, g)
    nodes = capabilities.of("mxgraph", "scene").scene(code, g, 3.0).nodes
    assert scene.nodes == nodes and {n.cls for n in nodes.values()} == {"box", "circle"}
    assert [(e.source, e.target, e.text) for e in scene.edges.values()] == [("a", "b", "calls")]
    lacking = [f for f in capabilities.folders() if capabilities.of(f, "scene") is None]
    assert "dot" in lacking
    for fmt in lacking:  # read from the graph alone: words, no look
        plain = scene_of(fmt, code, g)
        assert [(n.text, n.cls, n.shade) for n in plain.nodes.values()] == \
            [("A", "shape", UNKNOWN), ("B", "shape", UNKNOWN)]
        assert len(plain.edges) == 1


def test_graphviz_edits_are_named_from_the_graph():
    """A DOT diagram's edits get referring expressions (its scene is its graph's): before,
    every one failed on the missing scene."""
    code = 'digraph { a [label="Load"]; b [label="Train"]; c [label="Test"]; a -> b; b -> c; }'
    namer = Namer("dot")
    done = [compose(code, "dot", 2, random.Random(seed), namer=namer) for seed in range(4)]
    assert any(r.ok for r in done)
