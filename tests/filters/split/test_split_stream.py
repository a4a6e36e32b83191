"""The split stage streams: decisions from light rows and signatures, output re-read shard by
shard — and it is the same output as the whole-table path."""

from __future__ import annotations

import json
import random

import pytest

from diagramforge.filters.split import decontam, near_dup
from diagramforge.filters.split import stage as split_mod
from diagramforge.filters.split.settings import SplitParams
from diagramforge.filters.split.stage import ASSIGNMENTS, decide, emit, split_table
from diagramforge.runner import run_stage
from diagramforge.stage import StageLog
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import RECORD_SCHEMA, empty_record
from diagramforge.store.shards import ShardSet, Upstream
from tests.conftest import make_params, seed_stage
from tests.filters.split.test_split import png, table, tikz


def corpus(n_papers: int = 9) -> list[dict]:
    """Papers with several figures, an exact duplicate, a near-duplicate in code, one in
    render, a figure cut from a PDF with its code sibling: every kind of decision."""
    rows = []
    boxes = random.Random(9)

    def picture() -> bytes:  # distinct renders: a few random boxes each
        return png([(x, y, x + boxes.randint(20, 60), y + boxes.randint(15, 50))
                    for x, y in ((boxes.randint(0, 90), boxes.randint(0, 60))
                                 for _ in range(4))])

    for p in range(n_papers):
        for k in range(3):
            rows.append({"id": f"p{p}f{k}", "format": "tikz", "source": "arxiv",
                         "group": f"arxiv:{p}", "source_id": f"{p}v1/main.tex#{k}",
                         "code": tikz(p * 10 + k), "tokens": 80 + 7 * p + k,
                         "image": picture(), "width": 160, "height": 120,
                         "caption": f"Figure {k} of paper {p}"})
    rows.append({**rows[4], "source_id": "other/copy.tex#0", "group": "arxiv:99"})  # exact
    near = tikz(31, n=40)
    rows.append({**empty_record(), "id": "near-a", "format": "tikz", "source": "arxiv",
                 "group": "arxiv:50", "source_id": "50v1/a.tex#0", "code": near, "tokens": 120})
    rows.append({**empty_record(), "id": "near-b", "format": "tikz", "source": "arxiv",
                 "group": "arxiv:51", "source_id": "51v1/a.tex#0", "tokens": 121,
                 "code": near.replace("\\node", "\\node ", 1) + "\n% edited"})
    rows.append({**empty_record(), "id": "cut-1", "format": "raster", "source": "pdf",
                 "group": "arxiv:2", "source_id": "2v1/paper.pdf#p1", "tokens": None,
                 "image": picture(), "caption": rows[7]["caption"],
                 "width": 160, "height": 120})
    rows.append({**empty_record(), "id": "twin", "format": "tikz", "source": "arxiv",
                 "group": "arxiv:60", "source_id": "60v1/t.tex#0", "code": tikz(600),
                 "tokens": 90, "image": rows[10]["image"], "width": 160, "height": 120})
    rng = random.Random(4)
    rng.shuffle(rows)  # upstream order is not the output order: the merge path runs
    return [{**empty_record(), **r} for r in rows]


def cfg(**kw) -> SplitParams:  # noqa: ANN003
    return SplitParams(**kw)


def no_whole_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ShardSet.read_all`` of every column, or of code/images, fails the test."""
    orig = ShardSet.read_all

    def guarded(self, columns=None):  # noqa: ANN001, ANN202
        if columns is None or {"code", "image", "graph"} & set(columns):
            raise AssertionError(f"read the whole table: {columns}")
        return orig(self, columns)

    monkeypatch.setattr(ShardSet, "read_all", guarded)


@pytest.mark.parametrize("sorted_input", [False, True])
def test_streamed_decisions_and_rows_equal_the_whole_table(tmp_path, monkeypatch, sorted_input):
    rows = corpus()
    if sorted_input:  # already in output order: streams straight through, no runs
        rows.sort(key=lambda r: (r["group"] or "", r["source_id"] or "", r["id"]))
    whole_log = StageLog("split", expands=False)
    whole, whole_record = split_table(table(rows), whole_log, cfg())
    params = make_params(tmp_path)
    seed_stage(params, "filter", rows, shard_size=4)
    no_whole_reads(monkeypatch)
    up = Upstream(ShardSet(stage_paths(params, "filter").records, RECORD_SCHEMA))
    log = StageLog("split", expands=False)
    d, record = decide(up, log, cfg(), workdir=tmp_path / "work")
    out = list(emit(up, d, batch_rows=3, workdir=tmp_path / "work"))
    assert [r["id"] for r in whole] and out == whole
    assert record == whole_record
    assert log.rejections == whole_log.rejections
    assert log.stats.extra == whole_log.stats.extra
    # the corpus exercised every kind of link
    assert all(log.stats.extra[f"near_dup_{k}_pairs"] >= 1 for k in ("code", "image", "pdf"))
    assert {r["reason"] for r in log.rejections} == {"duplicate", "near_duplicate"}
    assert not (tmp_path / "work" / "_runs").exists()  # the sort runs are cleaned up


def test_the_stage_writes_the_same_rows_shard_by_shard(tmp_path, monkeypatch):
    rows = corpus()
    whole, record = split_table(table(rows), StageLog("split", expands=False), cfg())
    params = make_params(tmp_path, runner={"shard_size": 4})
    seed_stage(params, "filter", rows, shard_size=4)
    no_whole_reads(monkeypatch)
    seen = []
    orig = split_mod.decide

    def spy(src, *a, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        seen.append(type(src).__name__)
        return orig(src, *a, **kw)

    monkeypatch.setattr(split_mod, "decide", spy)
    monkeypatch.setattr(near_dup, "MEMMAP_BYTES", 0)  # the signatures go to a memmap
    dirs = []
    orig_init = near_dup.Signatures.__init__

    def init(self, *a, directory=None, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        dirs.append(directory)
        orig_init(self, *a, directory=directory, **kw)

    monkeypatch.setattr(near_dup.Signatures, "__init__", init)
    monkeypatch.setattr(decontam, "SPILL_RUN_BYTES", 20_000)  # several runs on disk
    monkeypatch.setattr(decontam, "RANGE_BYTES", 40_000)  # read in several hash ranges
    spills, parts = [], []
    orig_find = decontam.find_spilled

    def spy_find(rows, spill, *a, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        assert spill.directory.is_dir() and spill.runs
        spills.append(spill)
        orig_in_range = spill.in_range
        spill.in_range = lambda lo, hi: (parts.append(lo), orig_in_range(lo, hi))[1]
        return orig_find(rows, spill, *a, **kw)

    monkeypatch.setattr(decontam, "find_spilled", spy_find)
    stats = run_stage(split_mod.SplitStage(params))
    assert seen == ["Upstream"]
    paths = stage_paths(params, "split")
    assert dirs == [paths.root / "_index"] and not dirs[0].exists()  # scratch, removed
    assert len(spills) == 1 and len(spills[0].runs) > 2 and len(set(parts)) > 2
    assert not spills[0].directory.exists()  # scratch, removed
    assert not (paths.root / "_runs").exists()
    out = ShardSet(paths.records, split_mod.SplitStage(params).output_schema)
    assert len(out.indices()) == -(-len(whole) // 4)  # written in shards of 4
    written = [r for _, t in out.iter_tables() for r in t.to_pylist()]
    assert [(r["id"], r["split"], r["group"], r["dup_cluster"], r["difficulty"])
            for r in written] == \
        [(r["id"], r["split"], r["group"], r["dup_cluster"], r["difficulty"]) for r in whole]
    assert json.loads((paths.root / ASSIGNMENTS).read_text()) == \
        {k: v for k, v in record.items() if k != "contamination"}
    assert json.loads((paths.root / split_mod.CONTAMINATION).read_text()) == \
        json.loads(json.dumps(record["contamination"]))
    assert stats.n_out == len(whole) and stats.n_in == len(rows)


def test_decontamination_and_pdf_match_see_only_what_they_need(tmp_path):
    """Shingles go to disk, never into the light rows; the PDF columns come only for papers
    with a cut-out, and go once the match is done."""
    rows = corpus()
    params = make_params(tmp_path)
    seed_stage(params, "filter", rows, shard_size=5)
    up = Upstream(ShardSet(stage_paths(params, "filter").records, RECORD_SCHEMA))
    light = split_mod._light_rows(up)
    assert set(light[0]) <= {*split_mod.LIGHT, split_mod._AT}
    light.sort(key=lambda r: (r.get("group") or "", r.get("source_id") or "", r["id"]))
    kept, papers = split_mod._exact(light, StageLog("split", expands=False))
    index, spill = split_mod._signals(up, kept, cfg(), papers, tmp_path / "work")
    assert index is not None and index.sig_valid.sum() == len(kept) - 1  # the cut-out: no code
    with_caption = {r["group"] for r in kept if "caption" in r}
    assert with_caption == {"arxiv:2"}
    assert not any("code" in r for r in kept)
    assert spill is not None and set(spill.counts) == {r[split_mod._AT] for r in kept}
    n = cfg().decontaminate.ngram  # the input's rows are seeded in order: _AT is the index
    assert spill.pairs == sum(decontam.shingles(rows[r[split_mod._AT]]["code"], n).size
                              for r in kept)


@pytest.mark.parametrize("fan_in", [2, 3, 1000])
def test_the_merge_in_passes_gives_the_same_rows(tmp_path, monkeypatch, fan_in):
    """More sorted runs than the merge takes at once: groups are merged to disk first
    (shards of four rows, fan-in 2 or 3), and the rows are still the whole table's."""
    rows = corpus()
    whole, _ = split_table(table(rows), StageLog("split", expands=False), cfg())
    params = make_params(tmp_path)
    seed_stage(params, "filter", rows, shard_size=4)
    up = Upstream(ShardSet(stage_paths(params, "filter").records, RECORD_SCHEMA))
    d, _ = decide(up, StageLog("split", expands=False), cfg(), workdir=tmp_path / "work")
    monkeypatch.setattr(split_mod, "MERGE_FAN_IN", fan_in)
    widest = []
    orig = split_mod.heapq.merge

    def merge(*its, **kw):  # noqa: ANN002, ANN003, ANN202
        widest.append(len(its))
        return orig(*its, **kw)

    monkeypatch.setattr(split_mod.heapq, "merge", merge)
    out = list(emit(up, d, batch_rows=3, workdir=tmp_path / "work"))
    assert out == whole
    n_runs = len(up.shards.indices())
    assert max(widest) == min(fan_in, n_runs) and (len(widest) > 1) == (n_runs > fan_in)
    assert not (tmp_path / "work" / "_runs").exists()
