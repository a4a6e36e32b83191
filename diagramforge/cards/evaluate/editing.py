"""Editing (source code + instruction → edited code): Execution Success and the edit
verified by code.

``edit_verified`` is the deterministic form of what VCG-Bench's decomposed-requirements
metric asks an LLM: the prediction's structure graph equals the graph the operations
produce, nothing else changed (:func:`~diagramforge.formats.edits.graph_diff`, ids ignored,
node boxes within ``edit.bbox_tolerance``).  The graph the operations produce is the
reference target's, read by the formats' edit readers (``edit.sampler.FORMATS``): the edit
stage kept that target only after checking each step against
:func:`~diagramforge.formats.edits.expected_graph` on the graph *of the previous step's code*.
Folding ``expected_graph`` over the source graph alone is right only where node ids are
names (DOT, mxGraph, TikZ); SVG numbers nodes by position, so a step's ids name the
previous step's nodes (measured: 3 of 7 published SVG edits fail the fold).  The fold is
the fallback for a row without ``target_code``.  Graphs are read only from outputs that
passed :mod:`.compile` (the same containment as rendering).

The graph does not see colour or line style, so an output that leaves the picture as it
was (the source's render, pixel for pixel) is not the edit either — the check the edit
stage keeps its targets with (``edit_render_unchanged``); a colour edit is thus verified
as "the structure is the intended one and the picture changed".  ``ssim``/``pixel`` compare
the prediction's render with the reference target's; ``style_preserved`` (:mod:`.styles`)
the style of the elements the reference edit left alone.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from diagramforge.cards.evaluate.compile import Compiler
from diagramforge.cards.evaluate.images import same_picture, similarity
from diagramforge.cards.evaluate.registry import EDITING
from diagramforge.cards.evaluate.styles import style_preserved
from diagramforge.formats.edits import expected_graph, graph_diff
from diagramforge.graphs.model import Graph
from diagramforge.synth.edit.sampler import FORMATS

if TYPE_CHECKING:
    from diagramforge.cards.evaluate.settings import ScoreSettings

METRICS = EDITING.metrics
GROUP_BY = EDITING.group_by
FROM_GENERATION = ("source_image",)
"""Read from ``generation`` when the editing config publishes it as a reference (the
source render is the diagram's own: ``cards/validate/references.py``): an edit whose render is
its source's did nothing."""


class EditEvalReason:
    NO_EDIT_READER = "edit_unsupported_format"
    GRAPH_ERROR = "edit_graph_unreadable"
    MISMATCH = "edit_graph_mismatch"
    SAME_RENDER = "edit_render_unchanged"


def expected(ref: dict[str, Any]) -> Graph:
    """The graph the edit should produce: the verified target's, else the operations
    applied to the source graph."""
    fmt = str(ref["format"])
    if ref.get("target_code"):
        return FORMATS[fmt].graph(str(ref["target_code"]))
    g = Graph.from_json(ref["source_graph"]) if ref.get("source_graph") \
        else FORMATS[fmt].graph(str(ref["source_code"]))
    for op in json.loads(ref["operations"]):
        g = expected_graph(g, op)
    return g


def score_item(ref: dict[str, Any], output: str | None, compiler: Compiler,
               params: ScoreSettings) -> dict[str, Any]:
    fmt = str(ref["format"])
    c = compiler.compile(str(ref["id"]), fmt, output)
    row: dict[str, Any] = {"id": ref["id"], "format": fmt,
                           GROUP_BY: ref.get(GROUP_BY) or "",
                           "execution_success": float(c.ok), "edit_verified": 0.0,
                           "style_preserved": 0.0, "ssim": 0.0, "pixel": 0.0,
                           "reason": c.reason, "detail": c.detail}
    if not c.ok:
        return row
    if ref.get("target_image") and c.image:
        row |= similarity(c.image, ref["target_image"])
    else:
        row |= {"ssim": None, "pixel": None}
    row["style_preserved"] = None
    if ref.get("source_code") and ref.get("target_code"):
        try:
            row["style_preserved"] = style_preserved(fmt, str(ref["source_code"]),
                                                     str(ref["target_code"]), str(output))
        except Exception as exc:  # noqa: BLE001 - unreadable styles fail the item's score
            row |= {"style_preserved": 0.0, "detail": f"styles: {type(exc).__name__}"}
    fe = FORMATS.get(fmt)
    if fe is None:
        return row | {"reason": EditEvalReason.NO_EDIT_READER, "edit_verified": None}
    try:
        got = fe.graph(str(output))
        diff = graph_diff(expected(ref), got, params.edit.bbox_tolerance)
    except Exception as exc:  # noqa: BLE001 - an unreadable prediction fails its item
        return row | {"reason": EditEvalReason.GRAPH_ERROR,
                      "detail": f"{type(exc).__name__}: {exc}"[:500]}
    if diff:
        return row | {"reason": EditEvalReason.MISMATCH, "detail": "; ".join(diff[:5])}
    if ref.get("source_image") and c.image and same_picture(c.image, ref["source_image"]):
        return row | {"reason": EditEvalReason.SAME_RENDER,
                      "detail": "the render is the source's"}
    return row | {"edit_verified": 1.0}
