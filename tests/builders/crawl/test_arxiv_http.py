"""The real crawler (arxiv package + sickle + our polite session) against a loopback server
speaking arXiv's protocols, with a 503 + Retry-After and a truncated download."""

from __future__ import annotations

import pytest

from diagramforge.builders.crawl.arxiv_http import search_query
from diagramforge.builders.crawl.polite import RateLimiter
from diagramforge.builders.crawl.settings import ArxivCrawlParams
from diagramforge.runner import run_named
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import SOURCE_SCHEMA
from diagramforge.store.shards import ShardSet
from tests.builders.crawl.arxiv_server import ArxivLoopback, Faults
from tests.conftest import SAMPLES, WITH_NC, make_params

UA = "diagramforge-test/1.0 (mailto:test@example.org)"
DELAY = 0.15


def http_params(tmp_path, srv, **arxiv):
    cfg = {"source": srv.url, "api_url": f"{srv.url}/api/query", "oai_url": f"{srv.url}/oai",
           "delay_s": DELAY, "user_agent": UA, "page_size": 4, "retries": 3,
           "categories": ["cs", "math", "eess"], "from_date": "2024-01-01",
           "until_date": "2024-12-31", **arxiv}
    # the papers' PDFs as `pdf` sources are tests/builders/crawl/test_pdf_source.py's business
    return make_params(tmp_path, licences=WITH_NC,
                       crawl={"arxiv": cfg, "pdf": {"from_arxiv": False}})


def papers(params) -> dict[str, dict]:
    rows = ShardSet(stage_paths(params, "crawl").records, SOURCE_SCHEMA).read_all().to_pylist()
    return {r["id"]: r for r in rows}


def test_crawl_over_http_is_polite_resilient_and_complete(tmp_path):
    faults = Faults(oai_503_first=True, truncate_once={"2401.00101", "2401.00102"})
    with ArxivLoopback(SAMPLES / "arxiv", faults, oai_page=5) as srv:
        params = http_params(tmp_path, srv)
        stats = run_named("crawl", params)
        log = list(srv.log)
    assert stats.n_in == 16 and stats.n_out == 15
    assert stats.by_reason == {"licence_not_allowed": 1}
    got = papers(params)
    for pid in ("2401.00101", "2401.00102", "2401.00114"):
        local = next((SAMPLES / "arxiv" / "src").glob(f"{pid}v*"))
        assert open(got[pid]["path"], "rb").read() == local.read_bytes()  # noqa: SIM115
    assert got["2401.00102"]["version"] == "2"
    assert got["2401.00101"]["licence"] == "CC-BY-4.0"
    assert got["2401.00105"]["licence"] == "CC-BY-NC-SA-4.0"
    assert got["2401.00101"]["pdf_path"] and got["2401.00103"]["pdf_path"] is None
    # every request identified itself and kept the pace
    assert {ua for _, _, ua, _ in log} == {UA}
    # (arrivals are stamped by the server's threads: on a loaded machine one arrival can be
    # stamped late and the next one on time, so the pace is checked over the whole crawl)
    starts = [t for t, *_ in log]
    assert starts[-1] - starts[0] >= (len(starts) - 1) * DELAY * 0.9
    # the 503 was retried after Retry-After, resumption tokens were followed
    oai = [(p, s) for _, p, _, s in log if p.startswith("/oai")]
    assert oai[0][1] == 503 and oai[1][1] == 200
    assert sum("resumptionToken" in p for p, _ in oai) == 2  # 15 cs-ish records, pages of 5
    # the truncated downloads were fetched again
    eprints = [p for _, p, _, _ in log if p.startswith("/e-print/2401.00101")]
    assert len(eprints) == 2


def test_http_crawl_feeds_the_same_extraction_as_the_local_corpus(tmp_path):
    from diagramforge.builders.extract.stage import ExtractStage
    from diagramforge.runner import run_stage
    from diagramforge.store.records import RECORD_SCHEMA

    with ArxivLoopback(SAMPLES / "arxiv", Faults(oai_503_first=False)) as srv:
        remote = http_params(tmp_path / "http", srv, delay_s=0.0)
        run_named("crawl", remote)
    local = make_params(tmp_path / "local", licences=WITH_NC, crawl={"pdf": {"from_arxiv": False}})
    run_named("crawl", local)
    ids = {}
    for name, params in (("http", remote), ("local", local)):
        run_stage(ExtractStage(params))
        t = ShardSet(stage_paths(params, "extract").records, RECORD_SCHEMA).read_all()
        ids[name] = sorted(t.column("id").to_pylist())
    assert ids["http"] == ids["local"] and len(ids["local"]) == 26


def test_rerun_never_downloads_a_paper_twice(tmp_path):
    with ArxivLoopback(SAMPLES / "arxiv", Faults(oai_503_first=False)) as srv:
        params = http_params(tmp_path, srv, delay_s=0.0)
        run_named("crawl", params)
        first = len(srv.requests_to("/e-print/")) + len(srv.requests_to("/pdf/"))
        run_named("crawl", params)
        second = len(srv.requests_to("/e-print/")) + len(srv.requests_to("/pdf/"))
    assert first == 15 + 15 and second == first  # 4 PDFs exist; 11 404s are remembered


def test_missing_eprint_and_scope(tmp_path):
    faults = Faults(oai_503_first=False, missing_eprints={"2401.00104"})
    with ArxivLoopback(SAMPLES / "arxiv", faults) as srv:
        params = http_params(tmp_path, srv, delay_s=0.0, categories=["cs"], max_papers=5)
        stats = run_named("crawl", params)
    assert stats.n_in == 5  # the API listing honours the category and the cap
    assert all(r["categories"].startswith("cs") for r in papers(params).values())
    with ArxivLoopback(SAMPLES / "arxiv", faults) as srv:
        params = http_params(tmp_path / "b", srv, delay_s=0.0, categories=["eess"])
        stats = run_named("crawl", params)
    assert stats.by_reason == {"eprint_missing": 1} and stats.n_out == 0


def test_search_query_shape():
    q = search_query(ArxivCrawlParams(categories=["cs", "math.CT"], from_date="2024-01-01",
                                      until_date="2024-02-01"))
    assert q == "(cat:cs.* OR cat:math.CT) AND submittedDate:[202401010000 TO 202402012359]"


def test_rate_limiter_spaces_requests_without_real_sleeping():
    now = [0.0]
    slept = []

    def sleep(d):
        slept.append(d)
        now[0] += d

    lim = RateLimiter(3.0, clock=lambda: now[0], sleep=sleep)
    lim.wait()
    now[0] += 1.0
    lim.wait()
    lim.wait()
    assert slept == [pytest.approx(2.0), pytest.approx(3.0)]
