"""Reference scorers: a predicted graph against a reference graph.

* **Nodes** (SciFlow-Bench): graphs share no ids, so nodes are matched one-to-one on
  normalised text (``difflib`` ratio ≥ threshold; two text-less nodes fall back to their
  shape, as SciFlow falls back to coarse type).  The matching maximises total similarity
  (``scipy.optimize.linear_sum_assignment`` when scipy is importable, else greedy by score).
* **Edges** (SciFlow-Bench): a predicted edge is correct when both ends are matched and the
  reference has an unused edge between their counterparts in the same direction (either way
  if one of the two edges is undirected); reversed edges are wrong.  Only edges with both ends
  on nodes take part: a dangling end cannot be compared.
* **Paths** (DiagramEval): over ordered pairs of distinct matched nodes, compare "v is
  reachable from u" in the subgraphs each graph induces on its matched nodes.
* **Execution success** (VCG-Bench): the fraction of outputs that parsed and rendered.

Precision with nothing predicted is 1 when nothing was expected either, else 0 (and
symmetrically for recall), so two empty graphs score 1 and an empty prediction scores 0.
"""

from __future__ import annotations

import difflib
import re
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import networkx as nx

from diagramforge.formats.mxgraph import decode, normalise, parse_xml
from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.mxgraph import model_graph
from diagramforge.graphs.svg import svg_graph
from diagramforge.graphs.tikz import tikz_graph

NODE_WEIGHT, EDGE_WEIGHT = 0.4, 0.6
"""SciFlow's graph-level score: edges weigh more than nodes (relations are the point)."""


def normalise_text(text: str) -> str:
    """Case, Unicode form, punctuation and spacing do not distinguish two labels."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


def similarity(a: Node, b: Node) -> float:
    ta, tb = normalise_text(a.text), normalise_text(b.text)
    if not ta and not tb:
        return 1.0 if a.shape == b.shape else 0.0
    if not ta or not tb:
        return 0.0
    return difflib.SequenceMatcher(None, ta, tb, autojunk=False).ratio()


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
    if method != "greedy":
        raise ValueError(f"unknown matching method {method!r}")
    pairs = sorted(((-s, i, j) for i, row in enumerate(scores) for j, s in enumerate(row)))
    used_i: set[int] = set()
    used_j: set[int] = set()
    out = []
    for _, i, j in pairs:
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
            out.append((i, j))
    return out


def match_nodes(pred: Graph, ref: Graph, threshold: float = 0.8,
                method: str = "auto") -> dict[str, str]:
    """One-to-one node matching, pred id → ref id, for pairs at or above ``threshold``.

    ``method`` is ``"auto"``, ``"hungarian"`` (needs scipy) or ``"greedy"``.
    """
    if not pred.nodes or not ref.nodes:
        return {}
    scores = [[similarity(p, r) for r in ref.nodes] for p in pred.nodes]
    # below-threshold pairs can never match: zero them so they do not steer the assignment
    scores = [[s if s >= threshold else 0.0 for s in row] for row in scores]
    return {pred.nodes[i].id: ref.nodes[j].id for i, j in _assign(scores, method)
            if scores[i][j] >= threshold and scores[i][j] > 0}


def prf(tp: int, n_pred: int, n_ref: int) -> tuple[float, float, float]:
    """Precision, recall, F1; an empty side is perfect only if the other is empty too."""
    p = tp / n_pred if n_pred else float(n_ref == 0)
    r = tp / n_ref if n_ref else float(n_pred == 0)
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


def score_graphs(pred: Graph, ref: Graph, threshold: float = 0.8,
                 method: str = "auto") -> dict[str, float | int]:
    """Every structural score of ``pred`` against ``ref``, as one flat row."""
    m = match_nodes(pred, ref, threshold, method)
    row: dict[str, float | int] = {}
    n_tp = len(m)
    e_tp, e_pred, e_ref = edge_tp(pred, ref, m), len(pred.attached_edges()), \
        len(ref.attached_edges())
    p_tp, p_pred, p_ref = path_counts(pred, ref, m)
    for name, (tp, npred, nref) in {"node": (n_tp, len(pred.nodes), len(ref.nodes)),
                                    "edge": (e_tp, e_pred, e_ref),
                                    "path": (p_tp, p_pred, p_ref)}.items():
        p, r, f = prf(tp, npred, nref)
        row |= {f"{name}_precision": p, f"{name}_recall": r, f"{name}_f1": f,
                f"{name}_tp": tp, f"{name}_pred": npred, f"{name}_ref": nref}
    row["graph_score"] = NODE_WEIGHT * row["node_f1"] + EDGE_WEIGHT * row["edge_f1"]
    return row


def execution_success(flags: Sequence[bool]) -> float:
    """VCG-Bench's Execution Success Rate: share of outputs that parsed and rendered."""
    return sum(1 for f in flags if f) / len(flags) if flags else 0.0


def load_graph(path: str | Path) -> Graph:
    """A graph JSON file, or a diagram whose format has an extractor: TikZ (``.tex``,
    ``.tikz``), plain SVG, draw.io/mxGraph (``.drawio``, ``.xml``, ``.drawio.svg``,
    ``.drawio.png``: first page)."""
    path = Path(path)
    data = path.read_bytes()
    suffix = path.suffix.lower()
    if suffix == ".json":
        return Graph.from_json(data)
    if suffix in (".tex", ".tikz"):
        return tikz_graph(data.decode("utf-8", "replace"))
    if suffix == ".svg" and b"content=" not in data:
        return svg_graph(data)
    page = next(p for p in decode(data, path.name) if p.model is not None)
    return model_graph(parse_xml(normalise(page.model)))


def score_files(pred_path: str | Path, ref_path: str | Path, threshold: float = 0.8,
                method: str = "auto") -> dict[str, float | int]:
    """:func:`score_graphs` on two files (see :func:`load_graph` for what they may be)."""
    return score_graphs(load_graph(pred_path), load_graph(ref_path), threshold, method)


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
