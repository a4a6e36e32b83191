"""The augment stage: sketches from the real engines, seeded degradations, LLM variations
(offline backend) kept only when they pass their checks; every dropped candidate ledgered."""

from __future__ import annotations

import io
import json
import random

import numpy as np
from PIL import Image

from diagramforge.formats.encoding import kind, stored_image
from diagramforge.formats.mxgraph.augment import mxgraph_sketch
from diagramforge.formats.picture import Picture
from diagramforge.formats.registry import instantiate
from diagramforge.formats.svg import augment as svg_augment
from diagramforge.formats.svg.augment import svg_sketch
from diagramforge.formats.tikz import augment as tikz_augment
from diagramforge.formats.tikz.augment import tikz_sketch
from diagramforge.store.records import empty_record, make_id
from diagramforge.synth.augment.degrade import degrade, jpeg_quality, paper
from diagramforge.synth.augment.stage import AUGMENT_SCHEMA, AugmentStage
from diagramforge.synth.augment.variation import request
from diagramforge.synth.edit.pixels import changed_pixels
from diagramforge.synth.edit.sampler import FORMATS
from tests.conftest import make_params, needs_browser, needs_tex
from tests.synth.conftest import MX_RICH, SVG_RICH, TIKZ_RICH


def _rendered(params, fmt: str, code: str) -> dict:  # noqa: ANN001
    row = empty_record(id=make_id(fmt, code), format=fmt, code=code, split="test",
                       source_id=f"test:{fmt}")
    h = instantiate(params, lambda r: r["source_id"])[fmt]
    out = h.render([row])
    h.close()
    assert out.records, out.rejections
    return out.records[0]


def _params(tmp_path):  # noqa: ANN001, ANN202
    return make_params(tmp_path, augment={"llm": {"cache_dir": str(tmp_path / "llm")}})


def test_svg_augmentations_and_their_contract(tmp_path):
    params = _params(tmp_path)
    stage = AugmentStage(params)
    row = _rendered(params, "svg", SVG_RICH)
    out = stage.process(stage.units([row])[0])
    configs = [r["config"] for r in out.records]
    assert configs.count("sketch") == 1 and configs.count("degraded") == 1
    assert 1 <= configs.count("variation") <= params.augment.variation.per_diagram
    for rec in out.records:
        assert set(rec) == set(AUGMENT_SCHEMA.names)
        # renders are the engine's PNG (render.raster.encode_at: publish encodes them); a
        # scan is the one JPEG it was encoded as (never a lossless copy after JPEG)
        assert kind(rec["image"]) == ("jpeg" if rec["config"] == "degraded" else "png")
        assert rec["split"] == "test"
        assert changed_pixels(rec["image"], row["image"]) > 0
    sketch = next(r for r in out.records if r["config"] == "sketch")
    assert sketch["code"] == SVG_RICH and sketch["render_code"] != SVG_RICH
    for var in (r for r in out.records if r["config"] == "variation"):
        assert var["backend"] == "offline" and var["code"] != SVG_RICH
        assert sorted(n.text for n in FORMATS["svg"].graph(var["code"]).nodes) == \
            ["Eval", "Load", "Train"]
    # every candidate is a record or a ledgered rejection, and a rerun is byte-identical
    again = stage.process(stage.units([row])[0])
    assert [(r["id"], r["image"]) for r in again.records] == \
        [(r["id"], r["image"]) for r in out.records]


def test_a_surplus_variation_never_reaches_the_engine(tmp_path, monkeypatch):
    """With one variation to keep, the first that passes is kept and the next is ledgered
    as surplus without being drawn (issue 53); a near-duplicate first one makes the engine
    draw the next, and the records are those of drawing all at once."""
    from diagramforge.formats.registry import DiagramFormat

    drawn: list[str] = []
    real = DiagramFormat.draw

    def counted(self, rows, finish=None):  # noqa: ANN001, ANN202
        drawn.extend(r["source_id"].rsplit("#", 1)[-1] for r in rows)
        return real(self, rows, finish)

    monkeypatch.setattr(DiagramFormat, "draw", counted)
    params = make_params(tmp_path, augment={"llm": {"cache_dir": str(tmp_path / "llm")},
                                            "variation": {"per_diagram": 1}})
    stage = AugmentStage(params)
    row = _rendered(params, "svg", SVG_RICH)
    out = stage.process(stage.units([row])[0])
    variations = [r for r in out.records if r["config"] == "variation"]
    surplus = [r for r in out.rejections if r.reason == "augment_variation_surplus"]
    assert len(variations) == 1 and len(surplus) == 1
    kept_kind = json.loads(variations[0]["transform"])["kind"]
    assert sorted(drawn) == ["sketch", f"variation-{kept_kind}"]
    assert surplus[0].locator.rsplit("#", 1)[-1] not in drawn
    # the first variation a near-duplicate: the second is drawn in a second call
    drawn.clear()
    near = make_params(tmp_path / "near", augment={
        "llm": {"cache_dir": str(tmp_path / "llm")},
        "variation": {"per_diagram": 1, "min_image_change": 0.99}})
    stage = AugmentStage(near)
    out = stage.process(stage.units([row])[0])
    assert [r.reason for r in out.rejections].count("augment_variation_near_duplicate") == 2
    assert len([d for d in drawn if d.startswith("variation")]) == 2


def test_variation_that_drops_a_label_is_ledgered(tmp_path, monkeypatch):
    real = svg_augment.variation
    monkeypatch.setattr(svg_augment, "variation", lambda code, kind, rng: real(
        code, kind, rng).replace(">Eval<", "><"))
    params = _params(tmp_path)
    stage = AugmentStage(params)
    out = stage.process(stage.units([_rendered(params, "svg", SVG_RICH)])[0])
    assert not [r for r in out.records if r["config"] == "variation"]
    reasons = {r.reason for r in out.rejections}
    assert reasons == {"augment_variation_texts_changed"}
    assert all(r.unit == "candidate" for r in out.rejections)


def test_variation_request_carries_the_rule_answer():
    """A TikZ picture with no colours: the colour rule leaves it as it is (the stage then
    drops it as a near-duplicate, see test_tikz_sketch_and_near_duplicates)."""
    code = TIKZ_RICH
    rng = random.Random(0)
    assert tikz_augment.variation(code, "colour", rng) == code  # no xcolor names, no RGB
    req = request(code, tikz_augment, "colour", random.Random(0), "v1")
    assert req.context["code"] == code and "Keep every node" in req.user


def test_sketch_code_per_format():
    mx = mxgraph_sketch(MX_RICH, "sketch=1;jiggle=2;")
    assert mx.count("sketch=1") == 7  # four vertices, three edges
    assert FORMATS["mxgraph"].graph(mx).model_dump() == FORMATS["mxgraph"].graph(
        MX_RICH).model_dump()
    tk = tikz_sketch(TIKZ_RICH, 7, 5, 0.7, r"\fontfamily{pzc}\selectfont")
    assert "random steps" in tk and "\\pgfmathsetseed{7}" in tk
    assert tk.index("random steps") < tk.index("\\begin{document}")
    a, b = svg_sketch(SVG_RICH, 1, 1.0, 8, True), svg_sketch(SVG_RICH, 1, 1.0, 8, True)
    assert a == b != svg_sketch(SVG_RICH, 2, 1.0, 8, True)  # seeded
    assert "<rect" not in a and "<line" not in a and a.count("<text") == 3


def test_degrade_is_seeded_and_scan_like(params):
    png = _rendered(params, "svg", SVG_RICH)["image"]
    cfg = params.augment.degrade
    a, b, c = degrade(png, cfg, 1), degrade(png, cfg, 1), degrade(png, cfg, 2)
    assert a == b != c
    # one JPEG, at the quality the seed draws from the configured range: its tables are
    # what libjpeg writes at that quality (Pillow's encoder is the reference)
    q = jpeg_quality(cfg, 1)
    assert cfg.jpeg_quality[0] <= q <= cfg.jpeg_quality[1] and kind(a) == "jpeg"
    ref = io.BytesIO()
    Image.new("RGB", (8, 8)).save(ref, "JPEG", quality=q)
    assert Image.open(io.BytesIO(a)).quantization == Image.open(ref).quantization
    img = np.asarray(Image.open(io.BytesIO(a)).convert("L"), dtype=np.float32)
    clean = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=np.float32)
    # noise and paper: no longer a flat white background, but still mostly light
    assert (clean == 255).mean() > 0.5 and (img == 255).mean() < 0.05
    assert img.mean() > 180



def test_paper_texture_is_its_formula_bit_for_bit():
    # computed in place for speed: the same float32 values as the formula it documents,
    # or every stored scan would change bytes
    for shape, strength in (((130, 257), 0.08), ((64, 64), 1.0), ((3, 700), 0.3)):
        rng = np.random.default_rng(5)
        h, w = shape
        coarse = rng.normal(0, 1, (max(2, h // 64), max(2, w // 64))).astype(np.float32)
        big = np.asarray(Image.fromarray(coarse).resize((w, h), Image.BICUBIC))
        grain = rng.normal(0, 0.3, (h, w)).astype(np.float32)
        want = 1.0 - strength * (0.5 + 0.5 * np.tanh(big)) * 0.6 \
            - strength * 0.2 * np.abs(grain)
        got = paper(shape, strength, np.random.default_rng(5))
        assert got.dtype == want.dtype == np.float32
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_augment_effort_changes_bytes_not_pixels(tmp_path):
    # sketches and variations at augment.webp_effort; null: the renders' own effort (here
    # encoded as the stage stores them; with encode_at publish, publish applies it)
    at_stage = {"raster": {"encode_at": "stage"}}
    own = make_params(tmp_path / "a", augment={"llm": {"cache_dir": str(tmp_path / "llm")},
                                               "webp_effort": 0}, render=at_stage)
    same = make_params(tmp_path / "b", augment={"llm": {"cache_dir": str(tmp_path / "llm")},
                                                "webp_effort": None}, render=at_stage)
    row = _rendered(own, "svg", SVG_RICH)
    outs = []
    for params in (own, same):
        stage = AugmentStage(params)
        outs.append({r["id"]: r for r in stage.process(stage.units([row])[0]).records})
    assert outs[0].keys() == outs[1].keys()
    raster = own.render.raster
    for rid, a in outs[0].items():
        b = outs[1][rid]
        if a["config"] == "degraded":
            assert a["image"] == b["image"]
            continue
        pixels = np.asarray(Image.open(io.BytesIO(a["image"])).convert("RGBA"))
        assert np.array_equal(pixels, np.asarray(Image.open(io.BytesIO(b["image"]))
                                                 .convert("RGBA")))
        assert b["image"] == stored_image(Picture.of_pixels(pixels), raster)
        assert a["image"] == stored_image(Picture.of_pixels(pixels),
                                          raster.model_copy(update={"webp_effort": 0}))
        assert a["image"] != b["image"]

@needs_tex
def test_tikz_sketch_and_near_duplicates(tmp_path):
    params = make_params(tmp_path, augment={"llm": {"cache_dir": str(tmp_path / "llm")},
                                            "variation": {"per_diagram": 3}})
    stage = AugmentStage(params)
    out = stage.process(stage.units([_rendered(params, "tikz", TIKZ_RICH)])[0])
    sk = [r for r in out.records if r["config"] == "sketch"]
    assert sk and sk[0]["kind"] == "tikz-random-steps", [x.detail for x in out.rejections]
    assert json.loads(sk[0]["transform"])["seed"] > 0
    assert {r["kind"] for r in out.records if r["config"] == "variation"} == {"style", "layout"}
    assert [r.reason for r in out.rejections] == ["augment_variation_near_duplicate"]


@needs_browser
def test_drawio_sketch_renders_differently(tmp_path):
    params = _params(tmp_path)
    clean = _rendered(params, "mxgraph", MX_RICH)["image"]
    sketch = _rendered(params, "mxgraph", mxgraph_sketch(MX_RICH, params.augment.sketch
                                                         .mxgraph_style))["image"]
    assert changed_pixels(clean, sketch) > 1000


def test_sketches_only_for_the_kinds_the_sketch_config_keeps(tmp_path):
    """SKETikZ's keep list: a plot gets its degradation and variations but no sketch is
    drawn for it; a diagram no config takes gets nothing and is counted, not ledgered."""
    params = make_params(tmp_path, augment={"llm": {"cache_dir": str(tmp_path / "llm")}},
                         select={"degraded": {"types": ["tree", "line_chart"]},
                                 "variation": {"types": ["tree", "line_chart"]}})
    stage = AugmentStage(params)
    row = _rendered(params, "svg", SVG_RICH)
    plot = {**row, "diagram_type": "line_chart", "tokens": 3000}
    out = stage.process(stage.units([plot])[0])
    configs = {r["config"] for r in out.records}
    assert "sketch" not in configs and "degraded" in configs and "variation" in configs
    assert out.extra["not_selected.sketch.type"] == 1 and out.not_selected == 0
    tree = {**row, "diagram_type": "tree", "tokens": 3000}
    assert "sketch" in {r["config"] for r in stage.process(stage.units([tree])[0]).records}
    photo = {**row, "diagram_type": "natural_image", "tokens": 3000}
    none = stage.process(stage.units([photo])[0])
    assert not none.records and not none.rejections and none.not_selected == 1


def test_augment_driver_and_degradations_load_neither_torch_nor_pandas():
    """What augment's driver does before it forks its workers (the environment record, the
    ``select`` names check) and what a worker does for a scan (albumentations) must not pull
    in torch or pandas: the driver's modules are copied into every worker, and the two
    weighed ≈ 240 MB RSS per process (albumentations imports its PyTorch subpackage whenever
    torch is installed; the configs check imported every stage module, publish's among
    them). Run in a fresh interpreter: this one has both from other tests."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[3]
    script = """
import io, sys
from PIL import Image
from diagramforge.config import load_params
from diagramforge.synth.augment.degrade import degrade
from diagramforge.synth.augment.stage import AugmentStage
from diagramforge.selection import known_configs
p = load_params('params.yaml')
assert 'sketch' in known_configs() and 'captioning' in known_configs()
AugmentStage(p).environment()
buf = io.BytesIO(); Image.new('RGB', (64, 48), 'white').save(buf, 'PNG')
assert degrade(buf.getvalue(), p.augment.degrade, 1)
print(sorted({'torch', 'pandas'} & set(sys.modules)))
"""
    out = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True,
                         text=True, check=True, env={"PYTHONPATH": str(repo),
                                                     "PATH": "/usr/bin:/bin",
                                                     "NO_ALBUMENTATIONS_UPDATE": "1"})
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr[-2000:]


@needs_tex
def test_tikz_candidates_compile_with_the_files_their_picture_reads(tmp_path):
    """A picture with an image in a node (the file travels in ``meta.assets``, not in the
    code): its sketch and variations compile with it. Given the code alone, every candidate
    failed on the missing file."""
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(buf, "PNG")
    code = TIKZ_RICH.replace("\\usepackage{tikz}", "\\usepackage{tikz}\n\\usepackage{graphicx}")
    code = code.replace("{Serve};", "{Serve};\n  \\node at (6,-2) {\\includegraphics[width=8mm]{"
                        "logo.png}};")
    params = make_params(tmp_path, augment={"llm": {"cache_dir": str(tmp_path / "llm")},
                                            "variation": {"per_diagram": 3}})
    row = empty_record(id=make_id("tikz", code), format="tikz", code=code, split="test",
                       source_id="test:tikz", meta=json.dumps(
                           {"assets": {"logo.png": base64.b64encode(buf.getvalue()).decode()}}))
    h = instantiate(params, lambda r: r["source_id"])["tikz"]
    picture = h.render([row]).records[0]
    h.close()
    stage = AugmentStage(params)
    out = stage.process(stage.units([picture])[0])
    assert {r["config"] for r in out.records} >= {"sketch", "variation"}
    assert not [x for x in out.rejections if "render" in x.reason], out.rejections
