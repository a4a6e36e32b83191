"""What a TikZ picture shows a reader (its ``scene`` capability): drawn, filled and
uncertain nodes."""

from __future__ import annotations

from tests.synth.referents.conftest import describer


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
