"""The expected graph of an edit: the verified target's, or the operations folded over the
source graph when the row has no target."""

from __future__ import annotations

import json
import random

from diagramforge.cards.evaluate.editing import expected
from diagramforge.formats.edits import graph_diff
from diagramforge.synth.edit.sampler import FORMATS, compose
from tests.cards.evaluate.conftest import DOT_SOURCE, svg


def _ref(fmt: str, source: str, n_ops: int, seed: int) -> dict:
    done = compose(source, fmt, n_ops, random.Random(seed))
    assert done.ok, done.reason
    return {"format": fmt, "source_code": source, "target_code": done.target_code,
            "source_graph": done.source_graph.to_json(),
            "operations": json.dumps(done.edits)}


def test_fold_over_named_ids_is_the_target() -> None:
    ref = _ref("dot", DOT_SOURCE, 3, 5)
    target = FORMATS["dot"].graph(ref["target_code"])
    assert graph_diff(expected({**ref, "target_code": None}), target) == []
    assert graph_diff(expected(ref), target) == []


def test_svg_edits_use_the_target_graph() -> None:
    """SVG ids are positions: whatever the steps renamed, the target's graph is expected."""
    source = svg(["Load", "Parse", "Save", "Done"],
                 [("Load", "Parse"), ("Parse", "Save"), ("Save", "Done")])
    for seed in range(4):
        ref = _ref("svg", source, 3, seed)
        assert graph_diff(expected(ref), FORMATS["svg"].graph(ref["target_code"])) == []
