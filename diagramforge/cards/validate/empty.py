"""An empty build: why it has no row to publish, and whether the validation found none.

A corpus that yields no diagram (a site dump whose posts hold no picture, a listing that
matched nothing) is not broken data: ``validate`` records ``nothing_to_publish`` with the
reason read from the funnel's metrics, ``publish`` writes a card that says so, and the
command prints it.  Light on purpose: the command reads it after every validate and publish.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from diagramforge.measure.stats import StageStats
from diagramforge.pipeline import funnel
from diagramforge.store.paths import metrics_path, stage_paths

if TYPE_CHECKING:
    from diagramforge.store.paths import ProjectSettings


def empty_reason(params: ProjectSettings) -> str:
    """Why a build has no diagram to publish, from the funnel's metrics: the first stage
    that kept none of its inputs, with its most frequent reasons."""
    for name in funnel():
        p = metrics_path(params, name)
        if not p.exists():
            return f"{name} has not run"
        st = StageStats.from_json(name, json.loads(p.read_text()))
        if st.n_in == 0:
            return f"{name} had no input"
        if st.n_out == 0:
            top = sorted(st.by_reason.items(), key=lambda kv: (-kv[1], kv[0]))[:4]
            why = ", ".join(f"{k} {v}" for k, v in top)
            return f"{name} kept none of its {st.n_in} inputs ({why or 'no reason given'})"
    return "the split table is empty"


def nothing_to_publish(params: ProjectSettings) -> str | None:
    """Why there is no row to publish (the validate report's ``nothing_to_publish``), or
    None when there is a dataset."""
    report = stage_paths(params, "validate").root / "report.json"
    if not report.exists():
        return None
    return json.loads(report.read_text()).get("nothing_to_publish")
