"""Style outside the edit: counted by hand on DOT and mxGraph code."""

from __future__ import annotations

from diagramforge.cards.evaluate.styles import style_preserved
from diagramforge.formats.dot import edit as dot_edits
from diagramforge.formats.edits import Op, edit
from tests.cards.evaluate.conftest import DOT_SOURCE, GENERATION


def _colour(code: str, node: str, colour: str) -> str:
    return dot_edits.apply_edit(code, edit(Op.NODE_COLOUR, node, node, "node", node=node,
                                           colour=colour))


def test_dot_recolouring_another_node_is_counted() -> None:
    """The edit recolours a; outside it: nodes m, b and edges a→m, m→b (4).  A prediction
    that also recolours b keeps 3 of 4."""
    target = _colour(DOT_SOURCE, "a", "#f8cecc")
    assert style_preserved("dot", DOT_SOURCE, target, target) == 1.0
    worse = _colour(target, "b", "#d5e8d4")
    assert style_preserved("dot", DOT_SOURCE, target, worse) == 0.75


MX = ('<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>'
      '<mxCell id="a" value="A" style="rounded=0;fillColor={a};" vertex="1" parent="1">'
      '<mxGeometry x="0" y="0" width="80" height="40" as="geometry"/></mxCell>'
      '<mxCell id="b" value="B" style="{b}" vertex="1" parent="1">'
      '<mxGeometry x="120" y="0" width="80" height="40" as="geometry"/></mxCell>'
      '</root></mxGraphModel>')


def test_mxgraph_cells_by_id() -> None:
    """Cells 0, 1 and b are outside the edit of a's fill; the prediction rewrites b's style
    (order of keys does not matter, a value does)."""
    src = MX.format(a="#ffffff", b="rounded=1;dashed=1;")
    tgt = MX.format(a="#f8cecc", b="rounded=1;dashed=1;")
    assert style_preserved("mxgraph", src, tgt, MX.format(a="#f8cecc",
                                                          b="dashed=1;rounded=1")) == 1.0
    assert style_preserved("mxgraph", src, tgt,
                           MX.format(a="#f8cecc", b="rounded=1;dashed=0;")) == 2 / 3


def test_formats_without_stable_ids_say_nothing() -> None:
    assert style_preserved("svg", GENERATION["g1"], GENERATION["g1"], GENERATION["g1"]) is None
