"""Task configs: a stage declaring ``task_configs`` gets one published config per name, read
back by ``datasets`` with its ``*image`` columns decoded; orphans and leaked items are ledgered."""

from __future__ import annotations

import pyarrow as pa
import pytest
from datasets import load_dataset
from huggingface_hub import DatasetCard

from diagramforge.cards.validate import tasks
from diagramforge.pipeline import stage_classes
from diagramforge.runner import run_named
from diagramforge.stage import TableStage
from diagramforge.store.paths import stage_paths
from tests.cards.publish.test_publish import FIXED, rows
from tests.conftest import make_params, seed_stage

QA_SCHEMA = pa.schema([pa.field("id", pa.string()), pa.field("diagram_id", pa.string()),
                       pa.field("config", pa.string()), pa.field("split", pa.string()),
                       pa.field("question", pa.string()), pa.field("answer", pa.string()),
                       pa.field("options", pa.list_(pa.string())),
                       pa.field("source_image", pa.binary()),
                       pa.field("steps", pa.int64())])


class FakeSynth(TableStage):
    """A task stage as D/E declare theirs (never run here: its table is seeded)."""

    name = "fakesynth"
    upstream = "split"
    output_schema = QA_SCHEMA
    task_configs = ("qa", "captioning", "repair")  # no repair rows are seeded

    def run_table(self, table, log):  # noqa: ANN001, ANN201
        return []


@pytest.fixture
def with_fake_stage(monkeypatch):
    classes = {**stage_classes(), "fakesynth": FakeSynth}
    monkeypatch.setattr(tasks, "_stage_classes", lambda: classes)
    return classes


def other_png() -> bytes:
    """A picture that is not the diagrams' render: the task's own (a column that repeats
    the diagram's render is published as a reference, tests/cards/validate/test_references.py)."""
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (40, 20), "grey").save(buf, "PNG")
    return buf.getvalue()


def task_rows() -> list[dict]:
    # diagrams id0..id3: splits train, test, train, test (tests.cards.publish.test_publish.rows)
    out = []
    for i, (did, split) in enumerate([("id0", "train"), ("id1", "test"), ("id2", "train"),
                                      ("id0", "train")]):
        out.append({"id": f"qa{i}", "diagram_id": did, "config": "qa", "split": split,
                    "question": f"how many boxes in {did}?", "answer": "2",
                    "options": ["1", "2", "3"], "source_image": other_png(),
                    "steps": None if i == 3 else i})
    out.append({"id": "orphan", "diagram_id": "nope", "config": "qa", "split": "train",
                "question": "q", "answer": "a", "options": ["a"], "source_image": None})
    out.append({"id": "leak", "diagram_id": "id1", "config": "qa", "split": "train",
                "question": "q", "answer": "a", "options": ["a"], "source_image": None})
    out.append({"id": "cap0", "diagram_id": "id3", "config": "captioning", "split": "test",
                "question": None, "answer": "a flowchart", "options": None,
                "source_image": other_png()})
    return out


def test_task_stages_are_discovered_from_the_pipeline(with_fake_stage):
    assert tasks.task_stages(with_fake_stage)["fakesynth"] == ("qa", "captioning", "repair")
    assert "data/fakesynth" in tasks.task_inputs()


def test_publish_writes_one_config_per_task_name(tmp_path, with_fake_stage):
    params = make_params(tmp_path, **FIXED)
    seed_stage(params, "split", rows(["MIT", "CC-BY-4.0", "MIT", "MIT"]))
    seed_stage(params, "fakesynth", task_rows(), schema=QA_SCHEMA)
    run_named("validate", params)
    stats = run_named("publish", params)
    out = tmp_path / "published" / params.publish.name

    qa = load_dataset(str(out), "qa")
    assert sorted(qa["train"]["id"]) == ["qa0", "qa2", "qa3"]
    assert qa["test"]["id"] == ["qa1"]
    assert qa["train"][0]["source_image"].size == (40, 20)  # decoded as an Image
    assert qa["train"][0]["options"] == ["1", "2", "3"]
    # the licence comes from the item's diagram
    assert dict(zip(qa["test"]["id"], qa["test"]["licence"], strict=True)) == {"qa1": "CC-BY-4.0"}
    assert qa["test"]["licence_family"] == ["permissive"]  # every published row has it
    cap = load_dataset(str(out), "captioning")
    assert list(cap) == ["test"] and cap["test"]["answer"] == ["a flowchart"]
    # a config publishes the columns it fills; a null stays null (not NaN, not "nan")
    assert "question" not in cap["test"].column_names and "steps" not in cap["test"].column_names
    assert dict(zip(qa["train"]["id"], qa["train"]["steps"], strict=True)) == {
        "qa0": 0, "qa2": 2, "qa3": None}

    assert stats.by_reason == {tasks.TaskReason.ORPHAN: 1, tasks.TaskReason.SPLIT_MISMATCH: 1}
    data = DatasetCard.load(out / "README.md").data.to_dict()
    assert "repair" not in {c["config_name"] for c in data["configs"]}  # empty: left out
    assert "without rows in this version: `repair`" in (out / "README.md").read_text()
    assert "visual-question-answering" in data["task_categories"]
    info = {d["config_name"]: d for d in data["dataset_info"]}
    assert {"name": "source_image", "dtype": "image"} in info["qa"]["features"]
    train = next(s for s in info["qa"]["splits"] if s["name"] == "train")
    assert train["num_examples"] == 3
    assert train["num_bytes"] == (out / "qa" / "train-00000-of-00001.parquet").stat().st_size


def test_a_task_stage_that_did_not_run_leaves_its_configs_out(tmp_path, with_fake_stage):
    params = make_params(tmp_path, **FIXED)
    seed_stage(params, "split", rows(["MIT"] * 2))
    run_named("validate", params)
    run_named("publish", params)
    out = tmp_path / "published" / params.publish.name
    card = (out / "README.md").read_text()
    assert "`fakesynth`" in card
    assert not (out / "qa").exists()


def test_validate_checks_each_task_config(tmp_path, with_fake_stage):
    import json

    from diagramforge.cards.validate.stage import ValidationFailed
    from diagramforge.store.paths import stage_paths

    params = make_params(tmp_path, **FIXED)
    seed_stage(params, "split", rows(["MIT", "CC-BY-4.0", "MIT", "MIT"]))
    items = task_rows()
    seed_stage(params, "fakesynth", items, schema=QA_SCHEMA)
    run_named("validate", params)
    report = json.loads((stage_paths(params, "validate").root / "report.json").read_text())
    assert report["configs"] == {"captioning": True, "qa": True}

    items[0]["answer"] = "7"  # not among ["1", "2", "3"]
    items[2]["source_image"] = b""  # an empty image where the config has images
    seed_stage(params, "fakesynth", items, schema=QA_SCHEMA)
    with pytest.raises(ValidationFailed, match="answer_in_options") as exc:
        run_named("validate", params)
    assert "source_image_bytes" in str(exc.value)
    report = json.loads((stage_paths(params, "validate").root / "report.json").read_text())
    assert report["configs"]["qa"] is False and not report["success"]


def test_task_suite_checks_only_the_columns_a_config_fills():
    import great_expectations as gx
    import pandas as pd

    from diagramforge.cards.validate.stage import _sized, build_task_suite, task_frame

    def columns(config, df):
        images = {c: pa.binary() for c in df.columns if c.endswith("image")}
        table = pa.Table.from_pandas(df, schema=pa.schema(
            [pa.field(c, images.get(c, pa.string())) for c in df.columns]))
        suite = build_task_suite(gx, config, task_frame(_sized(table).to_pandas(), ["MIT"]))
        return {e.column for e in suite.expectations if hasattr(e, "column")}

    df = pd.DataFrame({"id": ["a", "b"], "split": ["train", "test"], "licence": ["MIT"] * 2,
                       "code": ["x", "y"], "target_code": [None, None],
                       "target_image": [None, None], "source_image": [b"png", b"png"]})
    cap = columns("captioning", df)  # one table, several configs: not captioning's columns
    assert {"code_chars", "source_image_bytes"} <= cap
    assert not {"target_code_chars", "target_image_bytes"} & cap
    assert {"target_code_chars", "target_image_bytes"} <= columns("editing", df)


FIX_SCHEMA = pa.schema([pa.field("id", pa.string()), pa.field("diagram_id", pa.string()),
                        pa.field("config", pa.string()), pa.field("split", pa.string()),
                        pa.field("code", pa.string()), pa.field("licence", pa.string()),
                        pa.field("attribution", pa.string())])


class FakeRepair(TableStage):
    """Items that are diagrams of their own (their original never rendered)."""

    name = "fakerepair"
    upstream = "split"
    output_schema = FIX_SCHEMA
    task_configs = ("fixes",)
    items_stand_alone = True

    def run_table(self, table, log):  # noqa: ANN001, ANN201
        return []


def test_items_that_stand_alone_are_published_without_a_published_diagram(tmp_path,
                                                                          monkeypatch):
    classes = {**stage_classes(), "fakerepair": FakeRepair}
    monkeypatch.setattr(tasks, "_stage_classes", lambda: classes)
    params = make_params(tmp_path, **FIXED)
    seed_stage(params, "split", rows(["MIT"] * 2))
    seed_stage(params, "fakerepair", [
        {"id": "fix0", "diagram_id": "never-rendered", "config": "fixes", "split": "test",
         "code": "\\draw (0,0) -- (1,1);", "licence": "CC-BY-4.0", "attribution": "A. Author"}],
        schema=FIX_SCHEMA)
    run_named("validate", params)
    stats = run_named("publish", params)
    assert not stats.by_reason  # not an orphan
    fixes = load_dataset(str(tmp_path / "published" / params.publish.name), "fixes")
    assert fixes["test"]["licence"] == ["CC-BY-4.0"]
    assert fixes["test"]["licence_family"] == ["permissive"]
    assert fixes["test"]["attribution"] == ["A. Author"]


def test_task_tables_are_read_shard_by_shard(tmp_path, with_fake_stage, monkeypatch):
    """Task tables in shards of 2 rows (and the split table in shards of 1), with
    ``ShardSet.read_all`` forbidden during publish: the same files, bytes and ledger as from
    one shard each; a per-file cap of 1 row gives one file per qa row. A task shard written
    in one-row groups (as a mapped stage's driver writes a large shard) is read a row group
    at a time by validate and publish — never whole — with the same result."""
    import pyarrow.parquet as pq

    from diagramforge.store.shards import ShardSet, ShardWriter

    def refuse(self, columns=None):  # noqa: ANN001, ANN202
        if columns is None or "image" in columns or "source_image" in columns:
            raise AssertionError("publish read a whole table")
        return real_read_all(self, columns)

    def whole_task_shard(self, columns=None):  # noqa: ANN001, ANN202
        if "fakesynth" in str(self.dir):
            raise AssertionError("a whole task shard was read")
        return real_iter_tables(self, columns)

    real_read_all, real_iter_tables = ShardSet.read_all, ShardSet.iter_tables
    outs, ledgers = {}, {}
    for name, size, cap in (("one", None, 1_000_000), ("many", 2, 1_000_000), ("cap", 2, 1),
                            ("groups", None, 1_000_000)):
        params = make_params(tmp_path / name, **FIXED, publish={"max_file_rows": cap})
        seed_stage(params, "split", rows(["MIT", "CC-BY-4.0", "MIT", "MIT"]),
                   shard_size=size and 1)
        seed_stage(params, "fakesynth", task_rows(), schema=QA_SCHEMA, shard_size=size)
        with monkeypatch.context() as m:
            if name == "groups":
                shard = ShardSet(stage_paths(params, "fakesynth").records, QA_SCHEMA)
                with ShardWriter(shard.path(0), QA_SCHEMA, group_bytes=1) as w:
                    w.add(task_rows())
                    w.commit()
                assert pq.ParquetFile(shard.path(0)).metadata.num_row_groups == 7
                m.setattr(ShardSet, "iter_tables", whole_task_shard)
            run_named("validate", params)
            if size:
                m.setattr(ShardSet, "read_all", refuse)
            stats = run_named("publish", params)
        ledgers[name] = stats.by_reason
        root = tmp_path / name / "published" / params.publish.name
        outs[name] = {p.relative_to(root).as_posix(): p.read_bytes()
                      for p in sorted(root.rglob("*")) if p.is_file()}
    assert outs["many"] == outs["one"] == outs["groups"]
    assert ledgers["many"] == ledgers["one"] == ledgers["groups"] == {
        tasks.TaskReason.ORPHAN: 1, tasks.TaskReason.SPLIT_MISMATCH: 1}
    qa_files = sorted(p for p in outs["cap"] if p.startswith("qa/"))
    assert qa_files == ["qa/test-00000-of-00001.parquet"] + [
        f"qa/train-0000{k}-of-00003.parquet" for k in range(3)]
    qa = load_dataset(str(tmp_path / "cap" / "published" / "diagramforge-samples"), "qa",
                      split="train")
    assert sorted(qa["id"]) == ["qa0", "qa2", "qa3"]
