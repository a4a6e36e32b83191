#!/usr/bin/env python3
"""`diagramforge evaluate` on the published samples' test split as a new user tries it: the
reference as prediction, crafted slightly wrong predictions, and hostile rows (issue 36).

Every prediction set is written from the published rows themselves (nothing hard-coded per
item), then scored by ``python -m diagramforge evaluate`` run in ``--repo`` (default: this
repository), so the same script prints the figures of an older checkout of the toolkit
(``git archive main | tar -x -C /tmp/old``, with ``node_modules`` linked) for a before/after
table.  Printed: the mean over all items per metric and set, each crafted item's graph
scores, and per hostile case the targeted item's reason (or the run's exit code and
message when the run stopped).

Crafted sets (one prediction per item; an item the edit cannot apply to keeps its
reference, so it scores as the reference does):

* ``drop_edge``: the last edge statement deleted (a TikZ ``\\draw`` between nodes, a DOT
  ``->``/``--`` line, a Mermaid link line, an mxGraph ``edge="1"`` cell, an SVG arrow's
  ``<path>`` and arrowhead);
* ``reverse_edge``: the first edge's ends swapped (TikZ, DOT, Mermaid, mxGraph);
* ``drop_node``: the last TikZ ``\\node`` and the ``\\draw`` lines that name it deleted
  ("Expert 2" left out: its edge must not be recovered through "Expert 1");
* ``duplicate_node``: the first TikZ node / DOT node statement written twice (a second copy
  under a new name, its label unchanged).

Usage: .venv/bin/python benchmarks/evaluate_sets.py [--repo DIR] [--published DIR]
       [--sets ref,drop_edge,...] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
METRICS = ("execution_success", "node_f1", "edge_f1", "path_f1", "sciflow_node_f1",
           "sciflow_edge_f1", "sciflow_graph_score", "ssim", "tokens")
GRAPH = ("node_f1", "edge_f1", "path_f1", "sciflow_node_f1", "sciflow_edge_f1",
         "sciflow_graph_score")

Edit = Callable[[str], str | None]
"""A crafted edit: the changed code, or None when it does not apply to this code."""

# -- crafted edits, per format ---------------------------------------------------------------

_TIKZ_DRAW = re.compile(r"^[ \t]*\\draw\b[^\n]*\([A-Za-z][\w]*\)[^\n]*\n", re.M)
_TIKZ_NODE = re.compile(r"^[ \t]*\\node\b[^\n]*\(([A-Za-z]\w*)\)[^\n]*\n", re.M)
_DOT_EDGE = re.compile(r"^[ \t]*(\w+)[ \t]*(->|--)[ \t]*(\w+)([ \t]*(?:\[[^\n]*\])?;?)[ \t]*\n",
                       re.M)  # one edge per statement (a chain a -> b -> c is left alone)
_DOT_NODE = re.compile(r"^[ \t]*(\w+)[ \t]*\[label=[^\n]*\n", re.M)
_MERMAID_EDGE = re.compile(r"^[ \t]*(\S+?)[ \t]*(-->|---|-.->|==>)[ \t]*(\S+)[ \t]*\n", re.M)
_MX_EDGE = re.compile(r'<mxCell\b[^>]*\bedge="1"[^>]*?(?:/>|>.*?</mxCell>)', re.S)
_SVG_ARROW = re.compile(r"[ \t]*<path\b[^>]*/>\s*(?:<polygon\b[^>]*/>\s*)?", re.S)


def _drop_last(pattern: re.Pattern[str]) -> Edit:
    def edit(code: str) -> str | None:
        found = list(pattern.finditer(code))
        if not found:
            return None
        m = found[-1]
        return code[:m.start()] + code[m.end():]
    return edit


def _tikz_reverse(code: str) -> str | None:
    m = _TIKZ_DRAW.search(code)
    if not m:
        return None
    ends = list(re.finditer(r"\(([A-Za-z]\w*)\)", m.group(0)))
    if len(ends) < 2:
        return None
    a, b = ends[0], ends[-1]
    line = m.group(0)
    line = line[:a.start()] + b.group(0) + line[a.end():b.start()] + a.group(0) + line[b.end():]
    return code[:m.start()] + line + code[m.end():]


def _tikz_drop_node(code: str) -> str | None:
    nodes = list(_TIKZ_NODE.finditer(code))
    if len(nodes) < 2:
        return None
    m = nodes[-1]
    name = m.group(1)
    code = code[:m.start()] + code[m.end():]
    return "".join(line for line in code.splitlines(keepends=True)
                   if not (line.lstrip().startswith("\\draw") and f"({name})" in line))


def _tikz_duplicate_node(code: str) -> str | None:
    m = _TIKZ_NODE.search(code)
    if not m:
        return None
    copy = m.group(0).replace(f"({m.group(1)})", f"({m.group(1)}copy)", 1)
    copy = re.sub(r"\\node\[", r"\\node[yshift=-2cm,", copy, count=1) if "\\node[" in copy \
        else copy.replace("\\node", "\\node[yshift=-2cm]", 1)
    return code[:m.end()] + copy + code[m.end():]


def _dot_reverse(code: str) -> str | None:
    m = _DOT_EDGE.search(code)
    if not m:
        return None
    line = f"  {m.group(3)} {m.group(2)} {m.group(1)}{m.group(4)}\n"
    return code[:m.start()] + line + code[m.end():]


def _dot_duplicate_node(code: str) -> str | None:
    m = _DOT_NODE.search(code)
    if not m:
        return None
    copy = m.group(0).replace(m.group(1), m.group(1) + "_copy", 1)
    return code[:m.end()] + copy + code[m.end():]


def _mermaid_reverse(code: str) -> str | None:
    m = _MERMAID_EDGE.search(code)
    if not m:
        return None
    a, b = m.group(1), m.group(3)
    # a node defined on the link line keeps its definition, on the other side of the arrow
    line = f"  {b} {m.group(2)} {a}\n"
    return code[:m.start()] + line + code[m.end():]


def _mermaid_drop_edge(code: str) -> str | None:
    m = list(_MERMAID_EDGE.finditer(code))
    if not m:
        return None
    m = m[-1]
    keep = f"  {m.group(1)}\n  {m.group(3)}\n"  # the nodes stay, the link goes
    return code[:m.start()] + keep + code[m.end():]


def _mx_reverse(code: str) -> str | None:
    m = _MX_EDGE.search(code)
    if not m:
        return None
    cell = m.group(0)
    s = re.search(r'\bsource="([^"]*)"', cell)
    t = re.search(r'\btarget="([^"]*)"', cell)
    if not s or not t:
        return None
    cell = (cell.replace(s.group(0), "\0S").replace(t.group(0), f'target="{s.group(1)}"')
            .replace("\0S", f'source="{t.group(1)}"'))
    return code[:m.start()] + cell + code[m.end():]


CRAFTED: dict[str, dict[str, Edit]] = {
    "drop_edge": {"tikz": _drop_last(_TIKZ_DRAW), "dot": _drop_last(_DOT_EDGE),
                  "mermaid": _mermaid_drop_edge, "mxgraph": _drop_last(_MX_EDGE),
                  "svg": _drop_last(_SVG_ARROW)},
    "reverse_edge": {"tikz": _tikz_reverse, "dot": _dot_reverse, "mermaid": _mermaid_reverse,
                     "mxgraph": _mx_reverse},
    "drop_node": {"tikz": _tikz_drop_node},
    "duplicate_node": {"tikz": _tikz_duplicate_node, "dot": _dot_duplicate_node},
}

# -- hostile rows ------------------------------------------------------------------------------

XXE_SVG = ('<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
           '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60">'
           '<rect x="5" y="5" width="90" height="50" fill="#eef" stroke="#336"/>'
           '<text x="10" y="35">&x;</text></svg>\n')
LAUGHS_MX = ('<?xml version="1.0"?>\n<!DOCTYPE m [<!ENTITY a "aaaaaaaaaa">'
             '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
             '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>\n'
             '<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>'
             '<mxCell id="2" value="&c;" vertex="1" parent="1"><mxGeometry x="0" y="0" '
             'width="80" height="40" as="geometry"/></mxCell></root></mxGraphModel>\n')
TEX_READ = ("\\documentclass{standalone}\\usepackage{tikz}\\begin{document}"
            "\\begin{tikzpicture}\\node{\\input{/etc/passwd}};\\end{tikzpicture}"
            "\\end{document}\n")


def hostile_cases(refs: list[dict]) -> dict[str, tuple[str, list[bytes]]]:
    """Case → (the id it aims at, the predictions file's lines).  Only the hostile rows:
    the other items score ``no_prediction`` (nothing to compile), so a case costs one
    item's compile."""
    by = {}
    for r in refs:
        by.setdefault(r["format"], r)
    tikz, svg, mx = by.get("tikz"), by.get("svg"), by.get("mxgraph")

    def line(obj: object) -> bytes:
        return json.dumps(obj).encode()

    cases: dict[str, tuple[str, list[bytes]]] = {}
    if tikz:
        t = tikz["id"]
        cases["missing prediction field"] = (t, [line({"id": t, "answer": tikz["code"]})])
        cases["3 MB junk"] = (t, [line({"id": t, "prediction": "\\node{x};" * 350_000})])
        cases["not UTF-8"] = (t, [b'{"id": "' + t.encode() + b'", "prediction": "\\\\node{'
                                  + b"\xff\xfe" + b'};"}'])
        cases["duplicated id"] = (t, [line({"id": t, "prediction": tikz["code"]}),
                                      line({"id": t, "prediction": "x"})])
        cases["TeX reads a file"] = (t, [line({"id": t, "prediction": TEX_READ})])
        cases["malformed row + unknown id"] = (t, [b"{not json", line({"id": "no-such-id",
                                                                       "prediction": "x"}),
                                                   line({"id": t, "prediction": tikz["code"]})])
    if svg:
        cases["SVG external entity"] = (svg["id"], [line({"id": svg["id"],
                                                          "prediction": XXE_SVG})])
    if mx:
        cases["mxGraph entity expansion"] = (mx["id"], [line({"id": mx["id"],
                                                              "prediction": LAUGHS_MX})])
    return cases


# -- running -----------------------------------------------------------------------------------


def references(published: Path, config: str) -> list[dict]:
    rows = []
    for p in sorted(published.glob(f"{config}/**/test-*.parquet")) or \
            sorted(published.glob(f"{config}/test-*.parquet")):
        cols = [c for c in ("id", "format", "code", "source_code", "target_code",
                            "source_language", "target_language")
                if c in pq.read_schema(p).names]
        rows += pq.read_table(p, columns=cols).to_pylist()
    return rows


def run(repo: Path, published: Path, preds: Path, config: str) -> tuple[int, str, dict | None]:
    out = preds.with_suffix(".eval")
    env = dict(os.environ, PYTHONPATH=str(repo))
    proc = subprocess.run([sys.executable, "-m", "diagramforge", "evaluate", str(preds),
                           "--config", config, "--split", "test", "--published",
                           str(published), "--out", str(out)], cwd=repo, env=env,
                          capture_output=True, text=True, check=False)
    res = out / "results.json"
    msg = (proc.stderr.strip().splitlines() or [""])[-1]
    return proc.returncode, msg, json.loads(res.read_text()) if proc.returncode == 0 \
        and res.exists() else None


def fmt(v: object) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3f}"
    return str(v)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=REPO)
    ap.add_argument("--published", type=Path,
                    default=REPO / "data" / "published" / "diagramforge-samples")
    ap.add_argument("--sets", default="ref,drop_edge,reverse_edge,drop_node,duplicate_node,"
                                      "hostile,translation")
    ap.add_argument("--work", type=Path, default=None)
    a = ap.parse_args()
    work = a.work or Path(tempfile.mkdtemp(prefix="evalsets-"))
    work.mkdir(parents=True, exist_ok=True)
    published = a.published.resolve()
    refs = references(published, "generation")
    wanted = a.sets.split(",")
    print(f"toolkit: {a.repo}; published: {published.name}; generation/test items: "
          f"{len(refs)}")
    table: dict[str, dict] = {}
    per_item: dict[str, list[str]] = {}
    for name in [s for s in wanted if s == "ref" or s in CRAFTED]:
        lines, changed = [], []
        for r in refs:
            code = r["code"]
            if name != "ref":
                edit = CRAFTED[name].get(r["format"])
                new = edit(code) if edit else None
                if new is not None and new != code:
                    changed.append(r["id"])
                    code = new
            lines.append(json.dumps({"id": r["id"], "prediction": code}))
        preds = work / f"{name}.jsonl"
        preds.write_text("\n".join(lines) + "\n")
        rc, msg, res = run(a.repo, published, preds, "generation")
        table[name] = {"rc": rc, "msg": msg, "all": (res or {}).get("aggregate", {}).get("all"),
                       "changed": len(changed)}
        if res:
            for it in res["items"]:
                if it["id"] in changed:
                    per_item.setdefault(name, []).append(
                        f"{it['id'][:8]} {it.get('format', '')}: " + ", ".join(
                            f"{k} {fmt(it.get(k))}" for k in GRAPH)
                        + (f" (reason {it['reason']})" if it.get("reason") else ""))
    if table:
        print("\n| set | items changed | " + " | ".join(METRICS) + " |")
        print("|---|---:|" + "---:|" * len(METRICS))
        for name, t in table.items():
            cells = [fmt((t["all"] or {}).get(m)) for m in METRICS] if t["all"] else \
                [f"exit {t['rc']}: {t['msg'][:60]}"] + [""] * (len(METRICS) - 1)
            print(f"| {name} | {t['changed']} | " + " | ".join(cells) + " |")
        for name, rows in per_item.items():
            print(f"\n{name}, the changed items:")
            for row in rows:
                print("  " + row)
    if "hostile" in wanted:
        print("\n| hostile case | run | targeted item's reason | other rows | tokens mean |")
        print("|---|---|---|---|---:|")
        for case, (target, lines) in hostile_cases(refs).items():
            preds = work / (re.sub(r"\W+", "_", case) + ".jsonl")
            preds.write_bytes(b"\n".join(lines) + b"\n")
            rc, msg, res = run(a.repo, published, preds, "generation")
            if res is None:
                print(f"| {case} | exit {rc}: `{msg[:90]}` | – | – | – |")
                continue
            item = next(i for i in res["items"] if i["id"] == target)
            stray = res["inputs"] if "inputs" in res else {  # older toolkits: two lists
                "unknown_ids": len(res.get("unknown_ids") or []),
                "duplicate_ids": len(res.get("duplicate_ids") or [])}
            reason = item.get("reason") or "none (success)"
            print(f"| {case} | exit 0 | {reason} (execution {fmt(item.get('execution_success'))})"
                  f" | {json.dumps(stray)} | {fmt(res['aggregate']['all'].get('tokens'))} |")
    if "translation" in wanted:
        trefs = references(published, "translation")
        preds = work / "translation-ref.jsonl"
        preds.write_text("\n".join(json.dumps({"id": r["id"], "prediction": r["target_code"]})
                                   for r in trefs) + "\n")
        rc, msg, res = run(a.repo, published, preds, "translation")
        print(f"\ntranslation/test, the reference target as prediction ({len(trefs)} items):")
        if res is None:
            print(f"  exit {rc}: {msg}")
        else:
            agg = res["aggregate"]
            keys = [m for m in res["metrics"]]
            print("| pair | n | " + " | ".join(keys) + " |")
            print("|---|---:|" + "---:|" * len(keys))
            print("| all | " + str(agg["all"]["n"]) + " | "
                  + " | ".join(fmt(agg["all"].get(k)) for k in keys) + " |")
            for g, m in agg[res["group_by"]].items():
                print(f"| {g} | {m['n']} | " + " | ".join(fmt(m.get(k)) for k in keys) + " |")
            print("reasons:", json.dumps(agg.get("reasons")))
    print(f"\nprediction files and results: {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
