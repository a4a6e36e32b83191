"""Aggregate per-item scores and write them: ``results.json`` (every item, the means, the
reasons) and ``results.md`` (the tables a paper or a model card quotes)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from diagramforge import atomic

ALL = "all"


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
    """Means over every item (``None`` values — not scorable — left out and counted as
    ``<metric>_scored``), per ``group_by`` value, and the failure reasons."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(str(r.get(group_by) or "-"), []).append(r)
    return {ALL: _means(rows, metrics),
            group_by: {g: _means(rs, metrics) for g, rs in sorted(groups.items())},
            "reasons": dict(Counter(r["reason"] for r in rows if r.get("reason")).most_common())}


def _cell(v: Any) -> str:
    return "–" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def markdown(result: dict[str, Any]) -> str:
    metrics, group_by, agg = result["metrics"], result["group_by"], result["aggregate"]
    head = f"| {group_by} | n | " + " | ".join(metrics) + " |"
    note = "A mean over fewer items than n shows how many in parentheses (the rest could " \
           "not be scored: no reference graph, nothing quoted, no aligned node)."
    lines = [f"# {result['config']} / {result['split']} ({result['task']})", "",
             f"Predictions: `{result['predictions']}`; items: {agg[ALL]['n']}; "
             f"predictions for unknown ids: {len(result['unknown_ids'])}; duplicate ids: "
             f"{len(result['duplicate_ids'])}. {note}", "", head,
             "|" + "---|" * (len(metrics) + 2)]
    lines += _rows(agg, group_by, metrics, "reason")
    lines += _judged(result.get("judge") or {}, group_by)
    return "\n".join(lines) + "\n"


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
             "metrics above are primary. Unset where the judge's answer was unusable or the "
             "budget ran out (see reasons).", "",
             f"| {group_by} | n | " + " | ".join(f"{m} (judged)" for m in metrics) + " |",
             "|" + "---|" * (len(metrics) + 2)]
    return lines + _rows(agg, group_by, metrics, "judge reason")


def _rows(agg: dict[str, Any], group_by: str, metrics: list[str], reason: str) -> list[str]:
    """A metric table's body (one row per group, then all; each mean with how many items it
    covers where that differs) and its table of reasons — the same for the metrics computed
    by code and the judged ones."""
    lines = []
    for name, m in [*agg[group_by].items(), (f"**{ALL}**", agg[ALL])]:
        cells = [_cell(m[k]) + (f" ({m[k + '_scored']})" if k + "_scored" in m else "")
                 for k in metrics]
        lines.append(f"| {name} | {m['n']} | " + " | ".join(cells) + " |")
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
