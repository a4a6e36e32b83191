"""validate streams: shard by shard it reports what one whole-table GX run reports, and
catches what crosses shards (a duplicate id, a group in two splits) or sits in the last one."""

import json

import pytest

from diagramforge.cards.validate import stage as validate
from diagramforge.cards.validate.stage import ValidationFailed
from diagramforge.runner import run_named
from diagramforge.store.paths import stage_paths
from diagramforge.store.shards import ShardSet
from tests.cards.validate.test_tasks import QA_SCHEMA, task_rows, with_fake_stage  # noqa: F401
from tests.cards.validate.test_validate import good_rows
from tests.conftest import make_params, seed_stage

SHARD = 3


def boom(self, columns=None):  # noqa: ANN001, ANN202
    raise AssertionError(f"read_all of {self.dir} while validating")


def run(tmp_path, rows, shard_size, streamed=True, items=None, batch=1, **sections):
    """Validate ``rows`` written in shards of ``shard_size`` (``streamed``: with no shard
    set readable whole), a GX batch every ``batch`` rows; (error or None, report)."""
    params = make_params(tmp_path, runner={"shard_size": shard_size}, **sections)
    seed_stage(params, "split", rows)
    if items is not None:
        seed_stage(params, "fakesynth", items, schema=QA_SCHEMA)
    err = None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(validate, "BATCH_ROWS", batch)
        if streamed:
            mp.setattr(ShardSet, "read_all", boom)
        try:
            run_named("validate", params)
        except ValidationFailed as e:
            err = e
    report = json.loads((stage_paths(params, "validate").root / "report.json").read_text())
    report.pop("meta")  # the batch fingerprint: of the shards' frames, not of one frame
    return err, report


def result(report, type_, column):
    return next(r["result"] for r in report["results"] if "config" not in r
                and r["expectation_config"]["type"] == type_
                and r["expectation_config"]["kwargs"].get("column") == column)


def broken(n=10):
    rows = good_rows(n)
    rows[8]["id"] = "id1"  # the same id in shard 0 and shard 2
    rows[4].update(group="g0", split="test")  # group g0 in train (shard 0) and test (shard 1)
    rows[9]["licence"] = "GPL-3.0-only"  # the last row of the last shard
    return rows


def test_sound_shards_pass_without_reading_the_whole_table(tmp_path):
    err, report = run(tmp_path / "s", good_rows(10), SHARD)
    assert err is None and report["success"]
    assert result(report, "expect_table_row_count_to_be_between", None)["observed_value"] == 10
    assert result(report, "expect_column_values_to_be_unique", "id")["element_count"] == 10


@pytest.mark.parametrize("batch", [1, 4])  # a GX batch per shard, or across shards
@pytest.mark.parametrize("rows", [good_rows(10), broken()], ids=["sound", "broken"])
def test_shards_report_what_the_whole_table_reports(tmp_path, rows, batch):
    _, streamed = run(tmp_path / "s", rows, SHARD, batch=batch)
    _, whole = run(tmp_path / "w", rows, 64, False)
    assert streamed == whole


def test_a_duplicate_id_across_shards_fails(tmp_path):
    rows = good_rows(10)
    rows[8]["id"] = "id1"
    err, report = run(tmp_path, rows, SHARD)
    assert err is not None and "expect_column_values_to_be_unique" in str(err)
    unique = result(report, "expect_column_values_to_be_unique", "id")
    assert unique["unexpected_count"] == 2
    assert unique["partial_unexpected_list"] == ["id1", "id1"]
    assert unique["partial_unexpected_index_list"] == [1, 8]


def test_a_bad_value_in_the_last_shard_fails(tmp_path):
    rows = good_rows(10)
    rows[9]["image"] = b""
    err, report = run(tmp_path, rows, SHARD)
    assert err is not None and not report["success"]
    sizes = result(report, "expect_column_values_to_be_between", "image_bytes")
    assert sizes["unexpected_count"] == 1 and sizes["partial_unexpected_index_list"] == [9]


def test_a_group_straddling_shards_and_splits_fails(tmp_path):
    rows = good_rows(10)
    rows[7].update(group="g0", split="test")
    err, report = run(tmp_path, rows, SHARD)
    assert err is not None and "splits_per_group" in str(err)
    assert result(report, "expect_column_values_to_be_between",
                  "splits_per_group")["partial_unexpected_index_list"] == [0, 7]


def publish_rows():
    from tests.cards.publish.test_publish import rows

    return rows(["MIT", "CC-BY-4.0", "MIT", "MIT"])


def test_task_tables_validate_shard_by_shard(tmp_path, with_fake_stage):  # noqa: F811
    from tests.cards.publish.test_publish import FIXED

    items = task_rows()
    _, streamed = run(tmp_path / "s", publish_rows(), 2, True, items, **FIXED)
    _, whole = run(tmp_path / "w", publish_rows(), 64, False, items, **FIXED)
    assert streamed == whole and streamed["configs"] == {"captioning": True, "qa": True}

    items[-1]["id"] = "qa0"  # a captioning item reusing a QA id: other config, still fine
    items[3]["id"] = "qa0"  # a QA id twice, in shards 0 and 1
    err, report = run(tmp_path / "d", publish_rows(), 2, True, items, **FIXED)
    assert err is not None and report["configs"] == {"captioning": True, "qa": False}
    unique = next(r["result"] for r in report["results"] if r.get("config") == "qa"
                  and r["expectation_config"]["type"] == "expect_column_values_to_be_unique")
    assert unique["unexpected_count"] == 2


def test_task_images_are_checked_by_size_without_their_bytes():
    """validate's task pass replaces every ``*image`` column by its sizes in Arrow (PNGs
    never become Python bytes); a null or empty image is size 0, which the checks fail."""
    import pyarrow as pa

    from diagramforge.cards.validate.stage import _sized, task_frame

    t = pa.table({"id": ["a", "b", "c"], "split": ["train"] * 3,
                  "source_image": pa.array([b"\x89PNG....", None, b""], pa.binary()),
                  "code": ["x", "", None]})
    sized = _sized(t)
    assert "source_image" not in sized.column_names
    assert sized.column("source_image_bytes").to_pylist() == [8, 0, 0]
    frame = task_frame(sized.to_pandas(), ["MIT"])
    assert frame["source_image_bytes"].tolist() == [8, 0, 0]
    assert frame["code_chars"].tolist() == [1, 0, 0]
    with pytest.raises(TypeError, match="_sized"):  # one way to size images, not two
        task_frame(t.to_pandas(), ["MIT"])
    text = task_frame(sized.append_column("diagram_type_image", pa.array(["a", "b", "c"]))
                      .to_pandas(), ["MIT"])  # a text column named *image is not an image
    assert "diagram_type_image_bytes" not in text.columns


def test_inherited_columns_are_decided_on_the_whole_task_table(tmp_path):
    """Publish inherits a diagram's licence only for a config none of whose items carries
    one; validate, reading a row group at a time, must decide on the table too, or a group
    whose items have no licence would be checked with their diagrams' while publish writes
    null."""
    import pandas as pd
    import pyarrow as pa

    from diagramforge.cards.validate.tasks import carried_columns, config_part
    from diagramforge.store.shards import ShardWriter
    from tests.cards.validate.test_tasks import FakeSynth

    schema = QA_SCHEMA.append(pa.field("licence", pa.string()))
    items = [dict(r, licence=None) for r in task_rows()]
    items[0]["licence"] = "MIT"  # qa0 carries its own; qa1, qa2, qa3 carry none
    shards = ShardSet(tmp_path / "recs", schema)
    with ShardWriter(shards.path(0), schema, group_bytes=1) as w:  # one row per group
        w.add(items)
        w.commit()
    by_id = pd.DataFrame({"id": ["id0", "id1", "id2", "id3"],
                          "split": ["train", "test", "train", "test"],
                          "licence": ["CC-BY-4.0"] * 4}).set_index("id")
    carried = carried_columns(shards, ["qa", "captioning"], by_id, "fakesynth")
    assert carried == {"qa": {"licence"}, "captioning": set()}
    qa1 = [t.to_pandas() for _, t in shards.iter_groups()][1]
    alone = config_part(qa1, "qa", FakeSynth, by_id, "fakesynth", [])
    whole = config_part(qa1, "qa", FakeSynth, by_id, "fakesynth", [], carried["qa"])
    assert alone["licence"].tolist() == ["CC-BY-4.0"]  # what the group alone would say
    assert whole["licence"].isna().tolist() == [True]  # null: what publish writes
