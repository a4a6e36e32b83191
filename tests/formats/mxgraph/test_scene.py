"""What a draw.io page shows a reader (its ``scene`` capability): visibility, node classes
and fill colours."""

from __future__ import annotations

from tests.synth.referents.conftest import describer, mx


def test_mxgraph_what_is_drawn_and_how():
    code = mx([
        ("g", "", "group;", 0, 0, 300, 300),
        ("t0", "", "text;", 0, 0, 40, 20),
        ("t1", "Note", "text;", 50, 0, 40, 20),
        ("tb", "Framed", "text;strokeColor=#000000;", 100, 0, 60, 20),
        ("w", "", "", 0, 50, 80, 40),
        ("n", "", "fillColor=none;", 100, 50, 80, 40),
        ("inv", "", "fillColor=none;strokeColor=none;", 200, 50, 80, 40),
        ("op", "Ghost", "opacity=0;", 300, 50, 80, 40),
        ("i", "", "shape=mxgraph.aws4.lambda;", 0, 150, 40, 40),
        ("gr", "", "fillColor=#dae8fc;gradientColor=#ffffff;", 100, 150, 80, 40),
        ("d", "", "rhombus;fillColor=#f8cecc;", 200, 150, 60, 60),
        ("e", "", "ellipse;", 300, 150, 60, 60),
        ("o", "", "ellipse;", 400, 150, 120, 60),
    ])
    _, scene = describer("mxgraph", code)
    assert {"t0", "inv", "op"} <= scene.hidden
    n = scene.nodes
    assert "g" not in n or "g" in scene.hidden  # a draw.io group is no node (graphs/mxgraph)
    assert n["t1"].cls == "text" and n["t1"].shade is None
    assert n["tb"].cls == "box"  # a text cell with a border reads as a box
    assert n["w"].shade.name == "white" and n["n"].shade is None
    assert n["i"].cls == "icon" and n["i"].shade.unknown
    assert n["gr"].shade.unknown
    assert (n["d"].cls, n["d"].shade.name) == ("diamond", "light red")
    assert n["e"].cls == n["o"].cls == "circle"


def test_mxgraph_hidden_layer_hides_its_cells():
    code = mx([("a", "Shown", "", 0, 0, 80, 40), ("b", "Hidden", "", 100, 0, 80, 40)])
    code = code.replace('<mxCell id="1" parent="0"/>',
                        '<mxCell id="1" parent="0"/><mxCell id="L2" parent="0" visible="0"/>')
    code = code.replace('id="b" value="Hidden" style="" vertex="1" parent="1"',
                        'id="b" value="Hidden" style="" vertex="1" parent="L2"')
    d, scene = describer("mxgraph", code)
    assert "b" in scene.hidden and d.describe("b") is None


def test_mxgraph_table_rows_are_seen_but_never_named():
    code = mx([("t", "Orders", "shape=table;", 0, 0, 200, 90),
               ("r", "", "shape=partialRectangle;fillColor=none;", 0, 30, 200, 30, "t"),
               ("k", "PK", "", 0, 0, 30, 30, "r"), ("c", "order_id", "", 30, 0, 170, 30, "r"),
               ("x", "", "", 300, 30, 200, 30)])
    d, scene = describer("mxgraph", code)
    assert not scene.nodes["r"].nameable and d.describe("r") is None
    assert d.describe("k").text == 'the box "PK"'
    # the row is still a box a reader sees: "the empty box" is not the other one alone
    assert d.describe("x").text != "the empty box"
