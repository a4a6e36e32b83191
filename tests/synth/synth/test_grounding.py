"""QA grounded in what the picture is (issue 50): graph questions only of pictures that are
graphs, chart questions from the chart's own data, sequence questions of the messages in
order, one right answer per question and unique ids by construction."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from diagramforge.formats.plantuml import engine as plantuml_engine
from diagramforge.formats.registry import instantiate
from diagramforge.formats.tikz.graph.pgfplots import evaluate, read_charts
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.runner import run_stage
from diagramforge.store.paths import metrics_path, stage_paths
from diagramforge.store.records import REJECTION_SCHEMA, empty_record
from diagramforge.store.shards import ShardSet
from diagramforge.synth.synth import qa, qa_chart
from diagramforge.synth.synth.facts import facts_of
from diagramforge.synth.synth.qa import Ground
from diagramforge.synth.synth.qa_common import Question
from diagramforge.synth.synth.stage import SYNTH_SCHEMA, SynthStage
from tests.conftest import needs_browser, seed_stage
from tests.synth.synth.conftest import make_params

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "text"


def _run(params) -> tuple[list[dict], list[dict], dict]:  # noqa: ANN001
    run_stage(SynthStage(params))
    rows = ShardSet(stage_paths(params, "synth").records, SYNTH_SCHEMA).read_all().to_pylist()
    rej = ShardSet(stage_paths(params, "synth").rejections,
                   REJECTION_SCHEMA).read_all().to_pylist()
    return rows, rej, json.loads(metrics_path(params, "synth").read_text())["extra"]


@needs_browser
def test_a_sequence_diagram_is_asked_about_its_messages_in_order_with_unique_ids(tmp_path):
    """The reported failure: a Mermaid sequence diagram with two messages from A to B
    ("nope", "try") was asked "What is the label of the connection from A to B?" twice, as
    two rows with one id, and validate failed the release.  Its graph is Mermaid's own
    parse, through the real handler."""
    params = make_params(tmp_path, tasks=["qa"], qa_per_type=10)
    code = (FIXTURES / "sequence-retry.mmd").read_text()
    handler = instantiate(params, lambda r: r["id"])["mermaid"]
    try:
        graph = handler.to_graph({"id": "seq", "format": "mermaid", "code": code})
    finally:
        handler.close()
    assert graph is not None and {n.shape for n in graph.nodes} == {"actor"}
    # asked as a graph, it had two "label of the connection from A to B" questions with one
    # key (elabel:A:B) and two right answers; parallel edges are never asked that now
    facts = facts_of({"graph": graph.to_json()})[0]
    assert facts is not None
    old = [x for x in qa.identification(facts, random.Random(0), 3)
           if x.text.startswith("What is the label")]
    assert old == []  # parallel edges: the label question is not asked at all
    seed_stage(params, "split", [empty_record(id="seq", format="mermaid", code=code,
                                              graph=graph.to_json(), diagram_type="uml",
                                              split="train")])
    rows, rej, extra = _run(params)
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)) and rows
    assert {r["grounding"] for r in rows} == {"sequence"}
    assert extra["qa_grounding.sequence"] == 1
    by_text = {r["template_question"]: r["answer"] for r in rows}
    assert by_text.get("What is the first message of the sequence diagram?", "nope") == "nope"
    nth = {t: a for t, a in by_text.items() if t.endswith('from "Installer" to "API server"?')}
    expected = {"1st": "nope", "2nd": "try", "3rd": "nope"}
    assert nth and all(a == expected[t.split()[3]] for t, a in nth.items())
    back = {t: a for t, a in by_text.items() if 'from "API server" to "Installer"' in t}
    assert all(a == {"1st": "401", "2nd": "200 OK"}[t.split()[3]] for t, a in back.items())
    # "nope" is sent twice: never "Who sends "nope"?"; the others name their sender
    assert 'Who sends "nope"?' not in by_text
    for t, a in by_text.items():
        if t.startswith("Who sends"):
            assert a == {"try": "Installer", "401": "API server",
                         "200 OK": "API server"}[t.split('"')[1]]
    assert not [r for r in rej if r["reason"] == qa.NOT_UNIQUE]


@pytest.mark.skipif(plantuml_engine.find_java() is None, reason="plantuml not installed")
def test_a_plantuml_sequence_diagram_gets_the_same_questions_from_plantuml_s_model(tmp_path):
    """PlantUML's model lists a sequence diagram's messages in the order sent, as Mermaid's
    parse does (its ``sequence`` capability): the same diagram — a reply written ``A <-- B``,
    a title and a note beside the participants — is asked the same questions with the same
    answers, and the title is never a participant to choose among."""
    params = make_params(tmp_path, tasks=["qa"], qa_per_type=10)
    code = (FIXTURES / "sequence-retry.puml").read_text()
    handler = instantiate(params, lambda r: r["id"])["plantuml"]
    try:
        out = handler.render([{"id": "seq", "format": "plantuml", "code": code}])
    finally:
        handler.close()
    (rec,) = out.records
    graph = Graph.from_json(rec["graph"])
    assert {n.shape for n in graph.nodes} == {"actor", "text"}  # the title is a text node
    seed_stage(params, "split", [empty_record(id="seq", format="plantuml", code=code,
                                              graph=rec["graph"], diagram_type="uml",
                                              split="train")])
    rows, rej, extra = _run(params)
    assert rows and {r["grounding"] for r in rows} == {"sequence"}
    assert extra["qa_grounding.sequence"] == 1
    by_text = {r["template_question"]: r["answer"] for r in rows}
    assert by_text["What is the first message of the sequence diagram?"] == "nope"
    nth = {t: a for t, a in by_text.items() if t.endswith('from "Installer" to "API server"?')}
    assert nth and all(a == {"1st": "nope", "2nd": "try", "3rd": "nope"}[t.split()[3]]
                       for t, a in nth.items())
    back = {t: a for t, a in by_text.items() if 'from "API server" to "Installer"' in t}
    assert back and all(a == {"1st": "401", "2nd": "200 OK"}[t.split()[3]]
                        for t, a in back.items())
    senders = {t.split('"')[1]: a for t, a in by_text.items() if t.startswith("Who sends")}
    assert senders and 'nope' not in senders
    assert all(a == {"try": "Installer", "401": "API server", "200 OK": "API server"}[m]
               for m, a in senders.items())
    for r in rows:
        assert "Retry" not in json.loads(r["choices"])
    assert not [r for r in rej if r["reason"] == qa.NOT_UNIQUE]


def test_questions_with_two_right_answers_or_one_key_are_dropped_before_any_call():
    a = Question("identification", "k1", "Which?", "which", "x", ["y"])
    b = Question("identification", "k2", "Which?", "which", "y", ["x"])
    c = Question("counting", "k3", "How many?", "count", "2", ["1"])
    d = Question("counting", "k3", "How many more?", "count", "3", ["1"])
    kept, dropped = qa.one_answer([a, b, c, d])
    assert kept == []
    assert {x.key for x, _ in dropped} == {"k1", "k2", "k3"}
    assert any("2 right answers" in why for _, why in dropped)
    kept, dropped = qa.one_answer([a, c])
    assert kept == [a, c] and dropped == []


def test_untyped_and_non_graph_pictures_get_no_graph_questions(tmp_path):
    """A bar chart's graph is its tick labels: "Are "model" and "40" directly connected?"
    is not a question about the picture.  Typed a chart, or untyped, it gets none."""
    params = make_params(tmp_path, tasks=["captioning", "qa"])
    g = Graph(nodes=[Node(id="a", text="model"), Node(id="b", text="40"),
                     Node(id="c", text="baseline")],
              edges=[Edge(source="a", target="b"), Edge(source="c", target="b")])
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="90" height="90">'
           '<text x="1" y="10">model</text><text x="1" y="30">40</text>'
           '<text x="1" y="50">baseline</text></svg>')
    seed_stage(params, "split", [
        empty_record(id="bar", format="svg", code=svg, graph=g.to_json(),
                     diagram_type="bar_chart", split="train"),
        empty_record(id="untyped", format="svg", code=svg, graph=g.to_json(), split="train"),
        empty_record(id="flow", format="svg", code=svg, graph=g.to_json(),
                     diagram_type="flowchart", split="train")])
    rows, _, extra = _run(params)
    qa_rows = [r for r in rows if r["config"] == "qa"]
    assert {r["diagram_id"] for r in qa_rows} == {"flow"}
    assert {r["diagram_id"] for r in rows if r["config"] == "captioning"} == {
        "bar", "untyped", "flow"}
    assert extra["not_selected.qa.not_a_graph"] == 2 and extra["qa_grounding.graph"] == 1


def test_a_graph_whose_render_shows_text_it_lacks_is_not_grounded(tmp_path):
    params = make_params(tmp_path, tasks=["qa"])
    g = Graph(nodes=[Node(id="a", text="Load"), Node(id="b", text="Train")],
              edges=[Edge(source="a", target="b")])
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="90" height="90">'
           + "".join(f'<text x="1" y="{10 * k}">{t}</text>' for k, t in enumerate(
               ["Load", "Train", "accuracy", "epochs", "loss"], start=1)) + "</svg>")
    seed_stage(params, "split", [empty_record(id="p", format="svg", code=svg,
                                              graph=g.to_json(), diagram_type="flowchart",
                                              split="train")])
    rows, _, extra = _run(params)
    assert rows == [] and extra["not_selected.qa.graph_incomplete"] == 1


CHART = r"""\documentclass{standalone}
\usepackage{pgfplots}
\pgfplotsset{compat=1.18}
\begin{document}
\begin{tikzpicture}
\begin{axis}[xlabel={Epoch}, ylabel={Accuracy}, title={Training}]
\addplot coordinates {(1,0.52) (2,0.61) (3,0.74) (4,0.80)};
\addlegendentry{train}
\addplot[domain=0:4, samples=20] {1/(1+exp(-x))};
\addlegendentry{sigmoid}
\end{axis}
\end{tikzpicture}
\end{document}
"""


def test_the_chart_reader_reads_coordinates_tables_and_expressions():
    (chart,) = read_charts(CHART)
    assert (chart.xlabel, chart.ylabel, chart.title) == ("Epoch", "Accuracy", "Training")
    assert chart.legend == ["train", "sigmoid"]
    assert chart.series[0].points == [(1.0, 0.52), (2.0, 0.61), (3.0, 0.74), (4.0, 0.80)]
    assert chart.series[1].expression == "1/(1+exp(-x))" and chart.series[1].domain == (0, 4)
    inline = read_charts(r"\begin{axis}\addplot table[x=a, y=b] {c a b \\ 9 1 5 \\ 9 2 7 \\};"
                         r"\end{axis}")[0]
    assert inline.series[0].points == [(1.0, 5.0), (2.0, 7.0)]
    csv_file = read_charts(r"\begin{axis}\addplot table[x=t, y=v, col sep=comma] {d.csv};"
                           r"\end{axis}", {"d.csv": b"t,v\n0,3\n1,4\n"})[0]
    assert csv_file.series[0].points == [(0.0, 3.0), (1.0, 4.0)]
    bars = read_charts(r"\begin{axis}[symbolic x coords={model,base}]"
                       r"\addplot coordinates {(model,40) (base,25)};\end{axis}")[0]
    assert bars.series[0].points == [("model", 40.0), ("base", 25.0)]


@pytest.mark.parametrize(("expr", "x", "value"), [
    ("x^2", 3, 9.0), ("-x^2", 2, -4.0), ("2*x^2+1", 2, 9.0), ("1/(1+exp(-x))", 0, 0.5),
    ("cos(deg(x))", 0, 1.0), ("sin(90)", None, 1.0), ("max(0, x)", -1, 0.0),
    ("\\x^2", 2, 4.0), ("2^3^2", None, 512.0)])
def test_pgfmath_expressions_are_evaluated_as_pgfmath_does(expr, x, value):
    assert evaluate(expr, x) == pytest.approx(value)


@pytest.mark.parametrize("expr", ["__import__('os')", "f", "x > 1 ? 1 : 0", "ln(0)",
                                  "1/0", "exp(x)(", "y^2"])
def test_what_the_restricted_grammar_does_not_read_is_not_evaluated(expr):
    assert evaluate(expr, 1.0) is None


def test_chart_questions_answer_from_the_data_and_quote_only_what_the_render_shows():
    (chart,) = read_charts(CHART)
    f = facts_of({"graph": Graph(nodes=[Node(id="a", text="Epoch")]).to_json()})[0]
    assert f is not None
    shown = {"Epoch", "Accuracy", "Training", "train", "sigmoid"}
    ground = Ground(qa.CHART, f, chart, lambda t: t in shown)
    rng = random.Random(1)
    got = {x.key: x for gen in qa_chart.GENERATORS.values() for x in gen(chart, ground.shows,
                                                                          rng, 3)}
    assert got["axis:x"].answer == "Epoch" and got["axis:y"].answer == "Accuracy"
    assert got["legend"].answer == "2" and got["series"].answer == "2"
    train = next(x for k, x in got.items() if k.startswith("value:train:"))
    x = float(train.key.rsplit(":", 1)[1])
    assert train.answer == qa_chart.fmt(dict(chart.series[0].points)[x])
    sig = next(x for k, x in got.items() if k.startswith("value:sigmoid:"))
    x = float(sig.key.rsplit(":", 1)[1])
    assert x in (0.0, 1.0, 2.0, 3.0, 4.0)
    assert sig.answer == qa_chart.fmt(1 / (1 + __import__("math").exp(-x)))
    # a label the render does not show is never asked about
    hidden = Ground(qa.CHART, f, chart, lambda t: t != "Epoch")
    assert "axis:x" not in {x.key for x in qa_chart.axes(chart, hidden.shows, rng, 3)}


def test_a_pgfplots_chart_gets_chart_questions_through_its_real_render(tmp_path):
    """The TikZ handler exports the chart's page (pdflatex, PyMuPDF): its axis labels and
    legend are read off the render before they are quoted."""
    params = make_params(tmp_path, tasks=["qa"])
    seed_stage(params, "split", [empty_record(
        id="chart", format="tikz", code=CHART, diagram_type="line_chart", split="train",
        graph=Graph(nodes=[Node(id="e", text="Epoch"), Node(id="a", text="Accuracy")]
                    ).to_json())])
    rows, _, extra = _run(params)
    assert rows and {r["grounding"] for r in rows} == {"chart"}
    assert extra["qa_grounding.chart"] == 1
    by_key = {r["template_question"]: r["answer"] for r in rows}
    assert by_key.get("What is the label of the x-axis?", "Epoch") == "Epoch"
    assert by_key.get("How many entries does the legend have?", "2") == "2"
    assert {r["qa_type"] for r in rows} <= {"chart_axes", "chart_series", "chart_values"}
    assert not any("connect" in r["template_question"] for r in rows)


def test_an_item_id_met_twice_is_ledgered_before_any_call(tmp_path, monkeypatch):
    """Ids are unique by construction; should two items of one config share one anyway,
    the second is a ledger row (synth_duplicate_id), never a failed validation."""
    from diagramforge.synth.synth import stage as synth_stage
    from tests.synth.synth.conftest import diagrams

    params = make_params(tmp_path, tasks=["qa"])
    seed_stage(params, "split", diagrams())
    real = synth_stage.qa.items

    def twice(row, ground, p):  # noqa: ANN001, ANN202 - the real items, each planned twice
        got, dropped = real(row, ground, p)
        return got + got[:1], dropped

    monkeypatch.setattr(synth_stage.qa, "items", twice)
    rows, rej, _ = _run(params)
    ids = [r["id"] for r in rows]
    assert rows and len(ids) == len(set(ids))
    dup = [r for r in rej if r["reason"] == synth_stage.DUPLICATE]
    assert len(dup) == len({r["diagram_id"] for r in rows})


def test_bare_texts_joined_by_lines_are_no_graph():
    """The geometric reading of a geometry figure joins "r" and "α" by the radius between
    them; typed a graph by its kind, it is still labels on a picture."""
    from diagramforge.formats.grounding import picture_check

    g = Graph(nodes=[Node(id="n0", text="r", shape="text"), Node(id="n1", text="α",
                                                                  shape="text")],
              edges=[Edge(source="n1", target="n0", directed=False)])
    v = picture_check({"diagram_type": "graph", "format": "tikz"}, g)
    assert v is not None and v.reason == "not_a_graph" and "bare texts" in v.detail
    boxed = g.model_copy(update={"nodes": [n.model_copy(update={"shape": "circle"})
                                           for n in g.nodes]})
    assert picture_check({"diagram_type": "graph", "format": "tikz"}, boxed) is None


def test_segments_between_labels_are_no_graph():
    """Axes x1–x2 and a figure's sides a1–a2, b1–b2 read as edges: no node joins two, so
    they are segments between labels; a two-box diagram A → B is still a graph."""
    from diagramforge.formats.grounding import picture_check

    rec = {"diagram_type": "graph", "format": "tikz"}
    pairs = Graph(nodes=[Node(id=i, text=i) for i in ("x1", "x2", "a1", "a2", "b1", "b2")],
                  edges=[Edge(source="x2", target="x1"), Edge(source="a1", target="a2"),
                         Edge(source="b1", target="b2")])
    v = picture_check(rec, pairs)
    assert v is not None and v.reason == "not_a_graph" and "segments" in v.detail
    two = Graph(nodes=[Node(id="a", text="Input"), Node(id="b", text="Output")],
                edges=[Edge(source="a", target="b")])
    assert picture_check(rec, two) is None
    chain = pairs.model_copy(update={"edges": [*pairs.edges, Edge(source="x1", target="a1")]})
    assert picture_check(rec, chain) is None


def test_values_are_asked_only_where_the_axis_shows_them_and_of_a_series_named_once():
    """cos x and x plotted over -8:8 on an axis cut to 0:π, legend "$\\cos x$", "$x$": both
    entries read "x" here, so neither names a series; and no x outside 0:π is asked."""
    (chart,) = read_charts(r"\begin{axis}[xmin=0, xmax=pi, ymin=-1, ymax=1]"
                           r"\addplot[domain=-8:8] {cos(deg(x))};\addplot[domain=-8:8] {x};"
                           r"\legend{$\cos x$, $x$}\end{axis}")
    assert (chart.xmin, chart.xmax) == (0.0, pytest.approx(3.14159, abs=1e-4))
    assert chart.named() == []
    assert qa_chart.values(chart, lambda t: True, random.Random(0), 3) == []
    (one,) = read_charts(r"\begin{axis}[xmin=0, xmax=pi]\addplot[domain=-8:8] {cos(deg(x))};"
                         r"\end{axis}")
    for seed in range(10):
        (q,) = qa_chart.values(one, lambda t: True, random.Random(seed), 3)
        x = float(q.key.rsplit(":", 1)[1])
        assert 0 <= x <= 3.1416
