"""The funnel per source kind, read from the records and the ledger of each stage."""

from __future__ import annotations

from diagramforge.builders.extract.stage import ExtractStage
from diagramforge.cards.publish.source_funnel import format_source_funnel, source_funnel
from diagramforge.runner import run_named, run_stage
from tests.builders.crawl.test_stack import ROWS, stack_params, write_archive
from tests.conftest import SAMPLE_REPOS


def test_each_kind_has_its_own_books(tmp_path):
    write_archive(tmp_path / "stack")
    params = stack_params(tmp_path)
    run_named("crawl", params)
    run_stage(ExtractStage(params))
    per = source_funnel(params)
    assert set(per) == {"stack"}
    crawl, extract = per["stack"]
    assert (crawl.stage, crawl.n_in, crawl.n_out) == ("crawl", len(ROWS), 7)
    assert crawl.reasons == {"licence_missing": 1, "licence_unknown": 1, "file_too_large": 1,
                             "licence_not_allowed": 1, "no_content": 1, "not_a_diagram": 3,
                             "no_handler": 1}
    assert (extract.stage, extract.n_in, extract.n_out, extract.rejected) == \
        ("extract", 7, 7, 0)
    text = format_source_funnel(per)
    assert "stack        crawl" in text and f"stack        {len(ROWS)} listed → 7 kept" in text


def test_kinds_side_by_side(tmp_path):
    from tests.conftest import make_params

    write_archive(tmp_path / "stack")
    base = stack_params(tmp_path)
    params = make_params(tmp_path, runner={"shard_size": 2}, crawl={
        "arxiv": {"source": ""}, "pdf": {"from_arxiv": False},
        "repos": {"repositories": SAMPLE_REPOS, "cache_dir": str(tmp_path / "repos")},
        "stack": base.crawl.stack.model_dump()})
    run_named("crawl", params)
    run_stage(ExtractStage(params))
    per = source_funnel(params)
    assert set(per) == {"stack", "repo"}
    assert [(r.stage, r.n_in, r.n_out) for r in per["repo"]] == \
        [("crawl", 23, 23), ("extract", 23, 22)]  # test_repos counts them (the SVG
    # declaring entities is refused)
    assert per["stack"][0].n_out == 7
