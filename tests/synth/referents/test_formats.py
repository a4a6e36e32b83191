"""What each format shows a reader: visibility, node classes and fill colours."""

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


def test_svg_frames_nobody_sees_and_inherited_fills():
    code = """<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100">
      <rect x="10" y="10" width="80" height="40" fill="none" stroke="none"/>
      <text x="50" y="35" font-size="12" text-anchor="middle">Plain</text>
      <g fill="#d5e8d4"><rect x="110" y="10" width="80" height="40" stroke="#000"/></g>
      <text x="150" y="35" font-size="12" text-anchor="middle">Green</text>
    </svg>"""
    _, scene = describer("svg", code)
    by_text = {n.text: n for n in scene.nodes.values()}
    assert by_text["Plain"].cls == "text"
    assert by_text["Green"].cls == "box" and by_text["Green"].shade.name == "light green"


def test_tikz_drawn_filled_and_uncertain_nodes():
    code = r"""\begin{tikzpicture}
      \node[draw, circle, fill=blue!20] (a) at (0,0) {A};
      \node (b) at (2,0) {B};
      \node[draw, rounded corners] (c) at (4,0) {C};
    \end{tikzpicture}"""
    _, scene = describer("tikz", code)
    a, b, c = (scene.nodes[k] for k in "abc")
    assert (a.cls, a.shade.name) == ("circle", "light blue")
    assert (b.cls, b.shade) == ("text", None)
    assert c.cls == "box"
    every = code.replace(r"\begin{tikzpicture}",
                         r"\begin{tikzpicture}[every node/.style={fill=red}]")
    _, scene = describer("tikz", every)
    assert all(n.shade.unknown and n.cls == "shape" for n in scene.nodes.values())


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
