"""Translation (code in one language → the same diagram in another): execution in the target
language, graph equality with the source, render similarity.

* ``execution_success``: the output extracts and renders as the *target* language
  (``target_language``: its handler, sandbox and limits, :mod:`.compile`).
* ``graph_equal``: the output's structure graph is the source diagram's — the check the
  twin stage kept its reference twins with (:func:`diagramforge.builders.twin.compare.differences`:
  the same node texts, edge count, and edges by end texts and direction; an output whose
  code is a drawing (SVG: its twin capability's ``DRAWING``) is compared with the source as
  a text-based reader sees it,
  :func:`~diagramforge.builders.twin.compare.as_text_nodes`).  What differs is the item's detail.
* ``node_f1``/``edge_f1``: partial credit on the same pair (DiagramEval's one-to-one node
  and edge alignment, :func:`diagramforge.graphs.score.score_graphs`).
* ``ssim``/``pixel``: the output's render against the reference twin's, both drawn the
  same way — the reference ``target_code`` is compiled on the output's path (the same
  engine, so a faithful translation is close to 1; against the source's render a different
  engine's fonts and layout would dominate).  The published ``target_image`` is only the
  fallback when the reference code does not compile here: the twin stage may draw a twin
  at another scale (an SVG exported from TikZ at its pt size: 4/3 of what the SVG handler
  draws), and resampling one render to the other's size cost a reference given as the
  prediction up to 0.19 SSIM.
* ``tokens``: the output's cl100k count, executed outputs only.

Failures score 0; an item whose source has no graph has no graph scores (``None``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from diagramforge.cards.evaluate.compile import Compiler
from diagramforge.cards.evaluate.generation import count_tokens
from diagramforge.cards.evaluate.images import image_scores
from diagramforge.cards.evaluate.registry import TRANSLATION
from diagramforge.formats import capabilities
from diagramforge.graphs.model import Graph
from diagramforge.graphs.score import score_graphs

if TYPE_CHECKING:
    from diagramforge.cards.evaluate.settings import ScoreSettings

METRICS = TRANSLATION.metrics
GROUP_BY = TRANSLATION.group_by
GRAPH = ("graph_equal", "node_f1", "edge_f1")


class TranslationReason:
    GRAPH_DIFFERS = "translation_graph_differs"
    NO_GRAPH = "translation_output_without_graph"


def expected_graph(source: Graph, target_language: str) -> Graph:
    """What an output in ``target_language`` must show: the source graph, or — for a
    language whose code is a drawing (SVG: text, shapes and lines but no nodes; the twin
    stage's ``DRAWING``) — the source as a text reader sees it."""
    # lazy: loads scipy
    from diagramforge.builders.twin.compare import as_text_nodes

    twin = capabilities.of(target_language, "twin")
    return as_text_nodes(source) if twin is not None and twin.DRAWING else source


def score_item(ref: dict[str, Any], output: str | None, compiler: Compiler,
               params: ScoreSettings) -> dict[str, Any]:
    target = str(ref.get("target_language") or "")
    c = compiler.compile(str(ref["id"]), target, output)
    pair = ref.get(GROUP_BY) or f"{ref.get('source_language')}->{target}"
    row: dict[str, Any] = {"id": ref["id"], GROUP_BY: pair, "target_language": target,
                           "execution_success": float(c.ok), "reason": c.reason,
                           "detail": c.detail,
                           "tokens": count_tokens(output) if c.ok else None}
    source = Graph.from_json(ref["source_graph"]) if ref.get("source_graph") else None
    if source is None:
        row |= dict.fromkeys(GRAPH)
    elif not c.ok:
        row |= dict.fromkeys(GRAPH, 0.0)
    elif c.graph is None:
        row |= dict.fromkeys(GRAPH, 0.0) | {"reason": TranslationReason.NO_GRAPH}
    else:
        # lazy: loads scipy
        from diagramforge.builders.twin.compare import differences

        want = expected_graph(source, target)
        diff = differences(want, c.graph)
        s = score_graphs(c.graph, want, params=params.evaluate.scores)
        row |= {"graph_equal": float(not diff), "node_f1": float(s["node_f1"]),
                "edge_f1": float(s["edge_f1"])}
        if diff:
            row |= {"reason": TranslationReason.GRAPH_DIFFERS, "detail": "; ".join(diff)[:500]}
    ref_image = ref.get("target_image")
    if c.ok and c.image and ref.get("target_code"):
        drawn = compiler.compile(f"{ref['id']}:reference", target, str(ref["target_code"]))
        ref_image = drawn.image if drawn.ok and drawn.image else ref_image
    row |= image_scores(c.image if c.ok else None, ref_image)
    return row
