import base64
import zlib
from urllib.parse import quote

import pytest

from diagramforge.formats.mxgraph import notation as mxgraph
from diagramforge.formats.mxgraph.notation import MxGraphError, MxReason

CELLS = ('<mxCell id="0"/><mxCell id="1" parent="0"/>'
         '<mxCell id="a" value="A" style="rounded=1;html=1;" vertex="1" parent="1">'
         '<mxGeometry x="0" y="0" width="80" height="40" as="geometry"/></mxCell>'
         '<mxCell id="b" value="B" style="shape=cylinder3;" vertex="1" parent="1">'
         '<mxGeometry x="200" y="0" width="80" height="40" as="geometry"/></mxCell>'
         '<mxCell id="e" value="uses" edge="1" parent="1" source="a" target="b">'
         '<mxGeometry relative="1" as="geometry"/></mxCell>')
MODEL = f"<mxGraphModel><root>{CELLS}</root></mxGraphModel>"


def compress(xml: str) -> str:
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    return base64.b64encode(co.compress(quote(xml, safe="-_.!~*'()").encode())
                            + co.flush()).decode()


def test_all_containers_decode_to_the_same_page():
    plain = f'<mxfile><diagram name="P">{MODEL}</diagram></mxfile>'.encode()
    packed = f'<mxfile><diagram name="P">{compress(MODEL)}</diagram></mxfile>'.encode()
    bare = MODEL.encode()
    from xml.sax.saxutils import quoteattr
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" content={quoteattr(plain.decode())}/>'
    codes = {mxgraph.normalise(mxgraph.decode(d)[0].model) for d in
             (plain, packed, bare, svg.encode())}
    assert len(codes) == 1


def test_png_text_chunk(tmp_path):
    from PIL import Image, PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("mxfile", quote(f"<mxfile><diagram>{MODEL}</diagram></mxfile>", safe=""),
                  zip=True)
    p = tmp_path / "d.drawio.png"
    Image.new("RGB", (2, 2), "white").save(p, pnginfo=info)
    pages = mxgraph.decode(p.read_bytes())
    assert len(pages) == 1 and mxgraph.validate(pages[0].model) == []


def test_multi_page_names_and_order():
    doc = (f'<mxfile><diagram name="one">{MODEL}</diagram>'
           f'<diagram name="two">{compress(MODEL.replace("uses", "calls"))}</diagram></mxfile>')
    pages = mxgraph.decode(doc.encode())
    assert [p.name for p in pages] == ["one", "two"]
    assert "calls" in mxgraph.normalise(pages[1].model)


@pytest.mark.parametrize("doc, reason", [
    (b'<!DOCTYPE x [<!ENTITY a "b">]><mxGraphModel/>', MxReason.UNSAFE_XML),
    (b'<?xml version="1.0"?><!DOCTYPE m SYSTEM "file:///etc/passwd"><mxfile/>',
     MxReason.UNSAFE_XML),
    (b"<mxfile><diagram>not base64 !!</diagram></mxfile>", MxReason.DECODE),
    (b"<html/>", MxReason.NOT_MXGRAPH),
    (b"<mxfile><diagram>", MxReason.MALFORMED),
    (b"<mxfile></mxfile>", MxReason.NO_PAGES),
])
def test_hostile_and_broken_inputs_get_reasons(doc, reason):
    with pytest.raises(MxGraphError) as e:
        mxgraph.decode(doc)
    assert e.value.reason == reason


def test_inflate_is_capped(monkeypatch):
    monkeypatch.setattr(mxgraph, "MAX_INFLATE", 1000)
    with pytest.raises(MxGraphError, match="inflates past"):
        mxgraph.inflate_page(compress("<a>" + "x" * 50_000 + "</a>"))


@pytest.mark.parametrize("mutate, message", [
    (lambda m: m.replace('id="b"', 'id="a"'), "duplicate cell id 'a'"),
    (lambda m: m.replace('target="b"', 'target="zz"'), "target 'zz' does not exist"),
    (lambda m: m.replace(' source="a"', ""), "has no source nor sourcePoint"),
    (lambda m: m.replace('<mxGeometry relative="1" as="geometry"/>', ""), "no geometry"),
    (lambda m: m.replace("shape=cylinder3;", "shape=image;image=https://x.org/a.png;"),
     "external image"),
])
def test_validation_rules(mutate, message):
    errs = mxgraph.validate(mxgraph.parse_xml(mutate(MODEL)))
    assert any(message in e for e in errs), errs


def test_data_uri_images_are_fine():
    m = MODEL.replace("shape=cylinder3;", "shape=image;image=data:image/png,iVBORw0KGgo=;")
    assert mxgraph.validate(mxgraph.parse_xml(m)) == []


def test_labels_are_sanitised_in_code_and_plain_for_rendering():
    evil = MODEL.replace('value="A"', 'value="&lt;b&gt;Hi&lt;/b&gt;&lt;script&gt;alert(1)'
                         '&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&lt;br&gt;there"')
    code = mxgraph.normalise(mxgraph.parse_xml(evil))
    assert "script" not in code and "onerror" not in code and "&lt;b&gt;Hi" in code
    ready = mxgraph.for_render(code)
    assert 'value="Hi\nthere"' in ready or 'value="Hi&#10;there"' in ready
    assert "html=1" not in ready


def _graph(code: str) -> dict:
    """The page's graph in the record's contract shape (JSON of ``diagramforge.graphs``)."""
    import json

    from diagramforge.formats.mxgraph.graph import mxgraph_graph

    return json.loads(mxgraph_graph(code).to_json())


def test_graph_of_a_page():
    g = _graph(MODEL)
    assert {n["id"] for n in g["nodes"]} == {"a", "b"}
    assert g["edges"] == [{"source": "a", "target": "b", "label": "uses", "directed": True,
                           "unattached": []}]
    assert {n["shape"] for n in g["nodes"]} == {"rectangle", "cylinder3"}
    assert next(n for n in g["nodes"] if n["id"] == "b")["bbox"] == [200, 0, 80, 40]
    g = _graph(MODEL.replace("rounded=1;html=1;", "ellipse;html=1;"))
    assert {n["shape"] for n in g["nodes"]} == {"ellipse", "cylinder3"}


def test_doctype_anywhere_is_refused():
    late = b"<mxfile><!--" + b"x" * 70_000 + b'--></mxfile><!DOCTYPE a [<!ENTITY e "x">]>'
    with pytest.raises(MxGraphError) as e:
        mxgraph.decode(late)
    assert e.value.reason == MxReason.UNSAFE_XML


def test_label_images_and_background_images_are_not_kept():
    m = MODEL.replace('value="A"', 'value="&lt;img src=&quot;https://evil.example/x.png'
                      '&quot;&gt;A"')
    code = mxgraph.normalise(mxgraph.parse_xml(m))
    assert "evil.example" not in code and "img" not in code
    bg = MODEL.replace("<mxGraphModel>", '<mxGraphModel backgroundImage="{&quot;src&quot;:'
                       '&quot;https://evil.example/bg.png&quot;}">')
    assert "external background image" in mxgraph.validate(mxgraph.parse_xml(bg))


def test_extreme_geometry_is_invalid():
    m = MODEL.replace('width="80" height="40" as="geometry"/></mxCell><mxCell id="b"',
                      'width="60000" height="40" as="geometry"/></mxCell><mxCell id="b"')
    assert any("beyond" in e for e in mxgraph.validate(mxgraph.parse_xml(m)))


def test_empty_pages_are_reported_not_skipped():
    from diagramforge.formats.mxgraph.handler import mxgraph_records

    doc = f'<mxfile><diagram name="empty"></diagram><diagram name="P">{MODEL}</diagram></mxfile>'
    recs, rejs = mxgraph_records(doc.encode(), "f.drawio", {"source_id": "r@c:f.drawio"},
                                 "r@c:f.drawio", "input")
    assert len(recs) == 1 and recs[0]["source_id"].endswith("#page2")
    assert [(r.reason, r.unit) for r in rejs] == [("mxgraph_empty_page", "candidate")]


# -- draw.io parity: what draw.io draws is valid -------------------------------------------
FLOATING = MODEL.replace(
    ' source="a" target="b"><mxGeometry relative="1" as="geometry"/>',
    ' target="b"><mxGeometry relative="1" as="geometry"><mxPoint x="10" y="200" '
    'as="sourcePoint"/></mxGeometry>')


def test_floating_edge_ends_are_valid_and_marked_unattached():
    assert 'source="a"' not in FLOATING and "sourcePoint" in FLOATING
    assert mxgraph.validate(mxgraph.parse_xml(FLOATING)) == []
    g = _graph(FLOATING)  # (10, 200) is far from both vertices: the end stays loose
    assert g["edges"] == [{"source": None, "target": "b", "label": "uses", "directed": True,
                           "unattached": ["source"]}]
    # an edge with neither a terminal nor a point on one end is not drawable
    loose = FLOATING.replace('<mxPoint x="10" y="200" as="sourcePoint"/>', "")
    assert any("has no source nor sourcePoint" in e
               for e in mxgraph.validate(mxgraph.parse_xml(loose)))


def test_a_page_of_floating_edges_only_is_valid():
    only = ('<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>'
            '<mxCell id="e" edge="1" parent="1"><mxGeometry relative="1" as="geometry">'
            '<mxPoint x="0" y="0" as="sourcePoint"/><mxPoint x="90" y="0" as="targetPoint"/>'
            "</mxGeometry></mxCell></root></mxGraphModel>")
    assert mxgraph.validate(mxgraph.parse_xml(only)) == []
    empty = '<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/></root></mxGraphModel>'
    assert any("nothing to draw" in e for e in mxgraph.validate(mxgraph.parse_xml(empty)))


@pytest.mark.parametrize("ref, external", [
    ("img/lib/ibm/users/user.svg", False),
    ("/img/lib/clip_art/computers/Netbook_128x128.png", False),
    ("img/clipart/Gear_128x128.png", False),
    ("stencils/clipart/Gear_128x128.png", False),
    ("stencils/aws4.xml", True),
    ("data:image/png,iVBORw0KGgo=", False),
    ("https://cdn.example.org/a.png", True),
    ("//cdn.example.org/a.png", True),
    ("/etc/passwd", True),
    ("img/lib/../../../etc/passwd.png", True),
    ("logo.png", True),
    ("file:///img/lib/a.png", True),
])
def test_drawios_own_images_are_not_external(ref, external):
    assert mxgraph.is_external_image(ref) is external
    m = MODEL.replace("shape=cylinder3;", f"shape=image;image={ref};")
    errs = mxgraph.validate(mxgraph.parse_xml(m))
    assert any("external image" in e for e in errs) is external


def test_external_images_leave_the_code_bundled_ones_stay():
    m = MODEL.replace("shape=cylinder3;", "shape=image;image=https://cdn.example.org/a.png;"
                      "indicatorImage=img/lib/mscae/API.svg;")
    code = mxgraph.normalise(mxgraph.parse_xml(m))
    assert "cdn.example.org" not in code and "image=img/lib/mscae/API.svg" in code.replace(
        "indicatorImage", "image")
    assert mxgraph.validate(mxgraph.parse_xml(code)) == []
    bg = MODEL.replace("<mxGraphModel>", '<mxGraphModel backgroundImage="{&quot;src&quot;:'
                       '&quot;https://evil.example/bg.png&quot;}">')
    assert "evil.example" not in mxgraph.normalise(mxgraph.parse_xml(bg))


@pytest.mark.parametrize("label, text", [
    ("CLOUD<div>USER</div>", "CLOUD\nUSER"),
    ("<div>CLOUD</div>USER", "CLOUD\nUSER"),
    ("one<br>two", "one\ntwo"),
    ("one<br/><br/>three", "one\n\nthree"),
    ("A<div><br></div><div>B</div>", "A\n\nB"),
    ("<p>first</p><p>second</p>", "first\nsecond"),
    ("Tasks<ul><li>alpha</li><li>beta</li></ul>", "Tasks\nalpha\nbeta"),
    ("<h1>Title</h1>body", "Title\nbody"),
    ("<b>bold</b> and <i>italic</i>", "bold and italic"),
    ("a\nb", "a\nb"),  # draw.io turns a newline in an HTML label into a break too
    ("  lots   of\tspace ", "lots of space"),
    ("A&nbsp;&nbsp;B &amp; C", "A  B & C"),
    ("<table><tr><td>1</td><td>2</td></tr><tr><td>3</td></tr></table>", "1 2\n3"),
    ("x<script>alert(1)</script>y", "xy"),
    ("plain", "plain"),
])
def test_html_labels_keep_their_line_breaks(label, text):
    assert mxgraph.html_to_text(label) == text


def test_line_breaks_reach_the_renderer():
    m = MODEL.replace('value="A"', 'value="CLOUD&lt;div&gt;USER&lt;/div&gt;"')
    ready = mxgraph.for_render(mxgraph.normalise(mxgraph.parse_xml(m)))
    assert 'value="CLOUD&#10;USER"' in ready


@pytest.mark.parametrize("geometry, ok", [
    ('x="0" y="0" width="6000" height="40"', True),  # large: scaled at render, not invalid
    ('x="90000" y="-40000" width="80" height="40"', True),  # far away: cropped, harmless
    ('x="0" y="0" width="60000" height="40"', False),  # a shape that size takes seconds
    ('x="0" y="0" width="nan" height="40"', False),
    ('x="inf" y="0" width="80" height="40"', False),
    ('x="1e400" y="0" width="80" height="40"', False),
    ('x="zero" y="0" width="80" height="40"', False),
])
def test_geometry_limits(geometry, ok):
    m = MODEL.replace('x="0" y="0" width="80" height="40"', geometry, 1)
    assert (mxgraph.validate(mxgraph.parse_xml(m)) == []) is ok
