import base64
import zlib
from urllib.parse import quote

import pytest

from diagramforge.formats import mxgraph
from diagramforge.formats.mxgraph import MxGraphError, MxReason

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
    (lambda m: m.replace(' source="a"', ""), "has no source"),
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


def test_graph_of_a_page():
    import json

    g = json.loads(mxgraph.to_graph(MODEL))
    assert {n["id"] for n in g["nodes"]} == {"a", "b"}
    assert g["edges"] == [{"source": "a", "target": "b", "text": "uses"}]
    assert {n["shape"] for n in g["nodes"]} == {"rectangle", "cylinder3"}
    g = json.loads(mxgraph.to_graph(MODEL.replace("rounded=1;html=1;", "ellipse;html=1;")))
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
    from diagramforge.builders.file_extract import mxgraph_records

    doc = f'<mxfile><diagram name="empty"></diagram><diagram name="P">{MODEL}</diagram></mxfile>'
    recs, rejs = mxgraph_records(doc.encode(), "f.drawio", {"source_id": "r@c:f.drawio"},
                                 "r@c:f.drawio", "input")
    assert len(recs) == 1 and recs[0]["source_id"].endswith("#page2")
    assert [(r.reason, r.unit) for r in rejs] == [("mxgraph_empty_page", "candidate")]
