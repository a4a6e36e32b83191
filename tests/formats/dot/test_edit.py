"""Atomic edits on DOT: each operation leaves exactly the graph it means (read back from
Graphviz's own parse), DOT's implicit nodes survive, geometry is the engine's."""

from __future__ import annotations

import random
import shutil

import pytest

from diagramforge.formats.dot import edit as dot_edits
from diagramforge.formats.edits import EditError, Op, edit, expected_graph, graph_diff
from diagramforge.synth.edit.sampler import compose

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz missing")

CODE = """// pipeline
digraph p {
  node [shape=box];
  fetch [label="Fetch"];
  subgraph cluster_ci { label="CI"; build; test; }
  fetch -> build -> test;
  test -> deploy [label="green"];
  "host a" -> deploy;
}
"""


def applied(ed: dict, code: str = CODE) -> list[str]:
    before = dot_edits.graph(code)
    after = dot_edits.apply_edit(code, ed)
    assert dot_edits.validate(after) == []
    return graph_diff(expected_graph(before, ed), dot_edits.graph(after))


@pytest.mark.parametrize("ed", [
    edit(Op.NODE_COLOUR, "build", "build", "node", node="build", colour="#f8cecc"),
    edit(Op.NODE_SHAPE, "test", "test", "node", node="test", shape="rhombus"),
    edit(Op.NODE_TEXT, "fetch", "Fetch", "node", node="fetch", text="Download \"it\""),
    edit(Op.DELETE_NODE, "deploy", "deploy", "node", node="deploy"),
    edit(Op.ADD_NODE, "_new", "", "node", id="_new", text="Cache", shape="ellipse"),
    edit(Op.EDGE_COLOUR, "e", "green", "edge", source="test", target="deploy",
         label="green", colour="#82b366"),
    edit(Op.EDGE_STYLE, "e", "", "edge", source="fetch", target="build", label="",
         style="dashed"),
    edit(Op.EDGE_ARROW, "e", "", "edge", source="fetch", target="build", label="",
         directed=False),
    edit(Op.DELETE_EDGE, "e", "", "edge", source="host a", target="deploy", label=""),
    edit(Op.ADD_EDGE, "e", "", "edge", source="deploy", target="fetch", directed=True),
    edit(Op.REDIRECT_EDGE, "e", "green", "edge", source="test", target="deploy",
         label="green", new_target="fetch"),
])
def test_each_operation_means_what_it_says(ed):
    assert applied(ed) == []


def test_deleting_the_edge_that_declared_a_node_keeps_the_node():
    after = dot_edits.apply_edit(CODE, edit(Op.DELETE_EDGE, "e", "", "edge",
                                            source="host a", target="deploy", label=""))
    assert "host a" in {n.id for n in dot_edits.graph(after).nodes}


def test_geometry_belongs_to_graphviz():
    with pytest.raises(EditError):
        dot_edits.apply_edit(CODE, edit(Op.MOVE_NODE, "fetch", "Fetch", "node", node="fetch",
                                        dx=1, dy=0))


def test_composed_edits_verify_in_directed_and_undirected_graphs():
    net = 'graph n { r [shape=diamond]; r -- s1; r -- s2; s1 -- "h a"; s2 -- "h c" [label=x]; }'
    for code in (CODE, net):
        for seed in range(3):
            res = compose(code, "dot", 4, random.Random(seed))
            assert res.ok, (seed, res.reason, res.detail)
            assert len(res.edits) == 4
