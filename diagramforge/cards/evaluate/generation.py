"""Generation (image → code): Execution Success, structure-graph scores, render similarity,
tokens.

* ``execution_success`` (VCG-Bench): the output extracts and renders (:mod:`.compile`).
* ``node_f1``/``edge_f1``/``path_f1`` (DiagramEval's one-to-one node and path alignment)
  and ``sciflow_node_f1``/``sciflow_edge_f1``/``sciflow_graph_score`` (SciFlow-Bench):
  :func:`diagramforge.graphs.score.score_graphs` — the ``diagramforge score`` matcher — on
  the predicted graph (built as the render stage builds it) against the published ``graph``.
* ``ssim`` and ``pixel``: :mod:`.images` on the two renders.
* ``tokens``: the output's cl100k count (``tokenizer``, the toolkit's counter), for
  outputs that executed only: junk that never rendered says nothing about the length of a
  model's diagrams (and a 3 MB output would swamp the mean).

The graph scores are written only against a reference that is a graph: its picture
graph-like and its structure graph explaining its render (issue 50,
:meth:`~.compile.Compiler.reference_verdict`); against any other reference (a chart whose
"nodes" are tick labels, an untyped picture) they are ``None``, with the reason in
``graph_reference``.

An output that does not render recovers nothing: its graph and similarity scores are 0 (a
model is not rewarded for skipping hard items).  An item whose reference has no graph
(the format's extractor could not build one) has no graph scores (``None``, left out of the
mean and counted as such).  DiagramEval's path alignment compares reachability among
*aligned* nodes, so with no node aligned it is undefined: ``None`` there too (the scorer's
convention of 1 for two empty sides would give a wholly wrong diagram a perfect path score).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from diagramforge.cards.evaluate.compile import Compiler
from diagramforge.cards.evaluate.images import image_scores
from diagramforge.cards.evaluate.registry import GENERATION, GRAPH_METRICS, IMAGE_METRICS
from diagramforge.graphs.model import Graph
from diagramforge.graphs.score import score_graphs
from diagramforge.tokenizer import get_encoding

if TYPE_CHECKING:
    from diagramforge.cards.evaluate.settings import ScoreSettings

METRICS = GENERATION.metrics
GROUP_BY = GENERATION.group_by
__all__ = ["GRAPH_METRICS", "IMAGE_METRICS", "METRICS", "GROUP_BY", "count_tokens",
           "score_item"]


def count_tokens(text: str | None) -> int | None:
    return None if text is None else len(get_encoding().encode(text, disallowed_special=()))


def score_item(ref: dict[str, Any], output: str | None, compiler: Compiler,
               params: ScoreSettings) -> dict[str, Any]:
    c = compiler.compile(str(ref["id"]), str(ref["format"]), output)
    row: dict[str, Any] = {"id": ref["id"], GROUP_BY: ref["format"],
                           "execution_success": float(c.ok), "reason": c.reason,
                           "detail": c.detail,
                           "tokens": count_tokens(output) if c.ok else None,
                           "ref_tokens": ref.get("tokens")}
    ref_graph = Graph.from_json(ref["graph"]) if ref.get("graph") else None
    why = compiler.reference_verdict(ref, ref_graph) if ref_graph is not None else None
    if why is not None:
        ref_graph = None
        row["graph_reference"] = f"{why.reason}: {why.detail}"[:300]
    if ref_graph is None:
        row |= dict.fromkeys(GRAPH_METRICS)
    elif c.ok and c.graph is not None:
        scores = score_graphs(c.graph, ref_graph, params=params.evaluate.scores)
        row |= {k: float(scores[k]) for k in GRAPH_METRICS}
        if not scores["node_tp"] and ref_graph.nodes:
            row["path_f1"] = None  # no aligned node: path alignment says nothing
    else:
        row |= dict.fromkeys(GRAPH_METRICS, 0.0)
    ref_image = ref.get("image")
    row |= image_scores(c.image if c.ok else None, ref_image)
    return row
