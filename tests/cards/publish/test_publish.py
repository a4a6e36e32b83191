"""Publish and the card on their own (fast): a seeded final table becomes a Hub dataset
directory whose card metadata huggingface_hub accepts; publishing refuses an unvalidated one."""

from __future__ import annotations

import io

import pytest
from huggingface_hub import DatasetCard
from PIL import Image

from diagramforge.runner import run_named
from diagramforge.store.records import empty_record
from tests.conftest import make_params, seed_stage

# filters other engineers add may need models or columns these fixtures do not have
FIXED = {"filter": {"order": ["licence", "tokens"]}}


def png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 20), "white").save(buf, "PNG")
    return buf.getvalue()


def rows(licences: list[str]) -> list[dict]:
    fmts = ["tikz", "svg", "mxgraph"]
    return [empty_record(id=f"id{i}", format=fmts[i % 3], code=f"code {i} " * 30, image=png(),
                         licence=lic, group=f"g{i}", split=["train", "test"][i % 2],
                         source_id=f"s{i}", width=40, height=20, tokens=90,
                         attribution=f"author {i}")
            for i, lic in enumerate(licences)]


def build(tmp_path, licences):
    params = make_params(tmp_path, **FIXED)
    seed_stage(params, "split", rows(licences))
    run_named("validate", params)
    run_named("publish", params)
    return params, tmp_path / "published" / params.publish.name


def test_single_licence_card(tmp_path):
    params, out = build(tmp_path, ["MIT"] * 4)
    card = DatasetCard.load(out / "README.md")
    data = card.data.to_dict()
    assert data["license"] == "mit"
    assert {c["config_name"] for c in data["configs"]} == {"generation", "tikz", "svg",
                                                           "mxgraph"}
    assert (out / "generation" / "tikz" / "train-00000-of-00001.parquet").exists()
    assert "MIT" in (out / "LICENSES.md").read_text()
    assert (out / "VERSION").read_text().strip() == params.publish.version


def test_mixed_licences_say_other_and_point_to_the_attribution_file(tmp_path):
    _, out = build(tmp_path, ["MIT", "CC-BY-4.0", "Apache-2.0 AND MIT", "MIT"])
    data = DatasetCard.load(out / "README.md").data.to_dict()
    assert data["license"] == "other" and data["license_link"] == "LICENSES.md"
    assert "Apache-2.0 AND MIT" in (out / "LICENSES.md").read_text()


def test_every_published_row_carries_its_licence_family(tmp_path):
    import glob

    import pyarrow.parquet as pq

    lics = ["MIT", "CC0-1.0", "GPL-3.0-only OR MIT", "CC-BY-SA-4.0 AND GPL-3.0-only",
            "CC-BY-NC-SA-4.0", "CC-BY-ND-4.0"]
    params = make_params(tmp_path, **FIXED,
                         licences={"allow": ["MIT", "CC0-1.0", "CC-BY-SA-4.0", "GPL-3.0-only",
                                             "CC-BY-NC-SA-4.0", "CC-BY-ND-4.0"]})
    seed_stage(params, "split", rows(lics))
    run_named("validate", params)
    run_named("publish", params)
    out = tmp_path / "published" / params.publish.name
    got = {}
    for path in glob.glob(str(out / "generation" / "*" / "*.parquet")):
        t = pq.read_table(path, columns=["licence", "licence_family"]).to_pylist()
        got |= {r["licence"]: r["licence_family"] for r in t}
    assert got == {"MIT": "permissive", "CC0-1.0": "public-domain",
                   "GPL-3.0-only OR MIT": "permissive",
                   "CC-BY-SA-4.0 AND GPL-3.0-only": "copyleft",
                   "CC-BY-NC-SA-4.0": "non-commercial", "CC-BY-ND-4.0": "no-derivatives"}
    card = (out / "README.md").read_text()
    assert "**Non-commercial licences admitted by this build's `licences.allow`:** " \
        "`CC-BY-NC-SA-4.0`" in card
    assert "**No-derivatives licences admitted by this build's `licences.allow`:** " \
        "`CC-BY-ND-4.0`" in card
    assert "| `CC-BY-NC-SA-4.0` | non-commercial | 1 |" in card


def test_publish_refuses_without_a_passed_validation(tmp_path):
    params = make_params(tmp_path, **FIXED)
    seed_stage(params, "split", rows(["MIT"] * 2))
    with pytest.raises(RuntimeError, match="validate"):
        run_named("publish", params)


def test_publish_is_byte_identical_across_runs(tmp_path):
    """Charts, gallery, card, stats and manifest carry no timestamps: a rebuild (or the Dask
    executor) publishes the same bytes, so DVC and the Hub see no spurious change."""
    outs = [build(tmp_path / str(k), ["MIT", "CC-BY-4.0", "MIT"])[1] for k in (1, 2)]
    files = sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*") if p.is_file())
    assert any(str(f).startswith("charts/") for f in files)
    assert any(str(f).startswith("gallery/") for f in files)
    for f in files:
        assert (outs[0] / f).read_bytes() == (outs[1] / f).read_bytes(), f


def test_card_reports_the_classifier_accuracy_from_its_declared_metrics(tmp_path):
    import json

    from diagramforge.pipeline import stage_classes

    cls = stage_classes().get("classifier-train")
    if cls is None or not getattr(cls, "extra_metrics", ()):
        pytest.skip("no classifier stage declaring its metrics file")
    metrics = tmp_path / "1" / "metrics"
    metrics.mkdir(parents=True)
    (metrics / cls.extra_metrics[0]).write_text(json.dumps(
        {"accuracy": 0.875, "architecture": "tinyvit", "classes": {"plot": {"correct": 3}}}))
    _, out = build(tmp_path / "1", ["MIT"] * 2)
    assert "Diagram-type classifier (tinyvit), held out: accuracy = 0.875." in \
        (out / "README.md").read_text()


def test_generation_takes_its_selection_and_the_card_states_every_config(tmp_path):
    """`select.generation` cuts generation and its per-format views; the card lists each
    config's keep list, windows and what it took, and the metrics count the rest per
    reason — none of it in the rejection ledger."""
    import json

    from datasets import load_dataset

    params = make_params(tmp_path, **FIXED, select={
        "generation": {"types": ["tree", "line_chart"]},
        "sketch": {"types": ["tree"], "tokens": {"svg": {"min": 2000, "max": 8000}}}})
    seeded = rows(["MIT"] * 6)
    for r, kind in zip(seeded, ["tree", "line_chart", "tree", "photo", "tree", "table"],
                       strict=True):
        r["diagram_type"] = kind
    seed_stage(params, "split", seeded)
    run_named("validate", params)
    run_named("publish", params)
    out = tmp_path / "published" / params.publish.name
    ds = load_dataset(str(out), "generation")
    kinds = sorted(k for s in ds.values() for k in s["diagram_type"])
    assert kinds == ["line_chart", "tree", "tree", "tree"]
    card = (out / "README.md").read_text()
    assert "### Selection per config" in card
    assert "| `generation` | tree, line_chart | the pool's | 6 | 4 | type=2 |" in card
    # sketch: three rows are no tree; the svg tree (90 tokens) is below its window
    assert "| `sketch` | tree | svg 2,000–8,000 | 6 | 2 | tokens_below=1, type=3 |" in card
    metrics = json.loads((tmp_path / "metrics" / "publish.json").read_text())
    assert metrics["extra"]["selected.generation"] == 4
    assert metrics["extra"]["not_selected.generation.type"] == 2
    assert metrics["rejected"] == {}


def _published_files(root) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_publish_streams_its_upstream_and_caps_each_file(tmp_path, monkeypatch):
    """Many small upstream shards, ``ShardSet.read_all`` forbidden during publish, and a
    per-file cap of 2 rows: each config × split is written as several files that
    ``datasets`` reads back (also streaming) as the same rows, in the same order."""
    from datasets import load_dataset

    from diagramforge.store.shards import ShardSet

    table = rows(["MIT"] * 13)
    whole = make_params(tmp_path / "whole", **FIXED)
    seed_stage(whole, "split", table)
    run_named("validate", whole)
    run_named("publish", whole)
    reference = _published_files(tmp_path / "whole" / "published" / whole.publish.name)

    def refuse(self, columns=None):  # noqa: ANN001, ANN202
        if columns is None or "image" in columns or "code" in columns:
            raise AssertionError("publish read a whole table")
        return real_read_all(self, columns)

    real_read_all = ShardSet.read_all
    for cap, name in ((1_000_000, "same"), (2, "capped")):
        params = make_params(tmp_path / name, **FIXED, runner={"shard_size": 2},
                             publish={"max_file_rows": cap})
        seed_stage(params, "split", table, shard_size=2)
        run_named("validate", params)
        with monkeypatch.context() as m:
            m.setattr(ShardSet, "read_all", refuse)
            run_named("publish", params)
        out = tmp_path / name / "published" / params.publish.name
        if name == "same":  # shard by shard, uncapped: the bytes of the one-table publish
            assert _published_files(out) == reference
            continue
        files = sorted(p.name for p in (out / "generation" / "tikz").glob("*.parquet"))
        # tikz gets ids 0, 3, 6, 9, 12: train 0, 6, 12 (3 rows → 2 files), test 3, 9
        assert files == ["test-00000-of-00001.parquet", "train-00000-of-00002.parquet",
                         "train-00001-of-00002.parquet"]
        want = {s: [r["id"] for r in table if r["split"] == s] for s in ("train", "test")}
        for streaming in (False, True):
            ds = load_dataset(str(out), "generation", streaming=streaming)
            for split, ids in want.items():
                got = list(ds[split])
                assert sorted(r["id"] for r in got) == sorted(ids)
                by_id = {r["id"]: r for r in got}
                for r in table:
                    if r["split"] == split:
                        assert by_id[r["id"]]["code"] == r["code"]
                        assert by_id[r["id"]]["image"].size == (40, 20)
            tikz = load_dataset(str(out), "tikz", split="train", streaming=streaming)
            assert [r["id"] for r in tikz] == ["id0", "id6", "id12"]
        card = DatasetCard.load(out / "README.md").data.to_dict()
        gen = next(c for c in card["configs"] if c["config_name"] == "generation")
        assert {d["split"]: d["path"] for d in gen["data_files"]} == {
            "train": "generation/*/train-*.parquet", "test": "generation/*/test-*.parquet"}
