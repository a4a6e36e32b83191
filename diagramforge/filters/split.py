"""The ``split`` stage: exact and near-duplicates, difficulty tiers, leakage-safe splits.

In order, over the whole table (it needs a global view):

1. **Exact duplicates** (same content id) are kept once, from the first source in a stable
   order (group, source id); the others are ledgered ``duplicate``.
2. **Near-duplicates** (:mod:`diagramforge.curation.near_dup`: MinHash LSH over code
   shingles, pHash of renders) form clusters; ``dup_cluster`` is the kept member's id. With
   ``split.near_dup.keep`` other than ``all`` one representative stays — an id pinned by a
   previous release first, then a record with source code over a figure cut from a PDF,
   then the policy — and the rest are ledgered ``near_duplicate`` naming the kept id and
   the evidence. A figure cut from a paper's PDF joins the cluster of the code it was
   compiled from, matched by paper, caption, shape and labels
   (:mod:`diagramforge.curation.pdf_match`), not only by image hash.
3. **Difficulty** per format from token counts (:mod:`diagramforge.curation.difficulty`).
4. **Splits** per leakage unit, stratified, stable (:mod:`diagramforge.curation.splits`
   explains how hashing, minimum coverage and pins combine). ``group`` becomes the unit.
   With ``split.test_after`` a component reaches test only if every source in it is dated
   after the cut (:mod:`diagramforge.curation.dates`; dates joined from the crawl records).
5. **Decontamination** (:mod:`diagramforge.curation.decontam`): test items sharing a long
   code-token run with train or a named external dataset get the reason in
   ``contamination``; with ``action: move`` their whole component goes to train. What was
   found is written to ``data/split/contamination.json`` (the card's section) and metrics.

Everything a later version needs to reproduce this one — unit and id assignments, tier cut
points — is written to ``data/split/assignments.json`` (name it in ``split.pinned`` when
building the next version).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import asdict
from itertools import chain
from pathlib import Path

import numpy as np
import pyarrow as pa

from diagramforge import atomic
from diagramforge.curation import dates, decontam, difficulty, near_dup, pdf_match, splits
from diagramforge.params import DecontamParams, SplitParams
from diagramforge.paths import stage_paths
from diagramforge.records import SOURCE_SCHEMA, SPLITS, Rejection
from diagramforge.shards import ShardSet
from diagramforge.stage import StageLog, TableStage

ASSIGNMENTS = "assignments.json"
CONTAMINATION = "contamination.json"


class Reason:
    DUPLICATE = "duplicate"
    NEAR_DUPLICATE = "near_duplicate"


def assign_split(group: str, cfg: SplitParams) -> str:
    """Deterministic split of a group from a seeded hash (before minimum coverage)."""
    return splits.hashed_split(splits.uniform(group, cfg.seed), cfg)


def load_pins(path: str) -> dict:
    """A previous release's assignments (``{}`` when ``split.pinned`` is empty)."""
    if not path:
        return {}
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"split.pinned: no assignments file at {p}")
    return json.loads(p.read_text())


def _exact(rows: list[dict], log_: StageLog) -> tuple[list[dict], dict[int, set[str]]]:
    """Rows kept once per id, and for each kept row the other papers it stood for (a
    figure cut from one of those papers' PDFs still finds its code)."""
    first: dict[str, int] = {}
    out: list[dict] = []
    papers: dict[int, set[str]] = defaultdict(set)
    for r in rows:
        if r["id"] in first:
            kept = first[r["id"]]
            log_.reject(Rejection(str(r.get("source_id") or r["id"]), Reason.DUPLICATE,
                                  f"same diagram as {out[kept].get('source_id')}",
                                  id=r["id"]))
            if r.get("group"):
                papers[kept].add(str(r["group"]))
            continue
        first[r["id"]] = len(out)
        out.append(r)
    return out, dict(papers)


def _representative(members: list[int], rows: list[dict], keep: str,
                    pinned_ids: dict[str, str]) -> int:
    pinned = [i for i in members if rows[i]["id"] in pinned_ids]
    if pinned:
        return pinned[0]
    # a figure cut out of a PDF is a copy of its source code's render: the code stays
    original = [i for i in members if not pdf_match.is_cut_out(rows[i])]
    members = original or members
    if keep == "most_tokens":
        return max(members, key=lambda i: (rows[i].get("tokens") or 0, -i))
    if keep == "fewest_tokens":
        return min(members, key=lambda i: (rows[i].get("tokens") or 0, i))
    return members[0]


def _near(rows: list[dict], log_: StageLog, cfg: SplitParams,
          pinned_ids: dict[str, str], papers: dict[int, set[str]] | None = None
          ) -> list[dict]:
    nd_cfg = cfg.near_dup
    for r in rows:
        r["dup_cluster"] = r["id"]
    if not nd_cfg.enabled or not rows:
        return rows
    found = near_dup.find([r.get("code") for r in rows], [r.get("image") for r in rows],
                          code_threshold=nd_cfg.code.threshold, num_perm=nd_cfg.code.num_perm,
                          shingle=nd_cfg.code.shingle, seed=nd_cfg.code.seed,
                          max_distance=nd_cfg.image.max_distance,
                          hash_size=nd_cfg.image.hash_size, max_bucket=nd_cfg.max_bucket)
    log_.stats.extra["near_dup_code_pairs"] = int(found.code_pairs.shape[0])
    log_.stats.extra["near_dup_image_pairs"] = int(found.image_pairs.shape[0])
    # a figure cut from a PDF joins the cluster of the code it was compiled from
    cut, cut_why = pdf_match.pairs(rows, nd_cfg.pdf, papers)
    log_.stats.extra["near_dup_pdf_pairs"] = int(cut.shape[0])
    evidence = {**found.evidence(), **cut_why}
    if cut.size:
        found.labels = near_dup.components(
            len(rows), np.concatenate([found.code_pairs, found.image_pairs, cut]))
    linked: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for (i, j), why in evidence.items():
        linked[i].append((j, why))
        linked[j].append((i, why))
    clusters: dict[int, list[int]] = defaultdict(list)
    for i, label in enumerate(found.labels.tolist()):
        clusters[label].append(i)
    dropped: set[int] = set()
    for members in clusters.values():
        if len(members) < 2:
            continue
        log_.stats.extra["near_dup_clusters"] = log_.stats.extra.get("near_dup_clusters", 0) + 1
        rep = _representative(members, rows, nd_cfg.keep, pinned_ids)
        for i in members:
            rows[i]["dup_cluster"] = rows[rep]["id"]
            if nd_cfg.keep == "all" or i == rep:
                continue
            # the most telling evidence first: a PDF match names page and caption
            j, why = sorted(linked[i], key=lambda x: (x[1] not in cut_why.values(), x[0]))[0]
            log_.reject(Rejection(
                str(rows[i].get("source_id") or rows[i]["id"]), Reason.NEAR_DUPLICATE,
                f"kept {rows[rep]['id']} ({rows[rep].get('source_id')}); {why} with "
                f"{rows[j]['id']}", id=rows[i]["id"]))
            dropped.add(i)
    return [r for i, r in enumerate(rows) if i not in dropped]


def _tiers(rows: list[dict], log_: StageLog, cfg: SplitParams,
           frozen: dict | None) -> dict[str, tuple[int, int]]:
    by_fmt: dict[str, list[int]] = defaultdict(list)
    for r in rows:
        if r.get("tokens") is not None:
            by_fmt[str(r["format"])].append(int(r["tokens"]))
    cuts = difficulty.cut_points(by_fmt, cfg.difficulty, frozen)
    for r in rows:
        r["difficulty"] = difficulty.tier(r.get("tokens"), cuts.get(str(r["format"])))
    for fmt, (lo, hi) in sorted(cuts.items()):
        log_.stats.extra[f"tier_{fmt}_medium_from"] = lo
        log_.stats.extra[f"tier_{fmt}_hard_above"] = hi
    for (fmt, tier), n in Counter((r["format"], r["difficulty"]) for r in rows
                                  if r["difficulty"]).items():
        log_.stats.extra[f"difficulty_{fmt}_{tier}"] = n
    return cuts


def _decontaminate(rows: list[dict], log_: StageLog, cfg: DecontamParams) -> dict:
    """Flag (or move to train) contaminated test items; returns the report."""
    for r in rows:
        r["contamination"] = None
    if not cfg.enabled:
        return {"enabled": False}
    external = chain.from_iterable(decontam.external_docs(s, cfg.code_column)
                                   for s in cfg.against)
    found = decontam.find(rows, cfg, external)
    by_id = {str(r["id"]): r for r in rows}
    moved_groups = set()
    for h in found.hits:
        by_id[h.id]["contamination"] = h.reason(cfg.ngram)
        if cfg.action == "move":
            moved_groups.add(by_id[h.id]["group"])
    moved = [r for r in rows if r["group"] in moved_groups]
    for r in moved:  # the whole component: its other members must not stay in test alone
        r["split"] = "train"
    against = Counter(h.against for h in found.hits)
    log_.stats.extra["decontam_test_items"] = found.tested
    log_.stats.extra["decontam_hits"] = len(found.hits)
    log_.stats.extra["decontam_moved"] = len(moved)
    log_.stats.extra["decontam_boilerplate_ngrams"] = found.boilerplate
    for name, n in against.items():
        log_.stats.extra[f"decontam_hits_{name}"] = n
    return {"enabled": True, "ngram": cfg.ngram, "min_shared": cfg.min_shared,
            "action": cfg.action, "against": ["train", *cfg.against],
            "test_items": found.tested, "reference_docs": found.references,
            "boilerplate_ngrams": found.boilerplate, "moved": len(moved),
            "hits": [{**asdict(h), "reason": h.reason(cfg.ngram)}
                     for h in sorted(found.hits, key=lambda h: h.id)]}


def split_table(table: pa.Table, log_: StageLog, cfg: SplitParams,
                pins: dict | None = None, sources: list[dict] | None = None
                ) -> tuple[list[dict], dict]:
    """The stage's work on a table; returns the output rows and the assignments record
    (its ``contamination`` entry is the decontamination report). ``sources``: the crawl
    records, read for their dates when ``split.test_after`` is set."""
    pins = pins or {}
    pinned_ids = pins.get("ids", {})
    rows = sorted(table.to_pylist(), key=lambda r: (r.get("group") or "",
                                                    r.get("source_id") or "", r["id"]))
    rows, papers = _exact(rows, log_)
    rows = _near(rows, log_, cfg, pinned_ids, papers)
    cuts = _tiers(rows, log_, cfg, pins.get("tiers"))
    test_ok = None
    if cfg.test_after is not None:
        known = dates.source_dates(sources or [])
        test_ok = [dates.after_cut(r.get("group"), known, cfg.test_after) for r in rows]
        log_.stats.extra["date_cut_rows_after"] = sum(test_ok)
    unit_of = [splits.unit_key(r, cfg) for r in rows]
    a = splits.assign(rows, cfg, pins.get("units"), pinned_ids, test_ok)
    for r, s, g in zip(rows, a.splits, a.groups, strict=True):
        r["split"], r["group"] = s, g
    log_.stats.extra.update(a.stats)
    report = _decontaminate(rows, log_, cfg.decontaminate)
    units = {u: r["split"] for u, r in zip(unit_of, rows, strict=True)}  # after any move
    for k in SPLITS:
        log_.stats.extra[f"split_{k}"] = sum(1 for r in rows if r["split"] == k)
    for (fmt, s), n in Counter((r["format"], r["split"]) for r in rows).items():
        log_.stats.extra[f"split_{fmt}_{s}"] = n
    record = {"seed": cfg.seed, "tiers": {f: list(c) for f, c in sorted(cuts.items())},
              "units": dict(sorted(units.items())),
              "ids": {r["id"]: r["split"] for r in sorted(rows, key=lambda r: r["id"])},
              "contamination": report}
    return rows, record


class SplitStage(TableStage):
    """Remove exact and near-duplicates, tier difficulty, and assign train/validation/test
    per paper, repository or file — stratified by format × difficulty, stable across
    versions — so no source or duplicate cluster is in two splits."""

    name = "split"
    upstream = "filter"
    reads = ("id", "group", "source_id", "code", "image")
    """``tokens`` too when the tokens filter ran; without it ``difficulty`` stays null."""
    writes = ("split", "dup_cluster", "difficulty", "group", "contamination")
    param_sections = ("split",)
    code = ("curation",)
    inputs = ("data/crawl",)
    """The sources' dates (``split.test_after``)."""

    def run_table(self, table: pa.Table | None, log: StageLog) -> list[dict]:
        assert table is not None
        cfg = self.params.split
        sources = None
        if cfg.test_after is not None:
            crawl = ShardSet(stage_paths(self.params, "crawl").records, SOURCE_SCHEMA)
            sources = crawl.read_all(columns=["id", "kind", "date", "url", "meta"]).to_pylist()
        rows, record = split_table(table, log, cfg, load_pins(cfg.pinned), sources)
        root = stage_paths(self.params, self.name).root
        atomic.write_json(root / CONTAMINATION, record.pop("contamination"))
        atomic.write_json(root / ASSIGNMENTS, record)
        return rows
