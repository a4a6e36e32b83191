from __future__ import annotations

import json
from pathlib import Path

import pytest

from diagramforge.formats.mxgraph.graph import mxgraph_graph
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.score import (
    execution_success,
    match_nodes,
    normalise_text,
    score_graphs,
)
from diagramforge.tools.graph_files import main, score_files

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "mxgraph"


def _g(nodes: dict[str, str], edges: list[tuple[str, str]], directed: bool = True) -> Graph:
    return Graph(nodes=[Node(id=k, text=v) for k, v in nodes.items()],
                 edges=[Edge(source=s, target=t, directed=directed) for s, t in edges])


REF = _g({"a": "Load data", "b": "Train model", "c": "Evaluate", "d": "Deploy"},
         [("a", "b"), ("b", "c"), ("c", "d")])


def test_normalise_text() -> None:
    assert normalise_text("  Load\n DATA!! ") == "load data"
    assert normalise_text("ｆｕｌｌ－width") == "full width"
    # spaces around math operators are typography; the operators themselves count
    assert normalise_text("A ∩ B") == normalise_text("A∩B") == "a∩b"
    assert normalise_text("x + y") == "x+y" != normalise_text("x y")
    assert normalise_text("i++") != normalise_text("++i")


def test_hand_made_pair() -> None:
    pred = _g({"x": "load  Data!", "y": "Train models", "z": "Evaluation", "q": "Deploy"},
              [("x", "y"), ("y", "z"), ("z", "q"), ("q", "x")])
    # Matching (threshold 0.8):
    #   x "load data" = a exactly (1.0); y "trainmodels" ~ b "trainmodel": 2*10/21 = 0.952;
    #   q = d exactly; z "evaluation" ~ c "evaluate": 2*7/18 = 0.778 < 0.8, unmatched.
    assert match_nodes(pred, REF) == {"x": "a", "y": "b", "q": "d"}
    s = score_graphs(pred, REF)
    # nodes: TP 3 of 4 predicted, 4 reference -> P = R = F1 = 0.75
    assert (s["node_precision"], s["node_recall"], s["node_f1"]) == (0.75, 0.75, 0.75)
    # edges: x→y is a→b (hit); y→z and z→q touch unmatched z; q→x is d→a, not in ref.
    # TP 1, P = 1/4, R = 1/3, F1 = 2*(1/12)/(7/12) = 2/7
    assert (s["edge_tp"], s["edge_pred"], s["edge_ref"]) == (1, 4, 3)
    assert s["edge_precision"] == pytest.approx(1 / 4)
    assert s["edge_recall"] == pytest.approx(1 / 3)
    assert s["edge_f1"] == pytest.approx(2 / 7)
    # paths on matched nodes only: pred induced on {x,y,q} has x→y, q→x, so reachable
    # pairs (x,y), (q,x), (q,y) = (a,b), (d,a), (d,b); ref induced on {a,b,d} has only a→b
    # (b→c→d runs through unmatched c).  TP 1, P = 1/3, R = 1, F1 = 0.5
    assert (s["path_tp"], s["path_pred"], s["path_ref"]) == (1, 3, 1)
    assert s["path_f1"] == pytest.approx(0.5)
    # SciFlow graph score: 0.4 * 0.75 + 0.6 * 2/7
    assert s["graph_score"] == pytest.approx(0.3 + 1.2 / 7)


def test_identical_graphs_score_one_and_threshold_matters() -> None:
    s = score_graphs(REF, REF)
    assert all(s[f"{k}_f1"] == 1.0 for k in ("node", "edge", "path"))
    # ref paths: a→b, a→c, a→d, b→c, b→d, c→d = 6 pairs
    assert s["path_ref"] == 6
    renamed = _g({"1": "Load dataset", "2": "Train model", "3": "Evaluate", "4": "Deploy"},
                 [("1", "2"), ("2", "3"), ("3", "4")])
    # "loaddataset" ~ "loaddata" (spaces do not count): 2*8/19 = 0.842: matches at 0.8,
    # not at 0.9
    assert score_graphs(renamed, REF)["node_tp"] == 4
    assert score_graphs(renamed, REF, threshold=0.9)["node_tp"] == 3


def test_empty_graphs() -> None:
    empty = Graph()
    s = score_graphs(empty, empty)
    assert (s["node_f1"], s["edge_f1"], s["path_f1"]) == (1.0, 1.0, 1.0)
    s = score_graphs(empty, REF)
    assert (s["node_precision"], s["node_recall"], s["node_f1"]) == (0.0, 0.0, 0.0)
    assert s["edge_f1"] == 0.0 and s["graph_score"] == 0.0


def test_reversed_edge_is_wrong_unless_undirected() -> None:
    ref = _g({"a": "A", "b": "B"}, [("a", "b")])
    back = _g({"p": "A", "q": "B"}, [("q", "p")])
    assert score_graphs(back, ref)["edge_tp"] == 0
    # reachability is directed too: (b, a) predicted, (a, b) expected
    assert (score_graphs(back, ref)["path_tp"], score_graphs(back, ref)["path_pred"]) == (0, 1)
    loose = _g({"p": "A", "q": "B"}, [("q", "p")], directed=False)
    s = score_graphs(loose, ref)
    # an undirected edge matches either way; it reaches both ways, so path P = 1/2
    assert s["edge_tp"] == 1
    assert (s["path_tp"], s["path_pred"], s["path_ref"]) == (1, 2, 1)


def test_duplicate_edges_count_once() -> None:
    ref = _g({"a": "A", "b": "B"}, [("a", "b")])
    twice = _g({"a": "A", "b": "B"}, [("a", "b"), ("a", "b")])
    s = score_graphs(twice, ref)
    # one reference edge can vouch for one prediction: TP 1, P 1/2, R 1
    assert (s["edge_tp"], s["edge_precision"], s["edge_recall"]) == (1, 0.5, 1.0)


def test_dangling_edges_are_left_out() -> None:
    ref = _g({"a": "A", "b": "B"}, [("a", "b")])
    pred = Graph(nodes=ref.nodes, edges=[*ref.edges,
                                         Edge(source="a", target=None, unattached=["target"])])
    assert score_graphs(pred, ref)["edge_pred"] == 1


def test_one_to_one_assignment_beats_greedy() -> None:
    # similarity: encoder~encoders 0.933, encoder~encode 0.923, decoder~encoders 0.8,
    # decoder~encode 0.769.  At threshold 0.79 (a pair must exceed it): greedy takes the
    # best pair first and strands "decoder"; the assignment pairs encoder~encode,
    # decoder~encoders (sum 1.72 > 0.93).  At 0.8, decoder~encoders (exactly 0.8) does not
    # exceed the threshold and the assignment is greedy's.
    pred = _g({"p1": "encoder", "p2": "decoder"}, [])
    ref = _g({"r1": "encoders", "r2": "encode"}, [])
    assert match_nodes(pred, ref, 0.79, method="greedy") == {"p1": "r1"}
    assert match_nodes(pred, ref, 0.79, method="hungarian") == {"p1": "r2", "p2": "r1"}
    assert match_nodes(pred, ref, 0.8, method="hungarian") == {"p1": "r1"}
    with pytest.raises(ValueError):
        match_nodes(pred, ref, method="nope")


def test_textless_nodes_fall_back_to_shape() -> None:
    ref = Graph(nodes=[Node(id="r", shape="ellipse"), Node(id="s", text="S")])
    pred = Graph(nodes=[Node(id="p", shape="ellipse"), Node(id="q", shape="rhombus")])
    assert match_nodes(pred, ref) == {"p": "r"}


def test_execution_success() -> None:
    assert execution_success([True, False, True, True]) == 0.75
    assert execution_success([]) == 0.0


def test_score_files_json_and_drawio(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    drawio = FIXTURES / "large_diagram.drawio"
    from diagramforge.formats.mxgraph.notation import decode, normalise

    [page] = decode(drawio.read_bytes())
    ref = mxgraph_graph(normalise(page.model))
    (tmp_path / "ref.json").write_text(ref.to_json())
    s = score_files(drawio, tmp_path / "ref.json")
    assert s["node_f1"] == 1.0 and s["edge_f1"] == 1.0 and s["edge_ref"] == 16
    # drop one edge from the prediction: recall 15/16, precision 1
    pred = ref.model_copy(update={"edges": ref.edges[1:]})
    (tmp_path / "pred.json").write_text(pred.to_json())
    s = score_files(tmp_path / "pred.json", tmp_path / "ref.json")
    assert (s["edge_precision"], s["edge_recall"]) == (1.0, 15 / 16)
    assert main([str(tmp_path / "pred.json"), str(tmp_path / "ref.json")]) == 0
    assert json.loads(capsys.readouterr().out)["edge_recall"] == 15 / 16


# -- SciFlow-Bench's path-supported edges, on the one-to-one matching ---------------------

def test_sciflow_hand_made_pair() -> None:
    pred = _g({"x": "Load data", "y": "Train models", "w": "deploy!", "q": "Deploy",
               "z": "Monitor"},
              [("x", "y"), ("y", "q"), ("q", "x"), ("w", "z")])
    # one-to-one at 0.8: x↔a (1.0), y↔b ("trainmodels"~"trainmodel" 0.952), and one of
    # w, q (both "deploy") ↔ d: their surroundings agree with d's equally (not at all), so
    # reading order decides — q is 4th of 5 like Deploy 4th of 4 (w is 3rd).  z matches
    # nothing; w, a duplicate, is unmatched.
    s = score_graphs(pred, REF)
    # nodes: 3 matched; P 3/5, R 3/4, F1 2·0.6·0.75/1.35 = 2/3
    assert (s["sciflow_node_supported"], s["sciflow_node_recovered"]) == (3, 3)
    assert s["sciflow_node_precision"] == pytest.approx(0.6)
    assert s["sciflow_node_recall"] == pytest.approx(0.75)
    assert s["sciflow_node_f1"] == pytest.approx(2 / 3)
    # edges, precision: x→y is the reference edge a→b; y→q is b→d, no reference edge but a
    # path through the skipped c (allowed); q→x is d→a (no path: reversed logic); w→z has
    # unmatched ends.  2/4.  Recall: a→b is drawn; b→c, c→d touch the unmatched c.  1/3.
    assert (s["sciflow_edge_supported"], s["sciflow_edge_recovered"]) == (2, 1)
    assert s["sciflow_edge_precision"] == pytest.approx(0.5)
    assert s["sciflow_edge_recall"] == pytest.approx(1 / 3)
    assert s["sciflow_edge_f1"] == pytest.approx(0.4)  # 2·(1/2)(1/3)/(5/6)
    assert s["sciflow_graph_score"] == pytest.approx(0.4 * 2 / 3 + 0.6 * 0.4)
    # the exact scores share the matching; only x→y is a reference edge
    assert (s["node_tp"], s["node_precision"], s["node_recall"]) == (3, 0.6, 0.75)
    assert (s["edge_tp"], s["edge_pred"], s["edge_ref"]) == (1, 4, 3)


def test_sciflow_finer_prediction_recovers_nothing_by_detour() -> None:
    # the prediction inserts a step: a→m→b.  Both predicted edges touch the unmatched m
    # (P 0), and the reference edge a→b is not drawn (R 0: a detour is not the edge)
    ref = _g({"a": "A", "b": "B"}, [("a", "b")])
    pred = _g({"p": "A", "m": "Middle", "q": "B"}, [("p", "m"), ("m", "q")])
    s = score_graphs(pred, ref)
    assert (s["sciflow_edge_precision"], s["sciflow_edge_recall"]) == (0.0, 0.0)
    # an undirected predicted edge takes a reference edge either way
    loose = _g({"p": "B", "q": "A"}, [("p", "q")], directed=False)
    assert score_graphs(loose, ref)["sciflow_edge_precision"] == 1.0


def test_sequential_matching_depends_on_prediction_order() -> None:
    # DiagramEval as written: each predicted node, in order, takes its most similar
    # unmatched reference node.  Ratios: encoder~encoders 2·7/15 = 0.933,
    # encoder~encode 2·6/13 = 0.923, decoder~encoders 2·6/15 = 0.8 ("ecoder"),
    # decoder~encode 2·5/13 = 0.769; threshold 0.79.  encoder first takes encoders and
    # leaves decoder nothing; decoder first takes encoders and encoder still gets encode.
    ref = _g({"r1": "encoders", "r2": "encode"}, [])
    first = _g({"p1": "encoder", "p2": "decoder"}, [])
    assert match_nodes(first, ref, 0.79, method="sequential") == {"p1": "r1"}
    second = _g({"p2": "decoder", "p1": "encoder"}, [])
    assert match_nodes(second, ref, 0.79, method="sequential") == {"p2": "r1", "p1": "r2"}


def test_execution_success_with_a_checker() -> None:
    def renders(code: str) -> bool:
        if code == "boom":
            raise RuntimeError("renderer crashed")
        return code.startswith("<svg")

    outputs = ["<svg/>", "not svg", "boom", "<svg><g/></svg>"]
    # 2 of 4 render; the crash counts as a failure
    assert execution_success(outputs, renders) == 0.5
    assert execution_success([], renders) == 0.0


def test_detect_format() -> None:
    from diagramforge.tools.graph_files import detect_format

    assert detect_format(b'{"nodes": []}', "g.json") == "json"
    assert detect_format(b"<mxfile><diagram/></mxfile>", "x.xml") == "mxgraph"
    assert detect_format(b"<svg content='&lt;mxfile&gt;'/>", "a.svg") == "mxgraph"
    assert detect_format(b"<svg xmlns='http://www.w3.org/2000/svg'/>", "a.svg") == "svg"
    assert detect_format(b"\\begin{tikzpicture}\\end{tikzpicture}", "fig") == "tikz"
    assert detect_format(b"%PDF-1.5 ...", "fig") == "pdf"
    with pytest.raises(ValueError):
        detect_format(b"hello", "notes.txt")


def test_score_files_drawio_svg_is_read_exactly(tmp_path: Path) -> None:
    from html import escape

    from diagramforge.formats.mxgraph.notation import decode, normalise

    drawio = (FIXTURES / "large_diagram.drawio").read_bytes()
    svg = ("<svg xmlns='http://www.w3.org/2000/svg' content='"
           + escape(drawio.decode(), quote=True) + "'><rect width='1' height='1'/></svg>")
    (tmp_path / "exported.drawio.svg").write_text(svg)
    s = score_files(tmp_path / "exported.drawio.svg", FIXTURES / "large_diagram.drawio")
    assert s["node_f1"] == 1.0 and s["edge_f1"] == 1.0 and s["sciflow_graph_score"] == 1.0
    [page] = decode(drawio)
    assert s["edge_ref"] == len(mxgraph_graph(normalise(page.model)).attached_edges())


def test_detect_format_dot_and_mermaid() -> None:
    from diagramforge.tools.graph_files import detect_format

    assert detect_format(b"digraph { a -> b }", "x.gv") == "dot"
    assert detect_format(b"// pipeline\nstrict digraph G { a -> b }", "pred") == "dot"
    assert detect_format(b"flowchart LR\n  A --> B\n", "x.mmd") == "mermaid"
    assert detect_format(b"%% a comment\ngraph TD\n  A --> B\n", "pred") == "mermaid"


@pytest.mark.skipif(__import__("shutil").which("dot") is None, reason="needs Graphviz")
def test_score_files_reads_dot_with_graphviz(tmp_path: Path) -> None:
    # Reference Router → Expert 1, Router → Expert 2; the prediction forgot Expert 2.
    # Graphviz lays both out; one-to-one matching: node P 1, R 2/3, F1 0.8; edge P 1,
    # R 1/2, F1 2/3; graph scores 0.4·0.8 + 0.6·2/3 = 0.72.
    (tmp_path / "ref.dot").write_text('digraph { r [label="Router"]; e1 [label="Expert 1"]; '
                                      'e2 [label="Expert 2"]; r -> e1; r -> e2; }\n')
    (tmp_path / "pred.gv").write_text('digraph { a [label="Router"]; b [label="Expert 1"]; '
                                      "a -> b; }\n")
    s = score_files(tmp_path / "pred.gv", tmp_path / "ref.dot")
    assert (s["node_f1"], s["edge_f1"]) == (pytest.approx(0.8), pytest.approx(2 / 3))
    assert s["sciflow_graph_score"] == pytest.approx(0.72) == s["graph_score"]
