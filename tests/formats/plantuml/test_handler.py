"""The PlantUML handler: a file's diagrams become records or ledger rows (each refusal with
its reason), Markdown is shared with Mermaid by fence, and render draws with PlantUML and
fills the graph columns from its model."""

from __future__ import annotations

import json

import pytest

from diagramforge.formats.plantuml import engine
from diagramforge.formats.plantuml.handler import PlantUmlFormat
from diagramforge.graphs.model import Graph
from diagramforge.store.records import Unit
from tests.conftest import make_params

BASE = {"source": "repo", "source_id": "r@c:d.puml", "group": "repo:r"}


@pytest.fixture
def handler(tmp_path):
    return PlantUmlFormat(make_params(tmp_path), lambda r: r["id"])


def test_each_diagram_of_a_file_is_a_record_and_a_hostile_one_a_candidate(handler):
    data = (b"@startuml\nA -> B : hi\n@enduml\n"
            b"@startuml\n!include /etc/passwd\n@enduml\n"
            b"@startuml\nclass X\n@enduml\n")
    recs, rejs = handler.extract_file(data, "d.puml", BASE, "r@c:d.puml", Unit.INPUT)
    assert [r["source_id"] for r in recs] == ["r@c:d.puml#diagram1", "r@c:d.puml#diagram3"]
    assert recs[0]["format"] == "plantuml" and recs[0]["code"].startswith("@startuml\nA ->")
    assert json.loads(recs[1]["meta"]) == {"file": "d.puml", "diagram": 2, "diagrams": 3}
    assert [(r.reason, r.unit) for r in rejs] == [("plantuml_unsafe", Unit.CANDIDATE)]


def test_a_file_with_nothing_usable_is_one_input_rejection(handler):
    for data, reason in [(b"\x00\x01binary", "plantuml_not_text"),
                         (b"just words\n", "plantuml_no_blocks"),
                         (b'@startuml\nA -> B : %getenv("HOME")\n@enduml\n', "plantuml_unsafe")]:
        recs, rejs = handler.extract_file(data, "x.pu", BASE, "loc", Unit.INPUT)
        assert recs == [] and [(r.reason, r.unit) for r in rejs] == [(reason, Unit.INPUT)]


def test_markdown_is_claimed_by_fence_and_shared_with_mermaid(handler, tmp_path):
    from diagramforge.formats.registry import claim, extract, instantiate

    both = b"# x\n```mermaid\ngraph TD; a-->b\n```\n```plantuml\nA -> B\n```\n"
    only_mermaid = b"```mermaid\ngraph TD; a-->b\n```\n"
    assert handler.claims_file("README.md", both)
    assert not handler.claims_file("README.md", only_mermaid)
    recs, _ = handler.extract_file(both, "README.md", BASE, "loc", Unit.INPUT)
    assert [r["code"] for r in recs] == ["@startuml\nA -> B\n@enduml\n"]
    takers, _ = claim(instantiate(make_params(tmp_path), str), "README.md", both)
    recs, rejs = extract(takers, both, "README.md", BASE, "loc", Unit.INPUT)
    assert [(r["format"], r["code"], r["source_id"]) for r in recs] == [
        ("mermaid", "graph TD; a-->b\n", "r@c:d.puml#block1"),
        ("plantuml", "@startuml\nA -> B\n@enduml\n", "r@c:d.puml#block2")] and rejs == []


@pytest.mark.skipif(engine.find_java() is None, reason="plantuml not installed")
def test_render_draws_and_reads_the_graph(handler):
    rows = [{"id": "1", "format": "plantuml",
             "code": "@startuml\nclass Start\nStart --> Stop : go\n@enduml\n"},
            {"id": "2", "format": "plantuml",
             "code": "@startuml\nthis is { not plantuml\n@enduml\n"},
            {"id": "3", "format": "plantuml", "code": "@startuml\n!include /etc/x\n@enduml\n"}]
    out = handler.render(rows)
    assert sorted(r.reason for r in out.rejections) == ["plantuml_malformed",
                                                        "plantuml_unsafe"]
    rec = out.records[0]
    png = rec["image"] if isinstance(rec["image"], bytes) else rec["image"].png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and rec["render_engine"] == "plantuml:class"
    g = Graph.from_json(rec["graph"])
    assert [n.text for n in g.nodes] == ["Start", "Stop"] and rec["graph_edges"] == 1
    assert out.extra["graph_built"] == 1
    svg = handler.export_svg(rows[:1])[0]
    assert isinstance(svg, str) and "Start" in svg and "<script" not in svg
    assert "Java Version" not in svg  # PlantUML's trailing comment names the machine
