"""Published JSON-text columns come back from ``datasets`` as lists and records, in streaming
mode too, and the card's ``dataset_info`` declares the features the Parquet files carry."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from datasets import Features, load_dataset
from huggingface_hub import DatasetCard

from diagramforge.cards.validate import nested, tasks
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.pipeline import stage_classes
from diagramforge.runner import run_named
from diagramforge.stage import TableStage
from tests.cards.publish.test_publish import FIXED, png, rows
from tests.conftest import make_params, seed_stage

SCHEMA = pa.schema([pa.field("id", pa.string()), pa.field("diagram_id", pa.string()),
                    pa.field("config", pa.string()), pa.field("split", pa.string()),
                    pa.field("question", pa.string()), pa.field("choices", pa.string()),
                    pa.field("referents", pa.string()), pa.field("operations", pa.string()),
                    pa.field("source_graph", pa.string()), pa.field("source_image", pa.binary())])


class FakeTasks(TableStage):
    name = "faketasks"
    upstream = "split"
    output_schema = SCHEMA
    task_configs = ("qa", "editing")

    def run_table(self, table, log):  # noqa: ANN001, ANN201
        return []


GRAPH = Graph(nodes=[Node(id="a", text="Start", bbox=[0, 0, 10, 5]), Node(id="b", text="End")],
              edges=[Edge(source="a", target="b", label="go"),
                     Edge(source="a", target=None, unattached=["x"], directed=False),
                     Edge(source="b", target="a", directed=False, both_heads=True)])
OPS = [{"op": "node_colour", "target": {"id": "a", "text": "Start", "kind": "node"},
        "params": {"colour": "#f8cecc"}, "refs": {"node": {"text": "the box Start",
                                                           "kind": "node"}}},
       {"op": "delete_edge", "target": {"id": "e1", "text": "", "kind": "edge"},
        "params": {"source": "a", "target": "b"}}]


def task_rows() -> list[dict]:
    return [
        {"id": "q0", "diagram_id": "id0", "config": "qa", "split": "train", "question": "how?",
         "choices": json.dumps(["1", "2", "3"]), "referents": json.dumps(["Start", "End"]),
         "source_image": png()},
        {"id": "q1", "diagram_id": "id1", "config": "qa", "split": "test", "question": "what?",
         "choices": json.dumps([]), "referents": None, "source_image": png()},
        {"id": "e0", "diagram_id": "id2", "config": "editing", "split": "train",
         "operations": json.dumps(OPS, sort_keys=True), "source_graph": GRAPH.to_json(),
         "source_image": png()},
    ]


@pytest.fixture
def published(tmp_path, monkeypatch):
    classes = {**stage_classes(), "faketasks": FakeTasks}
    monkeypatch.setattr(tasks, "_stage_classes", lambda: classes)
    params = make_params(tmp_path, **FIXED)
    diagrams = rows(["MIT"] * 4)
    for r in diagrams:
        r["graph"] = GRAPH.to_json()
    seed_stage(params, "split", diagrams)
    seed_stage(params, "faketasks", task_rows(), schema=SCHEMA)
    run_named("validate", params)
    run_named("publish", params)
    return tmp_path / "published" / params.publish.name


def first(out, config, split, streaming):  # noqa: ANN001, ANN201
    ds = load_dataset(str(out), config, split=split, streaming=streaming)
    return next(iter(ds)), ds.features


@pytest.mark.parametrize("streaming", [False, True])
def test_nested_columns_load_as_lists_and_records(published, streaming):
    q, feats = first(published, "qa", "train", streaming)
    assert q["choices"] == ["1", "2", "3"] and q["referents"] == ["Start", "End"]
    assert feats["choices"] == nested.feature("choices")
    q1, _ = first(published, "qa", "test", streaming)
    assert q1["choices"] == [] and q1["referents"] is None  # empty list ≠ null

    e, _ = first(published, "editing", "train", streaming)
    ops = e["operations"]
    assert [o["op"] for o in ops] == ["node_colour", "delete_edge"]
    assert ops[0]["target"] == {"id": "a", "text": "Start", "kind": "node"}
    assert json.loads(ops[0]["params"]) == {"colour": "#f8cecc"}
    assert ops[0]["refs"] == [{"role": "node", "text": "the box Start", "kind": "node"}]
    assert ops[1]["refs"] == []
    g = e["source_graph"]
    assert [n["text"] for n in g["nodes"]] == ["Start", "End"]
    assert g["nodes"][0]["bbox"] == [0, 0, 10, 5] and g["nodes"][1]["bbox"] is None
    assert g["edges"][1] == {"source": "a", "target": None, "label": "", "directed": False,
                             "unattached": ["x"], "both_heads": False}
    assert g["edges"][2]["both_heads"] is True  # a double arrow, published as one
    # the published record is the Graph the stage wrote, field for field
    assert Graph.model_validate(g) == GRAPH

    gen, _ = first(published, "generation", "train", streaming)
    assert Graph.model_validate(gen["graph"]) == GRAPH


def test_every_config_streams_and_the_card_declares_its_features(published):
    data = DatasetCard.load(published / "README.md").data.to_dict()
    info = {d["config_name"]: d for d in data["dataset_info"]}
    for cfg in data["configs"]:
        name = cfg["config_name"]
        for split in [d["split"] for d in cfg["data_files"]]:
            ds = load_dataset(str(published), name, split=split, streaming=True)
            assert next(iter(ds))["id"]
            declared = Features._from_yaml_list(info[name]["features"])
            assert declared == load_dataset(str(published), name, split=split).features, name
    assert {"name": "choices", "list": "string"} in info["qa"]["features"]


def test_ids_and_manifest_do_not_change_with_the_published_form(published):
    # the manifest digests the stage rows (JSON text), so versions before and after nested
    # features compare equal; the ids are the stage's
    manifest = json.loads((published / "manifest.json").read_text())
    assert "e0" in json.dumps(manifest) and "q0" in json.dumps(manifest)


def test_text_that_is_not_the_stage_json_fails_with_the_column_named():
    with pytest.raises(ValueError, match="operations"):
        nested.convert("operations", ["not json"])
    assert nested.convert("code", ["x"]) == ["x"]
    assert nested.convert("choices", [None, '["a"]']) == [None, ["a"]]


def test_published_values_read_back_as_the_stages_stored_them():
    """``evaluate`` reads the published dataset and scores with the stages' functions:
    every nested column must come back to equivalent JSON text."""
    import json as _json

    from diagramforge.cards.validate.nested import convert, stored

    ops = [{"op": "move_node", "target": {"id": "n1", "text": "A", "kind": "node"},
            "params": {"dx": 1.5}, "refs": {"target": {"text": "the box 'A'", "kind": "label"}}}]
    for name, text in [("choices", '["a", "b"]'), ("operations", _json.dumps(ops))]:
        back = stored(name, convert(name, [text])[0])
        assert isinstance(back, str) and _json.loads(back) == _json.loads(text)
    assert stored("caption", "as is") == "as is" and stored("graph", None) is None
