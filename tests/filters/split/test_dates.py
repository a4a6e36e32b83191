"""Source dates for the ``split.test_after`` cut: joined by group from the crawl records,
else the month an arXiv identifier encodes; an uncertain date never counts as after."""

from datetime import date

from diagramforge.filters.split import dates

SOURCES = [
    {"id": "2401.00101", "kind": "arxiv", "date": "2024-01-02", "meta": None},
    {"id": "2401.00101.pdf", "kind": "pdf", "date": "2024-01-02",
     "meta": '{"arxiv_id": "2401.00101"}'},
    {"id": "kit@abc:a.svg", "kind": "repo", "date": None, "meta": '{"repo": "kit"}'},
    {"id": "2406.00001", "kind": "arxiv", "date": "2024-06-20T10:00:00Z", "meta": None},
]


def test_dates_join_by_the_group_the_extractors_write():
    known = dates.source_dates(SOURCES)
    assert known["arxiv:2401.00101"] == date(2024, 1, 2)
    assert known["arxiv:2406.00001"] == date(2024, 6, 20)  # a timestamp is cut to its day
    assert "repo:kit" not in known  # undated source


def test_arxiv_month_is_the_fallback_and_only_counts_when_the_whole_month_is_after():
    cut = date(2024, 1, 15)
    assert dates.earliest("arxiv:2402.01234", {}) == date(2024, 2, 1)
    assert dates.earliest("arxiv:hep-th/9901001", {}) == date(1999, 1, 1)
    assert dates.after_cut("arxiv:2402.01234", {}, cut)
    assert not dates.after_cut("arxiv:2401.99999", {}, cut)  # could be before the 15th
    assert not dates.after_cut("repo:kit", {}, cut)  # undated: never test
    assert not dates.after_cut(None, {}, cut)
    known = dates.source_dates(SOURCES)
    assert not dates.after_cut("arxiv:2401.00101", known, cut)
    assert dates.after_cut("arxiv:2401.00101", known, date(2024, 1, 1))
