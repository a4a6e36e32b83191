from __future__ import annotations

import pytest

from diagramforge.graphs.params import GraphParams
from diagramforge.graphs.svg import svg_graph

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300">'
DEFS = '<defs><marker id="a"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>'


def _svg(body: str) -> str:
    return f"{HEAD}{DEFS}<rect x='0' y='0' width='400' height='300'/>{body}</svg>"


BOXES = ("<g transform='translate(20,20)'><rect x='0' y='0' width='120' height='60'/>"
         "<text x='60' y='25' text-anchor='middle' font-size='12'>Encoder</text>"
         "<text x='60' y='42' text-anchor='middle' font-size='12'>(BERT)</text></g>"
         "<rect x='240' y='20' width='120' height='60'/>"
         "<text x='300' y='55' text-anchor='middle'>Decoder</text>")


def test_lines_merge_shapes_give_boxes_and_marked_path_is_edge() -> None:
    g = svg_graph(_svg(BOXES + "<path d='M140 50 l100 0' marker-end='url(#a)'/>"
                       "<text x='20' y='200'>Loose note</text>"
                       "<line x1='0' y1='150' x2='400' y2='150'/>"))
    # the two lines of the left box merge (17 px apart < 1.5 × 12); the background rect
    # holds other text boxes so it is a container, not a node box; the divider is ignored
    assert [(n.text, n.bbox) for n in g.nodes] == [
        ("Encoder\n(BERT)", [20, 20, 120, 60]), ("Decoder", [240, 20, 120, 60]),
        ("Loose note", [20, 190.4, 72, 12])]
    [e] = g.edges
    assert (e.source, e.target, e.directed) == ("n0", "n1", True)


def test_k_and_tau_control_merging() -> None:
    body = ("<text x='10' y='100'>alpha</text><text x='10' y='125'>beta</text>"
            "<text x='300' y='100'>far right</text>")
    # 25 px apart: beyond 1.5 × 12 = 18, so three nodes; with K = 2.5 (30 px) alpha+beta merge
    assert len(svg_graph(_svg(body)).nodes) == 3
    merged = svg_graph(_svg(body), GraphParams(svg_line_merge_k=2.5))
    assert sorted(n.text for n in merged.nodes) == ["alpha\nbeta", "far right"]
    # x spans of "alpha" (10..46) and "beta" (10..38.8) overlap fully; τ = 1 forbids merging
    strict = GraphParams(svg_line_merge_k=2.5, svg_overlap_tau=1)
    assert len(svg_graph(_svg(body), strict).nodes) == 3


@pytest.mark.parametrize(("markers", "expected"), [
    ("marker-start='url(#a)'", ("n1", "n0", True)),
    ("marker-start='url(#a)' marker-end='url(#a)'", ("n0", "n1", False)),
    ("", ("n0", "n1", False)),  # no marker, but it joins two boxes
])
def test_direction_from_markers(markers: str, expected: tuple) -> None:
    g = svg_graph(_svg(BOXES + f"<line x1='140' y1='50' x2='240' y2='50' {markers}/>"))
    [e] = g.edges
    assert (e.source, e.target, e.directed) == expected


def test_marked_line_to_nowhere_is_unattached() -> None:
    g = svg_graph(_svg(BOXES + "<polyline points='140,50 180,50 180,250' "
                       "style='marker-end:url(#a)'/>"))
    [e] = g.edges
    assert (e.source, e.target, e.unattached) == ("n0", None, ["target"])


def test_doctype_refused() -> None:
    with pytest.raises(ValueError):
        svg_graph('<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"/>')
