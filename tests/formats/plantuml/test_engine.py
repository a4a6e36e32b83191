"""PlantUML itself, several diagrams per JVM: each diagram's answer is its own (a broken or
endless one fails alone), PlantUML's safe mode and the sandbox hold even for text the
checks never saw, and the graph is PlantUML's own model of what it drew."""

from __future__ import annotations

import pytest

from diagramforge.formats.plantuml import engine, graph

pytestmark = pytest.mark.skipif(engine.find_java() is None,
                                reason="plantuml not installed (./dev setup installs it)")

CLASS = """@startuml
package shapes {
  abstract class Shape
  class Circle
  interface Drawable
}
Shape <|-- Circle
Drawable <|.. Circle
Circle "1" *-- "many" Point : center
Point -- Line
Point -[hidden]- Shape
@enduml
"""
SEQUENCE = """@startuml
actor User
participant "Web Server" as W
User -> W : login
W --> User : page
User <- W : again
W <-> User : sync
[-> W : found
note right: not a message
@enduml
"""
STATE = """@startuml
[*] --> Idle
Idle --> Running : start
state Running {
  [*] --> Fast
  Fast --> Slow : tire
}
Running --> [*]
@enduml
"""
USECASE = """@startuml
actor "Bank Clerk" as Clerk
rectangle Bank {
  usecase "Withdraw" as UC1
}
Clerk --> UC1
@enduml
"""


@pytest.fixture(scope="module")
def drawn():
    codes = [CLASS, SEQUENCE, "@startuml\nthis is { not plantuml\n@enduml\n", STATE, USECASE]
    return engine.draw_many(codes)


def test_each_diagram_of_a_batch_answers_for_itself(drawn):
    assert [d.kind for d in drawn] == ["CLASS", "SEQUENCE", "", "STATE", "DESCRIPTION"]
    bad = drawn[2].error
    assert bad is not None and bad.reason == engine.PumlReason.MALFORMED
    assert "line 2" in bad.detail
    assert all(d.svg.startswith("<?xml") for k, d in enumerate(drawn) if k != 2)


def test_class_relations_point_where_the_heads_are(drawn):
    g = graph.model_graph("CLASS", drawn[0].model, drawn[0].svg)
    assert {(n.id, n.text, n.shape) for n in g.nodes} >= {
        ("Shape", "Shape", "rectangle"), ("shapes", "shapes", "container")}
    got = {(e.source, e.target, e.label, e.directed) for e in g.edges}
    # the triangle is at the parent, the diamond at the whole; a hidden link is not drawn;
    # the end labels (multiplicities) follow the middle one
    assert got == {("Circle", "Shape", "", True), ("Circle", "Drawable", "", True),
                   ("Point", "Circle", "center\n1\nmany", True), ("Point", "Line", "", False)}
    circle = next(n for n in g.nodes if n.id == "Circle")
    assert circle.bbox is not None and circle.bbox[2] > 20


def test_a_sequence_is_its_participants_and_messages_in_order(drawn):
    g = graph.model_graph("SEQUENCE", drawn[1].model)
    assert [(n.id, n.text, n.shape) for n in g.nodes] == [
        ("User", "User", "actor"), ("W", "Web Server", "actor")]
    assert [(e.source, e.target, e.label, e.directed, e.both_heads) for e in g.edges] == [
        ("User", "W", "login", True, False), ("W", "User", "page", True, False),
        ("W", "User", "again", True, False), ("W", "User", "sync", False, True)]


def test_nested_states_are_read_from_the_model_not_the_folded_drawing(drawn):
    g = graph.model_graph("STATE", drawn[3].model, drawn[3].svg)
    texts = {n.id: n.text for n in g.nodes}
    assert texts["Fast"] == "Fast" and texts["Running"] == "Running"
    assert texts["*start"] == "" and texts["*end"] == ""  # pseudo-states draw no text
    assert ("Fast", "Slow", "tire") in {(e.source, e.target, e.label) for e in g.edges}
    assert next(n for n in g.nodes if n.id == "Idle").bbox is not None


def test_use_cases_and_actors_have_their_drawn_boxes(drawn):
    g = graph.model_graph("DESCRIPTION", drawn[4].model, drawn[4].svg)
    shapes = {n.text: (n.shape, n.bbox) for n in g.nodes}
    # a use case's actor is draw.io's stick figure, not a sequence's lifeline
    assert shapes["Bank Clerk"][0] == "umlActor" and shapes["Withdraw"][0] == "ellipse"
    assert all(box is not None for _, box in shapes.values())


def test_the_engine_refuses_to_reach_outside_even_unchecked(tmp_path):
    """The text checks are the first wall: PlantUML's own safe mode and the sandbox hold
    for what slipped past them (a file, a URL, the environment)."""
    secret = tmp_path / "secret.puml"
    secret.write_text("A -> B : TOP SECRET\n")
    codes = [f"@startuml\n!include {secret}\nA -> B\n@enduml\n",
             "@startuml\n!includeurl http://127.0.0.1:9/x.puml\nA -> B\n@enduml\n",
             '@startuml\nA -> B : [%getenv("PATH")]\n@enduml\n']
    inc, url, env = engine.draw_many(codes)
    assert inc.error is not None and "cannot include" in inc.error.detail
    assert url.error is not None and "Cannot open URL" in url.error.detail
    assert env.error is None and "/usr/bin" not in env.svg and "[]" in env.svg
    assert all("TOP SECRET" not in d.svg for d in (inc, url, env))


def test_an_endless_diagram_is_killed_alone_and_the_rest_still_drawn():
    dense = "\n".join(["@startuml", "class C0"] + [
        f"C{i} --> C{j}" for i in range(70) for j in range(i + 1, 70) if (i * j) % 3 == 0]
        + ["@enduml", ""])
    ok = "@startuml\nA -> B : {}\n@enduml\n"
    out = engine.draw_many([ok.format("before"), dense, ok.format("after")], timeout_s=1)
    assert out[1].error is not None and out[1].error.reason == engine.PumlReason.TIMEOUT
    assert "CPU-s" in out[1].error.detail
    assert [d.kind for d in (out[0], out[2])] == ["SEQUENCE", "SEQUENCE"]
    assert "after" in out[2].svg


def test_an_activity_is_the_flow_plantuml_draws_from_its_instructions():
    code = """@startuml
start
:read input;
if (valid?) then (yes)
  fork
    :log;
  fork again
    :store;
  end fork
else (no)
  :report error;
  stop
endif
while (more?) is (yes)
  :next;
endwhile (done)
stop
@enduml
"""
    d = engine.draw_many([code])[0]
    g = graph.model_graph(d.kind, d.model, d.svg)
    text = {n.id: n.text for n in g.nodes}
    edges = {(text[e.source] or e.source, text[e.target] or e.target, e.label)
             for e in g.edges}
    shapes = {n.text: n.shape for n in g.nodes if n.text}
    assert shapes == {"read input": "rounded", "valid?": "hexagon", "log": "rounded",
                      "store": "rounded", "report error": "rounded", "more?": "hexagon",
                      "next": "rounded"}
    assert {("valid?", "report error", "no"), ("more?", "next", "yes"),
            ("next", "more?", "")} <= edges
    bars = [n.id for n in g.nodes if n.shape == "rectangle" and not n.text]
    assert len(bars) == 2  # the fork and its join
    assert ("log", bars[1], "") in edges and ("store", bars[1], "") in edges
    # the error branch stops: it never reaches the loop; the loop's exit reaches the end
    assert not any(s == "report error" and t == "more?" for s, t, _ in edges)
    ends = [n.id for n in g.nodes if n.shape == "circle"]
    assert len(ends) == 3 and ("more?", ends[-1], "done") in edges


def test_a_socket_a_ball_and_crows_feet_are_no_arrow_heads():
    """A line ending in an interface's socket ``-(``, or an entity's crow's feet, points at
    nothing a person would follow: undirected; a real arrow beside it stays directed."""
    component = """@startuml
interface IMath
[Business Logic] --( IMath
[Web] --> [Business Logic]
@enduml
"""
    entities = """@startuml
entity Customer
entity Order
Customer ||--o{ Order
Order --> Customer : placed by
@enduml
"""
    drawn = engine.draw_many([component, entities])
    got = []
    for d in drawn:
        g = graph.model_graph(d.kind, d.model, d.svg)
        text = {n.id: n.text.split("\n")[0] for n in g.nodes}
        got.append({(text[e.source], text[e.target], e.directed) for e in g.edges})
    assert ("Business Logic", "IMath", False) in got[0]
    assert ("Web", "Business Logic", True) in got[0]
    assert {d for *_, d in got[1]} == {False, True}
    assert ("Order", "Customer", True) in got[1]


def test_the_compiled_driver_draws_what_its_source_drew(monkeypatch):
    """Each JVM runs the driver compiled once (0.43 CPU-s a start against 1.05 for
    ``java DfPlantUML.java``): the same program, so the same drawing, byte for byte."""
    assert engine.compiled_driver() is not None  # the JRE's own compiler (java Foo.java)
    codes = [CLASS, SEQUENCE, "@startuml\nthis is { not plantuml\n@enduml\n"]
    compiled = engine._draw_fresh(codes, 20.0, 1536)
    monkeypatch.setattr(engine, "compiled_driver", lambda: None)
    source = engine._draw_fresh(codes, 20.0, 1536)
    for c, s in zip(compiled, source, strict=True):
        assert (c.svg, c.kind, c.model, c.images) == (s.svg, s.kind, s.model, s.images)
        assert (c.error and c.error.detail) == (s.error and s.error.detail)
    assert compiled[0].svg and compiled[2].error is not None


def test_a_diagram_alone_is_cached_and_a_batch_is_drawn_as_given(tmp_path, monkeypatch):
    """PlantUML numbers a concurrent state's regions with a counter global to the JVM; the
    driver sets it back before each diagram, so the same diagram drawn second in a JVM has
    the ids (and the SVG) it has drawn alone. Only a diagram drawn alone is kept: the cache (one per
    build, ``<data_dir>/cache/plantuml``) gives back what PlantUML drew alone, failures of
    the code included, without a JVM, and a batch is always drawn as it is given. A JVM
    that failed for another reason is not kept (it may have failed for the machine's)."""
    from collections import OrderedDict

    monkeypatch.setattr(engine, "_CACHE", None)
    monkeypatch.setattr(engine, "_MEMO", OrderedDict())
    engine.use_cache(tmp_path / "cache")
    conc = "@startuml\nstate A {\n  [*] -> B\n  --\n  [*] -> C\n}\n@enduml\n"
    broken = "@startuml\nthis is { not plantuml\n@enduml\n"
    first = [engine.draw_many([code])[0] for code in (conc, broken)]
    assert first[1].error.reason == engine.PumlReason.MALFORMED
    batch = engine.draw_many([conc, conc])
    assert batch[0].model == first[0].model and batch[0].svg == first[0].svg
    # PlantUML's JVM-global counter (a concurrent state's CONC<n> ids) is set back before
    # each diagram: the second is drawn as it is drawn alone, not with the next ids
    assert batch[1].model == first[0].model and batch[1].svg == first[0].svg
    monkeypatch.setattr(engine, "_MEMO", OrderedDict())  # a new process: only the disk

    def no_jvm(*_a, **_k):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("a JVM was started")

    monkeypatch.setattr(engine, "_draw_fresh", no_jvm)
    again = [engine.draw_many([code])[0] for code in (conc, broken)]
    for a, b in zip(first, again, strict=True):
        assert (a.svg, a.kind, a.model, a.images) == (b.svg, b.kind, b.model, b.images)
        assert (a.error and (a.error.reason, a.error.detail)) == \
            (b.error and (b.error.reason, b.error.detail))
    with pytest.raises(AssertionError, match="JVM"):  # other limits: another key
        engine.draw_many([conc], timeout_s=5)
    with pytest.raises(AssertionError, match="JVM"):  # a batch: drawn, never looked up
        engine.draw_many([conc, broken])
    failed = engine.Drawn(error=engine.PumlError(engine.PumlReason.FAILED, "exit 137"))
    engine._keep("k", failed)
    assert engine._cached("k") is None


def test_a_jvm_failed_for_the_machine_is_tried_again(tmp_path, monkeypatch):
    """Neither the process nor the cache keeps a failure that is not the code's or the
    CPU budget's (a JVM killed by the machine): the next ask starts a JVM again."""
    from collections import OrderedDict

    monkeypatch.setattr(engine, "_CACHE", None)
    monkeypatch.setattr(engine, "_MEMO", OrderedDict())
    engine.use_cache(tmp_path / "cache")
    runs = []

    def failing(codes, *_a):  # noqa: ANN001, ANN002, ANN202
        runs.append(codes)
        return [engine.Drawn(error=engine.PumlError(engine.PumlReason.FAILED, "exit 137"))]

    monkeypatch.setattr(engine, "_draw_fresh", failing)
    for _ in range(2):
        assert engine.draw_many([SEQUENCE])[0].error.reason == engine.PumlReason.FAILED
    assert len(runs) == 2


def test_the_compiled_driver_is_kept_where_only_its_user_writes(tmp_path, monkeypatch):
    """The class every JVM runs is kept beside the build's drawings, or in the user's own
    cache — never at a fixed path under a shared temp dir, where another user could put a
    class of theirs first."""
    monkeypatch.setattr(engine, "_CACHE", None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    engine.compiled_driver.cache_clear()
    try:
        alone = engine.compiled_driver()
        assert alone is not None and alone.is_relative_to(tmp_path / "xdg" / "diagramforge")
        engine.use_cache(tmp_path / "build")
        engine.compiled_driver.cache_clear()
        built = engine.compiled_driver()
        assert built is not None and built.is_relative_to(tmp_path / "build" / "driver")
    finally:
        engine.compiled_driver.cache_clear()
