import numpy as np
import pytest

from diagramforge.formats.svg import document as svg
from diagramforge.formats.svg.document import Caps, SvgError, SvgReason

DECLARATIONS = b"""<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
"""
HOSTILE = b"""<?xml version="1.0"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     width="100" height="100" onload="alert(1)">
  <style>@import url(http://evil.example/x.css); rect { fill: url(http://evil/p#x); }</style>
  <script>alert(2)</script>
  <foreignObject><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>
  <image xlink:href="file:///etc/passwd" width="10" height="10"/>
  <image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/>
  <a xlink:href="javascript:alert(3)"><rect width="50" height="50" fill="red"/></a>
  <use href="#r"/>
  <set attributeName="href" to="javascript:alert(4)"/>
  <text y="50">kept</text>
</svg>"""


def test_sanitize_removes_everything_active_or_external():
    c = svg.clean(HOSTILE)
    for bad in ("script", "onload", "foreignObject", "@import", "evil", "/etc/passwd",
                "javascript", "<set", "DOCTYPE"):
        assert bad not in c.code, bad
    assert 'href="#r"' in c.code and "data:image/png" in c.code  # internal and embedded stay
    assert 'fill="red"' in c.code and "kept" in c.code


def test_entity_declarations_are_refused_not_dropped():
    """Entities (billion laughs, XXE) used to be dropped silently and the rest rendered; a
    document that declares them is refused, with the reason every format gives."""
    hostile = DECLARATIONS + HOSTILE.split(b"?>", 1)[1].replace(b"kept", b"&b;&xxe;")
    with pytest.raises(SvgError) as e:
        svg.clean(hostile)
    assert e.value.reason == SvgReason.UNSAFE_XML == "xml_doctype_forbidden"


def test_caps():
    with pytest.raises(SvgError) as e:
        svg.clean(b"<svg xmlns='http://www.w3.org/2000/svg'>" + b"<g/>" * 50 + b"</svg>",
                  Caps(max_elements=10))
    assert e.value.reason == SvgReason.TOO_MANY_ELEMENTS
    with pytest.raises(SvgError) as e:
        svg.clean(b"<svg xmlns='http://www.w3.org/2000/svg'><path d='" + b"M0 0 " * 100
                  + b"'/></svg>", Caps(max_path_chars=50))
    assert e.value.reason == SvgReason.PATH_TOO_LONG
    with pytest.raises(SvgError) as e:
        svg.clean(b"x" * 100, Caps(max_bytes=10))
    assert e.value.reason == SvgReason.TOO_LARGE
    with pytest.raises(SvgError) as e:
        svg.clean(b"<html/>")
    assert e.value.reason == SvgReason.NOT_SVG


INKSCAPE = b"""<?xml version="1.0"?>
<!-- Created with Inkscape -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"
  xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" width="120" height="80"
  inkscape:version="1.3">
  <sodipodi:namedview pagecolor="#fff"/>
  <metadata><x/></metadata>
  <g inkscape:label="Layer 1" inkscape:groupmode="layer">
    <rect x="10" y="10" width="60" height="40" fill="#36c" sodipodi:nodetypes="cccc"/>
    <circle cx="95" cy="40" r="15" fill="none" stroke="black" stroke-width="3"/>
  </g>
</svg>"""


def pixels(png: bytes) -> np.ndarray:
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_normalise_strips_editor_data_and_keeps_every_pixel():
    c = svg.clean(INKSCAPE)
    for gone in ("inkscape", "sodipodi", "metadata", "Created with"):
        assert gone not in c.code
    assert 'viewBox="0 0 120 80"' in c.code
    raw = INKSCAPE.decode().split("?>", 1)[1]
    assert np.array_equal(pixels(svg.render_png(raw)), pixels(svg.render_png(c.code)))


def test_viewbox_and_size_agree():
    c = svg.clean(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 20"/>')
    assert 'width="40"' in c.code and 'height="20"' in c.code
    c = svg.clean(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 20" width="80"/>')
    assert 'height="40"' in c.code


@pytest.mark.parametrize("family", ["Arial", "Helvetica", "sans-serif", "serif",
                                    "'Times New Roman', serif", "Courier New"])
def test_text_in_unknown_fonts_is_drawn(family):
    doc = (f'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40">'
           f'<text x="5" y="28" font-family="{family}" font-size="20">Hello</text></svg>')
    px = pixels(svg.render_png(doc))
    assert (px.min(axis=2) < 128).sum() > 50, family


@pytest.mark.parametrize("styled", [
    # Mermaid's own sheet: a quoted first family in a list, set by a descendant selector
    '<style>#m{font-family:"trebuchet ms",verdana,arial,sans-serif;font-size:20px;}'
    '#m .label text{fill:#333;}</style><g class="label"><text x="5" y="28">Hello</text></g>',
    '<text x="5" y="28" style="font-family: \'Trebuchet MS\', Verdana; font-size: 20px">'
    'Hello</text>',
])
def test_text_styled_by_css_family_lists_is_drawn(styled):
    doc = f'<svg xmlns="http://www.w3.org/2000/svg" id="m" width="200" height="40">{styled}</svg>'
    px = pixels(svg.render_png(svg.clean(doc.encode()).code))
    assert (px.min(axis=2) < 128).sum() > 50


def test_engines_agree_roughly_and_blank_is_blank():
    doc = svg.clean(INKSCAPE).code
    a, b = svg.png_ink(svg.render_png(doc)), svg.png_ink(svg.render_png(doc, engine="cairosvg"))
    assert a[:2] == b[:2] and abs(a[2] - b[2]) < 0.05
    blank = '<svg xmlns="http://www.w3.org/2000/svg" width="50" height="50"/>'
    assert svg.png_ink(svg.render_png(blank))[2] == 0.0


def test_broken_svg_render_is_a_reason_not_a_crash():
    with pytest.raises(SvgError) as e:
        svg.render_png('<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"/>')
    assert e.value.reason == SvgReason.RENDER_FAILED


E = "http://127.0.0.1:9/evil"
NS = 'xmlns="http://www.w3.org/2000/svg" width="100" height="100"'


@pytest.mark.parametrize("doc", [
    f'<svg {NS}><style><g/>rect{{fill:url({E}#p)}}</style><rect width="5" height="5"/></svg>',
    f'<svg {NS}><style><metadata/>@import url({E}.css);</style></svg>',
    f'<svg {NS}><rect width="5" height="5" fill="URL({E}#p)"/></svg>',
    f'<svg {NS}><rect width="5" height="5" style="fill:url({E}#p"/></svg>',
    f'<svg {NS}><style>rect{{fill:u\\72l({E}#p)}}</style><rect width="5" height="5"/></svg>',
    f'<svg {NS} xmlns:h="http://www.w3.org/1999/xhtml"><h:img src="{E}.png"/></svg>',
    f'<svg {NS}><rect width="5" height="5" style="cursor:url({E}.cur), auto"/></svg>',
    f'<svg {NS}><a href=" javascript:alert(1)"><rect width="5" height="5"/></a></svg>',
])
def test_no_way_out(doc):
    """Regressions from review: each of these once reached a server from a browser."""
    code = svg.clean(doc).code
    assert "127.0.0.1" not in code and "javascript" not in code.lower()


def test_internal_references_survive_css_cleaning():
    doc = (f'<svg {NS}><defs><linearGradient id="g"/></defs><style>.a{{fill:url(#g)}}'
           f'</style><rect class="a" width="5" height="5" fill="url(#g)"/></svg>')
    code = svg.clean(doc).code
    assert code.count("url(#g)") == 2


def test_degenerate_viewbox_is_not_a_crash():
    c = svg.clean(b'<svg xmlns="http://www.w3.org/2000/svg" width="100" viewBox="0 0 0 100"/>')
    assert 'viewBox="0 0 0 100"' in c.code
    c = svg.clean(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="a b c d"/>')
    assert "viewBox" in c.code


def test_huge_declared_size_is_refused_before_allocating():
    doc = '<svg xmlns="http://www.w3.org/2000/svg" width="30000" height="30000"/>'
    for engine in ("resvg", "cairosvg"):
        with pytest.raises(SvgError) as e:
            svg.render_png(doc, 1.5, engine, max_side=4096)
        assert e.value.reason == SvgReason.TOO_BIG_TO_RENDER
    # a viewBox-only document is measured by resvg before it draws
    doc = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30000 30000"/>'
    with pytest.raises(SvgError):
        svg.render_png(doc, 1.5, "resvg", max_side=4096)
