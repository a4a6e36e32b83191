"""Places of TikZ nodes worked out from the source: the positioning library, old-style
``right of``, path points, chains, matrices — and no place where the code cannot be
followed."""

from __future__ import annotations

import pytest

from diagramforge.formats.tikz.graph import tikz_source_layout
from diagramforge.formats.tikz.graph.layout import Frame, frame, length, size


def pic(body: str, opts: str = "") -> str:
    return f"\\begin{{tikzpicture}}[{opts}]\n{body}\n\\end{{tikzpicture}}"


def centres(code: str) -> dict[str, tuple[float, float]]:
    return {k: (round(v[0], 6), round(v[1], 6)) for k, v in tikz_source_layout(code).items()}


def test_lengths_and_frames():
    assert length("2cm") == 2 and length("5mm") == pytest.approx(0.5)
    assert length("1.5") == 1.5 and length("0.5\\textwidth") is None
    assert frame(["scale=2", "xshift=1cm"]) == Frame(2, 2, 1, 0)
    assert frame(["x=2cm", "yscale=-1"]) == Frame(2, -1, 0, 0)
    assert frame(["rotate=30"]) is None and frame(["x={(1,1)}"]) is None


def test_positioning_library_measures_between_borders():
    code = pic(r"""\node[draw] (a) {A};
\node[draw, right=of a] (b) {B};
\node[draw, below=2cm of a] (c) {C};
\node[draw, minimum width=3cm, right=of b] (d) {D};""", "node distance=1cm")
    p = centres(code)
    w = size(["draw"], "A", "rectangle")[0]
    assert p["a"] == (0, 0)
    assert p["b"][0] == pytest.approx(w + 1) and p["b"][1] == 0  # border to border
    assert p["c"][0] == 0 and p["c"][1] > 2  # below: larger page y
    assert p["d"][0] == pytest.approx(p["b"][0] + w / 2 + 1 + 1.5)


def test_old_style_and_on_grid_measure_between_centres():
    p = centres(pic(r"""\node (a) at (1,1) {A};
\node[right of=a] (b) {B};
\node[below of=b, node distance=3cm] (c) {C};""", "node distance=2cm"))
    assert p == {"a": (1, -1), "b": (3, -1), "c": (3, 2)}


def test_path_points_relative_moves_scale_and_anchors():
    p = centres(pic(r"\draw (0,0) node (s) {S} -- ++(1,0) node (t) {T} -- +(0,1) "
                    r"node[above] (u) {U};", "scale=2"))
    assert p["s"] == (0, 0) and p["t"] == (2, 0)
    assert p["u"][0] == 2 and p["u"][1] < -2  # above the point, half its height more


def test_chains_and_matrices():
    p = centres(pic(r"""\begin{scope}[start chain=going below]
\node[on chain] (a) {A}; \node[on chain] (b) {B}; \node[on chain] (c) {C};
\end{scope}
\matrix (m) [matrix of nodes, column sep=5mm] at (5,0) { 1 & 2 \\ 3 & 4 \\ };"""))
    assert p["a"][0] == p["b"][0] == p["c"][0] and p["a"][1] < p["b"][1] < p["c"][1]
    assert p["m-1-1"][1] == p["m-1-2"][1] < p["m-2-1"][1] == p["m-2-2"][1]
    assert p["m-1-1"][0] == p["m-2-1"][0] < 5 < p["m-1-2"][0] == p["m-2-2"][0]


def test_what_cannot_be_followed_has_no_place():
    code = pic(r"""\node (a) {A};
\begin{scope}[rotate=45] \node (r) at (1,0) {R}; \end{scope}
\node[right=of \last] (m) {M};
\node[right=of zz] (z) {Z};
\matrix { \node (x) {X}; & \node (y) {Y}; \\ };
\node[right=of x] (after) {After};""")
    p = centres(code)
    assert set(p) == {"a"}
    two = pic(r"\node (a) {A};") + pic(r"\node (b) {B};")
    assert tikz_source_layout(two) == {}


def test_trees_follow_tikz_default_layout():
    p = centres(pic(r"""\node (r) {R}
  child {node (a) {A} child {node (a1) {A1}} child {node (a2) {A2}}}
  child[missing]
  child {node (b) {B}};""", "level 1/.style={sibling distance=3cm}, level distance=1cm"))
    assert p["r"] == (0, 0)
    assert p["a"] == (-3, 1) and p["b"] == (3, 1)  # the missing child keeps its slot
    assert p["a1"] == (-3.75, 2) and p["a2"] == (-2.25, 2)  # default sibling distance
    right = centres(pic(r"\node (r) {R} child {node (a) {A}} child {node (b) {B}};",
                        "grow=right"))
    assert right["a"][0] == right["b"][0] > 0 and right["a"][1] < right["b"][1]


def test_plain_arithmetic_calc_sums_and_constant_macros():
    p = centres(r"""\newcommand{\n}{3}
""" + pic(r"""\node (a) at (0,{(\n-1)*2}) {A};
\node (b) at ($(a)+(2,1)$) {B};
\node (c) at (0.5*3 + 2, 1) {C};
\node (d) at ($(a)!0.5!(b)$) {D};
\node (e) at (\undefined, 1) {E};"""))
    assert p["a"] == (0, -4) and p["b"] == (2, -5) and p["c"] == (3.5, -1)
    assert p["d"] == (1, -4.5) and "e" not in p


def test_a_generic_level_style_is_applied_per_level():
    p = centres(pic(r"""\node (r) {R} child {node (a) {A} child {node (a1) {A1}}
  child {node (a2) {A2}}} child {node (b) {B}};""", "level/.style={sibling distance=80mm/#1}"))
    assert p["a"] == (-4, 1.5) and p["b"] == (4, 1.5)
    assert p["a1"] == (-6, 3) and p["a2"] == (-2, 3)
    assert length("80mm/2") == 4 and length("80mm/#1") is None
