#!/usr/bin/env python3
"""What QA is grounded in, on real corpora: graph questions only of pictures that are graphs,
chart questions from the chart's data, sequence questions from the messages (issue 50).

Runs the toolkit's own stages — crawl → extract → render → classifier-train → filter → split →
synth (offline language) → validate → publish, the code ``dvc repro`` runs with the
repository's ``params.yaml`` — on real corpora laid out as local sources
(``diagramforge/tools/realdata.py``), one throw-away project each:

* ``latex-examples`` — ``../shared/corpora/latex-examples/tikz`` (standalone TikZ, MIT);
* ``alextsagkas`` — ``../shared/corpora/tikz-alextsagkas+Tikz-Graphics`` (physics and
  engineering figures, MIT);
* ``cookbook`` — ``../shared/corpora/tikz-PacktPublishing+LaTeX-Cookbook`` (the book's
  drawing recipes, MIT);
* ``mermaid`` — the design documents of ``../shared/corpora/mermaid-openshift+enhancements``
  (Markdown with Mermaid blocks, Apache-2.0) as a pinned repository.

For the LaTeX corpora the licence filter is off (MIT is no arXiv licence URL). Prints, per
corpus: the funnel (diagrams → rendered → split → QA rows → validated → published), QA rows
per grounding (graph / chart / sequence; a picture with none gets captions only) and per
``qa_type``, QA rows per diagram type; the graph-grounded rows of pictures a person labelled
not graph-like (``/work/labelling/labels-set*.csv``: by-eye types and ``graph_like`` of
latex-examples and alextsagkas files, keyed by corpus path) and their share; chart-QA examples
with their computed answers. ``--json`` keeps the figures, ``--compare OLD.json`` prints them
beside an earlier run's (a checkout before the change, run with the same script).

    .venv/bin/python benchmarks/qa_grounding.py [CORPUS…] [--out /tmp/qa-grounding]
        [--json now.json] [--compare before.json] [--tex-cache DIR] [--examples 12]
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.runner import run_named  # noqa: E402
from diagramforge.store.paths import read_state, stage_paths  # noqa: E402
from diagramforge.store.records import RECORD_SCHEMA, REJECTION_SCHEMA  # noqa: E402
from diagramforge.store.shards import ShardSet  # noqa: E402
from diagramforge.synth.synth.stage import SYNTH_SCHEMA  # noqa: E402
from diagramforge.tools.realdata import (  # noqa: E402
    documents,
    git_repository,
    project_params,
    shared_corpora,
    write_arxiv_layout,
)

SHARED = shared_corpora(REPO)
"""``../shared/corpora`` from the main checkout, ``../../shared`` from a worktree
(``--shared`` from anywhere else)."""
TEX = {"latex-examples": "latex-examples/tikz", "alextsagkas": "tikz-alextsagkas+Tikz-Graphics",
       "cookbook": "tikz-PacktPublishing+LaTeX-Cookbook"}
"""Corpus name → its folder under the shared corpora (and the labels' key prefix)."""
MERMAID = "mermaid-openshift+enhancements"
CORPORA = (*TEX, "mermaid")
LABELS = Path("/work/labelling")
STAGES = ("crawl", "extract", "render", "classifier-train", "filter", "split", "synth",
          "validate", "publish")
GRAPH_TYPES = ("counting", "identification", "relationship", "reachability")


def grounding_of(row: dict) -> str:
    """What a QA row was computed from: ``chart``/``sequence`` when it says so, else the
    structure graph (every QA row before issue 50 was a graph question)."""
    g = row.get("grounding") or ""
    return g if g in ("chart", "sequence") else "graph"


def labels() -> dict[str, dict]:
    """Corpus path → a person's label (the last sheet that labelled it wins; they agree)."""
    out: dict[str, dict] = {}
    for p in sorted(LABELS.glob("labels-set*.csv")):
        with p.open() as f:
            out |= {r["key"]: r for r in csv.DictReader(f)}
    return out


def project(name: str, out: Path, tex_cache: Path | None,  # noqa: ANN201 - Params
            shared: Path = SHARED):
    """The corpus's throw-away project (its sources laid out once) and doc id → corpus key."""
    root = out / name
    base = yaml.safe_load((REPO / "params.yaml").read_text())
    keys: dict[str, str] = {}
    if name == "mermaid":
        src = root / "corpus" / "src"
        if not (root / "corpus" / "repo").exists():
            shutil.rmtree(src, ignore_errors=True)
            (src).mkdir(parents=True)
            shutil.copy(shared / MERMAID / "LICENSE", src / "LICENSE")
            shutil.copytree(shared / MERMAID / "enhancements", src / "enhancements")
            git_repository(src, root / "corpus" / "repo")
        params = project_params(root / "project", repos=[root / "corpus" / "repo"], base=base,
                                tex_cache=tex_cache)
        return params, keys
    prefix = TEX[name]
    docs = documents(shared / prefix, name)
    if not docs:
        raise SystemExit(f"no documents under {shared / prefix} (--shared?)")
    keys = {d.id: f"{prefix}/{d.title}" for d in docs}
    layout = root / "corpus" / "arxiv"
    if not (layout / "listing.xml").exists():
        write_arxiv_layout(docs, layout, "https://opensource.org/licenses/MIT")
    params = project_params(root / "project", arxiv=layout, base=base, tex_cache=tex_cache,
                            filter={"licence": {"enabled": False}})
    return params, keys


def _read(params, stage: str, schema, cols: list[str], what: str = "records"
          ) -> list[dict]:  # noqa: ANN001
    p = stage_paths(params, stage)
    d = p.records if what == "records" else p.rejections
    if not d.exists():
        return []
    return ShardSet(d, schema).read_all(cols).to_pylist()


def run(name: str, out: Path, tex_cache: Path | None, examples: int,
        shared: Path = SHARED) -> dict:
    params, keys = project(name, out, tex_cache, shared)
    t0 = time.perf_counter()
    counts: dict[str, int] = {}
    failed: dict[str, str] = {}
    for stage in STAGES:
        try:
            counts[stage] = run_named(stage, params, progress=False).n_out
        except Exception as exc:  # noqa: BLE001 - validate failing is a finding, not a crash
            failed[stage] = f"{type(exc).__name__}: {str(exc)[:300]}"
            break
    split = {r["id"]: r for r in _read(params, "split", RECORD_SCHEMA,
                                       ["id", "group", "diagram_type", "graph", "code"])}
    rendered = len(_read(params, "render", RECORD_SCHEMA, ["id"]))
    synth = _read(params, "synth", SYNTH_SCHEMA,
                  ["id", "config", "diagram_id", "qa_type", "grounding", "template_question",
                   "answer"])
    rejected = Counter(r["reason"] for r in _read(params, "synth", REJECTION_SCHEMA,
                                                  ["reason"], "rejections"))
    people = labels()
    qa = [r for r in synth if r["config"] == "qa"]
    per_ground: Counter[str] = Counter()
    per_qtype: Counter[str] = Counter()
    per_type: dict[str, Counter[str]] = defaultdict(Counter)
    judged: Counter[str] = Counter()
    graph_pictures: dict[str, set[str]] = {"yes": set(), "no": set()}
    wrong: list[dict] = []
    chart_examples: list[dict] = []
    for r in qa:
        d = split.get(r["diagram_id"], {})
        g = grounding_of(r)
        per_ground[g] += 1
        per_qtype[r["qa_type"]] += 1
        per_type[d.get("diagram_type") or "(untyped)"][g] += 1
        key = keys.get(str(d.get("group") or "").removeprefix("arxiv:"))
        person = people.get(key or "")
        if g == "graph" and person is not None:
            judged[person["graph_like"]] += 1
            graph_pictures.setdefault(person["graph_like"], set()).add(str(key))
            if person["graph_like"] == "no" and len(wrong) < examples:
                wrong.append({"key": key, "type": person["type"],
                              "question": r["template_question"], "answer": r["answer"]})
        if g == "chart" and len(chart_examples) < examples:
            chart_examples.append({"key": key or r["diagram_id"],
                                   "question": r["template_question"], "answer": r["answer"]})
    diagrams_with_qa = len({r["diagram_id"] for r in qa})
    labelled = Counter(people[k]["graph_like"] for k in {keys.get(str(d.get("group") or "")
                                                                  .removeprefix("arxiv:"))
                                                         for d in split.values()} if k in people)
    state = read_state(params, "validate")
    return {
        "corpus": name, "seconds": round(time.perf_counter() - t0), "stages_out": counts,
        "failed": failed, "rendered": rendered, "split": len(split),
        "qa_rows": len(qa), "diagrams_with_qa": diagrams_with_qa,
        "validated": bool(state.get("complete")) and "validate" not in failed,
        "published": bool(read_state(params, "publish").get("complete")),
        "per_grounding": dict(per_ground), "per_qa_type": dict(per_qtype),
        "per_type": {k: dict(v) for k, v in sorted(per_type.items())},
        "graph_qa_on_labelled": dict(judged), "graph_qa_on_non_graph_examples": wrong,
        "labelled_pictures": dict(labelled),
        "labelled_pictures_with_graph_qa": {k: len(v) for k, v in graph_pictures.items()},
        "chart_examples": chart_examples, "synth_rejections": dict(rejected.most_common()),
        "captions": sum(r["config"] == "captioning" for r in synth),
    }


def show(res: dict, old: dict | None) -> None:
    def was(key: str, sub: str | None = None) -> str:
        if old is None:
            return ""
        v = old.get(key, {}) if sub is None else old.get(key, {}).get(sub, 0)
        return f"  (before: {v})"

    print(f"\n== {res['corpus']} ({res['seconds']} s)")
    print("stages:", res["stages_out"], *(["FAILED:", res["failed"]] if res["failed"] else []))
    print(f"funnel: rendered {res['rendered']} → split {res['split']} → QA rows "
          f"{res['qa_rows']} on {res['diagrams_with_qa']} diagrams → validated "
          f"{res['validated']} → published {res['published']}"
          + (f"  (before: QA rows {old['qa_rows']}, validated {old['validated']}, "
             f"published {old['published']})" if old else ""))
    for g in ("graph", "chart", "sequence"):
        print(f"  QA per grounding {g:9s} {res['per_grounding'].get(g, 0):5d}"
              + was("per_grounding", g))
    qtypes = sorted(set(res["per_qa_type"]) | set((old or {}).get("per_qa_type", {})))
    for t in qtypes:
        print(f"  qa_type {t:18s} {res['per_qa_type'].get(t, 0):5d}" + was("per_qa_type", t))
    print("  QA rows per diagram type (grounding: rows):")
    types = sorted(set(res["per_type"]) | set((old or {}).get("per_type", {})))
    for t in types:
        now = res["per_type"].get(t, {})
        before = (old or {}).get("per_type", {}).get(t, {})
        print(f"    {t:22s} {json.dumps(now):50s}" + (f" before {json.dumps(before)}"
                                                        if old else ""))
    j = res["graph_qa_on_labelled"]
    n = sum(j.values())
    if n:
        print(f"  graph QA on pictures a person labelled: {n}; on non-graph ones "
              f"{j.get('no', 0)} ({100 * j.get('no', 0) / n:.1f} %)"
              + (f"  (before: {old['graph_qa_on_labelled']})" if old else ""))
        have, of = res["labelled_pictures_with_graph_qa"], res["labelled_pictures"]
        print(f"  labelled pictures with graph QA: graph-like {have.get('yes', 0)} of "
              f"{of.get('yes', 0)}, not graph-like {have.get('no', 0)} of {of.get('no', 0)}"
              + (f"  (before: {old.get('labelled_pictures_with_graph_qa')})" if old else ""))
        for w in res["graph_qa_on_non_graph_examples"]:
            print(f"    {w['key']} [{w['type']}]: {w['question']} → {w['answer']}")
    if res["chart_examples"]:
        print("  chart QA examples:")
        for c in res["chart_examples"]:
            print(f"    {c['key']}: {c['question']} → {c['answer']}")
    print("  synth rejections:", res["synth_rejections"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpora", nargs="*", default=list(CORPORA))
    ap.add_argument("--out", type=Path, default=Path("/tmp/qa-grounding"))
    ap.add_argument("--tex-cache", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--compare", type=Path, default=None)
    ap.add_argument("--examples", type=int, default=12)
    ap.add_argument("--shared", type=Path, default=SHARED,
                    help="the shared corpora folder (default: ../shared/corpora)")
    a = ap.parse_args()
    before = {r["corpus"]: r for r in json.loads(a.compare.read_text())} if a.compare else {}
    results = []
    for name in a.corpora:
        res = run(name, a.out, a.tex_cache or a.out / "tex-cache", a.examples, a.shared)
        results.append(res)
        show(res, before.get(name))
        if a.json:
            a.json.write_text(json.dumps(results, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
