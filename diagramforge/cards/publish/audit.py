"""The funnel: per stage, how many in, kept and rejected per reason — and proof that the
books balance, so no input vanished between the listing and the published dataset."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from diagramforge.formats import capabilities
from diagramforge.measure.stats import StageStats
from diagramforge.pipeline import funnel
from diagramforge.store.paths import metrics_path, stage_paths
from diagramforge.store.records import REJECTION_SCHEMA
from diagramforge.store.shards import ShardSet

if TYPE_CHECKING:
    from diagramforge.store.paths import ProjectSettings


@dataclass
class Audit:
    stages: list[StageStats]
    errors: list[str]
    published: int

    @property
    def ok(self) -> bool:
        return not self.errors


def load_audit(params: ProjectSettings) -> Audit:
    stages, errors = [], []
    pipeline = funnel()
    for name in pipeline:
        p = metrics_path(params, name)
        if not p.exists():
            errors.append(f"{name}: no metrics (stage not run)")
            continue
        st = StageStats.from_json(name, json.loads(p.read_text()))
        ledger = ShardSet(stage_paths(params, name).rejections, REJECTION_SCHEMA).count()
        if ledger != st.n_rejected:
            errors.append(f"{name}: ledger has {ledger} rejections, metrics say {st.n_rejected}")
        err = st.balance_error()
        if err:
            errors.append(err)
        stages.append(st)
    for prev, cur in zip(stages, stages[1:], strict=False):
        if cur.n_in != prev.n_out:
            errors.append(f"{cur.stage} read {cur.n_in} but {prev.stage} wrote {prev.n_out}")
    published = stages[-1].n_out if len(stages) == len(pipeline) else 0
    if len(stages) == len(pipeline):
        ex = stages[1]
        downstream = sum(s.rejected_inputs for s in stages[2:])
        if ex.n_out != published + downstream:
            errors.append(f"{ex.n_out} diagrams extracted but {published} published + "
                          f"{downstream} rejected downstream")
    return Audit(stages, errors, published)


def format_funnel(audit: Audit) -> str:
    """Plain-text funnel (also embedded in the dataset card)."""
    lines = [f"{'stage':<9} {'in':>6} {'out':>6} {'rejected':>9}  reasons"]
    for s in audit.stages:
        unit = " (sources→diagrams)" if s.expands else ""
        reasons = ", ".join(f"{k}={v}" for k, v in sorted(s.by_reason.items(),
                                                          key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"{s.stage:<9} {s.n_in:>6} {s.n_out:>6} {s.n_rejected:>9}  "
                     f"{reasons}{unit}")
    render = next((s for s in audit.stages if s.stage == "render"), None)
    for counted in capabilities.every("execution").values():  # e.g. formats/mxgraph/
        if render and render.extra.get(counted.PAGES):
            pages = render.extra[counted.PAGES]
            ok = render.extra.get(counted.RENDERED, 0)
            lines.append(f"{counted.TITLE} Execution Success (valid and rendered): "
                         f"{ok}/{pages} ({ok / pages:.0%})")
    if audit.stages:
        first = audit.stages[0]
        lines.append(f"{first.n_in} sources listed → {audit.published} diagrams published")
    lines.append("books balance: every input kept or rejected with a reason" if audit.ok
                 else "BOOKS DO NOT BALANCE:\n  " + "\n  ".join(audit.errors))
    return "\n".join(lines)
