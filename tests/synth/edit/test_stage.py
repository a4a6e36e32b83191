"""The edit stage on real renders: pairs kept only when verified and visibly different;
every failure ledgered with the operation that broke; the edit table's contract columns."""

from __future__ import annotations

import json

from diagramforge.formats.encoding import kind
from diagramforge.formats.registry import instantiate
from diagramforge.formats.svg import edit as svg_edits
from diagramforge.store.records import empty_record, make_id
from diagramforge.synth.edit.pixels import changed_pixels
from diagramforge.synth.edit.sampler import replay
from diagramforge.synth.edit.stage import EDIT_SCHEMA, EditStage
from diagramforge.synth.referents.naming import scenes, unresolved
from tests.conftest import make_params, needs_tex
from tests.synth.conftest import SVG_RICH, TIKZ_RICH

CONTRACT = {"id", "diagram_id", "format", "split", "config", "source_code", "source_image",
            "target_code", "target_image", "operations", "difficulty", "source_graph",
            "target_graph", "instruction"}


def _rendered(params, fmt: str, code: str) -> dict:  # noqa: ANN001
    row = empty_record(id=make_id(fmt, code), format=fmt, code=code, split="train",
                       source_id=f"test:{fmt}")
    handler = instantiate(params, lambda r: r["source_id"])[fmt]
    out = handler.render([row])
    assert out.records, out.rejections
    rec = out.records[0]
    if not rec.get("graph"):  # as the render stage fills it
        rec["graph"] = handler.to_graph(rec).to_json()
    return {**rec, "diagram_type": "flowchart"}


def test_svg_pairs_are_verified_and_differ(params):
    stage = EditStage(params)
    row = _rendered(params, "svg", SVG_RICH)
    out = stage.process(stage.units([row])[0])
    assert set(EDIT_SCHEMA.names) >= CONTRACT
    want = sum(getattr(params.edit, t).per_diagram for t in ("easy", "medium", "hard"))
    assert len(out.records) + len(out.rejections) >= 1
    assert len(out.records) == want, [r.detail for r in out.rejections]
    for rec in out.records:
        assert set(rec) == set(EDIT_SCHEMA.names)
        ops = json.loads(rec["operations"])
        lo = getattr(params.edit, rec["difficulty"]).min_ops
        hi = getattr(params.edit, rec["difficulty"]).max_ops
        assert lo <= len(ops) <= hi
        assert rec["config"] == "editing" and rec["split"] == "train"
        assert changed_pixels(rec["source_image"], rec["target_image"]) > 0
        assert kind(rec["target_image"]) == "png"  # the engine's, encoded by publish
        assert rec["instruction"].count("; then ") == len(ops) - 1
        # every element an operation acts on is named, and the instruction singles it out
        assert all(o["refs"] or o["op"] == "add_node" for o in ops)
        for o in ops:
            for r in o["refs"].values():
                assert r["text"] in rec["instruction"] and "unlabelled" not in r["text"]
        states = replay("svg", rec["source_code"], ops)
        assert unresolved(rec["instruction"], ops, states, scenes("svg", states)) == []
    # seeded: the same diagram gives the same pairs
    again = stage.process(stage.units([row])[0])
    assert [r["id"] for r in again.records] == [r["id"] for r in out.records]


def test_only_kept_targets_are_encoded(tmp_path, monkeypatch):
    """Targets are compared with the source as pixels in memory; only a kept target is
    encoded as it is stored (issue 53): none when no target changes enough pixels."""
    from diagramforge.formats.encoding import stored_image
    from diagramforge.synth.edit import stage as edit_stage

    calls: list[int] = []

    def counted(image, raster):  # noqa: ANN001, ANN202
        calls.append(1)
        return stored_image(image, raster)

    monkeypatch.setattr(edit_stage, "stored_image", counted)
    for need, kept in ((1, True), (10**9, False)):
        calls.clear()
        params = make_params(tmp_path / str(need), edit={"min_changed_pixels": need})
        stage = EditStage(params)
        out = stage.process(stage.units([_rendered(params, "svg", SVG_RICH)])[0])
        assert bool(out.records) is kept and len(calls) == len(out.records)
        unchanged = [r for r in out.rejections if r.reason == "edit_render_unchanged"]
        assert kept or len(unchanged) == sum(getattr(params.edit, t).per_diagram
                                             for t in ("easy", "medium", "hard"))


def test_a_broken_edit_is_ledgered_with_its_operation(params, monkeypatch):
    real = svg_edits.apply_edit

    def sloppy(code: str, ed: dict) -> str:
        out = real(code, ed)
        if ed["op"] != "node_colour":  # every other operation also adds a stray label
            out = out.replace("</svg>", '<text x="300" y="190">Oops</text></svg>')
        return out

    monkeypatch.setattr(svg_edits, "apply_edit", sloppy)
    stage = EditStage(params)
    row = _rendered(params, "svg", SVG_RICH)
    out = stage.process(stage.units([row])[0])
    broken = [r for r in out.rejections if r.reason == "edit_graph_mismatch"]
    assert broken and all("Oops" in r.detail and r.unit == "candidate" for r in broken)
    assert not any("op=node_colour" in r.detail for r in broken)
    for rec in out.records:  # only colour-only compositions can survive
        assert {e["op"] for e in json.loads(rec["operations"])} == {"node_colour"}


def test_a_diagram_without_edits_is_rejected_as_input(params):
    stage = EditStage(params)
    row = empty_record(id="x", format="svg", split="train", source_id="t",
                       code='<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>',
                       image=b"")
    out = stage.process(stage.units([row])[0])
    assert out.records == [] and [r.reason for r in out.rejections] == [
        "edit_unsupported_format"]


@needs_tex
def test_tikz_targets_compile_in_one_batch(params):
    stage = EditStage(params)
    row = _rendered(params, "tikz", TIKZ_RICH)
    out = stage.process(stage.units([row])[0])
    assert out.records, [r.detail for r in out.rejections]
    assert all(r["format"] == "tikz" and r["target_code"] != r["source_code"]
               for r in out.records)


def test_changed_pixels_counts(params):
    png = _rendered(params, "svg", SVG_RICH)["image"]
    other = _rendered(params, "svg", SVG_RICH.replace("#dae8fc", "#ff0000"))["image"]
    assert changed_pixels(png, png) == 0
    assert 0 < changed_pixels(png, other) < 100 * 50 * 4  # the one box, at 150 dpi


def test_runner_books_balance_and_table_is_written(params):
    """Through the real runner: every split diagram yields pairs or is ledgered, and the
    edit table is what publish and synth read."""
    import pyarrow.parquet as pq

    from diagramforge.runner import run_stage
    from diagramforge.store.paths import stage_paths
    from tests.conftest import seed_stage

    rows = [_rendered(params, "svg", SVG_RICH),
            {**_rendered(params, "svg", SVG_RICH.replace("Load", "Fetch")), "split": "test"},
            empty_record(id="bare", format="svg", split="train", source_id="t:bare",
                         code='<svg xmlns="http://www.w3.org/2000/svg"/>')]
    seed_stage(params, "split", rows)
    stats = run_stage(EditStage(params))
    assert stats.balance_error() is None
    assert stats.n_in == 3 and stats.inputs_with_output == 2 and stats.rejected_inputs == 1
    table = pq.read_table(sorted(stage_paths(params, "edit").records.glob("*.parquet")))
    assert table.schema.names == EDIT_SCHEMA.names
    assert set(table.column("split").to_pylist()) == {"train", "test"}


def test_a_diagram_editing_does_not_take_gets_no_edits_and_no_rejection(tmp_path):
    """VectorGym's window: an SVG under 2,000 tokens is left out of ``editing`` before any
    edit is composed — counted per config and reason, not ledgered, books balanced."""
    from diagramforge.runner import run_stage
    from diagramforge.store.paths import stage_paths
    from diagramforge.store.shards import ShardSet
    from tests.conftest import make_params, seed_stage

    params = make_params(tmp_path)
    assert params.select["editing"].tokens["svg"].min == 2000  # the default
    small = {**_rendered(params, "svg", SVG_RICH), "tokens": 600, "diagram_type": "flowchart"}
    big = {**_rendered(params, "svg", SVG_RICH.replace("Load", "Fetch")), "tokens": 2500,
           "diagram_type": "flowchart"}
    seed_stage(params, "split", [small, big])
    stats = run_stage(EditStage(params))
    assert stats.balance_error() is None
    assert (stats.n_in, stats.inputs_with_output, stats.not_selected_inputs) == (2, 1, 1)
    assert stats.rejected_inputs == 0
    assert stats.extra["not_selected.editing.tokens_below"] == 1
    table = ShardSet(stage_paths(params, "edit").records, EDIT_SCHEMA).read_all()
    assert set(table.column("diagram_id").to_pylist()) == {big["id"]}


def test_a_picture_that_is_not_a_graph_gets_no_edits_and_no_rejection(params):
    """Edit referents name nodes and edges; of a chart (or an untyped picture) they would
    name its tick labels: such a picture is left out of editing, counted, not ledgered."""
    stage = EditStage(params)
    row = _rendered(params, "svg", SVG_RICH)
    for label in ("bar_chart", None):
        out = stage.process(stage.units([{**row, "diagram_type": label}])[0])
        assert out.records == [] and out.rejections == [] and out.not_selected == 1
        assert out.extra == {"not_selected.editing.not_a_graph": 1}
