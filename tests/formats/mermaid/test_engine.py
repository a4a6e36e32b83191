"""Mermaid's own library in the locked-down Chromium: plain SVG text, the flowchart's graph
from Mermaid's parse, every diagram type drawn, and hostile diagrams contained."""

from __future__ import annotations

import pytest

from diagramforge.formats.mermaid.engine import MermaidRenderer
from diagramforge.formats.svg.document import png_ink

_WHY = MermaidRenderer().available()
pytestmark = pytest.mark.skipif(_WHY is not None, reason=f"{_WHY} (./dev setup)")


@pytest.fixture(scope="module")
def renderer():
    r = MermaidRenderer(max_edges=50)
    yield r
    r.close()


def test_a_flowchart_and_its_graph(renderer):
    res = renderer.render_many(["""flowchart LR
  A[Start here] -->|yes| B(Round)
  B --- C{Decide a &lt; b?}
  C -.-> D((circle))
  D ~~~ A
  A <--> C
  subgraph S1 [Group one]
    D
  end
"""], scale=1.5)[0]
    assert res.ok and res.kind == "flowchart-v2", res.error
    assert "<text" in res.svg and "foreignObject" not in res.svg
    w, h, ink = png_ink(res.png)
    assert (w, h) == (res.width, res.height) and ink > 0.01
    nodes = {n["id"]: n for n in res.graph["nodes"]}
    # the text as Mermaid drew it (its lines; entities decoded as it decodes them)
    assert nodes["A"]["text"] == "Start here"
    assert " ".join(nodes["C"]["text"].split()) == "Decide a < b?"
    assert nodes["C"]["shape"] == "diamond"
    assert nodes["subgraph:S1"]["text"] == "Group one"
    assert all(n["bbox"] and n["bbox"][2] > 0 for n in nodes.values())
    edges = [(e["source"], e["target"], e["directed"], e["label"]) for e in res.graph["edges"]]
    # ~~~ is laid out but not drawn; <--> has heads at both ends: undirected
    assert edges == [("A", "B", True, "yes"), ("B", "C", False, ""), ("C", "D", True, ""),
                     ("A", "C", False, "")]
    assert [e.get("both_heads", False) for e in res.graph["edges"]] == [False, False, False,
                                                                         True]


def test_every_diagram_type_draws_and_the_graph_types_have_graphs(renderer):
    texts = ["sequenceDiagram\n participant A as Alice\n A->>Bob: Hi\n Note over A: hm\n"
             " Bob--)A: Bye\n A<<->>Bob: sync\n",
             "classDiagram\n Animal <|-- Duck : is\n Duck -- Pond\n",
             "stateDiagram-v2\n [*] --> Still\n Still --> [*] : stop\n",
             "erDiagram\n CUSTOMER ||--o{ ORDER : places\n",
             'pie title Pets\n "Dogs" : 3\n "Cats" : 1\n',
             "flowchart LR\n a -->\n"]
    got = renderer.render_many(texts)
    assert [r.ok for r in got] == [True, True, True, True, True, False]
    assert [r.kind for r in got[:5]] == ["sequence", "classDiagram", "stateDiagram", "er",
                                         "pie"]
    assert all(png_ink(r.png)[2] > 0 for r in got[:5])

    def shape(g):  # noqa: ANN001, ANN202
        text = {n["id"]: n["text"] for n in g["nodes"]}
        return sorted(text.values()), [(text[e["source"]], text[e["target"]], e["directed"],
                                        e["label"]) for e in g["edges"]]

    # notes are not messages; a two-headed message is undirected
    assert shape(got[0].graph) == (["Alice", "Bob"], [
        ("Alice", "Bob", True, "Hi"), ("Bob", "Alice", True, "Bye"),
        ("Alice", "Bob", False, "sync")])
    # the inheritance arrow points at the parent
    assert shape(got[1].graph) == (["Animal", "Duck", "Pond"], [
        ("Duck", "Animal", True, "is"), ("Duck", "Pond", False, "")])
    assert shape(got[2].graph) == (["", "", "Still"], [("", "Still", True, ""),
                                                       ("Still", "", True, "stop")])
    assert shape(got[3].graph) == (["CUSTOMER", "ORDER"],
                                   [("CUSTOMER", "ORDER", False, "places")])
    assert got[4].graph is None
    assert "Parse error" in got[5].error


def test_a_hostile_diagram_is_contained(renderer):
    """Directives cannot loosen security or turn HTML labels on; no handler or link runs;
    what the page asks for outside the package is refused."""
    res = renderer.render_many(["""%%{init: {"securityLevel": "loose", "htmlLabels": true,
  "flowchart": {"htmlLabels": true}, "maxEdges": 100000}}%%
flowchart LR
  A["<img src=x onerror=window.dfPwned=1> hi"] --> B
  click A call dfPwn()
  click B "javascript:window.dfPwned=2"
"""])[0]
    assert res.ok, res.error
    assert "foreignObject" not in res.svg and "onerror" not in res.svg
    assert "javascript:" not in res.svg
    assert renderer._page.evaluate("() => window.dfPwned === undefined")
    big = "flowchart LR\n" + "".join(f" n{i} --> n{i + 1}\n" for i in range(60))
    res = renderer.render_many([big])[0]
    assert not res.ok and "limit" in res.error  # maxEdges is a secure key: still 50
    assert all(not u.startswith("http://127.0.0.1") or "/x" not in u
               for u in renderer.blocked)


def test_renders_repeat(renderer):
    text = "mindmap\n  root((Plan))\n    A\n    B\n      C\n"
    a, b = renderer.render_many([text, text])
    assert a.ok and a.svg == b.svg and a.png == b.png
