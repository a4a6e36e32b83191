"""Evaluation-grade splits: the ``split.test_after`` date cut and decontamination, through
the split stage's own table function and the stage run on seeded records."""

import json
from datetime import date

from diagramforge.filters.split.settings import DecontamParams, SplitParams
from diagramforge.filters.split.stage import split_table
from diagramforge.stage import StageLog
from tests.filters.split.test_split import paper_rows, table


# arXiv-style groups arxiv:<YYMM>.<n>: months 2301..2312 over 48 papers
def dated_rows(n: int = 48) -> list[dict]:
    rows = paper_rows(n)
    for r in rows:
        p = int(r["group"].split(":")[1])
        r["group"] = f"arxiv:23{p % 12 + 1:02d}.{p:05d}"
    return rows


def run(rows, cfg, pins=None, sources=None):
    log = StageLog("split", expands=False)
    out, record = split_table(table(rows), log, cfg, pins, sources)
    return out, record, log


def month(r) -> int:
    return int(r["group"].split(":")[1][2:4])


def test_test_items_only_from_sources_after_the_cut():
    cut = date(2023, 6, 30)
    out, _, log = run(dated_rows(), SplitParams(test_after=cut))
    test = [r for r in out if r["split"] == "test"]
    assert test and all(month(r) > 6 for r in test)
    # the older sources are still in the dataset, in train/validation
    assert {r["split"] for r in out if month(r) <= 6} <= {"train", "validation"}
    assert len(out) == 96
    assert log.stats.extra["date_cut_rows_after"] == sum(month(r) > 6 for r in out)
    # without the cut, hashing puts some old sources in test: the cut did something
    plain, _, _ = run(dated_rows(), SplitParams())
    assert any(r["split"] == "test" and month(r) <= 6 for r in plain)


def test_the_cut_is_stable_and_crawl_dates_win_over_the_identifier():
    cfg = SplitParams(test_after=date(2023, 6, 30))
    a, _, _ = run(dated_rows(), cfg)
    b, _, _ = run(dated_rows(), cfg)
    assert [r["split"] for r in a] == [r["split"] for r in b]
    # the crawl says every paper was submitted in 2022 (its identifier month aside)
    sources = [{"id": r["group"].split(":")[1], "kind": "arxiv", "date": "2022-01-01",
                "meta": None} for r in dated_rows()]
    out, _, log = run(dated_rows(), cfg, sources=sources)
    assert not any(r["split"] == "test" for r in out)
    assert log.stats.extra["date_cut_rows_after"] == 0


def test_a_pinned_test_item_older_than_a_raised_cut_leaves_test():
    rows = dated_rows()
    _, record, _ = run(rows, SplitParams())
    old_test = [i for i, s in record["ids"].items() if s == "test"]
    out, _, log = run(dated_rows(), SplitParams(test_after=date(2023, 12, 31)), pins=record)
    assert old_test and not any(r["split"] == "test" for r in out)
    assert log.stats.extra["split_date_cut_pins"] > 0


def test_contaminated_test_items_are_flagged_with_the_reason():
    rows = paper_rows(30)
    base, _, _ = run(rows, SplitParams())
    train = next(r for r in base if r["split"] == "train")
    target = next(r for r in base if r["split"] == "test")
    for r in rows:  # paste five lines of a train figure into a test figure
        if r["id"] == target["id"]:
            r["code"] += "\n" + "\n".join(train["code"].splitlines()[2:7])
    out, record, log = run(rows, SplitParams(decontaminate=DecontamParams(ngram=30)))
    by_id = {r["id"]: r for r in out}
    assert by_id[target["id"]]["split"] == "test"
    assert train["id"] in by_id[target["id"]]["contamination"]
    assert [r["id"] for r in out if r["contamination"]] == [target["id"]]
    rep = record["contamination"]
    assert [h["id"] for h in rep["hits"]] == [target["id"]] and rep["hits"][0]["match"] == \
        train["id"]
    assert log.stats.extra["decontam_hits"] == 1 and log.stats.extra["decontam_hits_train"] == 1

    moved, record, log = run(rows, SplitParams(decontaminate=DecontamParams(ngram=30,
                                                                            action="move")))
    by_id = {r["id"]: r for r in moved}
    group = by_id[target["id"]]["group"]
    assert {r["split"] for r in moved if r["group"] == group} == {"train"}  # whole component
    assert record["ids"][target["id"]] == "train"
    assert all(record["units"][u] == "train" for u in record["units"] if u == group)
    assert log.stats.extra["decontam_moved"] == sum(r["group"] == group for r in moved)
    # everything else kept its split
    assert {r["id"]: r["split"] for r in moved if r["group"] != group} == {
        r["id"]: r["split"] for r in base if r["group"] != group}
    json.dumps(record)  # the report is plain JSON


def test_clean_splits_report_nothing():
    out, record, _ = run(paper_rows(30), SplitParams())
    assert not any(r["contamination"] for r in out)
    assert record["contamination"]["hits"] == [] and record["contamination"]["test_items"] > 0
    _, record, _ = run(paper_rows(30), SplitParams(decontaminate=DecontamParams(enabled=False)))
    assert record["contamination"] == {"enabled": False}



def test_the_stage_reads_crawl_dates_and_writes_its_report(tmp_path):
    from diagramforge.runner import run_named
    from diagramforge.store.paths import metrics_path, stage_paths
    from diagramforge.store.records import RECORD_SCHEMA, SOURCE_SCHEMA, empty_record
    from diagramforge.store.shards import ShardSet
    from tests.conftest import make_params, seed_stage

    params = make_params(tmp_path, split={"test_after": "2023-06-30"})
    rows = dated_rows()
    seed_stage(params, "filter", [empty_record(**r) for r in rows])
    # the crawl dates every paper in May 2023, whatever its identifier's month
    srcs = [{"id": g.split(":")[1], "kind": "arxiv", "date": "2023-05-01"}
            for g in sorted({r["group"] for r in rows})]
    seed_stage(params, "crawl", srcs, schema=SOURCE_SCHEMA)
    run_named("split", params)
    out = ShardSet(stage_paths(params, "split").records, RECORD_SCHEMA).read_all().to_pylist()
    assert len(out) == len(rows) and not any(r["split"] == "test" for r in out)
    assert "contamination" in out[0]
    report = json.loads((stage_paths(params, "split").root / "contamination.json").read_text())
    assert report["enabled"] and report["test_items"] == 0
    extra = json.loads(metrics_path(params, "split").read_text())["extra"]
    assert extra["date_cut_rows_after"] == 0 and extra["decontam_hits"] == 0
