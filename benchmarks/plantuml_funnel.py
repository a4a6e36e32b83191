"""PlantUML's funnel on real files: files → diagrams → rendered → graph → edits, every loss
with its reason; and what a diagram costs (a JVM's start, then each diagram in it).

Run: ``.venv/bin/python benchmarks/plantuml_funnel.py [--corpus DIR] [--cost N]``.  The
corpus defaults to ``tests/formats/plantuml/corpus`` (real files, see its ``SOURCES.md``).
Figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.formats.plantuml import engine, evidence  # noqa: E402
from diagramforge.formats.plantuml.handler import PlantUmlFormat  # noqa: E402
from diagramforge.graphs.model import Graph  # noqa: E402
from diagramforge.store.records import Unit  # noqa: E402
from tests.conftest import make_params  # noqa: E402

SUFFIXES = (".puml", ".plantuml", ".pu", ".md", ".markdown")


def funnel(corpus: Path) -> None:
    h = PlantUmlFormat(make_params(Path(tempfile.mkdtemp(prefix="df-puml-bench-"))),
                       lambda r: r["source_id"])
    files = sorted(p for p in corpus.rglob("*") if p.suffix.lower() in SUFFIXES)
    rows, lost = [], Counter()
    claimed = 0
    for p in files:
        data = p.read_bytes()
        rel = str(p.relative_to(corpus))
        if not h.claims_file(rel, data):
            lost["not claimed"] += 1
            continue
        claimed += 1
        base = {"source": "repo", "source_id": rel, "group": "corpus"}
        recs, rejs = h.extract_file(data, rel, base, rel, Unit.INPUT)
        rows += recs
        for r in rejs:
            lost[f"extract: {r.reason}"] += 1
            print(f"  refused {r.locator}: {r.reason}: {r.detail}")
    t0 = time.perf_counter()
    out = h.render(rows)
    dt = time.perf_counter() - t0
    for r in out.rejections:
        lost[f"render: {r.reason}"] += 1
        print(f"  not rendered {r.locator}: {r.reason}: {r.detail[:120]}")
    kinds = Counter(r["render_engine"] for r in out.records)
    graphs = [r for r in out.records if r.get("graph")]
    edits = _edits(graphs)
    print(f"\n{corpus}: {len(files)} files ({claimed} claimed) → {len(rows)} diagrams → "
          f"{len(out.records)} rendered ({dt:.1f} s wall for the batch) → {len(graphs)} "
          f"with a graph → {edits[0]} with ≥1 verified edit ({edits[1]} edits)")
    print("  kinds:", dict(sorted(kinds.items())))
    print("  lost:", dict(sorted(lost.items())))
    agree = Counter()
    for r in out.records:  # the text's rules against PlantUML's own kind
        said, _ = evidence.kind_of({"code": r["code"]})
        agree["agree" if said == r["render_engine"].split(":")[1].upper()
              else "silent" if said is None else "differ"] += 1
    print("  code rules vs PlantUML's kind:", dict(sorted(agree.items())))
    labels = Counter(evidence.evidence(r["code"], r).label for r in out.records)
    print("  types:", dict(sorted(labels.items(), key=str)))
    nodes = sum(Graph.from_json(r["graph"]).nodes.__len__() for r in graphs)
    print(f"  graph nodes: {nodes}")
    _twins([r for r in graphs if evidence.evidence(r["code"], r).graph_like is not False])


def _bare(g: Graph) -> Graph:
    return Graph(nodes=[n.model_copy(update={"bbox": None}) for n in g.nodes], edges=g.edges)


def _twins(rows: list[dict]) -> None:
    """Graph-like diagrams written back as PlantUML (``twin.write``) and as DOT
    (the twin stage's DOT writer), each drawn by its own engine and its graph compared
    with the source's (ids and boxes aside): the twins' yield both ways."""
    from diagramforge.formats.dot import engine as dot
    from diagramforge.formats.dot.twin import write as to_dot
    from diagramforge.formats.edits import graph_diff
    from diagramforge.formats.plantuml import graph as pgraph
    from diagramforge.formats.plantuml import twin
    from diagramforge.formats.twin_layout import WriteError

    why: Counter = Counter()
    codes, sources = [], []
    for r in rows:
        g = Graph.from_json(r["graph"])
        try:
            codes.append(twin.write(g))
            sources.append(g)
        except WriteError as exc:
            why[f"plantuml twin: {exc.reason}"] += 1
    same = 0
    for g, d in zip(sources, engine.draw_many(codes), strict=True):
        back = pgraph.model_graph(d.kind, d.model, d.svg) if d.error is None else None
        ok = back is not None and not graph_diff(_bare(g), _bare(back))
        same += ok
        if not ok:
            why["plantuml twin: graph differs" if back else "plantuml twin: not drawn"] += 1
    dots = 0
    for r in rows:
        g = Graph.from_json(r["graph"])
        try:
            got = dot.render(to_dot(g), dot.Caps()).graph
        except Exception as exc:  # noqa: BLE001 - a writer's or engine's refusal is a count
            why[f"dot twin: {getattr(exc, 'reason', type(exc).__name__)}"] += 1
            continue
        texts = sorted(n.text for n in got.nodes if n.shape != "container")
        if texts == sorted(n.text for n in g.nodes if n.shape != "container") \
                and len(got.edges) == len(g.edges):
            dots += 1
        else:
            why["dot twin: graph differs"] += 1
    print(f"  twins of {len(rows)} graph-like diagrams: PlantUML→PlantUML {same} same graph; "
          f"PlantUML→DOT {dots} same texts and edge count")
    print("  twins lost:", dict(sorted(why.items())))


def _edits(graphs: list[dict]) -> tuple[int, int]:
    try:
        from diagramforge.formats.plantuml import edit as edits
    except ImportError:
        return 0, 0
    rng = random.Random(0)
    with_edit = total = 0
    ops: Counter = Counter()
    for r in graphs:
        ok = edits.verified_edits(r["code"], rng, limit=3)
        with_edit += bool(ok)
        total += len(ok)
        ops.update(e["op"] for e in ok)
    print("  verified edits by operation:", dict(sorted(ops.items())))
    return with_edit, total


def cost(n: int) -> None:
    """A JVM with one diagram, then with ``n``: the JVM's start is the difference's
    intercept (wall and CPU seconds of the sandboxed process group, as ``time`` sees them)."""
    import resource

    one = "@startuml\nclass A{k}\nA{k} --> B{k} : uses\nB{k} <|-- C{k}\n@enduml\n"
    for count in (1, n):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        got = engine.draw_many([one.format(k=k) for k in range(count)])
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        ok = sum(d.error is None for d in got)
        print(f"  {count:3d} diagram(s) in one JVM: {wall:.2f} s wall, {cpu:.2f} CPU-s "
              f"({ok} drawn) → {wall / count:.3f} s/diagram")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, action="append")
    ap.add_argument("--cost", type=int, default=20)
    args = ap.parse_args()
    for c in args.corpus or [REPO / "tests/formats/plantuml/corpus"]:
        funnel(c)
    if args.cost:
        print("\ncost of a diagram (class diagrams, laid out by Graphviz):")
        cost(args.cost)


if __name__ == "__main__":
    main()
