"""draw.io's own engine in headless Chromium: shapes as draw.io draws them, plain SVG text,
no network, and script in a label never runs nor reaches the output."""

from __future__ import annotations

import pytest

from diagramforge.formats import mxgraph
from diagramforge.formats.drawio_render import DrawioRenderer
from diagramforge.formats.svg import png_ink, render_png
from tests.conftest import needs_browser

pytestmark = needs_browser


def model(cells: str) -> str:
    return ('<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>'
            f"{cells}</root></mxGraphModel>")


def vertex(i: str, label: str, style: str, x: int = 0) -> str:
    return (f'<mxCell id="{i}" value="{label}" style="{style}" vertex="1" parent="1">'
            f'<mxGeometry x="{x}" y="0" width="100" height="60" as="geometry"/></mxCell>')


@pytest.fixture(scope="module")
def renderer():
    r = DrawioRenderer()
    yield r
    r.close()


def test_draws_drawio_shapes_with_plain_text(renderer):
    xml = model(vertex("c", "DB", "shape=cylinder3;whiteSpace=wrap;html=1;size=15;")
                + vertex("h", "API", "shape=hexagon;perimeter=hexagonPerimeter2;", 150)
                + vertex("k", "CDN", "ellipse;shape=cloud;", 300)
                + vertex("r", "Box", "rounded=0;", 450))
    (out,) = renderer.render_many([mxgraph.for_render(xml)])
    assert out.ok, out.error
    svg = out.svg
    assert "foreignObject" not in svg
    for label in ("DB", "API", "CDN", "Box"):
        assert f">{label}</text>" in svg
    # a cylinder is curves (C), a hexagon six straight sides, a cloud many curves: not boxes
    paths = [p for p in svg.split("<path ")[1:]]
    assert sum(" C " in p for p in paths) >= 2
    assert any(p.count(" L ") == 5 for p in paths)
    assert svg.count("<rect ") == 1
    w, h, ink = png_ink(render_png(svg))
    assert w > 500 and ink > 0.02


def test_script_in_labels_never_runs_nor_reaches_the_output(renderer):
    evil = ("&lt;img src=x onerror=&quot;document.title='pwned'&quot;&gt;"
            "&lt;script&gt;document.title='pwned2'&lt;/script&gt;Hello")
    xml = mxgraph.normalise(mxgraph.parse_xml(model(vertex("a", evil, "html=1;"))))
    (out,) = renderer.render_many([mxgraph.for_render(xml)])
    assert out.ok
    assert ">Hello</text>" in out.svg
    for bad in ("script", "onerror", "<img", "pwned"):
        assert bad not in out.svg
    assert renderer._page.title() != "pwned"
    assert not any("/x" in u for u in renderer.blocked)


def test_nothing_leaves_the_machine(renderer):
    xml = model(vertex("a", "A", "shape=image;image=http://example.org/logo.png;"))
    renderer.render_many([xml])
    assert renderer.blocked  # the request was made by draw.io and aborted by us
    assert all(not u.startswith("http://drawio.invalid/") for u in renderer.blocked)


def test_a_broken_model_fails_alone(renderer):
    good = model(vertex("a", "A", "rounded=1;"))
    outs = renderer.render_many(["<mxGraphModel><root><oops", good])
    assert [o.ok for o in outs] == [False, True]
