"""draw.io's own engine in headless Chromium: shapes as draw.io draws them, plain SVG text,
no network, and script in a label never runs nor reaches the output."""

from __future__ import annotations

import io
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest
from PIL import Image

from diagramforge.formats.mxgraph import notation as mxgraph
from diagramforge.formats.mxgraph.engine import DrawioRenderer
from diagramforge.formats.mxgraph.graph import mxgraph_graph
from diagramforge.formats.mxgraph.handler import MxGraphFormat, mxgraph_records
from diagramforge.formats.svg.document import png_ink, render_png
from diagramforge.store.records import Unit
from tests.conftest import REPO, make_params, needs_browser

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
    assert all(not u.startswith(renderer.origin) for u in renderer.blocked)


def test_no_other_port_and_no_host_is_reachable(renderer):
    """The page's own fetches, as hostile script would make them: another service on this
    machine's loopback, an IP literal, a name, https.  None gets through; each is recorded."""
    renderer.start()
    hits: list[str] = []

    class Spy(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *a) -> None:  # noqa: ANN002
            pass

    spy = HTTPServer(("127.0.0.1", 0), Spy)
    threading.Thread(target=spy.serve_forever, daemon=True).start()
    port = spy.server_address[1]
    urls = [f"http://127.0.0.1:{port}/secret", f"http://localhost:{port}/secret",
            "http://10.11.12.13/x", "http://example.org/x", "https://example.org/x"]
    try:
        got = renderer._page.evaluate("""async urls => Promise.all(urls.map(u =>
            fetch(u).then(r => r.status, e => "refused")))""", urls)
    finally:
        spy.shutdown()
        spy.server_close()
    assert hits == []
    assert got == ["refused"] * len(urls)  # refused by the proxy (403, no CORS) or unknown
    seen = " ".join(renderer.blocked)
    assert f"127.0.0.1:{port}/secret" in seen and "10.11.12.13" in seen
    assert "https://example.org:443" in seen
    # the package itself is still served
    assert renderer._page.evaluate("async () => (await fetch('/js/viewer-static.min.js')).ok")


def test_a_broken_model_fails_alone(renderer):
    good = model(vertex("a", "A", "rounded=1;"))
    outs = renderer.render_many(["<mxGraphModel><root><oops", good])
    assert [o.ok for o in outs] == [False, True]


# -- draw.io parity: the regression corpus (tests/fixtures/mxgraph) ------------------------
FIXTURES = REPO / "tests" / "fixtures" / "mxgraph"


def fixture_page(name: str) -> str:
    """A fixture page as the renderer gets it: decoded, normalised, labels prepared."""
    (page,) = mxgraph.decode((FIXTURES / f"{name}.drawio").read_bytes())
    return mxgraph.for_render(mxgraph.normalise(page.model))


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def inked(arr: np.ndarray) -> float:
    return float((arr.min(axis=2) < 245).mean()) if arr.size else 0.0


def test_floating_edges_are_drawn(renderer):
    (out,) = renderer.render_many([fixture_page("floating_edges")])
    assert out.ok, out.error
    # the free red line: both ends floating, 400 px long, drawn with its label
    (line,) = re.findall(r'<path d="M ([\d.]+) ([\d.]+) L ([\d.]+) ([\d.]+)" fill="none" '
                         r'stroke="#ff0000"', out.svg)
    x0, y0, x1, y1 = map(float, line)
    assert y0 == y1 and x1 - x0 > 380
    assert ">free line</text>" in out.svg
    # the two half-attached edges are drawn too: 3 edge paths + 3 arrowheads
    assert out.svg.count('pointer-events="stroke"') == 3


def test_bundled_icons_are_drawn_and_their_labels_not_clipped(renderer):
    (out,) = renderer.render_many([fixture_page("bundled_images")], png=True, scale=1.0)
    assert out.ok, out.error
    assert not renderer.blocked or not any("/img/" in u for u in renderer.blocked)
    images = re.findall(r'<image x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"'
                        r' xlink:href="data:image/(svg\+xml|png)', out.svg)
    assert len(images) == 4  # img/lib/…, /img/lib/…, stencils/clipart/…: inline, not fetched
    arr = pixels(out.png)
    vb = [float(v) for v in re.search(r'viewBox="([^"]+)"', out.svg).group(1).split()]
    for x, y, w, h, _ in images:  # every icon has real pixels, not a blank box
        x0, y0 = round(float(x) - vb[0]), round(float(y) - vb[1])
        box = arr[y0:y0 + round(float(h)), x0:x0 + round(float(w))]
        assert inked(box) > 0.15, (x, y, inked(box))
    # labels sit below their icons and are inside the picture, wider than the icon
    assert ">CLOUD</text>" in out.svg and ">USER</text>" in out.svg
    assert ">Netbook used by the field team</text>" in out.svg
    bottom = max(float(y) + float(h) for _, y, _, h, _ in images) - vb[1]
    band = arr[round(bottom) + 5:]
    assert band.shape[0] > 20 and inked(band) > 0.01
    nx, _, nw, _, _ = images[1]
    left_of_icon = arr[round(bottom) + 5:, :round(float(nx) - vb[0])]
    right_of_icon = arr[round(bottom) + 5:, round(float(nx) + float(nw) - vb[0]):]
    assert inked(left_of_icon) > 0 and inked(right_of_icon) > 0  # the long label, whole


def test_html_line_breaks_are_kept(renderer):
    (out,) = renderer.render_many([fixture_page("html_line_breaks")])
    assert out.ok, out.error
    texts = re.findall(r"<text [^>]*>([^<]*)</text>", out.svg)
    for pair in (["CLOUD", "USER"], ["one", "two"], ["first", "second"],
                 ["Tasks", "alpha", "beta"]):
        k = texts.index(pair[0])
        assert texts[k:k + len(pair)] == pair
    assert "CLOUDUSER" not in out.svg and "&lt;" not in out.svg


def test_wrapped_labels_stay_in_their_shape(renderer):
    (out,) = renderer.render_many([fixture_page("wrapped_labels")])
    assert out.ok, out.error
    lines = re.findall(r'<text x="([\d.]+)" y="[\d.]+">([^<]*)</text>', out.svg)
    long = [t for _, t in lines if t != "A plain label without wrapping"]
    assert len(long) >= 4 and " ".join(long).startswith("Step one: the client")
    assert all(len(t) < 40 for t in long)
    assert float(re.search(r'width="([\d.]+)px"', out.svg).group(1)) < 600


def test_a_large_diagram_is_scaled_down_not_rejected(renderer):
    (out,) = renderer.render_many([fixture_page("large_diagram")], svg=True, png=True,
                                  scale=150 / 96, max_side=4096)
    assert out.ok, out.error
    svg_w = float(re.search(r'width="([\d.]+)px"', out.svg).group(1))
    assert svg_w > 6000 and out.scale < 150 / 96
    w, h = Image.open(io.BytesIO(out.png)).size
    assert (w, h) == (out.width, out.height) and w == 4096 and 200 < h < 1024
    assert inked(pixels(out.png)) > 0.02


def test_renders_repeat_exactly(renderer):
    """Sketch and comic styles jitter with Math.random; seeded per diagram, a page renders
    to the same bytes whatever else is in its batch."""
    xml = model(vertex("s", "Sketchy", "rounded=1;comic=1;") +
                vertex("t", "Rough", "sketch=1;fillColor=#dae8fc;", 150))
    other = fixture_page("floating_edges")
    a = renderer.render_many([xml], png=True)[0]
    b = renderer.render_many([other, xml, other], png=True)[1]
    assert a.ok and a.svg == b.svg and a.png == b.png


def test_the_package_server_serves_the_package_only(renderer):
    import urllib.error
    import urllib.request

    renderer.start()
    base = renderer.origin
    with urllib.request.urlopen(f"{base}/js/viewer-static.min.js") as r:
        assert r.status == 200
    for path in ("/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/stencils/",
                 "/nope.txt"):
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(base + path)
    bad = urllib.request.Request(f"{base}/__png/{'0' * 32}/1/0", data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(bad)
    assert e.value.code == 403


def _stage(tmp_path, renderer) -> MxGraphFormat:
    fmt = MxGraphFormat(make_params(tmp_path), lambda r: r["source_id"])
    fmt._renderer = renderer  # one Playwright per thread: share the module's browser
    return fmt


def test_regression_corpus_renders_through_the_stage(tmp_path, renderer):
    """Every class of page the toolkit used to lose renders; only degenerate ones go."""
    rows = []
    for f in sorted(FIXTURES.glob("*.drawio")):
        recs, rejs = mxgraph_records(f.read_bytes(), f.name, {"source_id": f.stem,
                                                              "group": "fixtures"},
                                     f.name, Unit.INPUT)
        assert not rejs
        rows += recs
    out = _stage(tmp_path, renderer).render(rows)
    kept = {r["source_id"].split("#")[0] for r in out.records}
    assert kept == {p.stem for p in FIXTURES.glob("*.drawio")
                    if not p.stem.startswith("degenerate_")}
    why = {r.locator.split("#")[0]: r.reason for r in out.rejections}
    assert why == {"degenerate_aspect": "extreme_aspect",
                   "degenerate_shape": "mxgraph_invalid"}
    big = next(r for r in out.records if r["source_id"].startswith("large_diagram"))
    assert big["width"] == make_params(tmp_path).render.raster.max_side_px
    assert all(Image.open(io.BytesIO(r["image"])).size == (r["width"], r["height"])
               for r in out.records)
    floating = next(r for r in rows if r["source_id"].startswith("floating"))
    graph = json.loads(mxgraph_graph(floating["code"]).to_json())
    assert sorted(map(tuple, (e["unattached"] for e in graph["edges"]))) == [
        ("source",), ("source", "target"), ("target",)]


def test_a_blank_page_is_rejected_as_blank(tmp_path, renderer):
    row = {"id": "blank", "source_id": "blank", "format": "mxgraph", "group": "g",
           "code": model(vertex("w", "", "rounded=0;fillColor=#ffffff;strokeColor=none;"))}
    out = _stage(tmp_path, renderer).render([row])
    assert not out.records and [r.reason for r in out.rejections] == ["blank_render"]


def test_pages_share_out_work_by_stencil_library_and_stay_balanced():
    """A library is loaded by one page where balance allows, not by all of them."""
    from diagramforge.formats.mxgraph.engine import _assign, stencil_libraries

    aws = model(vertex("a", "A", "shape=mxgraph.aws4.resourceIcon;resIcon=mxgraph.aws4.lambda;"))
    cisco = model(vertex("c", "C", "shape=mxgraph.cisco.routers.router;"))
    assert stencil_libraries(aws) == {"aws4"} and stencil_libraries(cisco) == {"cisco"}
    xmls = [aws, cisco] * 8
    loaded: list[set[str]] = [set(), set()]
    parts = _assign([len(x) for x in xmls], [stencil_libraries(x) for x in xmls], loaded)
    assert sorted(i for p in parts for i in p) == list(range(16))
    assert {len(p) for p in parts} == {8}
    assert loaded in ([{"aws4"}, {"cisco"}], [{"cisco"}, {"aws4"}])
    # one library, many diagrams: balance wins over affinity
    parts = _assign([10] * 8, [frozenset({"aws4"})] * 8, [set(), set()])
    assert [len(p) for p in parts] == [4, 4]


def test_a_dead_png_encoder_fails_what_it_held_and_is_replaced(renderer):
    renderer.start()
    got = renderer._page.evaluate("""async () => {
        var c = new OffscreenCanvas(8, 8);
        c.getContext("2d").fillRect(0, 0, 4, 4);
        var held = dfEncode(c.transferToImageBitmap());
        var first = dfEncoder;
        first.onerror({message: "boom"});  // as the browser reports a crashed worker
        var r = await held.then(() => "encoded", e => e.message);
        return [r, dfEncoder !== first];
    }""")
    assert got == ["PNG encoder died: boom", True]
    (out,) = renderer.render_many([model(vertex("a", "A", "rounded=1;"))], png=True)
    assert out.ok and out.png.startswith(b"\x89PNG")


def test_renders_under_a_temp_dir_too_deep_for_chromiums_socket(tmp_path, monkeypatch):
    """Chromium makes its singleton socket under $TMPDIR and dies ("Socket path too long")
    when that path passes 107 bytes: under a deep TMPDIR (a CI runner's, pytest's) every
    draw.io and Mermaid diagram was rejected as ``TargetClosedError``."""
    import tempfile

    deep = tmp_path / ("d" * 70) / ("e" * 30)
    deep.mkdir(parents=True)
    monkeypatch.setenv("TMPDIR", str(deep))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    assert tempfile.gettempdir() == str(deep)
    r = DrawioRenderer()
    try:
        (out,) = r.render_many([mxgraph.for_render(model(vertex("b", "Deep", "rounded=0;")))])
    finally:
        r.close()
    assert out.ok, out.error
    assert ">Deep</text>" in out.svg
