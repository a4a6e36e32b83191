"""The ``split`` stage: exact and near-duplicates, difficulty tiers, leakage-safe splits.

In order, over the whole table (it needs a global view):

1. **Exact duplicates** (same content id) are kept once, from the first source in a stable
   order (group, source id); the others are ledgered ``duplicate``.
2. **Near-duplicates** (:mod:`diagramforge.filters.split.near_dup`: MinHash LSH over code
   shingles, pHash of renders) form clusters; ``dup_cluster`` is the kept member's id. With
   ``split.near_dup.keep`` other than ``all`` one representative stays — an id pinned by a
   previous release first, then a record with source code over a figure cut from a PDF,
   then the policy — and the rest are ledgered ``near_duplicate`` naming the kept id and
   the evidence. A figure cut from a paper's PDF joins the cluster of the code it was
   compiled from, matched by paper, caption, shape and labels
   (:mod:`diagramforge.filters.split.pdf_match`), not only by image hash.
3. **Difficulty** per format from token counts, and graph size where asked (DOT, Mermaid)
   (:mod:`diagramforge.filters.split.difficulty`).
4. **Splits** per leakage unit, stratified, stable (:mod:`diagramforge.filters.split.splits`
   explains how hashing, minimum coverage and pins combine). ``group`` becomes the unit.
   With ``split.test_after`` a component reaches test only if every source in it is dated
   after the cut (:mod:`diagramforge.filters.split.dates`; dates joined from the crawl records).
5. **Decontamination** (:mod:`diagramforge.filters.split.decontam`): test items sharing a long
   code-token run with train or a named external dataset get the reason in
   ``contamination``; with ``action: move`` their whole component goes to train. What was
   found is written to ``data/split/contamination.json`` (the card's section) and metrics.

Everything a later version needs to reproduce this one — unit and id assignments, tier cut
points — is written to ``data/split/assignments.json`` (name it in ``split.pinned`` when
building the next version).

**Streaming** (issue 26). The stage never holds the table: it reads the small columns
(:data:`LIGHT`) of every row, then streams code and PNGs shard by shard into the
near-duplicate index (:class:`diagramforge.filters.split.near_dup.Signatures`), the
decontamination shingles and, for papers with a figure cut from their PDF only, the
captions, labels and graphs the PDF match compares; it decides everything on those, then
writes its rows by reading the shards again with the decisions as a lookup, in the same
order as a whole-table sort (an external merge of per-shard sorted runs, Arrow IPC
streams under ``data/split/_runs``, when the input is not already in that order).

What it holds, measured (``tracemalloc`` slope between two corpus sizes):

- light row (:data:`LIGHT` as a Python dict): ~640 B; MinHash signature + pHash + flags:
  ``4·num_perm + 10`` = 522 B; in all ~1.2 KB held, **~1.3 KB per row at peak** without
  decontamination. With an 8 GB budget that is ~6M rows; past that the MinHash index must
  be sharded by band key (:class:`~diagramforge.filters.split.near_dup.Signatures`); signature
  matrices above ``near_dup.MEMMAP_BYTES`` (1 GiB, ~2M rows) are already a memmap under
  ``data/split/_index`` (removed once clusters are found).
- decontamination (``split.decontaminate.enabled``): each row's shingles are ``8 B × code
  tokens`` (on the samples: TikZ 1.1 KB, mxGraph 3.1 KB, SVG 10.8 KB; ≈ 20 KB a row for
  the draw.io pages of the scale corpus), and which rows are train is known only after
  every row is seen. So the shingles go to disk as they are computed
  (:class:`decontam.ShingleSpill`: sorted runs of (hash, input position) under
  ``data/split/_decontam``, removed afterwards; 12 B per shingle on disk) and the
  reference index is built one hash range at a time from slices of those runs
  (:func:`decontam.find_spilled`: ``decontam.RANGE_BYTES`` of pairs per range, ≈ 5× that at
  its transient peak). What decontamination holds is then one count per row, the
  reference names and the per-test owner counts: flat in the corpus's size (until the
  ranges reach 65,536, ≈ 2 TB of shingles).
"""

from __future__ import annotations

import heapq
import json
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
import pyarrow as pa

from diagramforge.filters.split import dates, decontam, difficulty, near_dup, pdf_match, splits
from diagramforge.filters.split.settings import DecontamParams, SplitParams
from diagramforge.stage import StageLog, StageSettings, TableStage
from diagramforge.store import atomic
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import SOURCE_SCHEMA, SPLITS, Rejection
from diagramforge.store.shards import ShardSet, Upstream

if TYPE_CHECKING:
    from diagramforge.params import RunnerParams

ASSIGNMENTS = "assignments.json"
CONTAMINATION = "contamination.json"
LIGHT = ("id", "group", "source_id", "source", "format", "tokens", "width", "height",
         "graph_nodes", "graph_edges")
"""The columns every row keeps in memory for the global decisions."""
PDF_COLUMNS = ("caption", "label", "meta", "graph")
"""What the PDF match also compares: read only for rows of papers with a cut-out."""
UPDATES = ("split", "dup_cluster", "difficulty", "group", "contamination")
"""What the stage changes in a row: the lookup its output pass applies."""
_AT = "_at"  # a light row's position in the input (shard order)
SCRATCH = ("_index", "_decontam")
"""Scratch directories under the stage's root: the memmapped near-duplicate signatures and
the spilled decontamination shingles."""


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
          pinned_ids: dict[str, str], papers: dict[int, set[str]] | None = None,
          index: near_dup.Signatures | None = None) -> list[dict]:
    """``index``: the rows' signatures, signed in this order while the shards streamed."""
    nd_cfg = cfg.near_dup
    for r in rows:
        r["dup_cluster"] = r["id"]
    if not nd_cfg.enabled or not rows or index is None:
        return rows
    found = index.find(code_threshold=nd_cfg.code.threshold,
                       max_distance=nd_cfg.image.max_distance, max_bucket=nd_cfg.max_bucket)
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
    sizes: dict[str, list[int]] = defaultdict(list)
    for r in rows:
        if r.get("tokens") is not None:
            by_fmt[str(r["format"])].append(int(r["tokens"]))
        if difficulty.size(r) is not None:
            sizes[str(r["format"])].append(difficulty.size(r))
    cuts = difficulty.cut_points(by_fmt, cfg.difficulty, frozen, sizes)
    for r in rows:
        r["difficulty"] = difficulty.tier_of(r, cuts)
    for key, (lo, hi) in sorted(cuts.items()):
        name = key.replace(difficulty.STRUCTURE, "_structure")
        log_.stats.extra[f"tier_{name}_medium_from"] = lo
        log_.stats.extra[f"tier_{name}_hard_above"] = hi
    for (fmt, tier), n in Counter((r["format"], r["difficulty"]) for r in rows
                                  if r["difficulty"]).items():
        log_.stats.extra[f"difficulty_{fmt}_{tier}"] = n
    return cuts


def _decontaminate(rows: list[dict], log_: StageLog, cfg: DecontamParams,
                   spill: decontam.ShingleSpill | None) -> dict:
    """Flag (or move to train) contaminated test items; returns the report. ``spill``
    holds every row's shingles under its input position (:func:`_signals`)."""
    for r in rows:
        r["contamination"] = None
    if not cfg.enabled or spill is None:
        return {"enabled": False}
    external = chain.from_iterable(decontam.external_docs(s, cfg.code_column)
                                   for s in cfg.against)
    found = decontam.find_spilled(rows, spill, _AT, cfg, external)
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


Source = pa.Table | Upstream
"""The stage's input: one table (tests, small callers) or the upstream shards."""


def _tables(src: Source, columns: list[str]) -> Iterator[pa.Table]:
    cols = [c for c in columns if c in src.column_names]
    if isinstance(src, pa.Table):
        yield src.select(cols)
    else:
        yield from src.tables(cols)


def _light_rows(src: Source) -> list[dict]:
    """Every row's :data:`LIGHT` columns (shard by shard), tagged with its input position."""
    rows: list[dict] = []
    for t in _tables(src, list(LIGHT)):
        rows.extend(t.to_pylist())
    for k, r in enumerate(rows):
        r[_AT] = k
    return rows


def _signals(src: Source, rows: list[dict], cfg: SplitParams, papers: dict[int, set[str]],
             workdir: Path) -> tuple[near_dup.Signatures | None, decontam.ShingleSpill | None]:
    """One pass over the shards' code and PNGs: sign the kept ``rows`` into the
    near-duplicate index, spill each one's decontamination shingles to ``workdir`` under
    its input position and, for rows of papers with a cut-out, keep the columns the PDF
    match compares. PNGs are decoded one at a time and dropped."""
    nd, dc = cfg.near_dup, cfg.decontaminate
    use_code = nd.enabled and nd.code.threshold <= 1
    use_image = nd.enabled and nd.image.max_distance is not None
    cut_groups = {str(r["group"]) for r in rows
                  if pdf_match.is_cut_out(r) and r.get("group") is not None}
    pdf_rows = {k for k, r in enumerate(rows) if nd.enabled and nd.pdf.enabled and cut_groups
                and (pdf_match.is_cut_out(r) or str(r.get("group")) in cut_groups
                     or papers.get(k, set()) & cut_groups)}
    index = None
    if nd.enabled:
        big = len(rows) * nd.code.num_perm * 4 > near_dup.MEMMAP_BYTES
        index = near_dup.Signatures(
            len(rows), num_perm=nd.code.num_perm, shingle=nd.code.shingle, seed=nd.code.seed,
            hash_size=nd.image.hash_size, code=use_code, image=use_image,
            directory=workdir / "_index" if big else None)
    spill = decontam.ShingleSpill(workdir / "_decontam") if dc.enabled else None
    columns = (["code"] if use_code or dc.enabled else []) + (["image"] if use_image else []) \
        + (list(PDF_COLUMNS) if pdf_rows else [])
    if not columns:
        return index, spill
    kept = {r[_AT]: k for k, r in enumerate(rows)}
    at = 0
    for t in _tables(src, columns):
        for r in t.to_pylist():
            k = kept.get(at)
            at += 1
            if k is None:
                continue
            if index is not None:
                index.add(k, r.get("code"), r.get("image"))
            if spill is not None:
                spill.add(rows[k][_AT], decontam.shingles(r.get("code"), dc.ngram))
            if k in pdf_rows:
                rows[k].update({c: r.get(c) for c in PDF_COLUMNS})
    return index, spill


@dataclass
class Decisions:
    """What the output pass needs: for each kept input position, its place in the output
    and the values the stage sets."""

    order: dict[int, int]
    """input position → output position."""
    updates: list[dict]
    """per output position: :data:`UPDATES`."""


def decide(src: Source, log_: StageLog, cfg: SplitParams, pins: dict | None = None,
           sources: list[dict] | None = None, workdir: Path | None = None
           ) -> tuple[Decisions, dict]:
    """Every global decision, holding only light rows and signatures (the decontamination
    shingles are spilled to ``workdir``, a temporary directory when not given); returns
    the decisions and the assignments record (its ``contamination`` entry is the
    decontamination report). ``sources``: the crawl records, read for their dates when
    ``split.test_after`` is set."""
    if workdir is None:
        with tempfile.TemporaryDirectory() as tmp:
            return decide(src, log_, cfg, pins, sources, Path(tmp))
    try:
        return _decide(src, log_, cfg, pins or {}, sources, workdir)
    finally:  # the memmapped index and the spilled shingles are scratch, not output
        for scratch in SCRATCH:
            shutil.rmtree(workdir / scratch, ignore_errors=True)


def _decide(src: Source, log_: StageLog, cfg: SplitParams, pins: dict,
            sources: list[dict] | None, workdir: Path) -> tuple[Decisions, dict]:
    pinned_ids = pins.get("ids", {})
    rows = sorted(_light_rows(src), key=lambda r: (r.get("group") or "",
                                                   r.get("source_id") or "", r["id"]))
    rows, papers = _exact(rows, log_)
    index, spill = _signals(src, rows, cfg, papers, workdir)
    rows = _near(rows, log_, cfg, pinned_ids, papers, index)
    del index
    shutil.rmtree(workdir / "_index", ignore_errors=True)
    for r in rows:  # the PDF match is done: its columns go
        for c in PDF_COLUMNS:
            r.pop(c, None)
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
    report = _decontaminate(rows, log_, cfg.decontaminate, spill)
    shutil.rmtree(workdir / "_decontam", ignore_errors=True)
    units = {u: r["split"] for u, r in zip(unit_of, rows, strict=True)}  # after any move
    for k in SPLITS:
        log_.stats.extra[f"split_{k}"] = sum(1 for r in rows if r["split"] == k)
    for (fmt, s), n in Counter((r["format"], r["split"]) for r in rows).items():
        log_.stats.extra[f"split_{fmt}_{s}"] = n
    record = {"seed": cfg.seed, "tiers": {f: list(c) for f, c in sorted(cuts.items())},
              "units": dict(sorted(units.items())),
              "ids": {r["id"]: r["split"] for r in sorted(rows, key=lambda r: r["id"])},
              "contamination": report}
    decisions = Decisions({r[_AT]: k for k, r in enumerate(rows)},
                          [{c: r[c] for c in UPDATES} for r in rows])
    return decisions, record


def emit(src: Source, d: Decisions, batch_rows: int, workdir: Path) -> Iterator[dict]:
    """The output rows, in output order, reading the input again one shard at a time.

    Input already in output order (the common case after a sorted upstream) streams
    straight through; otherwise each shard's kept rows are sorted into a run file under
    ``workdir`` (batches of ``batch_rows`` / runs rows, at least one) and the runs merged
    (:func:`_merge_runs`), so at most about ``max(batch_rows, MERGE_FAN_IN)`` rows are in
    memory whatever the table's size."""
    ats = sorted(d.order, key=d.order.__getitem__)
    if all(a < b for a, b in zip(ats, ats[1:], strict=False)):
        at = 0
        for t in _tables(src, list(src.column_names)):
            for r in t.to_pylist():
                k = d.order.get(at)
                at += 1
                if k is not None:
                    yield {**r, **d.updates[k]}
        return
    runs = workdir / "_runs"
    shutil.rmtree(runs, ignore_errors=True)
    runs.mkdir(parents=True)
    n_runs = len(src.shards.indices()) if isinstance(src, Upstream) else 1
    per_run = max(1, batch_rows // max(1, min(n_runs, MERGE_FAN_IN)))  # a run's batch
    try:
        files, start = [], 0
        for t in _tables(src, list(src.column_names)):
            here = [(d.order[a], a - start) for a in range(start, start + t.num_rows)
                    if a in d.order]
            start += t.num_rows
            if not here:
                continue
            here.sort()
            run = t.take([i for _, i in here]).append_column(
                "_pos", pa.array([k for k, _ in here], pa.int64()))
            files.append(runs / f"run-{len(files):05d}.arrows")
            _write_run(files[-1], run.schema, run.to_batches(max_chunksize=per_run))
        for k, r in _merge_runs(files, runs, per_run):
            yield {**r, **d.updates[k]}
    finally:
        shutil.rmtree(runs, ignore_errors=True)


MERGE_FAN_IN = 256
"""Sorted runs merged at once. With more, groups of runs are first merged into longer runs
on disk (an external merge in passes), so the merge holds at most this many readers whatever
the table's size."""


def _write_run(path: Path, schema: pa.Schema, batches: Iterable[pa.RecordBatch]) -> None:
    """A sorted run as an Arrow IPC *stream*, read back batch by batch. Not Parquet: a
    Parquet reader holds its file's footer, and with one-row row groups (many runs, small
    shards) the 153 footers of a 10k-source merge were ~0.5 GB, growing with the table."""
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, schema) as w:
        for b in batches:
            w.write_batch(b)


def _read_run(path: Path) -> Iterator[tuple[int, dict]]:
    with pa.OSFile(str(path)) as f, pa.ipc.open_stream(f) as reader:
        for batch in reader:
            for r in batch.to_pylist():
                yield r.pop("_pos"), r


def _chunks(items: Iterator, size: int) -> Iterator[list]:
    while chunk := list(islice(items, size)):
        yield chunk


def _merge_runs(files: list[Path], workdir: Path,
                per_run: int) -> Iterator[tuple[int, dict]]:
    """(output position, row) from every run, in position order. Past
    :data:`MERGE_FAN_IN` runs, the first runs are merged into one run on disk until few
    enough remain: only as many rows are rewritten as it takes to get there."""
    files = list(files)
    n = 0
    while len(files) > MERGE_FAN_IN:
        group = files[:min(MERGE_FAN_IN, len(files) - MERGE_FAN_IN + 1)]
        files = files[len(group):]
        out = workdir / f"merged-{n:05d}.arrows"
        n += 1
        with pa.OSFile(str(group[0])) as f, pa.ipc.open_stream(f) as reader:
            schema = reader.schema
        merged = heapq.merge(*(_read_run(f) for f in group), key=lambda x: x[0])
        _write_run(out, schema, (
            pa.RecordBatch.from_pylist([{**r, "_pos": k} for k, r in chunk], schema=schema)
            for chunk in _chunks(merged, per_run)))
        for f in group:
            f.unlink()
        files.append(out)
    yield from heapq.merge(*(_read_run(f) for f in files), key=lambda x: x[0])


def split_table(table: Source, log_: StageLog, cfg: SplitParams,
                pins: dict | None = None, sources: list[dict] | None = None,
                workdir: Path | None = None) -> tuple[list[dict], dict]:
    """The stage's work on a table (or the upstream shards), output rows as one list:
    :func:`decide` then :func:`emit`. The stage itself streams the rows instead."""
    with tempfile.TemporaryDirectory() as tmp:
        d, record = decide(table, log_, cfg, pins, sources, workdir)
        return list(emit(table, d, 1 << 16, workdir or Path(tmp))), record


class SplitStageSettings(StageSettings, Protocol):
    """What the split stage reads: its section, the worker count (``runner``) and the stage
    base's part."""

    @property
    def split(self) -> SplitParams: ...
    @property
    def runner(self) -> RunnerParams: ...


class SplitStage(TableStage):
    """Remove exact and near-duplicates, tier difficulty, and assign train/validation/test
    per paper, repository or file — stratified by format × difficulty, stable across
    versions — so no source or duplicate cluster is in two splits."""

    name = "split"
    params: SplitStageSettings
    upstream = "filter"
    reads = ("id", "group", "source_id", "code", "image")
    """``tokens`` too when the tokens filter ran, and ``graph_nodes``/``graph_edges`` for the
    formats tiered by structure; without either ``difficulty`` stays null."""
    writes = UPDATES
    streams_input = True
    param_sections = ("split",)
    code = ("filters/split", "formats/capabilities.py", "formats/*/difficulty.py")
    inputs = ("data/crawl",)
    """The sources' dates (``split.test_after``)."""

    def run_table(self, table: pa.Table | Upstream | None, log: StageLog) -> Iterator[dict]:
        """Decide on light rows and signatures, write the two JSON records, then hand the
        runner a generator that re-reads the shards (the runner writes it shard by shard)."""
        assert table is not None
        cfg = self.params.split
        sources = None
        if cfg.test_after is not None:
            crawl = ShardSet(stage_paths(self.params, "crawl").records, SOURCE_SCHEMA)
            sources = crawl.read_all(columns=["id", "kind", "date", "url", "meta"]).to_pylist()
        root = stage_paths(self.params, self.name).root
        decisions, record = decide(table, log, cfg, load_pins(cfg.pinned), sources, root)
        atomic.write_json(root / CONTAMINATION, record.pop("contamination"))
        atomic.write_json(root / ASSIGNMENTS, record)
        return emit(table, decisions, self.params.runner.shard_size, root)
