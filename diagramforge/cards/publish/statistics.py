"""Dataset statistics per config × split × format, their DVC plot files, PNG charts, and the
difference between two versions.

Columns that earlier stages have not filled (difficulty, colour entropy, graph, diagram type)
give ``null`` statistics rather than errors: the numbers appear as those stages land.
The per-format configs (``tikz``…) are views of ``generation`` and are not counted twice.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from diagramforge.store import atomic

SLICE_COLUMNS = ("pair", "format")
"""What a config's statistics are sliced by within a split: its language pair
(``translation``: ``tikz->dot``…) when it has one, else its format."""

CATEGORICAL = {"difficulty": "difficulty", "diagram_type": "diagram_types", "licence": "licences"}


def category(col: str, row: Mapping) -> str | None:
    """The value ``row`` is counted under for ``col``: a type the classifier could not name
    is counted apart, by why (``(unknown: silent)``), never as a kind."""
    v = row.get(col)
    if isinstance(v, str) and v:
        return v
    source = row.get("diagram_type_source") if col == "diagram_type" else None
    if isinstance(source, str) and source.startswith("unknown:"):
        return f"(unknown: {source.split(':', 1)[1]})"
    return None


def _numbers(s: pd.Series | None) -> list[float]:
    if s is None:
        return []
    out = []
    for v in s:
        if v is None:
            continue
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if not math.isnan(f):
            out.append(f)
    return out


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def graph_sizes(df: pd.DataFrame) -> tuple[list[float], list[float]]:
    """Nodes and edges per diagram: C's stats columns when present, else the ``graph`` JSON."""
    if "graph_nodes" in df and df["graph_nodes"].notna().any():
        return _numbers(df["graph_nodes"]), _numbers(df.get("graph_edges"))
    nodes, edges = [], []
    for g in df.get("graph", []):
        if not isinstance(g, str) or not g:
            continue
        try:
            d = json.loads(g)
        except ValueError:
            continue
        nodes.append(float(len(d.get("nodes", []))))
        edges.append(float(len(d.get("edges", []))))
    return nodes, edges


def cell(df: pd.DataFrame) -> dict:
    """Statistics of one config × split × format slice."""
    tokens = _numbers(df.get("tokens"))
    nodes, edges = graph_sizes(df)
    out: dict = {"rows": len(df),
                 "tokens_total": int(sum(tokens)) if tokens else None,
                 "tokens_mean": _mean(tokens),
                 "colour_entropy_mean": _mean(_numbers(df.get("colour_entropy"))),
                 "graph_nodes_mean": _mean(nodes), "graph_edges_mean": _mean(edges)}
    cols = [c for c in (*CATEGORICAL, "diagram_type_source") if c in df]
    rows = df[cols].to_dict("records") if cols else []
    for col, key in CATEGORICAL.items():
        vals = [c for c in (category(col, r) for r in rows) if c] if col in df else []
        out[key] = dict(sorted(Counter(vals).items())) if vals else None
    return out


def source_shares(df: pd.DataFrame | None) -> dict:
    """Per source kind (``source``: arxiv, repo, pdf, stack, repo_search): its rows, its
    share of all rows and the licences of those rows — what the card says of each kind."""
    if df is None or not len(df) or "source" not in df:
        return {}
    kinds = df["source"].fillna("(unknown)")
    lic = df["licence"].fillna("(none)") if "licence" in df else pd.Series(["(none)"] * len(df))
    out = {}
    for kind, part in lic.groupby(kinds, sort=True):
        out[str(kind)] = {"rows": int(len(part)), "share": round(len(part) / len(df), 4),
                          "licences": dict(sorted(Counter(part).items()))}
    return out


class _Cell:
    """Running sums of one config × split × slice (what :func:`cell` computes at once)."""

    def __init__(self) -> None:
        self.rows = 0
        self.sums: dict[str, list[float]] = {k: [0.0, 0] for k in
                                             ("tokens", "colour_entropy", "graph_nodes",
                                              "graph_edges", "json_nodes", "json_edges")}
        self.has_graph_nodes = False
        self.cats: dict[str, Counter] = {k: Counter() for k in CATEGORICAL.values()}
        self.present: set[str] = set()

    def _num(self, key: str, v: object) -> None:
        for f in _numbers([v]):
            acc = self.sums[key]
            acc[0] += f
            acc[1] += 1

    def add(self, row: dict) -> None:
        self.rows += 1
        self._num("tokens", row.get("tokens"))
        self._num("colour_entropy", row.get("colour_entropy"))
        gn = row.get("graph_nodes")
        if gn is not None and not (isinstance(gn, float) and gn != gn):
            self.has_graph_nodes = True
        self._num("graph_nodes", gn)
        self._num("graph_edges", row.get("graph_edges"))
        g = row.get("graph")
        if isinstance(g, str) and g:
            try:
                d = json.loads(g)
            except ValueError:
                d = None
            if d is not None:
                self._num("json_nodes", float(len(d.get("nodes", []))))
                self._num("json_edges", float(len(d.get("edges", []))))
        for col, key in CATEGORICAL.items():
            v = category(col, row)
            if v:
                self.cats[key][v] += 1

    def result(self) -> dict:
        def mean(key: str) -> float | None:
            total, n = self.sums[key]
            return round(total / n, 4) if n else None

        tok_total, tok_n = self.sums["tokens"]
        node_key, edge_key = (("graph_nodes", "graph_edges") if self.has_graph_nodes
                              else ("json_nodes", "json_edges"))
        out: dict = {"rows": self.rows,
                     "tokens_total": int(tok_total) if tok_n else None,
                     "tokens_mean": mean("tokens"),
                     "colour_entropy_mean": mean("colour_entropy"),
                     "graph_nodes_mean": mean(node_key), "graph_edges_mean": mean(edge_key)}
        for key, counts in self.cats.items():
            out[key] = dict(sorted(counts.items())) if counts else None
        return out


class Accumulator:
    """:func:`compute` as a running aggregate: rows are added config by config, shard by
    shard, and only per-slice sums and counters are kept (a few hundred bytes per slice),
    so statistics of any number of rows take constant memory."""

    def __init__(self, skip: set[str] = frozenset()) -> None:
        self.skip = set(skip)
        self.cells: dict[str, dict[tuple[str, str], _Cell]] = {}
        self.sources: dict[str, Counter] = {}
        self.generation_rows = 0

    def add(self, config: str, rows: list[dict]) -> None:
        if config == "generation":
            for r in rows:
                if "source" not in r:  # no source column: no per-source shares
                    continue
                kind = r.get("source")
                lic = r.get("licence")
                self.sources.setdefault("(unknown)" if _na(kind) else str(kind), Counter())[
                    "(none)" if _na(lic) else lic] += 1
            self.generation_rows += len(rows)
        if config in self.skip or not rows:
            return
        per = self.cells.setdefault(config, {})
        col = next((c for c in SLICE_COLUMNS if c in rows[0]), None)
        for r in rows:
            f = r.get(col) if col else None
            key = (r["split"], "(none)" if _na(f) else f)
            cell_ = per.get(key)
            if cell_ is None:
                cell_ = per[key] = _Cell()
            cell_.add(r)

    def result(self) -> dict:
        configs: dict = {}
        for config in sorted(self.cells):
            per = configs.setdefault(config, {})
            for (split, f), c in sorted(self.cells[config].items()):
                per.setdefault(split, {})[f] = c.result()
        totals = {c: sum(x["rows"] for s in v.values() for x in s.values())
                  for c, v in configs.items()}
        n = self.generation_rows
        sources = {k: {"rows": sum(cnt.values()), "share": round(sum(cnt.values()) / n, 4),
                       "licences": dict(sorted(cnt.items()))}
                   for k, cnt in sorted(self.sources.items())}
        return {"configs": configs, "totals": totals, "sources": sources}


def _na(v: object) -> bool:
    return v is None or (isinstance(v, float) and v != v)


def compute(frames: dict[str, pd.DataFrame], skip: set[str] = frozenset()) -> dict:
    """``{"configs": {config: {split: {format: cell}}}, "totals": {config: rows},
    "sources": {kind: {rows, share, licences}}}`` (sources: of the ``generation`` rows).
    Whole frames, fed through the same :class:`Accumulator` publish streams into."""
    acc = Accumulator(skip)
    for config, df in sorted(frames.items()):
        acc.add(config, df.to_dict("records"))
    return acc.result()


def plot_rows(stats: dict) -> list[dict]:
    """Long-form rows for DVC plots: one point per config × split × format."""
    return [{"slice": f"{c}/{s}/{f}", "rows": x["rows"], "tokens_mean": x["tokens_mean"] or 0}
            for c, splits in stats["configs"].items() for s, fmts in splits.items()
            for f, x in fmts.items()]


def write_metrics(stats: dict, metrics_dir: Path) -> list[Path]:
    """``metrics/dataset.json`` (``dvc metrics show``) and ``metrics/plots/*.csv``
    (``dvc plots show``)."""
    paths = [metrics_dir / "dataset.json", metrics_dir / "plots" / "rows.csv"]
    atomic.write_json(paths[0], stats)
    rows = plot_rows(stats)
    csv = "slice,rows,tokens_mean\n" + "".join(
        f"{r['slice']},{r['rows']},{r['tokens_mean']}\n" for r in rows)
    paths[1].parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(paths[1], csv)
    return paths


def _bar(ax, counts: dict[str, float], title: str) -> None:  # noqa: ANN001 - Axes
    keys = list(counts)
    ax.bar(range(len(keys)), [counts[k] for k in keys], color="#4c72b0")
    ax.set_xticks(range(len(keys)), keys, rotation=30, ha="right", fontsize=8)
    ax.set_title(title, fontsize=10)


def charts(stats: dict, frames: dict[str, pd.DataFrame], out: Path) -> list[Path]:
    """PNG charts for the card (matplotlib, Agg, no timestamps so bytes repeat)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    written = []
    gen = stats["configs"].get("generation", {})

    def save(fig, name: str) -> None:  # noqa: ANN001 - Figure
        fig.tight_layout()
        p = out / f"{name}.png"
        fig.savefig(p, dpi=80, metadata={"Software": None})
        plt.close(fig)
        written.append(p)

    per_slice = {f"{s}/{f}": x["rows"] for s, fm in gen.items() for f, x in fm.items()}
    per_config = dict(stats["totals"])
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    _bar(axes[0], per_slice or {"(none)": 0}, "diagrams per split / format")
    _bar(axes[1], per_config or {"(none)": 0}, "rows per config")
    save(fig, "rows")

    df = frames.get("generation")
    tokens = _numbers(df.get("tokens")) if df is not None else []
    fig, ax = plt.subplots(figsize=(4.5, 3.2))
    ax.hist(tokens or [0], bins=20, color="#55a868")
    ax.set_title("code tokens (cl100k) per diagram", fontsize=10)
    save(fig, "tokens")

    for key, title in (("difficulty", "difficulty tiers"), ("diagram_types", "diagram types"),
                       ("licences", "licences")):
        merged: Counter = Counter()
        for fm in gen.values():
            for x in fm.values():
                merged.update(x[key] or {})
        fig, ax = plt.subplots(figsize=(4.5, 3.2))
        _bar(ax, dict(sorted(merged.items())) or {"(not computed)": 0}, title)
        save(fig, key)
    return written


def _flatten(d: dict, prefix: str = "") -> dict[str, float]:
    out = {}
    for k, v in d.items():
        key = f"{prefix}/{k}" if prefix else str(k)
        if isinstance(v, dict):
            out.update(_flatten(v, key))
        elif isinstance(v, int | float) and not isinstance(v, bool):
            out[key] = v
    return out


def compare(old: dict, new: dict) -> list[tuple[str, float | None, float | None]]:
    """Every numeric statistic that differs: ``(path, old, new)`` (``None`` = absent)."""
    a, b = _flatten(old), _flatten(new)
    return [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def number(v: float | int | None, decimals: int = 2) -> str:
    """One way to print a statistic everywhere (``stats``, the card, the changelog): counts
    as integers with thousands separators, means with a fixed number of decimals, ``-`` for
    none."""
    if v is None:
        return "-"
    if isinstance(v, int) or float(v).is_integer() and decimals == 0:
        return f"{int(v):,}"
    return f"{v:,.{decimals}f}"


def format_stats(stats: dict) -> str:
    """Table for ``diagramforge stats``: rows and total tokens as counts, colour entropy
    (bits) and graph nodes as means with two and one decimals."""
    w = max([8, *(len(f) for splits in stats["configs"].values()
                  for fmts in splits.values() for f in fmts)])
    lines = [f"{'config':<12} {'split':<10} {'format':<{w}} {'rows':>6} {'tokens':>10} "
             f"{'entropy':>7} {'nodes':>6}  difficulty / types"]
    for c, splits in stats["configs"].items():
        for s, fmts in splits.items():
            for f, x in fmts.items():
                tiers = ",".join(f"{k}={v}" for k, v in (x["difficulty"] or {}).items())
                types = ",".join(f"{k}={v}" for k, v in (x["diagram_types"] or {}).items())
                tokens = x["tokens_total"]
                lines.append(f"{c:<12} {s:<10} {f:<{w}} {number(x['rows'], 0):>6} "
                             f"{number(None if tokens is None else int(tokens), 0):>10} "
                             f"{number(x['colour_entropy_mean'], 2):>7} "
                             f"{number(x['graph_nodes_mean'], 1):>6}  "
                             f"{tiers or '-'} / {types or '-'}")
    return "\n".join(lines)


def format_compare(diff: list[tuple[str, float | None, float | None]], ref: str) -> str:
    if not diff:
        return f"no statistic changed since {ref}"
    lines = [f"changes since {ref}:"]
    for k, a, b in diff:
        whole = all(v is None or float(v).is_integer() for v in (a, b))
        d = 0 if whole else 2
        delta = f" ({'+' if b - a >= 0 else '-'}{number(abs(b - a), d)})" \
            if a is not None and b is not None else ""
        lines.append(f"  {k}: {number(a, d)} → {number(b, d)}{delta}")
    return "\n".join(lines)
