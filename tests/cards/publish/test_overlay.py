"""The gallery's structure graph over the render: the graph's boxes land on the shapes the
render draws, whatever the crop did to the origin, in the render's pixels."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from diagramforge.cards.publish.overlay import overlay
from diagramforge.graphs.model import Edge, Graph, Node

GRAPH = Graph(nodes=[Node(id="a", text="Load", bbox=[40, 40, 60, 30]),
                     Node(id="b", text="Train", bbox=[160, 40, 60, 30]),
                     Node(id="c", text="Test", bbox=[100, 120, 60, 30])],
              edges=[Edge(source="a", target="b", label="next"),
                     Edge(source="b", target="c", directed=False, both_heads=True),
                     Edge(source="c", target=None, unattached=["target"])])


def render(graph: Graph, scale: float, dx: float, dy: float, framed: bool = True,
           size: tuple[int, int] = (420, 300), title: bool = False) -> bytes:
    """A render as an engine draws it: the graph's boxes × ``scale``, shifted by the crop
    (``dx``, ``dy``), framed or as text only, with arrows between them (and a title left of
    everything, ink the graph does not explain)."""
    im = Image.new("RGB", size, "white")
    d = ImageDraw.Draw(im)
    x0 = min(n.bbox[0] for n in graph.nodes)
    y0 = min(n.bbox[1] for n in graph.nodes)
    boxes = {n.id: [(n.bbox[0] - x0) * scale + dx, (n.bbox[1] - y0) * scale + dy,
                    n.bbox[2] * scale, n.bbox[3] * scale] for n in graph.nodes}
    for x, y, w, h in boxes.values():
        if framed:
            d.rectangle([x, y, x + w, y + h], outline="black", width=2)
        d.rectangle([x + w * 0.25, y + h * 0.35, x + w * 0.75, y + h * 0.65], fill="black")
    for e in graph.edges:
        if e.source in boxes and e.target in boxes:
            a, b = boxes[e.source], boxes[e.target]
            d.line([a[0] + a[2] / 2, a[1] + a[3], b[0] + b[2] / 2, b[1]], fill="black", width=2)
    if title:
        d.rectangle([2, 4, 10, size[1] - 4], fill="black")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def _near(got: list[float], want: list[float], tol: float = 2.5) -> bool:
    return all(abs(g - w) <= tol for g, w in zip(got, want, strict=True))


@pytest.mark.parametrize(("unit", "framed", "title"), [
    (0.75, True, False),   # draw.io, Mermaid, SVG: px; framed boxes
    (1.0, True, True),     # Graphviz: pt; a label left of everything
    (1.0, False, False),   # a TikZ page: text without frames
])
def test_the_boxes_land_on_the_drawn_shapes(unit, framed, title) -> None:
    scale = 150 / 72 * unit
    png = render(GRAPH, scale, 23, 17, framed, title=title)
    ov = overlay(GRAPH, png, unit, 150)
    assert ov is not None and ov["size"] == [420, 300]
    nodes = {text: box for *box, text in ov["nodes"]}
    assert _near(nodes["Load"], [23, 17, 60 * scale, 30 * scale])
    assert _near(nodes["Train"], [23 + 120 * scale, 17, 60 * scale, 30 * scale])
    assert _near(nodes["Test"], [23 + 60 * scale, 17 + 80 * scale, 60 * scale, 30 * scale])
    # edges between the boxes' borders, with their labels and heads; a free end is left out
    assert [(e[4], e[5]) for e in ov["edges"]] == [("next", ">"), ("", "<>")]
    x1, y1, x2, y2 = ov["edges"][0][:4]
    load, train = nodes["Load"], nodes["Train"]
    assert abs(x1 - (load[0] + load[2])) < 1 and abs(x2 - train[0]) < 1 and y1 == y2


def test_a_render_shrunk_to_its_largest_side_shrinks_the_graph_with_it() -> None:
    # the render stage fits a drawing into max_side_px: the boxes shrink by the same factor
    png = render(GRAPH, 1.0, 5, 5, size=(200, 120))
    ov = overlay(GRAPH, png, 0.75, 150)
    assert ov is not None
    nodes = {text: box for *box, text in ov["nodes"]}
    assert _near(nodes["Train"], [125, 5, 60, 30], tol=4)


def test_no_boxes_no_overlay() -> None:
    bare = Graph(nodes=[Node(id="a", text="A"), Node(id="b", text="B")],
                 edges=[Edge(source="a", target="b")])
    assert overlay(bare, render(GRAPH, 1.0, 5, 5), 0.75, 150) is None
