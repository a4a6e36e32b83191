"""The published gallery in Debian's Chromium (Playwright, no network): it loads without
console errors, filters change what is shown, a card opens the detail view with the code,
the render and the diagram's task items; the test saves a screenshot."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from diagramforge.runner import run_named
from tests.cards.publish.test_publish import FIXED, rows
from tests.cards.validate.test_tasks import QA_SCHEMA, task_rows, with_fake_stage  # noqa: F401
from tests.conftest import make_params, seed_stage

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(not shutil.which("chromium"),
                                    reason="Debian chromium not installed (./dev setup)")


@needs_chromium
def test_gallery_filters_and_detail_in_chromium(tmp_path, with_fake_stage):  # noqa: F811
    from playwright.sync_api import sync_playwright

    from diagramforge.formats.mxgraph.engine import CHROMIUM_ARGS

    table = rows(["MIT", "CC-BY-4.0", "MIT", "MIT", "CC-BY-SA-4.0", "MIT"])
    for r, tier in zip(table, ["easy", "hard", "easy", "medium", None, "hard"], strict=True):
        r["difficulty"] = tier
    table[0]["code"] = "<script>window.PWNED=1</script>" + table[0]["code"]
    params = make_params(tmp_path, **FIXED)
    seed_stage(params, "split", table)
    seed_stage(params, "fakesynth", task_rows(), schema=QA_SCHEMA)
    run_named("validate", params)
    run_named("publish", params)
    index = tmp_path / "published" / params.publish.name / "gallery" / "index.html"

    errors, requests = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                     headless=True)
        page = browser.new_page(viewport={"width": 1100, "height": 800})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(index.as_uri())
        page.wait_for_selector(".card")
        cards = page.locator("#grid .card")
        assert cards.count() == 6

        page.select_option("#filter-format", "tikz")
        tikz = cards.count()
        assert tikz == 2  # rows(): format i % 3 → id0, id3
        page.select_option("#filter-difficulty", "hard")
        assert cards.count() == 0 or cards.count() < tikz
        page.select_option("#filter-format", "all")
        assert cards.count() == 2  # id1, id5
        page.select_option("#filter-difficulty", "all")
        page.select_option("#filter-licence", "CC-BY-4.0")
        assert [cards.nth(i).get_attribute("data-id") for i in range(cards.count())] == ["id1"]
        page.select_option("#filter-licence", "all")

        page.click("#configs button[data-config=qa]")
        assert sorted(cards.nth(i).get_attribute("data-id")
                      for i in range(cards.count())) == ["id0", "id1", "id2"]
        page.click("#grid .card[data-id=id0]")
        assert page.locator("#detail").is_visible()
        assert "<script>window.PWNED=1</script>" in page.locator("#d-code").inner_text()
        assert page.evaluate("window.PWNED") is None  # code shown as text, never run
        assert "how many boxes in id0?" in page.locator("#d-tasks").inner_text()
        assert page.evaluate("document.getElementById('d-img').naturalWidth") == 40
        page.screenshot(path=str(tmp_path / "gallery.png"), full_page=True)
        browser.close()
    assert errors == []
    assert all(u.startswith("file://") for u in requests)
    assert (tmp_path / "gallery.png").stat().st_size > 1000


def test_the_gallery_shows_at_most_gallery_max_diagrams(tmp_path, with_fake_stage):  # noqa: F811
    """Two files per diagram in two folders: the cap keeps each under the Hub's 10k
    entries per folder; the first ids are shown, with their task items only."""
    import json

    params = make_params(tmp_path, **FIXED, publish={"gallery_max_diagrams": 2})
    seed_stage(params, "split", rows(["MIT", "CC-BY-4.0", "MIT", "MIT"]))
    seed_stage(params, "fakesynth", task_rows(), schema=QA_SCHEMA)
    run_named("validate", params)
    run_named("publish", params)
    root = tmp_path / "published" / params.publish.name / "gallery"
    # stored as the engine's PNG, published (and shown) as lossless WebP: encode_at publish
    assert sorted(p.name for p in (root / "img").iterdir()) == ["id0.webp", "id1.webp"]
    assert sorted(p.name for p in (root / "thumb").iterdir()) == ["id0.png", "id1.png"]
    text = (root / "data.js").read_text()
    data = json.loads(text[text.index("{"):text.rindex("}") + 1])
    assert sorted(data["diagrams"]) == ["id0", "id1"]
    assert data["configs"]["qa"] == ["id0", "id1"]  # qa2 (on id2) is not shown
    assert data["configs"]["captioning"] == []  # its one item is on id3


def test_the_gallery_names_each_render_by_what_its_bytes_are(tmp_path):
    """A render stored as lossless WebP is written as ``.webp`` and the detail view loads
    that name (a WebP called ``.png`` would lie about itself); a PNG stays ``.png``; the
    thumbnails are PNGs the gallery makes."""
    import io
    import json

    import pandas as pd
    from PIL import Image

    from diagramforge.cards.publish.gallery import write_gallery
    from diagramforge.formats.encoding import kind

    def picture(fmt: str) -> bytes:
        buf = io.BytesIO()
        Image.new("RGB", (60, 40), "navy").save(buf, fmt, **({"lossless": True}
                                                             if fmt == "WEBP" else {}))
        return buf.getvalue()

    df = pd.DataFrame([{"id": "a", "format": "mxgraph", "code": "<x/>", "image": picture("WEBP")},
                       {"id": "b", "format": "tikz", "code": "\\draw;", "image": picture("PNG")}])
    index = write_gallery(df, {}, tmp_path, "t")
    root = index.parent
    assert sorted(p.name for p in (root / "img").iterdir()) == ["a.webp", "b.png"]
    assert kind((root / "img" / "a.webp").read_bytes()) == "webp"
    assert all(kind(p.read_bytes()) == "png" for p in (root / "thumb").iterdir())
    text = (root / "data.js").read_text()
    data = json.loads(text[text.index("{"):text.rindex("}") + 1])
    assert data["diagrams"]["a"]["img"] == "a.webp" and data["diagrams"]["b"]["img"] == "b.png"
    assert '"img/" + (d.img' in index.read_text()


@needs_chromium
def test_the_detail_view_draws_the_graph_over_the_render_with_type_evidence_and_twins(
        tmp_path):
    """The structure graph is laid over the render (a box per node, a line per edge, its
    label on it), the type shows the evidence that decided it, a twin shows its render."""
    import pandas as pd
    from playwright.sync_api import sync_playwright

    from diagramforge.cards.publish.gallery import write_gallery
    from diagramforge.formats.mxgraph.engine import CHROMIUM_ARGS
    from tests.cards.publish.test_overlay import GRAPH, render

    png = render(GRAPH, 150 / 96, 23, 17)  # draw.io units (px) at 150 dpi
    df = pd.DataFrame([{"id": "d1", "format": "mxgraph", "code": "<mxGraphModel/>",
                        "image": png, "graph": GRAPH.to_json(), "diagram_type": "flowchart",
                        "diagram_type_source": "code",
                        "diagram_type_evidence": "draw.io shapes: rhombus, process"},
                       {"id": "d2", "format": "mxgraph", "code": "<x/>", "image": png}])
    twins = pd.DataFrame([{"id": "t1", "diagram_id": "d1", "pair": "mxgraph->dot",
                           "method": "graph-to-dot", "target_code": "digraph {}",
                           "target_image": png}])
    index = write_gallery(df, {"translation": twins}, tmp_path, "t", dpi=150)
    errors = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                     headless=True)
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(index.as_uri())
        page.click("#grid .card[data-id=d1]")
        assert page.locator("#d-graph rect").count() == 3
        assert page.locator("#d-graph line").count() == 2  # the free-ended edge is not drawn
        assert page.locator("#d-graph text").all_text_contents() == ["next"]
        assert page.locator("#d-graph rect title").all_text_contents() == ["Load", "Train",
                                                                            "Test"]
        assert "3 nodes, 2 edges" in page.locator("#d-graph-count").inner_text()
        kind = page.locator("#d-type").inner_text()
        assert "flowchart" in kind and "code" in kind and "rhombus, process" in kind
        twin = page.locator("#d-tasks .task img")
        assert twin.count() == 1 and twin.evaluate("e => e.naturalWidth") > 0
        page.screenshot(path=str(tmp_path / "detail.png"), full_page=True)
        page.uncheck("#d-show-graph")
        assert not page.locator("#d-graph").is_visible()
        page.click("#close")
        page.click("#grid .card[data-id=d2]")  # no graph: nothing drawn, said so
        assert page.locator("#d-graph").count() == 0
        assert "none" in page.locator("#d-graph-count").inner_text()
        browser.close()
    assert errors == []


@pytest.mark.parametrize(("workers", "referenced"), [(1, False), (2, False), (2, True)])
def test_publish_encodes_each_stored_png_once_as_the_stage_would_have(
        tmp_path, workers, referenced, with_fake_stage):  # noqa: F811
    """``encode_at: publish``: the stages keep PNGs (the diagram's render, a task's source
    image), and publish writes the bytes ``encode_at: stage`` stores and publishes as they
    are — the same Parquet images and the same manifest (a source image left out as a
    reference to its render digested as that render was published), on any number of
    threads; lossless: the PNG's pixels."""
    import glob
    import io
    import json

    import numpy as np
    import pyarrow.parquet as pq
    from PIL import Image

    from diagramforge.formats.encoding import codec_image, kind

    def published(params, store) -> tuple[dict[str, bytes], dict]:  # noqa: ANN001
        split = [{**r, "image": store(r["image"])} for r in rows(["MIT"] * 4)]
        render = split[0]["image"]  # every diagram of rows() has the same picture
        tasks = task_rows()
        for t in tasks:
            if t["source_image"]:  # the diagram's render: left out, a reference
                t["source_image"] = render if referenced else store(t["source_image"])
        seed_stage(params, "split", split)
        seed_stage(params, "fakesynth", tasks, schema=QA_SCHEMA)
        run_named("validate", params)
        run_named("publish", params)
        root = Path(params.publish.out_dir) / params.publish.name
        got = {}
        for f in sorted(glob.glob(str(root / "generation" / "*" / "*.parquet"))
                        + glob.glob(str(root / "qa" / "*.parquet"))):
            for r in pq.read_table(f).to_pylist():
                for col in ("image", "source_image"):
                    if isinstance(r.get(col), dict) and r[col].get("bytes"):
                        got[f"{r['id']}/{col}"] = r[col]["bytes"]
        return got, json.loads((root / "manifest.json").read_text())

    later = make_params(tmp_path / "later", **FIXED, runner={"workers": workers})
    now = make_params(tmp_path / "now", **FIXED, render={"raster": {"encode_at": "stage"}})
    raster = later.render.raster
    assert raster.encode_at == "publish" and kind(rows(["MIT"])[0]["image"]) == "png"
    (a, manifest_a), (b, manifest_b) = published(later, lambda x: x), \
        published(now, lambda x: codec_image(x, raster))
    assert a and a == b and manifest_a == manifest_b
    assert any(k.endswith("/source_image") for k in a) != referenced
    png = {r["id"]: r["image"] for r in rows(["MIT"] * 4)}
    for key, data in a.items():
        assert kind(data) == "webp"
        if key.endswith("/image"):  # lossless: the stored PNG's pixels
            pix = [np.asarray(Image.open(io.BytesIO(x)).convert("RGBA"))
                   for x in (data, png[key.split("/")[0]])]
            assert np.array_equal(*pix)


def test_equal_stored_images_are_encoded_once_on_any_thread_count():
    """A diagram's render repeated in each of its rows (``qa``'s ``source_image``) is
    encoded once; every copy gets the codec's bytes, in row order, on 1 or 2 threads, and
    a stage's own raster (augment's effort) is a separate entry."""
    from diagramforge.cards.publish.encode import ImageEncoder
    from diagramforge.formats.encoding import codec_image, kind
    from diagramforge.formats.settings import RasterParams
    from tests.cards.validate.test_tasks import other_png

    raster = RasterParams()
    a, b = rows(["MIT"])[0]["image"], other_png()
    for workers in (1, 2):
        enc = ImageEncoder(raster, workers,
                           {"augment": raster.model_copy(update={"webp_effort": 0})})
        batch = [{"source_image": x} for x in (a, b, a, a, None, b)]
        enc.encode(batch, ["source_image"])
        enc.encode(more := [{"image": a}], ["image"])  # a later call: from the cache
        enc.encode(own := [{"image": a}], ["image"], "augment")
        enc.close()
        assert [r["source_image"] for r in batch] == [
            codec_image(x, raster) if x else None for x in (a, b, a, a, None, b)]
        assert more[0]["image"] == batch[0]["source_image"] and kind(own[0]["image"]) == "webp"
        assert own[0]["image"] == codec_image(a, raster.model_copy(update={"webp_effort": 0}))
        assert (enc.encoded, enc.reused) == (3, 4)


def test_a_rerun_of_publish_reads_the_kept_encodings(tmp_path, monkeypatch):
    """``publish.image_cache_dir``: a second run encodes nothing it encoded before and gets
    the same bytes; other settings (augment's effort) are other entries."""
    from diagramforge.cards.publish import encode
    from diagramforge.formats.settings import RasterParams
    from tests.cards.validate.test_tasks import other_png

    calls: list[bytes] = []
    real = encode.published_image
    monkeypatch.setattr(encode, "published_image",
                        lambda data, raster: calls.append(data) or real(data, raster))
    raster = RasterParams()
    a, b = rows(["MIT"])[0]["image"], other_png()
    outs = []
    for _ in range(2):
        enc = encode.ImageEncoder(raster, 2, cache_dir=tmp_path / "images")
        batch = [{"image": a}, {"image": b}]
        enc.encode(batch, ["image"])
        enc.close()
        outs.append(batch)
    assert outs[0] == outs[1] and len(calls) == 2  # the second run: all from the cache
    enc = encode.ImageEncoder(raster.model_copy(update={"webp_effort": 0}), 1,
                              cache_dir=tmp_path / "images")
    enc.encode([{"image": a}], ["image"])
    assert len(calls) == 3


def test_a_batch_larger_than_the_kept_bytes_still_reuses_what_it_saw(monkeypatch):
    """An image kept from an earlier call and needed again in a batch whose new encodings
    push it out is still given to every row that repeats it."""
    from diagramforge.cards.publish import encode
    from diagramforge.formats.encoding import codec_image
    from diagramforge.formats.settings import RasterParams
    from tests.cards.validate.test_tasks import other_png

    monkeypatch.setattr(encode, "CACHE_BYTES", 1)  # holds one image at a time
    raster = RasterParams()
    a, b = rows(["MIT"])[0]["image"], other_png()
    enc = encode.ImageEncoder(raster)
    enc.encode([{"image": a}], ["image"])
    batch = [{"image": b}, {"image": a}]  # b's encoding pushes a's out before a's row
    enc.encode(batch, ["image"])
    assert [r["image"] for r in batch] == [codec_image(b, raster), codec_image(a, raster)]
