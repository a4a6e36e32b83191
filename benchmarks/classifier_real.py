#!/usr/bin/env python3
"""The diagram-type decision on real figures from sources the checkpoint never saw.

Reads the real-figure set that ``scripts/classifier_data.py`` builds (renders of TeX Live
documentation figures, the shared TikZ corpus, the draw.io templates, made by the toolkit's
own stages), keeps the *held-out sources* named in the checkpoint's manifest (whole
packages, a whole corpus, whole template categories — never rows), and scores:

* the **image classifier alone** (what decides for figures cut out of PDFs), and
* the **combined code-first decision** the ``diagram_type`` filter makes,

against truth = the label read off each figure's code, overridden or supplied by the
eye-checked labels in ``benchmarks/classifier_truth.csv``.  Two keep/reject questions:

* ``diagram`` — is it a drawn diagram (family ``diagram``) rather than a chart, table, text
  or photo?  What a sketch-style config keeps; where the old classifier failed;
* ``pool`` — would the diagram pool keep it (everything but photographs and screenshots)?

Prints per-kind confusion, agreement, diagrams wrongly rejected, per source; writes a contact
sheet of every disagreement (``--sheet``) and the figures as JSON (``--json``).

    .venv/bin/python benchmarks/classifier_real.py [--data DIR] [--checkpoint DIR]
        [--sheet /tmp/classifier_disagreements.png] [--json out.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge.filters.classifier.contact import grid_sheet  # noqa: E402
from diagramforge.filters.classifier.decide import decide  # noqa: E402
from diagramforge.filters.classifier.evidence import code_evidence  # noqa: E402
from diagramforge.filters.classifier.model import Classifier  # noqa: E402
from diagramforge.filters.classifier.settings import ClassifierParams  # noqa: E402
from diagramforge.filters.classifier.shipped import SHIPPED, manifest  # noqa: E402
from diagramforge.filters.filter.diagram_type import verdict  # noqa: E402
from diagramforge.vocabulary import KINDS, LABELS, Family, family  # noqa: E402

DATA = Path.home() / ".cache" / "diagramforge" / "classifier-data"
TRUTH = REPO / "benchmarks" / "classifier_truth.csv"


def eye_labels(path: Path = TRUTH) -> dict[tuple[str, str], str]:
    """``(source, name) → label`` checked by eye (``label`` may be ``skip``: not scored).
    ``name`` is a render's name in the index, its document (the part before ``#``) for
    every picture of that document, or ``*`` for every render of the source whose code says
    nothing (a package whose pictures are all knots, all P&ID symbols…)."""
    if not path.exists():
        return {}
    with path.open() as fh:
        return {(r["source"], r["name"]): r["label"] for r in csv.DictReader(fh)}


def truth_of(row: dict, eye: dict[tuple[str, str], str]) -> str | None:
    """The eye-checked label of a render, else the one its code states (``None``: neither)."""
    return (eye.get((row["source"], row["name"]))
            or eye.get((row["source"], row["name"].split("#")[0])) or row["label"]
            or eye.get((row["source"], "*")))


def load_rows(data: Path, sources: set[str] | None) -> list[dict]:
    rows = pq.read_table(data / "index.parquet").to_pylist()
    seen: set[str] = set()
    out = []
    for r in rows:
        if sources is not None and r["source"] not in sources and r["corpus"] not in sources:
            continue
        if r["image_sha"] in seen:  # the same picture twice (a template in two categories)
            continue
        seen.add(r["image_sha"])
        out.append(r)
    return out


def _keep_diagram(label: str) -> bool:
    return label in KINDS and family(label) == Family.DIAGRAM


def evaluate(rows: list[dict], checkpoint: str, data: Path,
             eye: dict[tuple[str, str], str] | None = None) -> tuple[dict, list[dict]]:
    """Score ``rows`` (index rows with images under ``data``); returns the summary and one
    result per scored row (truth, image label/prob, combined label/source)."""
    eye = eye_labels() if eye is None else eye
    cfg = ClassifierParams(checkpoint=checkpoint)
    clf = Classifier.load(cfg)
    scored = [r for r in rows if truth_of(r, eye) not in (None, "skip")]
    unlabelled = sum(1 for r in rows if truth_of(r, eye) is None)
    probs = clf.probabilities([(data / r["image"]).read_bytes() for r in scored])
    results = []
    for r, p in zip(scored, probs, strict=True):
        t = truth_of(r, eye)
        img = decide(None, p, cfg)
        both = decide(code_evidence(r), p, cfg)
        results.append({
            "source": r["source"], "name": r["name"], "image": r["image"], "truth": t,
            "image_label": img.label, "image_prob": img.prob,
            "image_pool_keep": verdict(img, cfg).keep,
            "combined": both.label, "combined_source": both.source,
            "combined_pool_keep": verdict(both, cfg).keep})
    return summarise(results, unlabelled), results


def _rates(results: list[dict], pred: str, pool_key: str) -> dict:
    n = len(results)
    diag = [r for r in results if _keep_diagram(r["truth"])]
    agree = sum(_keep_diagram(r["truth"]) == _keep_diagram(r[pred]) for r in results)
    wrongly = sum(not _keep_diagram(r[pred]) for r in diag)
    pool_truth = [r["truth"] not in ("natural_image", "screenshot") for r in results]
    pool_agree = sum(t == r[pool_key] for t, r in zip(pool_truth, results, strict=True))
    pool_wrong = sum(t and not r[pool_key] for t, r in zip(pool_truth, results, strict=True))
    return {"exact": round(sum(r["truth"] == r[pred] for r in results) / max(1, n), 4),
            "family": round(sum(family(r["truth"]) == family(r[pred]) for r in results
                                if r[pred] in KINDS) / max(1, n), 4),
            "diagram_agreement": round(agree / max(1, n), 4),
            "diagrams_wrongly_rejected": round(wrongly / max(1, len(diag)), 4),
            "diagrams_wrongly_rejected_n": wrongly,
            "pool_agreement": round(pool_agree / max(1, n), 4),
            "pool_wrongly_rejected": round(pool_wrong / max(1, sum(pool_truth)), 4)}


def summarise(results: list[dict], unlabelled: int = 0) -> dict:
    per_kind = {}
    for kind in sorted({r["truth"] for r in results}, key=LABELS.index):
        rs = [r for r in results if r["truth"] == kind]
        per_kind[kind] = {
            "n": len(rs),
            "image_exact": sum(r["image_label"] == kind for r in rs),
            "image_diagram_agree": sum(_keep_diagram(r["image_label"]) == _keep_diagram(kind)
                                       for r in rs),
            "combined_exact": sum(r["combined"] == kind for r in rs),
            "combined_diagram_agree": sum(_keep_diagram(r["combined"]) == _keep_diagram(kind)
                                          for r in rs),
            "image_says": dict(Counter(r["image_label"] for r in rs).most_common(4))}
    per_source = {}
    for src in sorted({r["source"] for r in results}):
        rs = [r for r in results if r["source"] == src]
        per_source[src] = {"n": len(rs),
                           "image_diagram_agreement": _rates(rs, "image_label",
                                                             "image_pool_keep")[
                                                                 "diagram_agreement"],
                           "combined_diagram_agreement": _rates(rs, "combined",
                                                                "combined_pool_keep")[
                                                                    "diagram_agreement"]}
    return {"n": len(results), "unlabelled": unlabelled,
            "diagrams": sum(_keep_diagram(r["truth"]) for r in results),
            "image_alone": _rates(results, "image_label", "image_pool_keep"),
            "combined": _rates(results, "combined", "combined_pool_keep"),
            "decided_by": dict(Counter(r["combined_source"].split(":")[0] if
                                       r["combined_source"].startswith("code") else
                                       r["combined_source"] for r in results)),
            "per_kind": per_kind, "per_source": per_source}


def disagreement_sheet(results: list[dict], data: Path, which: str = "image_label") -> bytes:
    bad = [r for r in results if _keep_diagram(r["truth"]) != _keep_diagram(r[which])]
    items = [(f"{r['truth']}→{r[which]} {r['source'].split(':')[-1]}/{r['name']}",
              (data / r["image"]).read_bytes()) for r in bad]
    return grid_sheet(items or [("no disagreements", b"")], cols=6, cell=190,
                      title=f"{len(bad)} keep/reject disagreements ({which}), truth→predicted")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--checkpoint", default=str(SHIPPED))
    ap.add_argument("--sources", default="held-out",
                    help="'held-out' (the manifest's), or comma-separated sources/corpora")
    ap.add_argument("--sheet", type=Path, default=Path("/tmp/classifier_disagreements.png"))
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    if a.sources == "held-out":
        sources = set(manifest(Path(a.checkpoint))["held_out_sources"])
    else:
        sources = set(a.sources.split(","))
    rows = load_rows(a.data, sources)
    summary, results = evaluate(rows, a.checkpoint, a.data)
    a.sheet.write_bytes(disagreement_sheet(results, a.data))
    a.sheet.with_name(a.sheet.stem + "_combined.png").write_bytes(
        disagreement_sheet(results, a.data, "combined"))
    print(f"{summary['n']} held-out real figures ({summary['diagrams']} diagrams) from "
          f"{len(summary['per_source'])} sources; {summary['unlabelled']} without a label")
    for name in ("image_alone", "combined"):
        s = summary[name]
        print(f"{name:12s} diagram keep/reject agreement {s['diagram_agreement']:.3f}, "
              f"diagrams wrongly rejected {s['diagrams_wrongly_rejected']:.3f} "
              f"({s['diagrams_wrongly_rejected_n']}); pool agreement {s['pool_agreement']:.3f}"
              f", pool wrongly rejected {s['pool_wrongly_rejected']:.3f}; exact type "
              f"{s['exact']:.3f}")
    print("decided by:", summary["decided_by"])
    print(f"{'kind':22s} {'n':>4s} {'img=':>5s} {'img ok':>6s} {'both=':>5s} {'both ok':>7s}"
          "  image says")
    for kind, k in summary["per_kind"].items():
        print(f"{kind:22s} {k['n']:4d} {k['image_exact']:5d} {k['image_diagram_agree']:6d} "
              f"{k['combined_exact']:5d} {k['combined_diagram_agree']:7d}  {k['image_says']}")
    by_src = defaultdict(list)
    for src, s in summary["per_source"].items():
        by_src[src.split(":")[0]].append((src, s))
    for corpus, items in by_src.items():
        n = sum(s["n"] for _, s in items)
        print(f"{corpus}: {len(items)} sources, {n} figures")
    print(f"contact sheets: {a.sheet} and {a.sheet.with_name(a.sheet.stem + '_combined.png')}")
    if a.json:
        a.json.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
