"""Extracted graphs against graphs written by hand, and mxGraph exactness on the samples.

``tests/fixtures/graphs/<name>.{tex,svg}`` are sample-corpus diagrams (copied from
``samples/``); ``<name>.json`` is their graph as a person reads the picture (nodes by their
text, connectors as edges, plain lines undirected), written from the code and the render —
never from the extractor's output.  The test prints node/edge F1 per diagram (``pytest -s``)
and holds the extractor to the figures measured when the labels were written, so a
regression shows.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from diagramforge.builders.crawl.repos import checkout, list_files
from diagramforge.builders.crawl.settings import RepoCrawlParams, RepoSpec
from diagramforge.formats.mxgraph import notation as mxgraph
from diagramforge.formats.mxgraph.graph import mxgraph_graph
from diagramforge.formats.svg.graph import svg_graph
from diagramforge.formats.tikz.graph import tikz_graph
from diagramforge.formats.tikz.texcompile import compile_tikz
from diagramforge.graphs.model import Graph
from diagramforge.graphs.score import score_graphs
from tests.conftest import SAMPLE_REPOS, needs_tex

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "graphs"


def reference(name: str) -> Graph:
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    data.pop("note")
    return Graph.model_validate(data)


def extracted(src: Path) -> Graph:
    code = src.read_text()
    if src.suffix == ".svg":
        return svg_graph(code)
    pdf = compile_tikz(code)
    assert pdf is not None, f"{src.name} does not compile"
    return tikz_graph(code, pdf)


def hand_labelled() -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.suffix in {".svg", ".tex"})


def test_there_are_at_least_ten_hand_labelled_svg_and_tikz_diagrams():
    srcs = hand_labelled()
    assert len(srcs) >= 10 and {p.suffix for p in srcs} == {".svg", ".tex"}
    assert all((FIXTURES / f"{p.stem}.json").exists() for p in srcs)


@needs_tex
def test_node_and_edge_f1_against_hand_labels():
    rows = {}
    for src in hand_labelled():
        s = score_graphs(extracted(src), reference(src.stem))
        rows[src.stem] = (s["node_f1"], s["edge_f1"], s["node_tp"], s["node_pred"],
                          s["node_ref"], s["edge_tp"], s["edge_pred"], s["edge_ref"])
    print(f"\n{'diagram':18s} node F1  edge F1")
    for name, r in rows.items():
        print(f"{name:18s} {r[0]:7.2f} {r[1]:8.2f}")
    n = len(rows)
    node_macro = sum(r[0] for r in rows.values()) / n
    edge_macro = sum(r[1] for r in rows.values()) / n
    tp, pred, ref = (sum(r[k] for r in rows.values()) for k in (2, 3, 4))
    node_micro = 2 * tp / (pred + ref)
    tp, pred, ref = (sum(r[k] for r in rows.values()) for k in (5, 6, 7))
    edge_micro = 2 * tp / (pred + ref)
    print(f"macro: node {node_macro:.3f} edge {edge_macro:.3f}; "
          f"micro: node {node_micro:.3f} edge {edge_micro:.3f}")
    exact = [k for k, r in rows.items() if r[0] == 1.0 and r[1] == 1.0]
    # measured when the labels were written: macro node 0.894, edge 0.845, 8 of 12 exact;
    # with the tikz-cd reader 0.944 / 0.908, 9 of 12; with operator spacing ignored in text
    # matching ("A ∩ B" = "A∩B") 0.971 / 0.907, 10 of 12; with automata's initial arrow
    # 0.988 / 0.917, 11 of 12 (the miss: a circuit, whose wires touch no text)
    # three more, labelled after that tuning (heldout_*), all exact: 15 diagrams, macro
    # node F1 0.990, edge 0.933, 14 exact
    assert node_macro >= 0.98 and edge_macro >= 0.9
    assert len(exact) >= 14, exact
    assert {k for k in rows if k.startswith("heldout_")} <= set(exact)
    for simple in ("block", "flow", "pipeline", "training_flow", "decision_tree",
                   "parse_tree", "mixture_gate", "commuting_square", "venn", "dfa"):
        assert simple in exact


# -- mxGraph: the graph is the cells ------------------------------------------------------

def _cells_truth(code: str) -> tuple[set[str], list[tuple[str | None, str | None]]]:
    """Vertices (not edge labels) and edge ends, read with the standard-library parser."""
    root = ET.fromstring(code)
    cells = {c.get("id"): c for c in root.iter("mxCell")}
    edges = {i for i, c in cells.items() if c.get("edge") == "1"}
    vertices = {i for i, c in cells.items() if c.get("vertex") == "1"
                and c.get("parent") not in edges}
    ends = [(c.get("source"), c.get("target")) for i, c in cells.items() if i in edges]
    return vertices, ends


def sample_pages(tmp_path: Path) -> list[tuple[str, str]]:
    pages = []
    cfg = RepoCrawlParams()
    for spec in SAMPLE_REPOS:
        co = checkout(RepoSpec(**spec), tmp_path)
        for rel in list_files(co.root, cfg):
            if rel.endswith(".svg") and not rel.endswith(".drawio.svg"):
                continue
            try:
                decoded = mxgraph.decode((co.root / rel).read_bytes(), rel)
            except mxgraph.MxGraphError:
                continue  # the invalid sample: ledgered by extract, no graph to compare
            pages += [(f"{rel}#{p.index}", mxgraph.normalise(p.model))
                      for p in decoded if p.model is not None
                      and not mxgraph.validate(p.model)]  # invalid pages never get a graph
    return pages


def test_mxgraph_graphs_are_exactly_the_cells_of_every_sample_page(tmp_path):
    pages = sample_pages(tmp_path)
    assert len(pages) >= 6
    n_nodes = n_edges = 0
    for where, code in pages:
        g = mxgraph_graph(code)
        vertices, ends = _cells_truth(code)
        assert {n.id for n in g.nodes} == vertices, where
        got = [(e.source, e.target) for e in g.edges]  # in cell order
        # an edge saved with explicit ends keeps them; a floating end may be attached by
        # geometry, so only the ends the file names are compared
        assert len(got) == len(ends), where
        for (gs, gt), (s, t) in zip(got, ends, strict=True):
            assert (s is None or gs == s) and (t is None or gt == t), where
        n_nodes += len(g.nodes)
        n_edges += len(g.edges)
    print(f"\nmxGraph exactness: {len(pages)} pages, {n_nodes} nodes, {n_edges} edges, "
          "all equal to the cells")


@pytest.mark.parametrize("label", ["uses", "a &amp; b"])
def test_edge_labels_are_labels_not_nodes(label):
    code = ('<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>'
            '<mxCell id="a" value="A" vertex="1" parent="1"><mxGeometry x="0" y="0" '
            'width="80" height="40" as="geometry"/></mxCell>'
            '<mxCell id="b" value="B" vertex="1" parent="1"><mxGeometry x="200" y="0" '
            'width="80" height="40" as="geometry"/></mxCell>'
            '<mxCell id="e" edge="1" parent="1" source="a" target="b"><mxGeometry '
            'relative="1" as="geometry"/></mxCell>'
            f'<mxCell id="l" value="{label}" vertex="1" connectable="0" parent="e">'
            '<mxGeometry x="-0.2" relative="1" as="geometry"/></mxCell>'
            '</root></mxGraphModel>')
    g = mxgraph_graph(code)
    assert [n.id for n in g.nodes] == ["a", "b"]
    assert [(e.source, e.target, e.label) for e in g.edges] == [
        ("a", "b", label.replace("&amp;", "&"))]


# -- the same pictures found in the sample papers' PDFs (pdf source → svg → graph) ---------

IN_PDFS = {("2401.00101v1", "Figure 1"): "pipeline", ("2401.00101v1", "Figure 2"): "mixture_gate",
           ("2401.00102v2", "Figure 1"): "decision_tree",
           ("2401.00102v2", "Figure 2"): "training_flow", ("2401.00102v2", "Figure 4"): "venn",
           ("2401.00105v1", "Figure 1"): "parse_tree"}


def test_figures_cut_from_the_sample_pdfs_give_the_hand_labelled_graphs():
    from diagramforge.builders.pdffigures.extract import extract_figures

    pdfs = Path(__file__).resolve().parents[2] / "samples" / "arxiv" / "pdf"
    scores = {}
    for (stem, label), name in IN_PDFS.items():
        figs = [f for f in extract_figures(pdfs / f"{stem}.pdf").figures if f.label == label]
        assert len(figs) == 1 and figs[0].svg, (stem, label)
        s = score_graphs(svg_graph(figs[0].svg), reference(name))
        scores[name] = (s["node_f1"], s["edge_f1"])
    print("\nfrom PDFs:", {k: (round(a, 2), round(b, 2)) for k, (a, b) in scores.items()})
    # measured: every edge found; node F1 1.0 except the gate, whose edge labels "p" and
    # "1 − p" are text elements (DiagramEval counts them as nodes): macro node F1 0.944
    assert all(e == 1.0 for _, e in scores.values())
    assert sum(n for n, _ in scores.values()) / len(scores) >= 0.9
