#!/usr/bin/env python3
"""The published diagram type against labels made by eye, on real pictures.

Truth: the CSVs of ``benchmarks/labels/`` (``GUIDE.md``: ``key,type,graph_like,unsure,note``),
made by people looking at each picture, never at the toolkit's answer.  The pictures: the
toolkit's own renders of real corpora (``scripts/types_data.py``, ``--data``).  The answer:
the ``diagram_type`` filter itself — built from the registry with the repository's
``params.yaml`` (``filter.base.build``) and run on each labelled record with its render
bytes, exactly as the filter stage runs it; whatever columns it writes are read, so the
report follows the decision as it changes.

Keys.  ``<corpus>/<path>`` labels every picture the toolkit *extracted* from that file;
``<corpus>/<path>#<n>`` the n-th (``types_data.py``: its place in the file).  In one CSV a
``#n`` label overrides its file's label.  A labelled picture the toolkit did not render (or
a file it extracted nothing from) is counted apart with the ledger's reason, never scored.

Several labellers.  Every CSV is one labeller (its file name).  Their agreement with each
other is reported on the pictures two or more of them labelled (pairwise: exact type,
ACL-Fig parent, family, graph-like).  The toolkit is scored against ``--truth``:

* ``first`` (default) — every labelled picture, against the first CSV by file name that
  labels it (so the union of all labels is scored, each picture once);
* ``agreed`` — only pictures labelled by two or more labellers who all give the same ACL-Fig
  parent and the same graph-like verdict; the truth type is the first CSV's.

What is published, per picture (columns the filter writes, read when present):

* type: ``diagram_type`` when the verdict keeps the record or rejects it *for* its type
  (``diagram_type_rejected``: a photograph or screenshot the pool drops), else null —
  a null type is an **abstention**;
* family: ``diagram_family`` if written, else the type's vocabulary family, else null;
* graph-like: ``graph_like`` if written and not null, else the type's
  ``vocabulary.graph_like``, else no.

Scores, each as a share of all scored pictures and of *answered* ones (type not null):
exact type; ACL-Fig parent (``vocabulary.acl_fig``); family; graph-like; abstentions;
**wrong** = a type was published and its ACL-Fig parent differs from the label's.  Overall,
per corpus, and without ``unsure`` labels.  Labels ``other:<name>`` (no type of the
vocabulary fits) are counted apart, with what the toolkit said of them.  Type names a label
uses that the vocabulary lacks take their family/parent/graph-like from :data:`EXTRA_KINDS`
and are reported.

    .venv/bin/python benchmarks/types.py [--data ~/.cache/diagramforge/types-data]
        [--labels 'benchmarks/labels/*.csv' ...] [--only CORPUS] [--truth first|agreed]
        [--checkpoint DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import csv
import glob
import json
import sys
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagramforge import vocabulary  # noqa: E402

EXTRA_KINDS: dict[str, tuple[str, str, bool]] = {
    "illustration": ("diagram", "graph", False),
}
"""Label types GUIDE.md offers that ``vocabulary`` may not (yet) have: name → (family,
ACL-Fig parent, graph-like).  ``illustration`` (a drawing of a physical thing or scene) sits
under ``graph`` like ``geometry`` does, for want of an ACL-Fig illustration class; it is not
graph-like (GUIDE.md).  The vocabulary wins wherever it has the name."""
OTHER = "other:"
TYPE_REJECTED = "diagram_type_rejected"
"""The verdict reason of a record the pool drops for its (decided) type."""
NULL = "null"


# --- the vocabulary, with the benchmark's few extra names -------------------------------------

def kind_of(name: str | None) -> tuple[str, str, bool] | None:
    """(family, ACL-Fig parent, graph-like) of a type name, or None (null, other:, unknown)."""
    if not name:
        return None
    if name in vocabulary.KINDS:
        return (str(vocabulary.family(name)), vocabulary.acl_fig(name),
                vocabulary.graph_like(name))
    return EXTRA_KINDS.get(name)


# --- labels ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Label:
    labeller: str
    key: str
    type: str
    graph_like: bool
    unsure: bool
    note: str = ""

    @property
    def other(self) -> bool:
        return self.type.startswith(OTHER)


def _yes(value: str | None) -> bool:
    return (value or "").strip().lower() in ("yes", "y", "1", "true")


def read_labels(path: Path) -> list[Label]:
    """One labeller's CSV (GUIDE.md's columns; a header row; blank keys skipped)."""
    out = []
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            key = (row.get("key") or "").strip()
            if not key or key.startswith("#"):
                continue
            out.append(Label(path.stem, key, (row.get("type") or "").strip(),
                             _yes(row.get("graph_like")), _yes(row.get("unsure")),
                             (row.get("note") or "").strip()))
    return out


def label_files(patterns: list[str]) -> list[Path]:
    """Every CSV the globs match, in file-name order (the order ``first`` truth uses)."""
    found = {Path(p).resolve() for pat in patterns for p in glob.glob(str(Path(pat).expanduser()))
             if p.endswith(".csv")}
    return sorted(found, key=lambda p: (p.name, str(p)))


# --- pictures: what the toolkit extracted, rendered, or ledgered ------------------------------

@dataclass
class Pictures:
    """What ``types_data.py`` wrote: pictures by key, by file, and other names of keys."""

    status: dict[str, dict] = field(default_factory=dict)
    """key → {file_key, corpus, status, stage, reason}; status ``rendered`` or a stage."""
    by_file: dict[str, list[str]] = field(default_factory=dict)
    """file key → its extracted pictures' keys (status not ``extract``), in order."""
    files: dict[str, dict] = field(default_factory=dict)
    """file key → {corpus, file_stage, file_reason}."""
    aliases: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, pictures: list[dict], files: list[dict],
              aliases: dict[str, str] | None = None) -> Pictures:
        out = cls(aliases=dict(aliases or {}))
        for p in sorted(pictures, key=lambda p: (p["file_key"], p["n"])):
            out.status[p["key"]] = p
            if p["status"] != "extract":
                out.by_file.setdefault(p["file_key"], []).append(p["key"])
        out.files = {f["file_key"]: f for f in files}
        return out

    def canonical(self, key: str) -> str:
        key = self.aliases.get(key, key)
        if key not in self.status and key not in self.files:
            base, sep, n = key.partition("#")
            for suffix in (".png", ".jpg", ".jpeg", ".pdf"):  # the author's render's name
                if base.lower().endswith(suffix):
                    tex = base[: -len(suffix)] + ".tex"
                    if tex in self.files:
                        return tex + sep + n
        return key

    def expand(self, key: str) -> tuple[list[str], str | None]:
        """(picture keys a label key covers, why none) — a file key covers every picture the
        toolkit extracted from the file; a ``#n`` key its one picture."""
        key = self.canonical(key)
        if "#" in key:
            if key in self.status:
                return [key], None
            return [], "file extracted nothing" if key.split("#")[0] in self.files \
                else "not in the data"
        if key in self.by_file:
            return self.by_file[key], None
        f = self.files.get(key)
        if f is None:
            return [], "not in the data"
        return [], f"{f.get('file_stage') or 'extract'}:{f.get('file_reason') or 'no pictures'}"

    def corpus(self, key: str) -> str:
        if key in self.status:
            return self.status[key]["corpus"]
        f = self.files.get(key.split("#")[0])
        return f["corpus"] if f else key.split("/")[0]


def assign(labels: list[Label], pics: Pictures) -> tuple[dict[str, list[Label]], list[dict]]:
    """Labels per picture (one per labeller, a ``#n`` label over its file's), and the label
    keys that cover no picture (unknown, or a file that gave none)."""
    per: dict[str, dict[str, tuple[int, Label]]] = defaultdict(dict)
    unplaced = []
    for lab in labels:
        keys, why = pics.expand(lab.key)
        if not keys:
            unplaced.append({"labeller": lab.labeller, "key": lab.key, "type": lab.type,
                             "why": why, "corpus": pics.corpus(pics.canonical(lab.key))})
            continue
        rank = 1 if "#" in pics.canonical(lab.key) else 0
        for k in keys:
            have = per[k].get(lab.labeller)
            if have is None or rank >= have[0]:
                per[k][lab.labeller] = (rank, lab)
    return {k: [lab for _, lab in v.values()] for k, v in per.items()}, unplaced


def truth(per: dict[str, list[Label]], order: list[str], mode: str = "first"
          ) -> dict[str, Label]:
    """The label each picture is scored against (module docstring, ``--truth``)."""
    rank = {name: i for i, name in enumerate(order)}
    out = {}
    for key, labs in per.items():
        labs = sorted(labs, key=lambda lab: rank.get(lab.labeller, len(rank)))
        if mode == "agreed":
            if len(labs) < 2:
                continue
            kinds = [kind_of(lab.type) for lab in labs]
            if any(k is None for k in kinds) or len({k[1] for k in kinds}) > 1 \
                    or len({lab.graph_like for lab in labs}) > 1:
                continue
        out[key] = labs[0]
    return out


def agreement(per: dict[str, list[Label]]) -> dict:
    """Pairwise agreement of labellers on the pictures two or more of them labelled."""
    pairs: dict[str, Counter] = defaultdict(Counter)
    shared = 0
    for labs in per.values():
        if len(labs) < 2:
            continue
        shared += 1
        for a, b in combinations(sorted(labs, key=lambda lab: lab.labeller), 2):
            ka, kb = kind_of(a.type), kind_of(b.type)
            for name in ("all", f"{a.labeller}~{b.labeller}"):
                c = pairs[name]
                c["pairs"] += 1
                c["exact"] += a.type == b.type
                c["parent"] += bool(ka and kb and ka[1] == kb[1]) or a.type == b.type
                c["family"] += bool(ka and kb and ka[0] == kb[0]) or a.type == b.type
                c["graph_like"] += a.graph_like == b.graph_like
    return {"pictures": shared,
            **{name: {**c, **{f"{m}_share": round(c[m] / c["pairs"], 3)
                              for m in ("exact", "parent", "family", "graph_like")}}
               for name, c in pairs.items()}}


# --- what the toolkit publishes ---------------------------------------------------------------

@dataclass(frozen=True)
class Published:
    type: str | None
    family: str | None
    graph_like: bool
    source: str | None = None
    evidence: str | None = None
    kept: bool = True
    reason: str = ""


def published(metrics: dict, keep: bool = True, reason: str = "") -> Published:
    """What the filter's verdict publishes (module docstring): robust to columns the
    decision adds (``diagram_family``, ``graph_like``, ``diagram_type_evidence``)."""
    typ = metrics.get("diagram_type") if keep or reason == TYPE_REJECTED else None
    k = kind_of(typ)
    fam = metrics["diagram_family"] if "diagram_family" in metrics else k[0] if k else None
    gl = metrics.get("graph_like")
    if gl is None:
        gl = k[2] if k else False
    ev = metrics.get("diagram_type_evidence")
    return Published(typ, str(fam) if fam is not None else None, bool(gl),
                     metrics.get("diagram_type_source"),
                     ev if isinstance(ev, str) or ev is None else json.dumps(ev), keep, reason)


# --- scoring ----------------------------------------------------------------------------------

METRICS = ("exact", "parent", "family", "graph_like", "abstain", "wrong")


def judge(label: Label, pub: Published) -> dict[str, bool]:
    """One picture's outcomes (``other:`` and unknown label types are not judged here)."""
    lk = kind_of(label.type)
    pk = kind_of(pub.type)
    assert lk is not None, label
    return {"exact": pub.type == label.type,
            "parent": pk is not None and pk[1] == lk[1],
            "family": pub.family == lk[0],
            "graph_like": pub.graph_like == label.graph_like,
            "abstain": pub.type is None,
            "wrong": pub.type is not None and (pk is None or pk[1] != lk[1])}


def score(pairs: list[tuple[Label, Published]]) -> dict:
    """Counts and shares (of all, of answered) of :data:`METRICS` over judged pictures."""
    n = len(pairs)
    answered = [(lab, pub) for lab, pub in pairs if pub.type is not None]
    c_all = Counter({m: 0 for m in METRICS})
    c_ans = Counter({m: 0 for m in METRICS})
    for lab, pub in pairs:
        j = judge(lab, pub)
        c_all.update({m: int(v) for m, v in j.items()})
        if pub.type is not None:
            c_ans.update({m: int(v) for m, v in j.items()})
    gl = Counter((lab.graph_like, pub.graph_like) for lab, pub in pairs)
    return {"n": n, "answered": len(answered), "counts": dict(c_all),
            "of_all": {m: round(c_all[m] / n, 3) if n else None for m in METRICS},
            "of_answered": {m: round(c_ans[m] / len(answered), 3) if answered else None
                            for m in METRICS if m != "abstain"},
            "graph_like_matrix": {"eye_yes_pub_yes": gl[(True, True)],
                                  "eye_yes_pub_no": gl[(True, False)],
                                  "eye_no_pub_yes": gl[(False, True)],
                                  "eye_no_pub_no": gl[(False, False)]}}


def confusion(pairs: list[tuple[Label, Published]]) -> dict[str, dict[str, int]]:
    """label type → published type (``null`` for an abstention) → count."""
    out: dict[str, Counter] = defaultdict(Counter)
    for lab, pub in pairs:
        out[lab.type][pub.type or NULL] += 1
    return {k: dict(v) for k, v in sorted(out.items())}


def split_judgeable(scored: dict[str, tuple[Label, Published]]
                    ) -> tuple[dict[str, tuple[Label, Published]], dict[str, tuple]]:
    """(pictures whose label type has a kind, the rest: ``other:`` and unknown names)."""
    ok, apart = {}, {}
    for key, (lab, pub) in scored.items():
        (ok if kind_of(lab.type) is not None else apart)[key] = (lab, pub)
    return ok, apart


def summary(scored: dict[str, tuple[Label, Published]], corpus_of: dict[str, str]) -> dict:
    """Scores overall, per corpus, without unsure labels, and the confusion matrix."""
    ok, apart = split_judgeable(scored)
    pairs = list(ok.values())
    by_corpus: dict[str, list] = defaultdict(list)
    for key, pair in ok.items():
        by_corpus[corpus_of.get(key, key.split("/")[0])].append(pair)
    extra_used = Counter(lab.type for lab, _ in pairs if lab.type not in vocabulary.KINDS)
    return {"overall": score(pairs),
            "sure": score([(lab, pub) for lab, pub in pairs if not lab.unsure]),
            "unsure_labels": sum(lab.unsure for lab, _ in pairs),
            "per_corpus": {c: score(p) for c, p in sorted(by_corpus.items())},
            "confusion": confusion(pairs),
            "label_types_outside_vocabulary": dict(extra_used),
            "apart": {"other": Counter(lab.type for lab, _ in apart.values() if lab.other),
                      "unknown_type": Counter(lab.type for lab, _ in apart.values()
                                              if not lab.other),
                      "published_for_them": Counter(pub.type or NULL
                                                    for _, pub in apart.values())}}


def misses(scored: dict[str, tuple[Label, Published]]) -> list[dict]:
    """Every judged picture whose published type is not the label's."""
    ok, _ = split_judgeable(scored)
    out = []
    for key, (lab, pub) in sorted(ok.items()):
        if pub.type == lab.type:
            continue
        j = judge(lab, pub)
        out.append({"key": key, "label": lab.type, "published": pub.type,
                    "kind": "abstain" if j["abstain"] else "wrong" if j["wrong"] else
                    "parent-right", "source": pub.source, "evidence": pub.evidence,
                    "unsure": lab.unsure, "labeller": lab.labeller})
    return out


# --- running the filter -----------------------------------------------------------------------

def decision(checkpoint: str | None):  # noqa: ANN201 - the filter function
    """The ``diagram_type`` filter as the filter stage builds it, from ``params.yaml``; its
    checkpoint the shipped one unless told (what ``classifier-train`` copies by default)."""
    from diagramforge.config import parse_params
    from diagramforge.filters.classifier.shipped import SHIPPED
    from diagramforge.filters.filter.base import build
    from diagramforge.params import read
    from diagramforge.tools.realdata import merge

    data = merge(read(REPO / "params.yaml") or {},
                 {"filter": {"diagram_type": {"checkpoint": checkpoint or str(SHIPPED)}}})
    return build("diagram_type", parse_params(data, str(REPO / "params.yaml")))


def run_filter(fn, records: list[dict], batch: int = 32) -> list[Published]:  # noqa: ANN001
    """Verdicts as the filter stage gets them: batched, row by row when a batch fails."""
    out = []
    for i in range(0, len(records), batch):
        rows = [dict(r) for r in records[i:i + batch]]
        try:
            verdicts = fn.batch(rows)
            assert len(verdicts) == len(rows)
        except Exception:  # noqa: BLE001 - the stage falls back the same way
            verdicts = []
            for r in rows:
                try:
                    verdicts.append(fn(r))
                except Exception as exc:  # noqa: BLE001
                    from diagramforge.filters.filter.base import Verdict
                    verdicts.append(Verdict.reject("error", repr(exc)))
        out += [published(v.metrics, v.keep, v.reason) for v in verdicts]
    return out


def load_records(data: Path, keys: set[str]) -> dict[str, dict]:
    """The rendered records of ``keys`` as the filter stage reads them (image bytes in)."""
    import pyarrow.parquet as pq

    from diagramforge.store.records import RECORD_COLUMNS

    out = {}
    for row in pq.read_table(data / "index.parquet").to_pylist():
        if row["key"] in keys:
            rec = {c: row.get(c) for c in RECORD_COLUMNS}
            rec["image"] = (data / row["image_path"]).read_bytes()
            out[row["key"]] = rec
    return out


def load_pictures(data: Path) -> Pictures:
    import pyarrow.parquet as pq

    aliases = {}
    if (data / "aliases.tsv").exists():
        for line in (data / "aliases.tsv").read_text().splitlines():
            if "\t" in line:
                a, b = line.split("\t", 1)
                aliases[a] = b
    return Pictures.build(pq.read_table(data / "pictures.parquet").to_pylist(),
                          pq.read_table(data / "files.parquet").to_pylist(), aliases)


# --- printing ---------------------------------------------------------------------------------

def _pct(x: float | None) -> str:
    return "   —  " if x is None else f"{100 * x:5.1f}%"


def print_scores(name: str, s: dict, header: bool = False) -> None:
    """Two lines: shares of all scored pictures, then of answered ones (type not null)."""
    if header:
        print(f"  {'':40s}{'n':>5s}  {'':11s}" + "".join(f"{m:>11s}" for m in METRICS))
    a, b = s["of_all"], s["of_answered"]
    print(f"  {name[:40]:40s}{s['n']:5d}  {'of all':11s}"
          + "".join(f"{_pct(a[m]):>11s}" for m in METRICS))
    print(f"  {'':40s}{s['answered']:5d}  {'of answered':11s}"
          + "".join(f"{_pct(b.get(m)) if m != 'abstain' else '':>11s}" for m in METRICS))


def print_confusion(conf: dict[str, dict[str, int]]) -> None:
    cols = sorted({c for row in conf.values() for c in row},
                  key=lambda c: (c == NULL, vocabulary.LABELS.index(c)
                                 if c in vocabulary.LABELS else 999, c))
    print("  columns: " + "  ".join(f"[{i}] {c}" for i, c in enumerate(cols)))
    print(f"  {'label':24s}" + "".join(f"{i:>4d}" for i in range(len(cols))) + "   n")
    for lab, row in conf.items():
        print(f"  {lab[:24]:24s}" + "".join(f"{row.get(c, 0) or '.':>4}" for c in cols)
              + f"{sum(row.values()):4d}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path,
                    default=Path.home() / ".cache" / "diagramforge" / "types-data")
    ap.add_argument("--labels", action="append", default=None,
                    help="glob of label CSVs (repeatable; default benchmarks/labels/*.csv)")
    ap.add_argument("--only", default=None, help="score only this corpus")
    ap.add_argument("--truth", choices=("first", "agreed"), default="first")
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    files = label_files(a.labels or [str(REPO / "benchmarks" / "labels" / "*.csv")])
    if not (a.data / "index.parquet").exists():
        print(f"no pictures at {a.data}: run scripts/types_data.py first", file=sys.stderr)
        return 0
    labels = [lab for f in files for lab in read_labels(f)]
    pics = load_pictures(a.data)
    per, unplaced = assign(labels, pics)
    if a.only:
        per = {k: v for k, v in per.items() if pics.corpus(k) == a.only}
        unplaced = [u for u in unplaced if u["corpus"] == a.only]
    labellers = [f.stem for f in files]
    rows = Counter(lab.labeller for lab in labels)
    print(f"labels: {len(labels)} rows from {len(files)} CSVs "
          f"({', '.join(f'{f.stem} {rows[f.stem]}' for f in files)}); "
          f"{len(per)} pictures labelled")
    agree = agreement(per)
    if agree["pictures"]:
        g = agree["all"]
        print(f"labellers agree on {agree['pictures']} pictures labelled twice or more "
              f"({g['pairs']} pairs): exact {_pct(g['exact_share'])}, parent "
              f"{_pct(g['parent_share'])}, family {_pct(g['family_share'])}, graph-like "
              f"{_pct(g['graph_like_share'])}")
    chosen = truth(per, labellers, a.truth)
    rendered = {k: lab for k, lab in chosen.items() if pics.status[k]["status"] == "rendered"}
    not_rendered = [{"key": k, "type": lab.type, "stage": pics.status[k]["stage"],
                     "reason": pics.status[k]["reason"], "corpus": pics.corpus(k)}
                    for k, lab in sorted(chosen.items()) if k not in rendered]
    records = load_records(a.data, set(rendered))
    fn = decision(a.checkpoint)
    order = sorted(records)
    pubs = dict(zip(order, run_filter(fn, [records[k] for k in order]), strict=True))
    scored = {k: (rendered[k], pubs[k]) for k in order}
    corpus_of = {k: pics.corpus(k) for k in scored}
    s = summary(scored, corpus_of)
    print(f"\ntruth: {a.truth}; scored {s['overall']['n']} rendered pictures "
          f"({s['unsure_labels']} labelled unsure):")
    print_scores("overall", s["overall"], header=True)
    print_scores("without unsure labels", s["sure"])
    for c, sc in s["per_corpus"].items():
        print_scores(c, sc)
    gm = s["overall"]["graph_like_matrix"]
    print(f"  graph-like: by eye {gm['eye_yes_pub_yes'] + gm['eye_yes_pub_no']}, published "
          f"{gm['eye_yes_pub_yes'] + gm['eye_no_pub_yes']}, both {gm['eye_yes_pub_yes']}")
    if s["label_types_outside_vocabulary"]:
        print(f"  label types outside the vocabulary (EXTRA_KINDS): "
              f"{s['label_types_outside_vocabulary']}")
    ap_ = s["apart"]
    if ap_["other"] or ap_["unknown_type"]:
        print(f"  counted apart: other: {dict(ap_['other'])}; unknown types: "
              f"{dict(ap_['unknown_type'])}; published for them: "
              f"{dict(ap_['published_for_them'])}")
    print("\nconfusion (label × published):")
    print_confusion(s["confusion"])
    miss = misses(scored)
    print(f"\nmisses ({len(miss)}: {dict(Counter(m['kind'] for m in miss))}):")
    for m in miss:
        print(f"  {m['key']}  label={m['label']}{' (unsure)' if m['unsure'] else ''}  "
              f"published={m['published'] or NULL}  [{m['kind']}] by {m['source']}"
              + (f"  evidence: {m['evidence']}" if m["evidence"] else ""))
    why = Counter(f"{p['stage']}:{p['reason']}" for p in not_rendered)
    why.update(f"file {u['why']}" for u in unplaced)
    print(f"\nlabelled but not rendered by the toolkit (not scored): {len(not_rendered)} "
          f"pictures, {len(unplaced)} label keys with no picture")
    for w, n in why.most_common():
        print(f"  {n:4d}  {w}")
    if a.json:
        a.json.write_text(json.dumps({
            "labels": [str(f) for f in files], "truth": a.truth, "only": a.only,
            "agreement": agree, **s, "misses": miss, "not_rendered": not_rendered,
            "unplaced": unplaced,
            "pictures": {k: {"label": asdict(lab), "published": asdict(pub)}
                         for k, (lab, pub) in scored.items()}}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
