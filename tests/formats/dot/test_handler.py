"""The DOT handler: a file's graphs become records or ledger rows; render draws them with
Graphviz and fills the graph columns from its layout."""

from __future__ import annotations

import json
import shutil

import pytest

from diagramforge.formats.registry import instantiate
from diagramforge.graphs.model import Graph
from diagramforge.store.records import Unit
from tests.conftest import make_params

pytestmark = pytest.mark.skipif(shutil.which("dot") is None,
                                reason="graphviz not installed (./dev setup installs it)")

BASE = {"source": "repo", "source_id": "r@c:g.gv", "group": "repo:r"}


@pytest.fixture
def handler(tmp_path):
    return instantiate(make_params(tmp_path), lambda r: r["id"])["dot"]


def test_each_graph_of_a_file_is_a_record_and_a_bad_one_a_candidate(handler):
    data = (b'digraph ok { a -> b }\n'
            b'digraph bad { a [image="/etc/passwd"] }\n'
            b'graph also { x -- y }\n')
    recs, rejs = handler.extract_file(data, "g.gv", BASE, "r@c:g.gv", Unit.INPUT)
    assert [r["source_id"] for r in recs] == ["r@c:g.gv#graph1", "r@c:g.gv#graph3"]
    assert recs[0]["format"] == "dot" and recs[0]["code"] == "digraph ok { a -> b }"
    assert json.loads(recs[1]["meta"]) == {"file": "g.gv", "graph": 2, "graphs": 3}
    assert [(r.reason, r.unit) for r in rejs] == [("dot_unsafe", Unit.CANDIDATE)]


def test_a_file_with_nothing_usable_is_one_input_rejection(handler):
    recs, rejs = handler.extract_file(b"\x00\x01binary", "x.dot", BASE, "loc", Unit.INPUT)
    assert recs == [] and [(r.reason, r.unit) for r in rejs] == [("dot_no_graph", Unit.INPUT)]
    recs, rejs = handler.extract_file(b'digraph { a [image="/x"] }', "x.dot", BASE, "loc",
                                      Unit.INPUT)
    assert recs == [] and [(r.reason, r.unit) for r in rejs] == [("dot_unsafe", Unit.INPUT)]


def test_render_draws_and_reads_the_graph(handler):
    rows = [{"id": "1", "format": "dot", "code": 'digraph { a [label="Start"]; a -> b }'},
            {"id": "2", "format": "dot", "code": "digraph { a -> }"}]
    out = handler.render(rows)
    assert [r.reason for r in out.rejections] == ["dot_malformed"]
    rec = out.records[0]
    assert rec["image"][:8] == b"\x89PNG\r\n\x1a\n" and rec["render_engine"] == "graphviz"
    g = Graph.from_json(rec["graph"])
    assert [n.text for n in g.nodes] == ["Start", "b"] and rec["graph_edges"] == 1
    assert out.extra["graph_built"] == 1
    svg = handler.export_svg(rows[:1])[0]
    assert "<text" in svg and "Start" in svg and "<script" not in svg
