"""What an SVG drawing shows a reader (its ``scene`` capability): frames nobody sees, fills
inherited through groups."""

from __future__ import annotations

from tests.synth.referents.conftest import describer


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
