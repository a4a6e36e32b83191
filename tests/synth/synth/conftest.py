"""Diagrams and edits for the synth stage tests: a flowchart with a caption, a pipeline
without one (both typed graph-like, drawn as SVGs whose text their graphs explain), an
untyped TikZ picture with a null graph (parsed from its code; captions only), and a picture
with neither graph nor labels (ledgered)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from diagramforge.config import Params, parse_params
from diagramforge.store.records import empty_record
from tests.conftest import seed_stage


def graph(nodes: list[tuple[str, str, str]], edges: list[tuple[str, str, str]]) -> str:
    return json.dumps({
        "nodes": [{"id": i, "text": t, "shape": s, "bbox": [40.0 * k, 0.0, 80.0, 40.0]}
                  for k, (i, t, s) in enumerate(nodes)],
        "edges": [{"source": a, "target": b, "label": lab, "directed": True}
                  for a, b, lab in edges]})


FLOW = graph([("s1", "Start", "ellipse"), ("d2", "Valid?", "diamond"),
              ("p3", "Save record", "rectangle"), ("e4", "Stop", "ellipse")],
             [("s1", "d2", ""), ("d2", "p3", "yes"), ("d2", "e4", "no"), ("p3", "e4", "")])
PIPE = graph([("n_in", "Input", "rectangle"), ("n_enc", "Encoder", "rectangle"),
              ("n_out", "Output", "rectangle")],
             [("n_in", "n_enc", ""), ("n_enc", "n_out", "")])
TIKZ = r"""\begin{tikzpicture}
\node (a) {Load}; \node (b) [right of=a] {Train}; \node (c) [right of=b] {Evaluate};
\draw[->] (a) -- (b); \draw[->] (b) -- (c);
\end{tikzpicture}"""
BLANK = r"\begin{tikzpicture}\draw (0,0) circle (1);\end{tikzpicture}"


def drawing(*texts: str) -> str:
    """An SVG that draws these texts (an SVG is its own drawing: QA's grounding reads the
    render's text from it with no engine)."""
    runs = "".join(f'<text x="10" y="{20 * (k + 1)}">{t}</text>' for k, t in enumerate(texts))
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200">{runs}</svg>'


def diagrams() -> list[dict]:
    return [
        empty_record(id="flow", format="svg", graph=FLOW, diagram_type="flowchart",
                     code=drawing("Start", "Valid?", "Save record", "Stop", "yes", "no"),
                     caption="Sign-up flow.", split="train", image=b"\x89PNG flow"),
        empty_record(id="pipe", format="svg", graph=PIPE, diagram_type="block_diagram",
                     code=drawing("Input", "Encoder", "Output"), split="test",
                     image=b"\x89PNG pipe"),
        empty_record(id="tikz", format="tikz", code=TIKZ, graph=None, split="validation"),
        empty_record(id="blank", format="tikz", code=BLANK, graph=None, split="train"),
    ]


EDIT_SCHEMA = pa.schema([(c, pa.string()) for c in (
    "id", "diagram_id", "format", "split", "config", "source_code", "target_code",
    "operations", "difficulty", "source_graph", "target_graph", "instruction")]
    + [("source_image", pa.binary()), ("target_image", pa.binary())])


def mx(nodes: list[tuple[str, str, str, int, int]], edges: list[tuple[str, str, str, str]]
       ) -> str:
    """A draw.io page: vertices (id, text, style, x, y) of 80×40, edges (id, source,
    target, label)."""
    cells = ['<mxCell id="0"/>', '<mxCell id="1" parent="0"/>']
    cells += [f'<mxCell id="{i}" value="{t}" style="{s}" vertex="1" parent="1">'
              f'<mxGeometry x="{x}" y="{y}" width="80" height="40" as="geometry"/></mxCell>'
              for i, t, s, x, y in nodes]
    cells += [f'<mxCell id="{i}" value="{lab}" edge="1" parent="1" source="{a}" target="{b}">'
              '<mxGeometry relative="1" as="geometry"/></mxCell>' for i, a, b, lab in edges]
    return f"<mxGraphModel><root>{''.join(cells)}</root></mxGraphModel>"


FLOW_XML = mx([("s1", "Start", "ellipse;", 0, 0), ("d2", "Valid?", "rhombus;", 0, 80),
               ("p3", "Save record", "rounded=0;", 0, 160), ("e4", "Stop", "ellipse;", 160, 160)],
              [("x1", "s1", "d2", ""), ("x2", "d2", "p3", "yes"), ("x3", "d2", "e4", "no"),
               ("x4", "p3", "e4", "")])
PIPE_XML = mx([("n_in", "Input", "", 0, 0), ("n_enc", "Encoder", "", 120, 0),
               ("n_out", "Output", "", 240, 0)],
              [("x1", "n_in", "n_enc", ""), ("x2", "n_enc", "n_out", "")])


def op(name: str, who: tuple[str, str, str], /, **params: object) -> dict:
    return {"op": name, "target": dict(zip(("id", "text", "kind"), who, strict=True)),
            "params": params}


def edits() -> list[dict]:
    base = {"format": "mxgraph", "config": "editing", "target_code": "<b/>",
            "target_graph": None, "source_image": b"s", "target_image": b"t"}
    return [
        {**base, "id": "e-easy", "diagram_id": "flow", "split": "train", "difficulty": "easy",
         "source_code": FLOW_XML, "source_graph": FLOW, "instruction": "Colour s1 #f8cecc.",
         "operations": json.dumps([op("node_colour", ("s1", "Start", "node"), node="s1",
                                      colour="#f8cecc")])},
        {**base, "id": "e-med", "diagram_id": "pipe", "split": "test", "difficulty": "medium",
         "source_code": PIPE_XML, "source_graph": PIPE,
         "instruction": "Rename n_enc; move n_out to (200, 40).",
         "operations": json.dumps([
             op("node_text", ("n_enc", "Encoder", "node"), node="n_enc", text="Decoder"),
             op("move_node", ("n_out", "Output", "node"), node="n_out",
                old_bbox=[240, 0, 80, 40], bbox=[360, 40, 80, 40]),
             op("add_edge", ("de1", "", "edge"), id="de1", source="n_in", target="n_out")])},
        {**base, "id": "e-bad", "diagram_id": "flow", "split": "train", "difficulty": "easy",
         "source_code": FLOW_XML, "source_graph": FLOW, "instruction": "?",
         "operations": "not json"},
    ]


def make_params(tmp_path: Path, **synth: object) -> Params:
    return parse_params({
        "project": {"data_dir": str(tmp_path / "data"),
                    "metrics_dir": str(tmp_path / "metrics")},
        "render": {"tikz": {"cache_dir": str(tmp_path / "tex")}},
        "synth": {"cache_dir": str(tmp_path / "cache"), **synth}})


@pytest.fixture
def seeded(tmp_path: Path):  # noqa: ANN201 - a factory
    """``seeded(with_edits=True, **synth)`` → params over a seeded split (and edit) stage."""

    def make(with_edits: bool = True, **synth: object) -> Params:
        params = make_params(tmp_path, **synth)
        seed_stage(params, "split", diagrams())
        if with_edits:
            seed_stage(params, "edit", edits(), schema=EDIT_SCHEMA)
        return params

    return make
