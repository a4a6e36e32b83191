"""The cheapest unique description, on diagrams built to be ambiguous: a storyboard grid of
identical empty panels, repeated labels, nested containers, labelled neighbours, parallel
and undirected edges — in each format — and elements nothing can single out."""

from __future__ import annotations

import pytest

from diagramforge.synth.referents.grammar import parse
from diagramforge.synth.referents.resolve import resolve
from tests.synth.referents.conftest import describer, mx, storyboard, text_of

GRID = storyboard(rows=3, cols=4)


@pytest.mark.parametrize(("panel", "want"), [
    ("p00", "the leftmost box in the top row"),
    ("p01", "the second box from the left in the top row"),
    ("p12", "the second box from the right in the second row"),
    ("p23", "the rightmost box in the bottom row"),
])
def test_grid_of_identical_empty_panels_is_named_by_row_and_place(panel, want):
    d, scene = describer("mxgraph", GRID)
    got = d.describe(panel)
    assert (got.text, got.kind) == (want, "position")
    assert resolve(parse(want), scene) == {panel}


def test_grid_arrows_are_named_by_their_ends():
    d, _ = describer("mxgraph", GRID)
    got = d.describe("e0")
    assert got.kind == "edge_ends"
    assert got.text == ("the arrow from the leftmost box in the top row to the second box "
                        "from the left in the top row")


@pytest.mark.parametrize("vague", [
    "the unlabelled node", "the empty box", "the box in the top row", "the third box",
    "the box", "the arrow",
])
def test_resolver_rejects_vague_descriptions_of_the_grid(vague):
    _, scene = describer("mxgraph", GRID)
    assert len(resolve(parse(vague), scene)) > 1


def test_repeated_label_is_told_apart_by_colour_and_shape():
    code = mx([("a", "Task", "fillColor=#f8cecc;", 0, 0, 80, 40),
               ("b", "Task", "fillColor=#dae8fc;", 200, 0, 80, 40),
               ("c", "Task", "ellipse;fillColor=#dae8fc;", 400, 0, 60, 60),
               ("s", "Start", "", 0, 200, 80, 40)])
    assert text_of("mxgraph", code, "a") == 'the light red box "Task"'
    assert text_of("mxgraph", code, "b") == 'the light blue box "Task"'
    assert text_of("mxgraph", code, "c") == 'the circle "Task"'
    assert text_of("mxgraph", code, "s") == 'the box "Start"'
    _, scene = describer("mxgraph", code)
    assert len(resolve(parse('the node "Task"'), scene)) == 3


NESTED = mx([
    ("pool", "Pool", "swimlane;horizontal=0;", 0, 0, 600, 400),
    ("la", "Lane A", "swimlane;horizontal=0;", 20, 0, 580, 200, "pool"),
    ("lb", "Lane B", "swimlane;horizontal=0;", 20, 200, 580, 200, "pool"),
    ("x", "", "", 100, 60, 120, 60, "la"),
    ("y", "", "", 100, 60, 120, 60, "lb"),
    ("z", "", "", 700, 60, 120, 60),
])


def test_nested_containers_name_the_innermost_labelled_one():
    d, scene = describer("mxgraph", NESTED)
    assert (d.describe("x").text, d.describe("x").kind) == ('the box in "Lane A"',
                                                            "container")
    assert d.describe("y").text == 'the box in "Lane B"'
    # the pool holds both lanes and both their boxes: never a unique container for x
    assert resolve(parse('the empty box in "Pool"'), scene) == {"x", "y"}
    assert d.describe("z").text != 'the empty box'  # three empty boxes in all


FORM = mx([("l1", "Artist:", "text;", 0, 0, 60, 20), ("l2", "Title:", "text;", 200, 0, 60, 20),
           ("f1", "", "", 0, 30, 120, 30), ("f2", "", "", 200, 30, 120, 30),
           ("f3", "", "", 100, 120, 120, 30)])


def test_empty_field_is_named_by_the_label_above_it():
    d, scene = describer("mxgraph", FORM)
    got = d.describe("f1")
    assert (got.text, got.kind) == ('the box below "Artist:"', "neighbour")
    assert d.describe("f2").text == 'the box below "Title:"'
    assert resolve(parse('the empty box below "Artist:"'), scene) == {"f1"}
    # an anchor that is not there, or that two nodes share, resolves to nothing unique
    assert resolve(parse('the box below "Genre:"'), scene) == set()


def test_edges_by_label_by_ends_and_undirected():
    code = mx([("a", "Load", "", 0, 0, 80, 40), ("b", "Clean", "", 200, 0, 80, 40),
               ("c", "Train", "", 400, 0, 80, 40)],
              [("e1", "a", "b", "yes"), ("e2", "a", "b", "no"), ("e3", "b", "c"),
               ("e4", "a", "c", "", "endArrow=none;")])
    assert text_of("mxgraph", code, "e0") == 'the arrow labelled "yes"'
    assert text_of("mxgraph", code, "e2") == 'the arrow from "Clean" to "Train"'
    assert text_of("mxgraph", code, "e3") == 'the line between "Load" and "Train"'
    _, scene = describer("mxgraph", code)
    assert resolve(parse('the arrow from "Load" to "Clean"'), scene) == {"e0", "e1"}
    assert resolve(parse('the line between "Train" and "Load"'), scene) == {"e3"}


def test_elements_nothing_can_single_out_get_no_description():
    code = mx([("a", "", "", 0, 0, 80, 40), ("b", "", "", 0, 0, 80, 40),
               ("c", "Hub", "", 300, 0, 80, 40)], [("e1", "c", "a"), ("e2", "c", "b")])
    d, _ = describer("mxgraph", code)
    assert d.describe("a") is None and d.describe("b") is None
    assert d.describe("e0") is None  # two arrows from "Hub" to an empty box
    assert d.describe("c").text == 'the box "Hub"'


SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="520" height="200">
  <rect x="10" y="30" width="100" height="50" fill="#dae8fc" stroke="#6c8ebf"/>
  <text x="60" y="60" font-size="14" text-anchor="middle">Step</text>
  <rect x="210" y="30" width="100" height="50" fill="#dae8fc" stroke="#6c8ebf"/>
  <text x="260" y="60" font-size="14" text-anchor="middle">Step</text>
  <rect x="410" y="30" width="100" height="50" fill="#f8cecc" stroke="#b85450"/>
  <text x="460" y="60" font-size="14" text-anchor="middle">Step</text>
  <text x="260" y="150" font-size="14" text-anchor="middle">Note</text>
</svg>"""


def test_svg_repeated_labels_by_colour_then_place():
    d, scene = describer("svg", SVG)
    by_x = sorted(scene.nodes.values(), key=lambda n: (n.bbox[1], n.bbox[0]))
    left, mid, right, note = (n.id for n in by_x)
    assert d.describe(right).text == 'the light red box "Step"'
    assert d.describe(left).text == 'the leftmost box "Step"'
    assert d.describe(mid).text in ('the second box "Step" from the left',
                                    'the box "Step" above "Note"')
    assert d.describe(note).text == 'the text "Note"'


TIKZ = r"""\begin{tikzpicture}
  \node[draw] (a) at (0,0) {x};
  \node[draw] (b) at (2,0) {x};
  \node[draw, fill=green!25] (c) at (4,0) {x};
  \node (d) at (2,-2) {y};
  \draw[->] (a) -- (b); \draw[->] (b) -- (c);
\end{tikzpicture}"""


def test_tikz_repeated_labels_by_colour_and_place():
    d, _ = describer("tikz", TIKZ)
    assert d.describe("a").text == 'the leftmost box "x"'
    assert d.describe("c").text == 'the light green box "x"'
    assert d.describe("d").text == 'the text "y"'
    assert d.describe("e0").text == 'the arrow from the leftmost box "x" to the box "x" above "y"'


def test_tikz_styles_we_cannot_read_make_colour_and_shape_unknown():
    code = TIKZ.replace(r"\node[draw] (a)", r"\node[mystyle] (a)")
    d, scene = describer("tikz", code)
    assert scene.nodes["a"].cls == "shape" and scene.nodes["a"].shade.unknown
    # "a" may be green for all we know: the green box is no longer unique
    assert resolve(parse('the green box "x"'), scene) == {"a", "c"}
    assert d.describe("c").text != 'the light green box "x"'


def test_boxes_touching_at_a_corner_are_diagonal_not_beside():
    code = mx([("h", "Head", "", 200, 0, 100, 100), ("c", "", "", 100, 100, 100, 50),
               ("d", "", "", 230, 120, 100, 50)])
    _, scene = describer("mxgraph", code)
    assert resolve(parse('the box to the left of "Head"'), scene) == set()
    assert resolve(parse('the box below "Head"'), scene) == {"d"}


RELATIVE = r"""\begin{tikzpicture}[node distance=1cm]
  \node[draw] (in) {Input};
  \node[draw, circle, right=of in] (c1) {};
  \node[draw, circle, right=of c1] (c2) {};
  \node[draw, circle, below=of c1] (c3) {};
  \node[draw, right=of c2] (out) {Output};
  \draw[->] (in) -- (c1); \draw[->] (c1) -- (c2); \draw[->] (c2) -- (out);
  \draw[->] (c1) -- (c3);
\end{tikzpicture}"""


@pytest.mark.parametrize(("node", "want", "kind"), [
    ("c1", 'the circle to the right of "Input"', "neighbour"),
    ("c2", 'the circle to the left of "Output"', "neighbour"),
    ("c3", "the bottommost circle", "position"),
    ("e3", 'the arrow from the circle to the right of "Input" to the bottommost circle',
     "edge_ends"),
])
def test_tikz_nodes_placed_relative_to_others_are_named_by_place(node, want, kind):
    d, scene = describer("tikz", RELATIVE)
    got = d.describe(node)
    assert (got.text, got.kind) == (want, kind)
    assert resolve(parse(want), scene) == {node}


def test_tikz_matrix_cells_are_named_by_row_and_place():
    code = r"""\begin{tikzpicture}
  \matrix (m) [matrix of nodes, column sep=5mm, row sep=5mm] { x & x & x \\ x & x & x \\ };
\end{tikzpicture}"""
    d, _ = describer("tikz", code)
    assert d.describe("m-1-2").text == 'the second node "x" from the left in the top row'
    assert d.describe("m-2-3").text == 'the rightmost node "x" in the bottom row'


def test_tikz_nodes_without_a_readable_place_are_not_named_by_place():
    # the same picture, drawn in a rotated scope: where the circles land is not worked out
    code = RELATIVE.replace(r"\node[draw] (in)", r"\begin{scope}[rotate=90]\node[draw] (in)"
                            ).replace(r"\draw[->] (in)", r"\end{scope}\draw[->] (in)")
    d, scene = describer("tikz", code)
    assert all(n.bbox is None for n in scene.nodes.values())
    assert d.describe("c3") is None
