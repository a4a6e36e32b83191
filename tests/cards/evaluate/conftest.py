"""A tiny published dataset built with the publisher's own writers: SVG generation items
rendered by the real handlers, a verified DOT edit, QA and captioning items, and one SVG
diagram's verified DOT twin (translation)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
import yaml

from diagramforge.builders.twin.stage import TWIN_SCHEMA
from diagramforge.cards.evaluate.compile import Compiler
from diagramforge.cards.evaluate.generation import count_tokens
from diagramforge.cards.publish.stage import GENERATION_COLUMNS, write_generation
from diagramforge.cards.validate.tasks import write_task_config
from diagramforge.formats.dot import edit as dot_edits
from diagramforge.formats.edits import Op
from diagramforge.formats.edits import edit as edit_op
from diagramforge.synth.edit.sampler import compose
from diagramforge.synth.synth.stage import SYNTH_SCHEMA
from tests.conftest import make_params


def svg(nodes: list[str], edges: list[tuple[str, str]]) -> str:
    """Boxes in a row with their labels inside, edges as lines between neighbours' sides."""
    parts, pos = [], {}
    for i, t in enumerate(nodes):
        x = 10 + i * 110
        pos[t] = x
        parts.append(f'<rect x="{x}" y="10" width="60" height="30" fill="none" '
                     f'stroke="black"/><text x="{x + 20}" y="30">{t}</text>')
    for a, b in edges:
        parts.append(f'<line x1="{pos[a] + 60}" y1="25" x2="{pos[b]}" y2="25" '
                     f'stroke="black"/>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{20 + 110 * len(nodes)}" '
            f'height="60">' + "".join(parts) + "</svg>")


GENERATION = {"g1": svg(["A", "B"], [("A", "B")]),
              "g2": svg(["Load", "Parse", "Save"], [("Load", "Parse"), ("Parse", "Save")]),
              "g3": svg(["X", "Y"], [("X", "Y")]),
              "g4": svg(["In", "Out"], [("In", "Out")])}
DOT_SOURCE = 'digraph { a [label="Start"]; m [label="Middle"]; b [label="End"]; ' \
             'a -> m; m -> b; }'
QA = [  # id, type, answer, choices, option
    ("q1", "counting", "3", ["3", "2", "4"], "A"),
    ("q2", "identification", "Parse", ["Load", "Parse", "Save"], "B"),
    ("q3", "relationship", "yes", ["yes", "no"], "A"),
    ("q4", "reachability", "no", ["yes", "no"], "B"),
]
CAPTIONS = {"c1": ("A three-step pipeline.",
                   'A flow from "Load" through "Parse" to "Save".')}


def _card(root: Path, configs: list[dict]) -> None:
    meta = {"configs": [{k: v for k, v in c.items() if not k.startswith("_")}
                        for c in configs]}
    (root / "README.md").write_text(f"---\n{yaml.safe_dump(meta)}---\n# tiny\n")


def _task_rows(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    for c in ("config", "split", "diagram_id"):
        assert c in df.columns
    return df


def _schema(df: pd.DataFrame) -> pa.Schema:
    return pa.schema([SYNTH_SCHEMA.field(c) for c in SYNTH_SCHEMA.names if c in df.columns])


@pytest.fixture(scope="session")
def published(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """``{"params", "root", "refs": {config: rows}}`` for a tiny published dataset."""
    tmp = tmp_path_factory.mktemp("evaluate")
    params = make_params(tmp)
    root = Path(params.publish.out_dir) / params.publish.name
    root.mkdir(parents=True)
    gen = []
    with Compiler(params) as c:
        for gid, code in GENERATION.items():
            got = c.compile(gid, "svg", code)
            assert got.ok, got
            gen.append({**dict.fromkeys(GENERATION_COLUMNS), "id": gid, "format": "svg",
                        "code": got.code, "image": got.image, "graph": got.graph.to_json(),
                        "tokens": count_tokens(got.code), "split": "test",
                        "licence": "cc-by-4.0", "diagram_type": "flowchart"})
    configs = write_generation(pd.DataFrame(gen), root)

    done = compose(DOT_SOURCE, "dot", 2, random.Random(3))
    assert done.ok and len(done.edits) == 2, done.reason
    colour = edit_op(Op.NODE_COLOUR, "a", "Start", "node", node="a", colour="#f8cecc")
    edits = []
    with Compiler(params) as c:
        source_image = c.compile("src", "dot", DOT_SOURCE).image
        for eid, ops, target in (
                ("e1", done.edits, done.target_code),
                ("e2", [colour], dot_edits.apply_edit(DOT_SOURCE, colour))):
            edits.append({
                "id": eid, "diagram_id": "d1", "config": "editing", "split": "test",
                "format": "dot", "source_code": DOT_SOURCE, "target_code": target,
                "source_image": source_image, "target_image": c.compile(eid, "dot",
                                                                        target).image,
                "operations": json.dumps(ops, sort_keys=True),
                "difficulty": "easy" if len(ops) < 2 else "medium",
                "source_graph": done.source_graph.to_json(), "instruction": "edit it"})
    qa = [{"id": i, "diagram_id": "g2", "config": "qa", "split": "test", "format": "svg",
           "code": GENERATION["g2"], "qa_type": t, "question": f"question {i}?",
           "answer": a, "choices": json.dumps(ch), "answer_option": o}
          for i, t, a, ch, o in QA]
    cap = [{"id": i, "diagram_id": "g2", "config": "captioning", "split": "test",
            "format": "svg", "code": GENERATION["g2"], "image": gen[1]["image"],
            "caption": c, "description": d}
           for i, (c, d) in CAPTIONS.items()]
    refs = {"generation": gen, "editing": edits, "qa": qa, "captioning": cap,
            "translation": _twins(params, gen[1])}
    for name in ("editing", "qa", "captioning"):
        df = _task_rows(refs[name])
        configs.append(write_task_config(name, df, _schema(df), root))
    df = _task_rows(refs["translation"])
    configs.append(write_task_config("translation", df, TWIN_SCHEMA, root))
    _card(root, configs)
    return {"params": params, "root": root, "refs": refs}


def _twins(params, row: dict) -> list[dict]:  # noqa: ANN001 - Params
    """The translation items of one diagram as the twin stage makes them (its real
    writers, Graphviz, and its verification): here, the SVG diagram in DOT."""
    from diagramforge.builders.twin.make import Twins
    from diagramforge.formats.registry import instantiate

    formats = instantiate(params, lambda r: str(r.get("id")))
    try:  # typed as the diagram_type filter types it: the twin gate twins graph-like pictures
        out = Twins(formats, ["dot"], 200, lambda r: str(r.get("id"))).make(
            [{**row, "group": "g", "diagram_type": "flowchart", "graph_like": True}])
    finally:
        for h in formats.values():
            h.close()
    assert len(out.records) == 1, [r.detail for r in out.rejections]
    return [{**r, "licence": "cc-by-4.0"} for r in out.records]


def write_predictions(path: Path, outputs: dict[str, str | None]) -> Path:
    path.write_text("".join(json.dumps({"id": k, "prediction": v}) + "\n"
                            for k, v in outputs.items()))
    return path
