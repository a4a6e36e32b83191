"""A diagram's render is published once: a task config whose every ``source_image`` is its
diagram's ``generation`` render leaves the column out (and says where it is); a picture many
rows of one file show is stored once; readers get back exactly what the stage wrote."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datasets import Image as Image_
from datasets import load_dataset
from PIL import Image

from diagramforge.cards.evaluate.inputs import reference_rows
from diagramforge.cards.validate import tasks
from diagramforge.pipeline import stage_classes
from diagramforge.runner import run_named
from diagramforge.stage import TableStage
from diagramforge.store.records import empty_record
from tests.cards.publish.test_publish import FIXED
from tests.conftest import make_params, seed_stage

EDIT_LIKE = pa.schema([pa.field("id", pa.string()), pa.field("diagram_id", pa.string()),
                       pa.field("config", pa.string()), pa.field("split", pa.string()),
                       pa.field("instruction", pa.string()),
                       pa.field("image", pa.binary()),
                       pa.field("source_image", pa.binary()),
                       pa.field("target_image", pa.binary())])


class FakeEdits(TableStage):
    name = "fakeedits"
    upstream = "split"
    output_schema = EDIT_LIKE
    task_configs = ("pairs", "questions")  # validate has no rules of its own for them

    def run_table(self, table, log):  # noqa: ANN001, ANN201
        return []


@pytest.fixture
def with_fake_stage(monkeypatch):
    classes = {**stage_classes(), "fakeedits": FakeEdits}
    monkeypatch.setattr(tasks, "_stage_classes", lambda: classes)
    return classes


def noise_png(seed: int, size: tuple[int, int] = (64, 48)) -> bytes:
    """A picture no two seeds share, which PNG cannot shrink (so sizes say what is stored)."""
    arr = np.random.default_rng(seed).integers(0, 256, (size[1], size[0], 3), np.uint8)
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, "PNG")
    return buf.getvalue()


def diagrams(n: int = 4) -> list[dict]:
    return [empty_record(id=f"id{i}", format="svg", code=f"<svg>{i}</svg> " * 20,
                         image=noise_png(i), licence="MIT", group=f"g{i}",
                         split=["train", "test"][i % 2], source_id=f"s{i}", width=64,
                         height=48, tokens=90, attribution=f"author {i}")
            for i in range(n)]


def items(diag: list[dict], sources: dict[str, bytes] | None = None,
          questions: int = 8) -> list[dict]:
    """Per diagram two edits (source = its render unless ``sources`` says otherwise, a
    target of their own) and ``questions`` QA items showing its render."""
    out = []
    for d in diag:
        for k in range(2):
            out.append({"id": f"e-{d['id']}-{k}", "diagram_id": d["id"], "config": "pairs",
                        "split": d["split"], "instruction": f"edit {k}", "image": None,
                        "source_image": (sources or {}).get(f"e-{d['id']}-{k}", d["image"]),
                        "target_image": noise_png(1000 + 10 * int(d["id"][2:]) + k)})
        for q in range(questions):
            out.append({"id": f"q-{d['id']}-{q}", "diagram_id": d["id"], "config": "questions",
                        "split": d["split"], "instruction": f"question {q}",
                        "image": d["image"], "source_image": None, "target_image": None})
    return out


def publish(tmp_path, task_items: list[dict], diag: list[dict]):  # noqa: ANN001, ANN201
    params = make_params(tmp_path, **FIXED)
    seed_stage(params, "split", diag)
    seed_stage(params, "fakeedits", task_items, schema=EDIT_LIKE)
    run_named("validate", params)
    stats = run_named("publish", params)
    return params, tmp_path / "published" / params.publish.name, stats


def test_a_source_that_is_the_diagram_render_is_published_once(tmp_path, with_fake_stage):
    diag = diagrams()
    params, out, stats = publish(tmp_path, items(diag), diag)
    edit_files = sorted((out / "pairs").glob("*.parquet"))
    for f in edit_files:
        names = pq.read_schema(f).names
        assert "source_image" not in names and "target_image" in names
    assert stats.extra["referenced.pairs.source_image"] == 1
    card = (out / "README.md").read_text()
    assert "`source_image` → `generation`.`image` of `diagram_id`" in card
    # the reader's join gives back exactly the bytes the stage wrote, for every row
    by_id = {d["id"]: d["image"] for d in diag}
    gen = load_dataset(str(out), "generation")
    edits = load_dataset(str(out), "pairs")
    for split in ("train", "test"):
        g = gen[split].cast_column("image", Image_(decode=False))
        render = dict(zip(g["id"], g["image"], strict=True))
        for row in edits[split]:
            assert render[row["diagram_id"]]["bytes"] == by_id[row["diagram_id"]]
        refs = reference_rows(out, "pairs", split, resolve=("source_image",))
        assert refs and all(r["source_image"] == by_id[r["diagram_id"]] for r in refs)
        assert all("source_image" not in r for r in reference_rows(out, "pairs", split))


def test_one_source_that_differs_keeps_the_column_whole(tmp_path, with_fake_stage):
    diag = diagrams()
    params, out, stats = publish(tmp_path, items(diag, {"e-id2-1": noise_png(77)}), diag)
    edits = load_dataset(str(out), "pairs", split="train")
    assert "source_image" in edits.column_names
    got = {r["id"]: np.asarray(r["source_image"]) for r in edits}
    want = {r["id"]: r["source_image"] for r in items(diag, {"e-id2-1": noise_png(77)})}
    for rid, arr in got.items():
        assert np.array_equal(arr, np.asarray(Image.open(io.BytesIO(want[rid]))))
    assert stats.extra["referenced.pairs.source_image"] == 0
    assert "`pairs` keeps `source_image` (e.g. e-id2-1: diagram id2 has another render)" \
        in (out / "README.md").read_text()


def test_a_picture_many_rows_show_is_stored_once_and_each_row_reads_it(tmp_path,
                                                                         with_fake_stage):
    diag = diagrams(2)
    params, out, _ = publish(tmp_path, items(diag, questions=8), diag)
    qa = sorted((out / "questions").glob("*.parquet"))
    one_copy = sum(len(d["image"]) for d in diag)
    assert sum(f.stat().st_size for f in qa) < one_copy + 20_000  # not 8 copies
    for split, d in (("train", diag[0]), ("test", diag[1])):
        rows = load_dataset(str(out), "questions", split=split)
        assert len(rows) == 8
        want = np.asarray(Image.open(io.BytesIO(d["image"])))
        for r in rows:
            assert isinstance(r["image"], Image.Image)
            assert np.array_equal(np.asarray(r["image"]), want)
    # distinct pictures cost no more than datasets' own layout (PLAIN), bar the index
    from datasets import Dataset
    from datasets.table import InMemoryTable

    gen = sorted((out / "generation" / "svg").glob("train-*.parquet"))
    table = pq.read_table(gen[0])
    plain = tmp_path / "plain.parquet"
    Dataset(InMemoryTable(table)).to_parquet(str(plain))
    assert gen[0].stat().st_size <= plain.stat().st_size + 64 * table.num_rows
