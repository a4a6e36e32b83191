"""Reference scorers: a predicted graph against a reference graph.

Graphs from different sources share no ids, so nodes are matched on normalised text
(:func:`normalise_text`; ``difflib`` ratio ≥ ``match_threshold``, see
:class:`~.params.GraphParams` for why 0.8; two text-less nodes fall back to their shape, as
SciFlow falls back to coarse type).  Any other similarity (sentence embeddings, as SciFlow
uses) can be passed as ``similarity``.

* **Node alignment** (DiagramEval; ``node_*``): one-to-one matching; TP = matched pairs,
  P = TP/|pred|, R = TP/|ref|.  The matching maximises total similarity
  (``method="hungarian"``, the default with scipy), or takes the best pair first
  (``"greedy"``), or walks the predicted nodes in order, each taking its most similar
  unmatched reference node (``"sequential"``: DiagramEval's procedure as written).
* **Edges, exact** (``edge_*``): a predicted edge is correct when both ends are matched and
  the reference has an unused edge between their counterparts in the same direction (either
  way if one of the two is undirected); reversed edges are wrong.
* **Path alignment** (DiagramEval; ``path_*``): over ordered pairs of distinct matched
  nodes, compare "v is reachable from u" in the subgraphs each graph induces on its matched
  nodes.
* **SciFlow-Bench** (``sciflow_*``): nodes match asymmetrically — a reference node is
  recovered when *some* predicted node is similar enough, a predicted node is supported when
  it is similar enough to some reference node (robust to over-segmentation and duplicates).
  A predicted edge is correct when its ends are similar to two distinct reference nodes with
  a directed *path* between them in the reference (skipped intermediate steps are allowed;
  reversed or unsupported edges are errors); a reference edge is recovered when its ends are
  similar to two predicted nodes with a path between them in the prediction.
  ``sciflow_graph_score`` = 0.4 node F1 + 0.6 edge F1 of these; ``graph_score`` is the same
  weighting of the exact (one-to-one) node and edge F1.
* **Execution success** (VCG-Bench): the share of outputs that parse and render.

Only edges with both ends on nodes take part in edge and path scores.  Precision with
nothing predicted is 1 when nothing was expected either, else 0 (and symmetrically for
recall), so two empty graphs score 1 and an empty prediction scores 0.
"""

from __future__ import annotations

import difflib
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.params import GraphParams

Similarity = Callable[[Node, Node], float]


def normalise_text(text: str) -> str:
    """Case, Unicode form, punctuation and spacing do not distinguish two labels; symbols
    do (``i++`` is not ``++i`` nor ``i``; ``C++`` is not ``C``)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(c).startswith(("P", "Z", "C")) else c
                   for c in text)
    # spacing around a math operator is typography: "A ∩ B" as a reader writes it is the
    # "A∩B" TeX typesets
    return re.sub(r" ?([^\w ]) ?", lambda m: m.group(1) if unicodedata.category(
        m.group(1)) == "Sm" else m.group(0), " ".join(text.split()))


def similarity(a: Node, b: Node) -> float:
    """``difflib`` ratio of normalised texts; text-less nodes compare by shape."""
    ta, tb = normalise_text(a.text), normalise_text(b.text)
    if not ta and not tb:
        return 1.0 if a.shape == b.shape else 0.0
    if not ta or not tb:
        return 0.0
    return difflib.SequenceMatcher(None, ta, tb, autojunk=False).ratio()


def _matrix(pred: Graph, ref: Graph, threshold: float, sim: Similarity) -> list[list[float]]:
    """Similarities, with pairs below the threshold zeroed (they can never match)."""
    out = []
    for p in pred.nodes:
        row = []
        for r in ref.nodes:
            s = sim(p, r)
            row.append(s if s >= threshold and s > 0 else 0.0)
        out.append(row)
    return out


def _assign(scores: list[list[float]], method: str) -> list[tuple[int, int]]:
    if method == "auto":
        try:
            import scipy.optimize  # noqa: F401

            method = "hungarian"
        except ImportError:
            method = "greedy"
    if method == "hungarian":
        import numpy as np
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment(np.asarray(scores), maximize=True)
        return [(int(i), int(j)) for i, j in zip(rows, cols, strict=True)]
    used_i: set[int] = set()
    used_j: set[int] = set()
    out = []
    if method == "greedy":
        pairs = sorted((-s, i, j) for i, row in enumerate(scores) for j, s in enumerate(row))
        for _, i, j in pairs:
            if i not in used_i and j not in used_j:
                used_i.add(i)
                used_j.add(j)
                out.append((i, j))
        return out
    if method == "sequential":
        for i, row in enumerate(scores):
            free = [(-s, j) for j, s in enumerate(row) if j not in used_j and s > 0]
            if free:
                j = min(free)[1]
                used_j.add(j)
                out.append((i, j))
        return out
    raise ValueError(f"unknown matching method {method!r}")


def match_nodes(pred: Graph, ref: Graph, threshold: float = 0.8, method: str = "auto",
                sim: Similarity | None = None) -> dict[str, str]:
    """One-to-one node matching, pred id → ref id, for pairs at or above ``threshold``.

    ``method`` is ``"auto"``, ``"hungarian"`` (needs scipy), ``"greedy"`` or
    ``"sequential"`` (see the module notes).
    """
    if not pred.nodes or not ref.nodes:
        return {}
    scores = _matrix(pred, ref, threshold, sim or similarity)
    return {pred.nodes[i].id: ref.nodes[j].id for i, j in _assign(scores, method)
            if scores[i][j] > 0}


def candidates(pred: Graph, ref: Graph, threshold: float = 0.8,
               sim: Similarity | None = None) -> dict[str, set[str]]:
    """SciFlow's many-to-many matching: pred id → every ref id similar enough."""
    if not pred.nodes or not ref.nodes:
        return {p.id: set() for p in pred.nodes}
    scores = _matrix(pred, ref, threshold, sim or similarity)
    return {p.id: {ref.nodes[j].id for j, s in enumerate(row) if s > 0}
            for p, row in zip(pred.nodes, scores, strict=True)}


def prf(tp: int, n_pred: int, n_ref: int) -> tuple[float, float, float]:
    """Precision, recall, F1; an empty side is perfect only if the other is empty too."""
    p = tp / n_pred if n_pred else float(n_ref == 0)
    r = tp / n_ref if n_ref else float(n_pred == 0)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def prf2(tp_p: int, n_pred: int, tp_r: int, n_ref: int) -> tuple[float, float, float]:
    """P/R/F1 when precision and recall count different hits (SciFlow's asymmetric
    matching)."""
    p = tp_p / n_pred if n_pred else float(n_ref == 0)
    r = tp_r / n_ref if n_ref else float(n_pred == 0)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def _edge_matches(pe: Edge, re_: Edge, m: dict[str, str]) -> bool:
    s, t = m.get(pe.source or ""), m.get(pe.target or "")
    if s is None or t is None:
        return False
    if (s, t) == (re_.source, re_.target):
        return True
    return (not pe.directed or not re_.directed) and (t, s) == (re_.source, re_.target)


def edge_tp(pred: Graph, ref: Graph, m: dict[str, str]) -> int:
    """Predicted edges that hit a distinct reference edge (multi-edges count once each)."""
    free = list(ref.attached_edges())
    tp = 0
    for pe in pred.attached_edges():
        for k, re_ in enumerate(free):
            if _edge_matches(pe, re_, m):
                tp += 1
                del free[k]
                break
    return tp


def _reach_pairs(g: Graph, keep: set[str]) -> set[tuple[str, str]]:
    sub = g.to_networkx().subgraph(keep)
    return {(u, v) for u in sub for v in nx.descendants(sub, u) if u != v}


def path_counts(pred: Graph, ref: Graph, m: dict[str, str]) -> tuple[int, int, int]:
    """(TP, |P_gen|, |P_ref|) of DiagramEval's path alignment, pairs named by ref ids."""
    p_gen = {(m[u], m[v]) for u, v in _reach_pairs(pred, set(m))}
    p_ref = _reach_pairs(ref, set(m.values()))
    return len(p_gen & p_ref), len(p_gen), len(p_ref)


class _Reach:
    """Memoised "is there a directed path u → v" on a graph (undirected edges both ways)."""

    def __init__(self, g: Graph) -> None:
        self.d = g.to_networkx()
        self.cache: dict[str, set[str]] = {}

    def __call__(self, u: str, v: str) -> bool:
        if u not in self.d:
            return False
        if u not in self.cache:
            self.cache[u] = nx.descendants(self.d, u)
        return v in self.cache[u]


def _supported(edges: Iterable[Edge], cand: dict[str, set[str]], reach: _Reach) -> int:
    """Edges whose ends are similar to two distinct nodes joined by a path on the other side
    (an undirected edge may be joined either way)."""
    hits = 0
    for e in edges:
        us, vs = cand.get(e.source or "", set()), cand.get(e.target or "", set())
        if any(u != v and (reach(u, v) or (not e.directed and reach(v, u)))
               for u in us for v in vs):
            hits += 1
    return hits


def sciflow_scores(pred: Graph, ref: Graph, threshold: float = 0.8,
                   sim: Similarity | None = None, node_weight: float = 0.4
                   ) -> dict[str, float | int]:
    """SciFlow-Bench's graph-level scores (see the module notes)."""
    fwd = candidates(pred, ref, threshold, sim)
    back: dict[str, set[str]] = {r.id: set() for r in ref.nodes}
    for p, rs in fwd.items():
        for r in rs:
            back[r].add(p)
    n_sup = sum(1 for rs in fwd.values() if rs)
    n_rec = sum(1 for ps in back.values() if ps)
    pe, re_ = pred.attached_edges(), ref.attached_edges()
    e_sup = _supported(pe, fwd, _Reach(ref))
    e_rec = _supported(re_, back, _Reach(pred))
    row: dict[str, float | int] = {}
    for name, (tp_p, n_p, tp_r, n_r) in {"node": (n_sup, len(pred.nodes), n_rec,
                                                  len(ref.nodes)),
                                         "edge": (e_sup, len(pe), e_rec, len(re_))}.items():
        p, r, f = prf2(tp_p, n_p, tp_r, n_r)
        row |= {f"sciflow_{name}_precision": p, f"sciflow_{name}_recall": r,
                f"sciflow_{name}_f1": f, f"sciflow_{name}_supported": tp_p,
                f"sciflow_{name}_recovered": tp_r}
    row["sciflow_graph_score"] = (node_weight * row["sciflow_node_f1"]
                                  + (1 - node_weight) * row["sciflow_edge_f1"])
    return row


def score_graphs(pred: Graph, ref: Graph, threshold: float | None = None,
                 method: str = "auto", params: GraphParams | None = None,
                 sim: Similarity | None = None) -> dict[str, float | int]:
    """Every structural score of ``pred`` against ``ref``, as one flat row."""
    params = params or GraphParams()
    thr = params.match_threshold if threshold is None else threshold
    m = match_nodes(pred, ref, thr, method, sim)
    row: dict[str, float | int] = {}
    e_tp, e_pred, e_ref = (edge_tp(pred, ref, m), len(pred.attached_edges()),
                           len(ref.attached_edges()))
    p_tp, p_pred, p_ref = path_counts(pred, ref, m)
    for name, (tp, npred, nref) in {"node": (len(m), len(pred.nodes), len(ref.nodes)),
                                    "edge": (e_tp, e_pred, e_ref),
                                    "path": (p_tp, p_pred, p_ref)}.items():
        p, r, f = prf(tp, npred, nref)
        row |= {f"{name}_precision": p, f"{name}_recall": r, f"{name}_f1": f,
                f"{name}_tp": tp, f"{name}_pred": npred, f"{name}_ref": nref}
    w = params.node_weight
    row["graph_score"] = w * row["node_f1"] + (1 - w) * row["edge_f1"]
    row |= sciflow_scores(pred, ref, thr, sim, w)
    return row


def execution_success(results: Sequence[Any], check: Callable[[Any], bool] | None = None
                      ) -> float:
    """VCG-Bench's Execution Success Rate: the share of outputs that parsed and rendered.

    ``results`` are booleans, or any outputs when ``check`` says whether one parses and
    renders (an exception from ``check`` counts as a failure).  No outputs: 0.
    """
    if not results:
        return 0.0
    if check is None:
        return sum(1 for f in results if f) / len(results)
    return sum(1 for item in results if _passes(check, item)) / len(results)


def _passes(check: Callable[[Any], bool], item: Any) -> bool:
    try:
        return bool(check(item))
    except Exception:  # noqa: BLE001 - an output that crashes the checker failed
        return False


# -- files ----------------------------------------------------------------------------------

def detect_format(data: bytes, name: str = "") -> str:
    """``json``, ``mxgraph``, ``svg``, ``tikz`` or ``pdf``, from the extension, else the
    content."""
    lower = name.lower()
    head = data[:4096].lstrip()
    if lower.endswith(".json") or head.startswith(b"{"):
        return "json"
    if data[:5] == b"%PDF-" or lower.endswith(".pdf"):
        return "pdf"
    if lower.endswith((".tex", ".tikz")):
        return "tikz"
    if lower.endswith((".drawio", ".drawio.svg", ".drawio.png", ".drawio.xml")) \
            or data[:8] == b"\x89PNG\r\n\x1a\n":
        return "mxgraph"
    if b"<mxfile" in data or b"<mxGraphModel" in data or b"&lt;mxfile" in data \
            or b"&lt;mxGraphModel" in data:
        return "mxgraph"
    if lower.endswith(".svg") or b"<svg" in head:
        return "svg"
    if re.search(rb"\\(?:begin\{tikzpicture\}|tikz\b|node\b|draw\b)", data):
        return "tikz"
    if lower.endswith(".xml"):
        return "mxgraph"
    raise ValueError(f"cannot tell the diagram format of {name or 'the input'}")


def load_graph(path: str | Path, params: GraphParams | None = None,
               compile_tikz: bool = False) -> Graph:
    """A graph JSON file, or a diagram converted with the extractors: draw.io/mxGraph
    (``.drawio``, ``.xml``, ``.drawio.svg``, ``.drawio.png``: first page, exact), SVG
    (DiagramEval geometry), TikZ (``.tex``/``.tikz`` source; with ``compile_tikz`` also the
    compiled page, see :func:`~.tikz.tikz_graph`), PDF (page geometry)."""
    path = Path(path)
    data = path.read_bytes()
    params = params or GraphParams()
    fmt = detect_format(data, path.name)
    if fmt == "json":
        return Graph.from_json(data)
    if fmt == "mxgraph":
        from diagramforge.formats.mxgraph import MxGraphError, decode, normalise, parse_xml
        from diagramforge.graphs.mxgraph import model_graph

        try:
            page = next(p for p in decode(data, path.name) if p.model is not None)
        except MxGraphError:
            if b"<svg" in data[:4096]:  # an SVG that only mentions draw.io
                fmt = "svg"
            else:
                raise
        else:
            return model_graph(parse_xml(normalise(page.model)), params)
    if fmt == "svg":
        from diagramforge.graphs.svg import svg_graph

        return svg_graph(data, params)
    if fmt == "pdf":
        from diagramforge.graphs.tikz import pdf_graph

        return pdf_graph(data, params)
    from diagramforge.graphs.tikz import compile_tikz as _compile
    from diagramforge.graphs.tikz import tikz_graph

    code = data.decode("utf-8", "replace")
    return tikz_graph(code, _compile(code) if compile_tikz else None, params)


def score_files(pred_path: str | Path, ref_path: str | Path, threshold: float | None = None,
                method: str = "auto", params: GraphParams | None = None,
                compile_tikz: bool = False) -> dict[str, float | int]:
    """:func:`score_graphs` on two files (see :func:`load_graph` for what they may be)."""
    params = params or GraphParams()
    return score_graphs(load_graph(pred_path, params, compile_tikz),
                        load_graph(ref_path, params, compile_tikz), threshold, method, params)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m diagramforge.graphs.score PRED REF`` prints the score row as JSON."""
    import json

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m diagramforge.graphs.score PRED REF", file=sys.stderr)
        return 2
    print(json.dumps(score_files(args[0], args[1]), sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
