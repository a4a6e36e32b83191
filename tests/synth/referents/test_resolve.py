"""The resolver's reading of each part of a description, on scenes built by hand so the
right answer is known: text matching, sides and nearest neighbours, rows that are and are
not clean, ranks with ties, ambiguous anchors, geometry a format could not give, edges."""

from __future__ import annotations

import pytest

from diagramforge.formats.colours import UNKNOWN, shade_of
from diagramforge.formats.scenes import Element, Scene
from diagramforge.synth.referents.grammar import parse
from diagramforge.synth.referents.resolve import clusters, inside_box, resolve


def node(i: str, x: float, y: float, w: float = 40, h: float = 40, text: str = "",
         cls: str = "box", fill: str | None = None, **kw) -> Element:
    shade = shade_of(fill) if fill else None
    return Element(i, "node", text=text, cls=cls, shade=shade, bbox=(x, y, w, h), **kw)


def scene(*nodes: Element, edges: tuple[Element, ...] = ()) -> Scene:
    return Scene(nodes={n.id: n for n in nodes}, edges={e.id: e for e in edges})


def ids(text: str, sc: Scene) -> set[str]:
    q = parse(text)
    assert q is not None, text
    return resolve(q, sc)


def test_text_ignores_case_and_spacing_and_an_ellipsis_matches_the_start():
    sc = scene(node("a", 0, 0, text="Load  the\nData"), node("b", 100, 0, text="Load more"),
               node("c", 200, 0))
    assert ids('the box "load the data"', sc) == {"a"}
    assert ids('the box "Load…"', sc) == {"a", "b"}
    assert ids('the box "Load the…"', sc) == {"a"}
    assert ids("the empty box", sc) == {"c"}


def test_noun_filters_but_a_node_of_unknown_class_may_be_anything():
    sc = scene(node("d", 0, 0, text="X", cls="diamond"), node("s", 100, 0, text="X", cls="shape"),
               node("b", 200, 0, text="X"))
    assert ids('the diamond "X"', sc) == {"d", "s"}
    assert ids('the node "X"', sc) == {"d", "s", "b"}


def test_colour_words_and_uncertain_colours():
    sc = scene(node("r", 0, 0, text="T", fill="#f8cecc"),
               node("b", 100, 0, text="T", fill="#dae8fc"), node("u", 200, 0, text="T"))
    sc.nodes["u"].shade = UNKNOWN
    assert ids('the light red box "T"', sc) == {"r", "u"}  # cannot tell: it may be red
    assert ids('the blue box "T"', sc) == {"b", "u"}
    sc.nodes["u"].shade = None  # no fill at all: not red
    assert ids('the light red box "T"', sc) == {"r"}


def test_below_means_the_nearest_below_that_overlaps_across():
    # 'Artist:' label with two empty fields stacked below it and one off to the side
    sc = scene(node("lab", 0, 0, 100, 20, text="Artist:", cls="text"),
               node("f1", 0, 30, 100, 20), node("f2", 0, 60, 100, 20),
               node("side", 300, 30, 100, 20))
    assert ids('the empty box below "Artist:"', sc) == {"f1"}
    assert ids('the box to the right of "Artist:"', sc) == set()  # 'side' is diagonal


def test_corner_touching_boxes_are_diagonal_and_a_quarter_overlap_is_beside():
    a = node("a", 0, 0, 100, 40, text="A")
    corner = node("c", 100, 40, 100, 40)  # touches a's corner only
    sc = scene(a, corner)
    assert ids('the box below "A"', sc) == set()
    sc = scene(a, node("q", 70, 50, 100, 40))  # overlaps a by 30 of 100: a quarter and more
    assert ids('the box below "A"', sc) == {"q"}
    sc = scene(a, node("t", 80, 50, 100, 40))  # 20 of 100: less than a quarter
    assert ids('the box below "A"', sc) == set()


def test_two_about_as_near_on_one_side_are_both_meant():
    sc = scene(node("a", 0, 0, 200, 40, text="A"),
               node("l", 0, 60, 80, 40), node("r", 120, 61, 80, 40))
    assert ids('the box below "A"', sc) == {"l", "r"}


def test_an_anchor_that_means_several_nodes_means_them_all():
    sc = scene(node("a1", 0, 0, text="Step"), node("b1", 0, 60),
               node("a2", 200, 0, text="Step"), node("b2", 200, 60))
    assert ids('the box below "Step"', sc) == {"b1", "b2"}


def test_in_means_inside_the_box_of_the_container():
    sc = scene(node("pool", 0, 0, 300, 200, text="Pool"), node("in", 20, 20, text="T"),
               node("out", 400, 20, text="T"))
    assert ids('the box "T" in "Pool"', sc) == {"in"}
    assert inside_box((20, 20, 40, 40), (0, 0, 300, 200), 0)
    assert not inside_box((0, 0, 300, 200), (0, 0, 300, 200), 0)  # not inside itself


GRID = [node(f"p{r}{c}", 160 * c, 140 * r, 120, 90) for r in range(3) for c in range(4)]


@pytest.mark.parametrize(("text", "want"), [
    ("the leftmost box in the top row", {"p00"}),
    ("the third box from the left in the second row", {"p12"}),
    ("the rightmost box in the bottom row", {"p23"}),
    ("the second box from the right in the middle row", {"p12"}),
    ("the topmost box in the second column", {"p01"}),
    ("the leftmost box", {"p00", "p10", "p20"}),  # tied: level with each other
    ("the box in the fourth row", set()),
])
def test_rows_columns_and_ranks_of_a_grid(text, want):
    assert ids(text, scene(*GRID)) == want


def test_the_middle_row_is_only_plain_among_three():
    four = [node(f"p{r}", 0, 140 * r, 120, 90) for r in range(4)]
    assert len(ids("the box in the middle row", scene(*four))) == 4
    three = four[:3]
    assert ids("the box in the middle row", scene(*three)) == {"p1"}


def test_a_staggered_layout_has_no_rows():
    m = 1.0
    stagger = [node(f"s{k}", 100 * k, 2.5 * k, 10, 10) for k in range(5)]
    assert clusters(stagger, "row", m) is None  # drifts: not one row, not several
    clean = [node(f"c{k}", 100 * k, 200 * (k % 2), 10, 10) for k in range(4)]
    rows = clusters(clean, "row", m)
    assert rows is not None and [sorted(x.id for x in r) for r in rows] == [["c0", "c2"],
                                                                              ["c1", "c3"]]
    assert len(ids("the leftmost box in the top row", scene(*stagger))) == 1  # row kept all


def test_an_extreme_must_also_be_first_by_its_near_edge():
    # the small box's centre is leftmost, the wide box's left edge is: a reader may mean either
    sc = scene(node("wide", 0, 0, 300, 40), node("small", 20, 100, 40, 40))
    assert ids("the leftmost box", sc) == {"wide", "small"}


def test_geometry_a_format_could_not_give_keeps_every_candidate():
    a = Element("a", "node", text="A", cls="box")
    b = Element("b", "node", cls="box")
    c = Element("c", "node", cls="box")
    sc = scene(a, b, c)
    assert ids('the box below "A"', sc) == {"b", "c"}
    assert ids("the leftmost empty box", sc) == {"b", "c"}
    assert ids("the empty box in the top row", sc) == {"b", "c"}


def test_edges_by_label_ends_direction_and_between():
    sc = scene(node("l", 0, 0, text="Load"), node("c", 100, 0, text="Clean"),
               edges=(Element("e0", "edge", source="l", target="c"),
                      Element("e1", "edge", source="c", target="l", text="retry"),
                      Element("e2", "edge", source="l", target="c", directed=False)))
    assert ids('the arrow from "Load" to "Clean"', sc) == {"e0"}
    assert ids('the connection from "Load" to "Clean"', sc) == {"e0", "e2"}
    assert ids('the arrow "retry"', sc) == {"e1"}
    assert ids('the connection between "Load" and "Clean"', sc) == {"e0", "e1", "e2"}
    assert ids('the arrow from "Clean" to "Load"', sc) == {"e1"}
