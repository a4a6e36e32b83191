"""The bounded, stratified, seeded training sample and the stage that reads it."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pytest

from diagramforge.filters.classifier import stage as stage_mod
from diagramforge.filters.classifier.evidence import code_label
from diagramforge.filters.classifier.sample import quotas, stratified_rows
from diagramforge.runner import run_stage
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import empty_record
from diagramforge.store.shards import ShardSet
from tests.conftest import make_params, seed_stage

CODES = {  # code → the weak label it gives (checked below, not assumed)
    "tikz": "\\begin{tikzcd} A \\arrow[r] & B%d \\end{tikzcd}",
    "mermaid": "flowchart LR\n A-->B%d",
    "dot": "digraph { a -> b%d }",
}


def rows(counts: dict[str, int], image: bytes = b"\x89PNG fake") -> list[dict]:
    out = []
    for fmt, n in counts.items():
        out += [{"id": f"{fmt}{k}", "format": fmt, "code": CODES[fmt] % k, "image": image}
                for k in range(n)]
    out.append({"id": "blank", "format": "tikz", "code": CODES["tikz"] % 0, "image": None})
    return out


def shards(rs: list[dict], size: int) -> list[pa.Table]:
    return [pa.Table.from_pylist(rs[i:i + size]) for i in range(0, len(rs), size)]


def test_quotas_are_proportional_keep_rare_labels_and_sum_to_the_bound():
    q = quotas(Counter({"a": 900, "b": 95, "c": 5, None: 50}), 100)
    assert sum(q.values()) == 100 and None not in q  # unlabelled: nothing to learn
    assert q["c"] >= 1 and q["a"] > q["b"] > q["c"]
    assert quotas(Counter({"a": 3, None: 2}), 10) == {"a": 3, None: 2}  # small: all of it


def test_sample_is_bounded_stratified_and_independent_of_sharding():
    rs = rows({"tikz": 120, "mermaid": 30, "dot": 3})
    labels = {r["format"]: code_label(r) for r in rs}
    assert len(set(labels.values())) == 3 and None not in labels.values()
    drawn: dict = {}
    a = stratified_rows(shards(rs, 7), shards(rs, 7), 40, seed=5, stats=drawn)
    b = stratified_rows(shards(rs, 50), shards(rs, 50), 40, seed=5)
    assert len(a) == 40 and drawn == {"with_image": 153, "sampled": 40}
    assert a == b  # the draw does not depend on shard size
    by = Counter(r["format"] for r in a)
    assert by["dot"] >= 1 and by["tikz"] > by["mermaid"] > 0
    assert by["tikz"] == pytest.approx(40 * 120 / 153, abs=1)
    order = [r["id"] for r in rs]
    assert [order.index(r["id"]) for r in a] == sorted(order.index(r["id"]) for r in a)
    c = stratified_rows(shards(rs, 7), shards(rs, 7), 40, seed=6)
    assert {r["id"] for r in c} != {r["id"] for r in a}  # seeded


def test_a_small_corpus_is_taken_whole_in_input_order():
    rs = rows({"tikz": 5, "dot": 2})
    got = stratified_rows(shards(rs, 3), shards(rs, 3), 100, seed=1)
    assert got == [r for r in rs if r["image"]]


def test_stage_trains_on_the_sample_read_shard_by_shard(tmp_path, monkeypatch):
    rs = [{**empty_record(), **r} for r in rows({"tikz": 9, "mermaid": 4, "dot": 2})]
    params = make_params(tmp_path, classifier={"train": True, "max_train_rows": 6},
                         runner={"shard_size": 4})
    seed_stage(params, "render", rs, shard_size=4)
    seen = []

    def fake_train(got, cfg, out):  # noqa: ANN001, ANN202 - the trainer is tested elsewhere
        seen.append(got)
        (out / "confusion.csv").parent.mkdir(parents=True, exist_ok=True)
        (out / "confusion.csv").write_text("actual,predicted\n")
        return {"trained": len(got), "held_out": 0, "weak_labels": {}}

    def refuse(self, columns=None):  # noqa: ANN001, ANN202
        raise AssertionError("classifier-train read the whole table")

    monkeypatch.setattr(stage_mod, "train", fake_train)
    monkeypatch.setattr(ShardSet, "read_all", refuse)
    stats = run_stage(stage_mod.ClassifierTrainStage(params))
    (got,) = seen
    assert len(got) == 6 and set(got[0]) == {"id", "format", "code", "image"}
    assert {r["format"] for r in got} == {"tikz", "mermaid", "dot"}
    assert stats.extra["sampled"] == 6 and stats.extra["with_image"] == 15
    assert stage_paths(params, "classifier-train").root.is_dir()


def test_the_shipped_checkpoint_reads_no_rows(tmp_path, monkeypatch):
    params = make_params(tmp_path)
    seed_stage(params, "render", [{**empty_record(), **r} for r in rows({"tikz": 3})])

    def refuse(*a, **kw):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("read rows for the shipped checkpoint")

    monkeypatch.setattr(ShardSet, "read_all", refuse)
    monkeypatch.setattr(ShardSet, "iter_tables", refuse)
    stats = run_stage(stage_mod.ClassifierTrainStage(params))
    assert stats.extra["shipped"] == 1
    assert (stage_paths(params, "classifier-train").root / "checkpoint").is_dir()
