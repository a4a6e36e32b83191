"""Property: for every sample diagram and every applicable operation, the edit round-trips
(apply → parse → validation → graph diff = exactly the operation)."""

from __future__ import annotations

import random

import pytest

from diagramforge.formats.edits import EditError, Op, expected_graph, graph_diff
from diagramforge.synth.edit.sampler import FORMATS, compose, verify_step
from tests.synth.conftest import MX_RICH, SVG_RICH, TIKZ_RICH, samples

SAMPLES = samples()
EXPECTED_OPS = {"mxgraph": set(Op), "svg": set(FORMATS["svg"].module.OPS),
                "tikz": set(FORMATS["tikz"].module.OPS)}


def _applicable(row: dict, seed: int):  # noqa: ANN202
    fe = FORMATS[row["format"]]
    for ed in fe.module.candidates(row["code"], random.Random(seed)):
        try:
            yield ed, fe.module.apply_edit(row["code"], ed)
        except EditError:
            continue  # a precondition the proposal cannot see (e.g. a relative placement)


@pytest.mark.parametrize("row", SAMPLES, ids=[r["id"][:12] for r in SAMPLES])
def test_every_applicable_edit_round_trips(row):
    fe = FORMATS[row["format"]]
    before = fe.graph(row["code"])
    for seed in (0, 1, 2):
        for ed, after in _applicable(row, seed):
            assert verify_step(fe, row["code"], before, ed, after) is None, ed


def test_every_operation_is_exercised_per_format():
    seen: dict[str, set[str]] = {f: set() for f in FORMATS}
    for row in SAMPLES:
        for seed in (0, 1, 2):
            seen[row["format"]] |= {ed["op"] for ed, _ in _applicable(row, seed)}
    for fmt, ops in EXPECTED_OPS.items():
        assert {str(o) for o in ops} <= seen[fmt], (fmt, set(map(str, ops)) - seen[fmt])


def test_graph_diff_sees_a_wrong_edit():
    """The verifier is not a rubber stamp: an edit that does more (or other) than it says
    fails, naming what differs."""
    fe = FORMATS["mxgraph"]
    g = fe.graph(MX_RICH)
    said = {"op": "node_text", "target": {"id": "c", "text": "Done", "kind": "node"},
            "params": {"node": "c", "text": "Finished"}}
    done = fe.module.apply_edit(MX_RICH, {**said, "params": {"node": "c", "text": "Other"}})
    bad = verify_step(fe, MX_RICH, g, said, done)
    assert bad is not None and bad[0] == "edit_graph_mismatch" and "Finished" in bad[1]
    # deleting an edge the operation did not name is caught too
    extra = fe.module.apply_edit(MX_RICH, {"op": "delete_edge", "target": {
        "id": "e3", "text": "", "kind": "edge"}, "params": {"source": "b", "target": "d"}})
    bad = verify_step(fe, MX_RICH, g, said, fe.module.apply_edit(extra, said))
    assert bad is not None and "missing edge" in bad[1]


def test_expected_graph_semantics():
    g = FORMATS["tikz"].graph(TIKZ_RICH)
    e = expected_graph(g, {"op": "delete_node", "target": {"id": "b", "text": "Clean",
                                                              "kind": "node"},
                           "params": {"node": "b"}})
    assert {n.id for n in e.nodes} == {"a", "c", "d"} and e.edges == []
    r = expected_graph(g, {"op": "redirect_edge", "target": {}, "params": {
        "source": "a", "target": "b", "new_target": "d"}})
    assert [(x.source, x.target) for x in r.edges][0] == ("a", "d")
    assert graph_diff(g, g) == []


def test_preconditions():
    """A redirect needs a third node; a TikZ node others are placed from cannot move."""
    two = [r for r in SAMPLES if r["format"] == "mxgraph"
           and len(FORMATS["mxgraph"].graph(r["code"]).nodes) == 2]
    assert two
    for row in two:
        ops = {ed["op"] for ed, _ in _applicable(row, 0)}
        assert "redirect_edge" not in ops
    rel = r"""\begin{tikzpicture}\node[draw] (a) {A}; \node[draw, right=of a] (b) {B};
    \draw[->] (a) -- (b);\end{tikzpicture}"""
    moves = [ed for ed in FORMATS["tikz"].module.candidates(rel, random.Random(0))
             if ed["op"] == "move_node"]
    assert [m["params"]["node"] for m in moves] == ["b"]
    with pytest.raises(EditError):
        FORMATS["tikz"].module.apply_edit(rel, {**moves[0], "params": {
            **moves[0]["params"], "node": "a"}})


def test_svg_move_keeps_connectors_attached():
    fe = FORMATS["svg"]
    g = fe.graph(SVG_RICH)
    load = next(n for n in g.nodes if n.text == "Load")
    ed = {"op": "move_node", "target": {"id": load.id, "text": "Load", "kind": "node"},
          "params": {"node": load.id, "bbox": [load.bbox[0], load.bbox[1] + 40,
                                               *load.bbox[2:]]}}
    after = fe.module.apply_edit(SVG_RICH, ed)
    assert verify_step(fe, SVG_RICH, g, ed, after) is None
    from lxml import etree

    line = etree.fromstring(after.encode()).find("{http://www.w3.org/2000/svg}line")
    x, y = float(line.get("x1")), float(line.get("y1"))
    bx, by, bw, bh = ed["params"]["bbox"]
    # the line's start followed the box down: it lies on the moved box's border
    assert bx <= x <= bx + bw and by <= y <= by + bh and y > load.bbox[1] + load.bbox[3] - 10


@pytest.mark.parametrize("fmt,code", [("mxgraph", MX_RICH), ("svg", SVG_RICH),
                                      ("tikz", TIKZ_RICH)])
def test_compose_is_seeded_and_counts_operations(fmt, code):
    a = compose(code, fmt, 4, random.Random(7))
    b = compose(code, fmt, 4, random.Random(7))
    assert a.ok and len(a.edits) == 4
    assert a.edits == b.edits and a.target_code == b.target_code
    assert len({e["op"] for e in a.edits}) == 4  # distinct operation types first
    plot = r"\begin{tikzpicture}\draw (0,0) circle (1);\end{tikzpicture}"
    short = compose(plot, "tikz", 1, random.Random(7))
    assert short.reason == "edit_too_few_operations" and short.edits == []
