from __future__ import annotations

import pytest

from diagramforge.formats.svg.graph import svg_graph
from diagramforge.graphs.settings import GraphParams

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
    ("marker-start='url(#a)'", ("n1", "n0", True, False)),
    ("marker-start='url(#a)' marker-end='url(#a)'", ("n0", "n1", False, True)),
    ("", ("n0", "n1", False, False)),  # no marker, but it joins two boxes
])
def test_direction_from_markers(markers: str, expected: tuple) -> None:
    g = svg_graph(_svg(BOXES + f"<line x1='140' y1='50' x2='240' y2='50' {markers}/>"))
    [e] = g.edges
    assert (e.source, e.target, e.directed, e.both_heads) == expected


def test_marked_line_to_nowhere_is_unattached() -> None:
    g = svg_graph(_svg(BOXES + "<polyline points='140,50 180,50 180,250' "
                       "style='marker-end:url(#a)'/>"))
    [e] = g.edges
    assert (e.source, e.target, e.unattached) == ("n0", None, ["target"])


def test_doctype_refused() -> None:
    with pytest.raises(ValueError):
        svg_graph('<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"/>')


# -- realistic exports ------------------------------------------------------------------

DRAWIO_EXPORT = """<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     version="1.1" width="402px" height="122px" viewBox="-0.5 -0.5 402 122">
<defs/><g>
<rect x="0" y="30" width="120" height="60" rx="9" fill="#dae8fc" stroke="#6c8ebf"/>
<g transform="translate(-0.5 -0.5)"><switch>
  <foreignObject pointer-events="none" width="100%" height="100%"
      requiredFeatures="http://www.w3.org/TR/SVG11/feature#Extensibility">
    <div xmlns="http://www.w3.org/1999/xhtml"><div><div>Feature extraction stage</div></div>
    </div></foreignObject>
  <text x="60" y="64" fill="rgb(0, 0, 0)" font-family="Helvetica" font-size="12px"
      text-anchor="middle">Feature extra...</text></switch></g>
<rect x="280" y="30" width="120" height="60" rx="9" fill="#d5e8d4" stroke="#82b366"/>
<g transform="translate(-0.5 -0.5)"><switch><foreignObject width="100%" height="100%">
  <div xmlns="http://www.w3.org/1999/xhtml">Classifier</div></foreignObject>
  <text x="340" y="64" font-family="Helvetica" font-size="12px" text-anchor="middle"
      >Classifier</text></switch></g>
<path d="M 120 60 L 200 60 L 200 60 L 273.63 60" fill="none" stroke="#000000"
      stroke-miterlimit="10" pointer-events="stroke"/>
<path d="M 278.88 60 L 271.88 63.5 L 273.63 60 L 271.88 56.5 Z" fill="#000000"
      stroke="#000000" stroke-miterlimit="10" pointer-events="all"/>
<g transform="translate(-0.5 -0.5)"><text x="200" y="50" font-family="Helvetica"
      font-size="11px" text-anchor="middle">features</text></g>
</g></svg>"""


def test_drawio_export_polygon_arrowheads_and_switch_labels() -> None:
    g = svg_graph(DRAWIO_EXPORT)
    # the cut fallback text is completed from the foreignObject; the edge label is a text
    # node of its own (DiagramEval's nodes are text elements)
    # (nodes in reading order: top, then left)
    assert [(n.text, n.shape) for n in g.nodes] == [
        ("Feature extraction stage", "rounded"), ("Classifier", "rounded"),
        ("features", "text")]
    # the closed 4-point path at the line's end is its arrowhead, not a shape
    [e] = g.edges
    assert (e.source, e.target, e.directed) == ("n0", "n1", True)


GRAPHVIZ = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"
 "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg width="89pt" height="188pt" viewBox="0.00 0.00 89.00 188.00"
     xmlns="http://www.w3.org/2000/svg">
<g id="graph0" class="graph" transform="scale(2 2) rotate(0) translate(4 184)">
<polygon fill="white" stroke="none" points="-4,4 -4,-184 85,-184 85,4 -4,4"/>
<g id="node1" class="node"><title>a</title>
<ellipse fill="none" stroke="black" cx="40.5" cy="-162" rx="27" ry="18"/>
<text text-anchor="middle" x="40.5" y="-157.8" font-family="Times,serif"
      font-size="14.00">load</text></g>
<g id="node2" class="node"><title>b</title>
<ellipse fill="none" stroke="black" cx="40.5" cy="-90" rx="40.5" ry="18"/>
<text text-anchor="middle" x="40.5" y="-85.8" font-family="Times,serif"
      font-size="14.00">train</text></g>
<g id="edge1" class="edge"><title>a&#45;&gt;b</title>
<path fill="none" stroke="black" d="M40.5,-143.7C40.5,-135.98 40.5,-126.71 40.5,-118.11"/>
<polygon fill="black" stroke="black" points="44,-118.1 40.5,-108.1 37,-118.1 44,-118.1"/>
</g></g></svg>"""


def test_graphviz_svg_with_external_dtd_and_scaled_group() -> None:
    g = svg_graph(GRAPHVIZ)
    # scale(2) then translate(4,184): the ellipse (40.5,-162) r(27,18) lands at
    # x 2*(40.5-27+4)=35 .. 2*(40.5+27+4)=143, y 2*(-162-18+184)=8 .. 2*(-162+18+184)=80
    assert [(n.text, n.shape, n.bbox) for n in g.nodes] == [
        ("load", "ellipse", [35.0, 8.0, 108.0, 72.0]),
        ("train", "ellipse", [8.0, 152.0, 162.0, 72.0])]
    [e] = g.edges
    assert (e.source, e.target, e.directed) == ("n0", "n1", True)


def test_matrix_rotate_and_css_classes() -> None:
    body = ("<style>.lbl { font-size: 20px } .arrow { marker-end: url(#a) } "
            "#gone, .hidden { display: none }</style>"
            "<g transform='matrix(1 0 0 1 100 50)'>"
            "<rect x='0' y='0' width='100' height='50'/>"
            "<text class='lbl' x='10' y='30'>Sender</text>"
            "<text class='hidden' x='10' y='45'>secret</text></g>"
            "<g transform='rotate(90 300 75)'><rect x='275' y='50' width='50' height='50'/>"
            "<text x='285' y='80'>Rx</text></g>"
            "<line class='arrow' x1='200' y1='75' x2='275' y2='75'/>"
            "<text id='gone' x='0' y='290'>nothing</text>")
    g = svg_graph(_svg(body))
    assert [(n.text, n.bbox) for n in g.nodes] == [("Sender", [100, 50, 100, 50]),
                                                   ("Rx", [275, 50, 50, 50])]
    [e] = g.edges  # the marker comes from the class rule
    assert (e.source, e.target, e.directed) == ("n0", "n1", True)


def test_tspan_lines_merge_and_use_of_symbols() -> None:
    body = ("<defs><symbol id='box'><rect x='0' y='0' width='120' height='60'/></symbol>"
            "</defs><use href='#box' x='20' y='20'/>"
            "<text x='30' y='40' font-size='12'>Multi-head<tspan x='30' dy='14'>attention"
            "</tspan><tspan x='30' dy='40'>far below</tspan></text>")
    g = svg_graph(_svg(body))
    # 14 px apart < 1.5 × 12 merge; the third line is 40 px further: its own node, outside
    # the used symbol's box
    assert [(n.text, n.shape) for n in g.nodes] == [("Multi-head\nattention", "rectangle"),
                                                    ("far below", "text")]
    assert g.nodes[0].bbox == [20, 20, 120, 60]


def test_pieces_of_one_connector_join_and_forks_fan_out() -> None:
    boxes = ("<rect x='0' y='0' width='80' height='40'/><text x='10' y='25'>Src</text>"
             "<rect x='200' y='0' width='80' height='40'/><text x='210' y='25'>Left</text>"
             "<rect x='200' y='100' width='80' height='40'/><text x='210' y='125'>Right</text>")
    # an elbow drawn as two lines, the arrowhead on the second: one edge Src→Right
    elbow = ("<line x1='80' y1='20' x2='140' y2='20'/>"
             "<line x1='140' y1='20' x2='140' y2='120'/>"
             "<line x1='140' y1='120' x2='200' y2='120' marker-end='url(#a)'/>")
    g = svg_graph(_svg(boxes + elbow))
    ids = {n.text: n.id for n in g.nodes}
    assert [(e.source, e.target, e.directed) for e in g.edges] == [
        (ids["Src"], ids["Right"], True)]
    # a fork: one trunk, two arrowed branches: Src→Left and Src→Right
    fork = ("<line x1='80' y1='20' x2='140' y2='20'/>"
            "<line x1='140' y1='20' x2='200' y2='20' marker-end='url(#a)'/>"
            "<line x1='140' y1='20' x2='140' y2='120'/>"
            "<line x1='140' y1='120' x2='200' y2='120' marker-end='url(#a)'/>")
    g = svg_graph(_svg(boxes + fork))
    assert sorted((e.source, e.target) for e in g.edges) == [(ids["Src"], ids["Left"]),
                                                              (ids["Src"], ids["Right"])]


def test_entities_refused_but_plain_doctype_read() -> None:
    with pytest.raises(ValueError):
        svg_graph('<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"/>')
    assert svg_graph('<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd">'
                     '<svg xmlns="http://www.w3.org/2000/svg"><text x="1" y="20">ok</text>'
                     '</svg>').nodes[0].text == "ok"


def test_a_symbol_is_fitted_into_its_use() -> None:
    """A ``<symbol viewBox>`` drawn by ``<use width height>`` is scaled into that box
    (uniformly and centred by default, stretched with ``preserveAspectRatio="none"``)."""
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
           '<defs><symbol id="s" viewBox="0 0 30 20"><rect width="30" height="20"/></symbol>'
           '<symbol id="t" viewBox="0 0 30 20" preserveAspectRatio="none">'
           '<rect width="30" height="20"/></symbol></defs>'
           '<use xlink:href="#s" x="100" y="80" width="60" height="20"/>'
           '<text x="130" y="93" font-size="5" text-anchor="middle">Store</text>'
           '<use xlink:href="#t" x="0" y="0" width="60" height="20"/>'
           '<text x="30" y="13" font-size="5" text-anchor="middle">Log</text></svg>')
    boxes = {n.text: n.bbox for n in svg_graph(svg).nodes}
    assert boxes == {"Store": [115, 80, 30, 20], "Log": [0, 0, 60, 20]}


def test_glyph_runs_join_by_their_given_text_length() -> None:
    # "f(x,y)" as a PDF export writes it: one run per font, glyph positions, no widths.
    # Estimated at 0.6 em a glyph, "(" overlaps "x,y" and the runs do not join
    runs = [("3.5", "f"), ("9.5", "("), ("13.3 19.0 23.5", "x,y"), ("28.7", ")")]
    widths = ["4.9", "3.9", "15.0", "3.9"]
    plain = "".join(f"<text font-size='10'><tspan x='{x}' y='40'>{t}</tspan></text>"
                    for x, t in runs)
    sized = "".join(f"<text font-size='10'><tspan x='{x}' y='40' textLength='{w}'>{t}"
                    "</tspan></text>" for (x, t), w in zip(runs, widths, strict=True))
    svg = f"{HEAD}{{}}</svg>"
    assert [n.text for n in svg_graph(svg.format(plain)).nodes] != ["f (x,y)"]
    assert [n.text for n in svg_graph(svg.format(sized)).nodes] == ["f (x,y)"]
    # a length given for one piece of a line is not taken for the whole line
    mixed = ("<text font-size='10' x='3.5' y='40'>a very long label<tspan textLength='1'>"
             "!</tspan></text><text font-size='10' x='112' y='40'>over</text>")
    assert [n.text for n in svg_graph(svg.format(mixed)).nodes] == ["a very long label!over"]
