"""Aggregate per-item scores and write them: ``results.json`` (every item, the means, the
reasons) and ``results.md`` (the tables a paper or a model card quotes).

Two means per metric, always labelled: over **all** items (an item whose output did not
execute — or was never given — scores 0, so skipping hard items does not pay) and over the
**executed** items (how good the outputs that ran are).  A metric an item cannot be scored
on (no reference graph, nothing quoted) is left out of both and the table says over how
many items the mean is.  Token counts are only ever taken of executed outputs.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from diagramforge.store import atomic

ALL = "all"
EXECUTED = "executed"
"""Item key (bool) and aggregate section: the item's output executed (rendered, for tasks
whose outputs are code; was given and usable, for text answers)."""


def _means(rows: list[dict[str, Any]], metrics: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(rows)}
    for m in metrics:
        vals = [float(r[m]) for r in rows if r.get(m) is not None]
        out[m] = sum(vals) / len(vals) if vals else None
        if len(vals) != len(rows):
            out[f"{m}_scored"] = len(vals)
    return out


def aggregate(rows: list[dict[str, Any]], metrics: tuple[str, ...], group_by: str
              ) -> dict[str, Any]:
    """Means over every item and over the executed ones (``None`` values — not scorable —
    left out and counted as ``<metric>_scored``), each also per ``group_by`` value, and the
    failure reasons.  Rows without the :data:`EXECUTED` key (the judge's) count as
    executed."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(str(r.get(group_by) or "-"), []).append(r)

    def ran(rs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r for r in rs if r.get(EXECUTED, True)]

    return {ALL: _means(rows, metrics), EXECUTED: _means(ran(rows), metrics),
            group_by: {g: _means(rs, metrics) for g, rs in sorted(groups.items())},
            f"{group_by}_{EXECUTED}": {g: _means(ran(rs), metrics)
                                       for g, rs in sorted(groups.items())},
            "reasons": dict(Counter(r["reason"] for r in rows if r.get("reason")).most_common())}


def _cell(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.1f}" if abs(v) >= 100 else f"{v:.3f}"
    return str(v)


def markdown(result: dict[str, Any]) -> str:
    metrics, group_by, agg = result["metrics"], result["group_by"], result["aggregate"]
    n, ran = agg[ALL]["n"], agg[EXECUTED]["n"]
    label = result.get("executed_means", "executed items")
    inputs = result.get("inputs") or {}
    token_note = " `tokens` is the mean cl100k count of executed outputs only." \
        if "tokens" in metrics else ""
    stray = sum(v for k, v in inputs.items() if k != "duplicate_rows")
    lines = [f"# {result['config']} / {result['split']} ({result['task']})", "",
             f"Predictions: `{result['predictions']}`; items: {n}; {label}: {ran}; rows that "
             f"are no item's prediction: {stray}; duplicate ids: "
             f"{len(result.get('duplicate_ids') or [])}.", "",
             f"## Mean over all {n} items", "",
             "An item whose output did not execute, or that had no usable prediction, "
             "scores 0. A mean over fewer items than n shows how many in parentheses (the "
             f"rest could not be scored: no reference graph, nothing quoted, no aligned "
             f"node).{token_note}", ""]
    lines += _table(agg, group_by, metrics, ALL, group_by)
    lines += ["", f"## Mean over the {ran} {label}", ""]
    lines += _table(agg, group_by, metrics, EXECUTED, f"{group_by}_{EXECUTED}")
    if agg["reasons"]:
        lines += ["", "| reason | items |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in agg["reasons"].items()]
    if inputs:
        lines += ["", "Rows of the predictions file that are no item's prediction:", "",
                  "| problem | rows |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in inputs.items()]
    lines += _judged(result.get("judge") or {}, group_by)
    return "\n".join(lines) + "\n"


def _table(agg: dict[str, Any], group_by: str, metrics: list[str], total: str,
           groups: str) -> list[str]:
    head = f"| {group_by} | n | " + " | ".join(metrics) + " |"
    lines = [head, "|" + "---|" * (len(metrics) + 2)]
    shown = [(g, m) for g, m in agg[groups].items() if m["n"]]  # a group with none ran
    for name, m in [*shown, (f"**{total}**", agg[total])]:
        cells = [_cell(m[k]) + (f" ({m[k + '_scored']})" if k + "_scored" in m else "")
                 for k in metrics]
        lines.append(f"| {name} | {m['n']} | " + " | ".join(cells) + " |")
    return lines


def _judged(judge: dict[str, Any], group_by: str) -> list[str]:
    """The model-judged metrics in their own table, marked as such (never mixed with the
    metrics computed by code)."""
    if "dry_run" in judge:
        d = judge["dry_run"]
        return ["", f"Model-judged metrics: dry run — {d['calls']} request(s) written to "
                f"`{judge['requests']}` ({d['cached']} cached), est. ≤ ${d['est_cost_usd']}; "
                "nothing sent."]
    metrics, agg = judge.get("metrics") or [], judge.get("aggregate")
    if not metrics or not agg:
        return []
    lines = ["", f"## Model-judged metrics (LLM judge: {judge['backend']} / {judge['model']})",
             "", "A model's opinion read from the code, not a check by code: the verified "
             "metrics above are primary. Unset where the judge's answer was unusable, the "
             "budget ran out or the item had no usable prediction (see reasons).", "",
             f"| {group_by} | n | " + " | ".join(f"{m} (judged)" for m in metrics) + " |",
             "|" + "---|" * (len(metrics) + 2)]
    lines += _rows(agg, group_by, metrics, "judge reason")
    return lines


def _rows(agg: dict[str, Any], group_by: str, metrics: list[str], reason: str) -> list[str]:
    """A metric table's body (one row per group, then all; each mean with how many items it
    covers where that differs) and its table of reasons."""
    lines = _table(agg, group_by, metrics, ALL, group_by)[2:]
    if agg["reasons"]:
        lines += ["", f"| {reason} | items |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in agg["reasons"].items()]
    return lines


def write(result: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    js, md = out_dir / "results.json", out_dir / "results.md"
    atomic.write_json(js, result)
    atomic.write_text(md, markdown(result))
    return js, md
