"""Reference scorers: a predicted graph against a reference graph.

Graphs from different sources share no ids, so nodes are matched on normalised text
(:func:`score_similarity`: ``difflib`` ratio of the texts normalised and without spaces;
two text-less nodes compare by shape, as SciFlow falls back to coarse type).  Any other
similarity (sentence embeddings, as SciFlow uses) can be passed as ``sim``.

**Every metric matches nodes one-to-one** (:func:`match_nodes`): a pair is eligible when its
similarity *exceeds* the metric's threshold (both papers say "surpasses"/"exceeds" a fixed
threshold and neither gives its value; see
:class:`~diagramforge.graphs.settings.GraphScoreParams`), and the matching maximises the total
similarity (``linear_sum_assignment``); among matchings of equal similarity, pairs whose
surroundings agree (neighbour texts, edge directions), same shapes and nearby positions
(each graph's boxes scaled to its own extent) win, so repeated labels and empty boxes pair
up as drawn.  Edges only count between matched pairs.  One predicted
node can therefore never stand for two reference nodes ("Expert 1" for "Expert 1" and
"Expert 2") and have its edges counted twice.

* **Node alignment** (DiagramEval; ``node_*``): TP = matched pairs, P = TP/|pred|,
  R = TP/|ref|.  ``matching="sequential"`` walks the predicted nodes in order, each taking
  its most similar unmatched reference node (DiagramEval's procedure as written);
  ``"greedy"`` takes the best pair first; the default is the optimal assignment.
* **Edges, exact** (``edge_*``): a predicted edge is correct when both ends are matched and
  the reference has an unused edge between their counterparts in the same direction (either
  way if one of the two is undirected); reversed edges are wrong.
* **Path alignment** (DiagramEval; ``path_*``): over ordered pairs of distinct matched
  nodes, compare "v is reachable from u" in the subgraphs each graph induces on its matched
  nodes.
* **SciFlow-Bench** (``sciflow_*``): nodes on the same one-to-one matching (at SciFlow's own
  threshold).  SciFlow's leniency is kept where the paper puts it, on the predicted side: a
  predicted edge is correct when it is a reference edge between its matched ends, or — once
  per pair — when the reference has a directed path between them (an intermediate step left
  out); reversed, duplicated or unsupported edges are errors.  A reference edge is recovered
  when the prediction draws it between the matched ends (a detour through other nodes does
  not recover a missing edge).  ``sciflow_graph_score`` = 0.4 node F1 + 0.6 edge F1 of
  these; ``graph_score`` is the same weighting of the exact node and edge F1.
  The paper's node criterion is asymmetric ("at least one predicted node" recovers a
  reference node); here it is one-to-one, so a duplicated node costs precision.
* **Execution success** (VCG-Bench): the share of outputs that parse and render.

Only edges with both ends on nodes take part in edge and path scores.  Precision with
nothing predicted is 1 when nothing was expected either, else 0 (and symmetrically for
recall), so two empty graphs score 1 and an empty prediction scores 0.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import networkx as nx

from diagramforge.graphs.model import Edge, Graph, Node
from diagramforge.graphs.settings import GraphScoreParams

Similarity = Callable[[Node, Node], float]

_QUANTUM = 1e-6
"""Similarities are compared on this grid: differences below it are noise, and the
tie-breakers (shape, position) together weigh less than one step of it."""


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


def score_similarity(a: Node, b: Node) -> float:
    """What the scorers compare: :func:`similarity` on the normalised texts without their
    spaces — where a word gap falls is typography (a TeX subscript ``$V_s$`` read as "V s"
    is the "Vs" a reader writes; "expert 1" drawn as glyph runs "expert1"), the twins'
    comparison already ignores it.  Text-less nodes compare by shape."""
    ta = normalise_text(a.text).replace(" ", "")
    tb = normalise_text(b.text).replace(" ", "")
    if not ta and not tb:
        return 1.0 if a.shape == b.shape else 0.0
    if not ta or not tb:
        return 0.0
    return difflib.SequenceMatcher(None, ta, tb, autojunk=False).ratio()


def _matrix(pred: Graph, ref: Graph, threshold: float, sim: Similarity) -> list[list[float]]:
    """Similarities, with pairs below the threshold zeroed (they can never match).  Used by
    the TikZ extractor's source-to-page matching (at or above its threshold)."""
    out = []
    for p in pred.nodes:
        row = []
        for r in ref.nodes:
            s = sim(p, r)
            row.append(s if s >= threshold and s > 0 else 0.0)
        out.append(row)
    return out


def _centres(g: Graph) -> dict[str, tuple[float, float]]:
    """Each boxed node's centre, in the unit square of the graph's own node extent (two
    drawings of one diagram at different scales and offsets agree)."""
    boxes = {n.id: n.bbox for n in g.nodes if n.bbox and len(n.bbox) == 4}
    if not boxes:
        return {}
    x0 = min(b[0] for b in boxes.values())
    y0 = min(b[1] for b in boxes.values())
    w = max(b[0] + b[2] for b in boxes.values()) - x0 or 1.0
    h = max(b[1] + b[3] for b in boxes.values()) - y0 or 1.0
    return {k: ((b[0] + b[2] / 2 - x0) / w, (b[1] + b[3] / 2 - y0) / h)
            for k, b in boxes.items()}


def _surroundings(g: Graph) -> dict[str, Counter]:
    """Each node's neighbourhood as a reader sees it: (direction, normalised neighbour
    text) per attached edge — ids differ between graphs, texts and directions do not."""
    text = {n.id: normalise_text(n.text) for n in g.nodes}
    out: dict[str, Counter] = {n.id: Counter() for n in g.nodes}
    for e in g.attached_edges():
        a, b = e.source or "", e.target or ""
        out[a][("out" if e.directed else "both", text[b])] += 1
        out[b][("in" if e.directed else "both", text[a])] += 1
    return out


def _agreement(a: Counter, b: Counter) -> float:
    """Multiset Jaccard of two neighbourhoods (1 when both are empty)."""
    top = sum((a | b).values())
    return sum((a & b).values()) / top if top else 1.0


def _weights(pred: Graph, ref: Graph, threshold: float, sim: Similarity
             ) -> list[list[float]]:
    """What the assignment maximises: the similarity of each eligible pair (above
    ``threshold``) on the :data:`_QUANTUM` grid, plus tie-breaks that together weigh less
    than one grid step over the whole matching — for candidates equal on text, the mean of
    how far their surroundings agree (neighbour texts and edge directions), same shape, and
    closeness of the two centres; then, far below, reading order (equal candidates pair up
    in the order both graphs list them, so the result does not depend on the solver's
    internals).
    Ineligible pairs weigh 0 and are never kept."""
    k = min(len(pred.nodes), len(ref.nodes))
    eps = _QUANTUM / (2 * (k + 1))
    eps_order = eps / (2 * (k + 1))
    cp, cr = _centres(pred), _centres(ref)
    sp, sr = _surroundings(pred), _surroundings(ref)
    n_p, n_r = len(pred.nodes), len(ref.nodes)
    out = []
    for i, p in enumerate(pred.nodes):
        row = []
        for j, r in enumerate(ref.nodes):
            s = sim(p, r)
            if not s > threshold or s <= 0:
                row.append(0.0)
                continue
            near = 0.0
            if p.id in cp and r.id in cr:
                (ax, ay), (bx, by) = cp[p.id], cr[r.id]
                near = 1.0 - min(1.0, ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5 / 2 ** 0.5)
            tie = (_agreement(sp[p.id], sr[r.id]) + (p.shape == r.shape) + near) / 3
            order = 1.0 - abs(i / n_p - j / n_r)  # the same place in reading order
            row.append(max(round(s / _QUANTUM), 1) * _QUANTUM + eps * tie
                       + eps_order * order)
        out.append(row)
    return out


def _assign(scores: list[list[float]], method: str) -> list[tuple[int, int]]:
    if method in ("auto", "hungarian"):
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


def match_nodes(pred: Graph, ref: Graph, threshold: float = 0.8, method: str = "hungarian",
                sim: Similarity | None = None) -> dict[str, str]:
    """One-to-one node matching, pred id → ref id, for pairs whose similarity exceeds
    ``threshold``.

    ``method`` is ``"hungarian"`` (the optimal assignment; ``"auto"`` is the same),
    ``"greedy"`` or ``"sequential"`` (see the module notes).
    """
    if not pred.nodes or not ref.nodes:
        return {}
    scores = _weights(pred, ref, threshold, sim or score_similarity)
    return {pred.nodes[i].id: ref.nodes[j].id for i, j in _assign(scores, method)
            if scores[i][j] > 0}


def candidates(pred: Graph, ref: Graph, threshold: float = 0.8,
               sim: Similarity | None = None) -> dict[str, set[str]]:
    """Many-to-many: pred id → every ref id at least ``threshold`` similar.  Not a scorer
    (scores match one-to-one): the TikZ extractor's starting point when it pairs a picture's
    source nodes with the compiled page's, where structure then settles repeated texts."""
    if not pred.nodes or not ref.nodes:
        return {p.id: set() for p in pred.nodes}
    scores = _matrix(pred, ref, threshold, sim or similarity)
    return {p.id: {ref.nodes[j].id for j, s in enumerate(row) if s > 0}
            for p, row in zip(pred.nodes, scores, strict=True)}


def prf(tp: int, n_pred: int, n_ref: int) -> tuple[float, float, float]:
    """Precision, recall, F1; an empty side is perfect only if the other is empty too."""
    return prf2(tp, n_pred, tp, n_ref)


def prf2(tp_p: int, n_pred: int, tp_r: int, n_ref: int) -> tuple[float, float, float]:
    """P/R/F1 when precision and recall count different hits (SciFlow's path-supported
    predicted edges against drawn reference edges)."""
    p = tp_p / n_pred if n_pred else float(n_ref == 0)
    r = tp_r / n_ref if n_ref else float(n_pred == 0)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def _joins(s: str, t: str, directed: bool, re_: Edge) -> bool:
    """Whether reference edge ``re_`` joins ``s`` to ``t`` (either way when one of the two
    edges is undirected)."""
    if (s, t) == (re_.source, re_.target):
        return True
    return (not directed or not re_.directed) and (t, s) == (re_.source, re_.target)


def _ends(pe: Edge, m: dict[str, str]) -> tuple[str, str] | None:
    s, t = m.get(pe.source or ""), m.get(pe.target or "")
    return None if s is None or t is None else (s, t)


def edge_tp(pred: Graph, ref: Graph, m: dict[str, str]) -> int:
    """Predicted edges that hit a distinct reference edge between the matched ends
    (multi-edges count once each)."""
    free = list(ref.attached_edges())
    tp = 0
    for pe in pred.attached_edges():
        ends = _ends(pe, m)
        if ends is None:
            continue
        for k, re_ in enumerate(free):
            if _joins(*ends, pe.directed, re_):
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


def sciflow_edges(pred: Graph, ref: Graph, m: dict[str, str]) -> tuple[int, int]:
    """(supported predicted edges, recovered reference edges) on the matching ``m``.

    A predicted edge is supported when it takes an unused reference edge between its
    matched ends, or else, the first time its pair comes up and when the reference has no
    edge of its own between them, when the reference has a directed path from one end to
    the other (undirected: either way).  Recovered reference edges are the ones predicted
    edges take."""
    free = list(ref.attached_edges())
    d = ref.to_networkx()
    via_path: set[tuple[str, str]] = set()
    supported = taken = 0
    for pe in pred.attached_edges():
        ends = _ends(pe, m)
        if ends is None or ends[0] == ends[1]:
            continue
        k = next((k for k, re_ in enumerate(free) if _joins(*ends, pe.directed, re_)), None)
        if k is not None:
            del free[k]
            supported += 1
            taken += 1
            continue
        s, t = ends
        pair = (s, t) if pe.directed else tuple(sorted(ends))
        drawn = any(_joins(s, t, pe.directed, re_) for re_ in ref.attached_edges())
        if drawn or pair in via_path:
            continue  # a copy of an edge the reference has fewer of, or a repeated shortcut
        if nx.has_path(d, s, t) or (not pe.directed and nx.has_path(d, t, s)):
            via_path.add(pair)
            supported += 1
    return supported, taken


def score_graphs(pred: Graph, ref: Graph, threshold: float | None = None,
                 method: str | None = None, params: GraphScoreParams | None = None,
                 sim: Similarity | None = None) -> dict[str, float | int]:
    """Every structural score of ``pred`` against ``ref``, as one flat row.  ``threshold``
    overrides both metrics' thresholds of ``params``."""
    params = params or GraphScoreParams()
    method = method or params.matching
    t_de = params.diagrameval_threshold if threshold is None else threshold
    t_sf = params.sciflow_threshold if threshold is None else threshold
    m = match_nodes(pred, ref, t_de, method, sim)
    m_sf = m if t_sf == t_de else match_nodes(pred, ref, t_sf, method, sim)
    row: dict[str, float | int] = {}
    pe, re_ = pred.attached_edges(), ref.attached_edges()
    p_tp, p_pred, p_ref = path_counts(pred, ref, m)
    for name, (tp, npred, nref) in {"node": (len(m), len(pred.nodes), len(ref.nodes)),
                                    "edge": (edge_tp(pred, ref, m), len(pe), len(re_)),
                                    "path": (p_tp, p_pred, p_ref)}.items():
        p, r, f = prf(tp, npred, nref)
        row |= {f"{name}_precision": p, f"{name}_recall": r, f"{name}_f1": f,
                f"{name}_tp": tp, f"{name}_pred": npred, f"{name}_ref": nref}
    w = params.node_weight
    row["graph_score"] = w * row["node_f1"] + (1 - w) * row["edge_f1"]
    e_sup, e_rec = sciflow_edges(pred, ref, m_sf)
    for name, (tp_p, n_p, tp_r, n_r) in {
            "node": (len(m_sf), len(pred.nodes), len(m_sf), len(ref.nodes)),
            "edge": (e_sup, len(pe), e_rec, len(re_))}.items():
        p, r, f = prf2(tp_p, n_p, tp_r, n_r)
        row |= {f"sciflow_{name}_precision": p, f"sciflow_{name}_recall": r,
                f"sciflow_{name}_f1": f, f"sciflow_{name}_supported": tp_p,
                f"sciflow_{name}_recovered": tp_r}
    row["sciflow_graph_score"] = (w * row["sciflow_node_f1"]
                                  + (1 - w) * row["sciflow_edge_f1"])
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
