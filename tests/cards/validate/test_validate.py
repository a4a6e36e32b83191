"""The Great Expectations suite fails the stage on a broken table and passes a sound one."""

import json

import pytest

from diagramforge.cards.validate.stage import ValidationFailed
from diagramforge.runner import run_named
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import empty_record
from tests.conftest import make_params, seed_stage


def good_rows(n=4):
    return [empty_record(id=f"id{i}", format="tikz", code="\\draw;", image=b"PNG",
                         licence="CC-BY-4.0", group=f"g{i}", split="train", source_id=f"s{i}",
                         width=100, height=50, tokens=100) for i in range(n)]


def write_split(params, rows):
    seed_stage(params, "split", rows)


def test_sound_table_passes_and_report_is_written(tmp_path):
    params = make_params(tmp_path)
    write_split(params, good_rows())
    stats = run_named("validate", params)
    assert stats.n_out == 4 and stats.extra["failed"] == 0
    saved = json.loads((stage_paths(params, "validate").root / "report.json").read_text())
    assert len(saved["results"]) >= 10


@pytest.mark.parametrize("breakage, expectation", [
    (lambda rows: rows.append(dict(rows[0])), "expect_column_values_to_be_unique"),
    (lambda rows: rows[0].update(licence="GPL-3.0-only"), "expect_column_values_to_be_in_set"),
    (lambda rows: rows[1].update(group="g0", split="test"), "expect_column_values_to_be_between"),
    (lambda rows: rows[2].update(image=b""), "expect_column_values_to_be_between"),
    (lambda rows: rows[3].update(tokens=10**6), "tokens_in_window"),
    # each format's own window: 40,000 tokens is within mxGraph's cap, not within TikZ's
    (lambda rows: rows[3].update(tokens=40_000), "tokens_in_window"),
    # a near-duplicate family straddling train and test (different groups)
    (lambda rows: (rows[0].update(dup_cluster="c"), rows[1].update(dup_cluster="c",
                                                                   split="test")),
     "splits_per_dup_cluster"),
    (lambda rows: rows[2].update(code="  "), "code_chars"),
])
def test_broken_table_fails_the_stage(tmp_path, breakage, expectation):
    params = make_params(tmp_path)
    rows = good_rows()
    breakage(rows)
    write_split(params, rows)
    with pytest.raises(ValidationFailed, match=expectation):
        run_named("validate", params)
    report = json.loads((stage_paths(params, "validate").root / "report.json").read_text())
    assert not report["success"]


def test_report_is_identical_across_runs(tmp_path):
    reports = []
    for k in (1, 2):
        params = make_params(tmp_path / str(k))
        write_split(params, good_rows())
        run_named("validate", params)
        reports.append((stage_paths(params, "validate").root / "report.json").read_bytes())
    assert reports[0] == reports[1]


def test_token_windows_are_per_format(tmp_path):
    params = make_params(tmp_path)
    rows = good_rows()
    rows[3].update(format="mxgraph", tokens=40_000)  # VCG-Bench's hard tier: in the pool
    write_split(params, rows)
    assert run_named("validate", params).extra["failed"] == 0


def test_an_empty_source_has_nothing_to_publish_and_says_why(tmp_path):
    """A corpus that yields no diagram is not broken data: validate passes with the reason
    from the funnel, publish writes a card that says so, not a Great Expectations failure
    of the row count (issue 52: a Stack Exchange dump whose posts hold no picture)."""
    from diagramforge.cards.validate.empty import nothing_to_publish
    from diagramforge.measure.stats import StageStats
    from diagramforge.store import atomic
    from diagramforge.store.paths import metrics_path

    params = make_params(tmp_path)
    for name, n_in, n_out, reasons in [("crawl", 3, 3, {}),
                                       ("extract", 3, 0, {"no_diagrams": 2,
                                                          "code_block_without_picture": 1})]:
        st = StageStats(stage=name, n_in=n_in, n_out=n_out, rejected_inputs=n_in - n_out)
        st.by_reason.update(reasons)
        atomic.write_json(metrics_path(params, name), st.to_json())
    write_split(params, [])
    run_named("validate", params)
    report = json.loads((stage_paths(params, "validate").root / "report.json").read_text())
    why = "extract kept none of its 3 inputs (no_diagrams 2, code_block_without_picture 1)"
    assert report["success"] and report["rows"] == 0 and report["nothing_to_publish"] == why
    assert nothing_to_publish(params) == why
    run_named("publish", params)
    card = (tmp_path / "published" / params.publish.name / "README.md").read_text()
    assert f"0 rows to publish: {why}." in card
    assert not list((tmp_path / "published").rglob("*.parquet"))


def test_an_empty_table_with_rows_expected_elsewhere_still_fails_on_broken_rows(tmp_path):
    """Only an empty table is spared: one bad row still fails the suite."""
    params = make_params(tmp_path)
    rows = good_rows(1)
    rows[0].update(image=b"")
    write_split(params, rows)
    with pytest.raises(ValidationFailed):
        run_named("validate", params)
