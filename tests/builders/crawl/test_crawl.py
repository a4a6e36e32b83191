import json

from diagramforge.builders.crawl.arxiv import parse_listing
from diagramforge.runner import run_named
from diagramforge.store.paths import stage_paths
from diagramforge.store.records import REJECTION_SCHEMA, SOURCE_SCHEMA
from diagramforge.store.shards import ShardSet
from tests.conftest import SAMPLES, make_params


def test_listing_carries_licences_and_authors():
    entries, token = parse_listing((SAMPLES / "arxiv" / "listing.xml").read_bytes())
    assert token is None and len(entries) == 16
    a = entries[0]
    assert a.id == "2401.00101" and a.authors == ["Ada Lovelace", "Charles Babbage"]
    assert a.licence == "CC-BY-4.0"
    licences = {e.licence for e in entries}
    assert {"CC-BY-4.0", "CC-BY-SA-4.0", "CC-BY-NC-SA-4.0", "CC0-1.0",
            "LicenseRef-arXiv-nonexclusive-distrib-1.0"} <= licences


def test_local_crawl_accounts_for_every_listed_paper(tmp_path):
    # (the papers' PDFs as `pdf` sources are tests/builders/crawl/test_pdf_source.py's business)
    params = make_params(tmp_path, crawl={"pdf": {"from_arxiv": False}})
    stats = run_named("crawl", params)
    assert stats.n_in == 16
    assert stats.n_out + stats.n_rejected == 16
    # the distribution-only arXiv licence, and CC BY-NC-SA (non-commercial: opt-in)
    assert stats.by_reason == {"licence_not_allowed": 2}
    rows = ShardSet(stage_paths(params, "crawl").records, SOURCE_SCHEMA).read_all().to_pylist()
    byid = {r["id"]: r for r in rows}
    assert byid["2401.00102"]["version"] == "2"
    assert byid["2401.00101"]["pdf_path"].endswith("2401.00101v1.pdf")
    assert byid["2401.00103"]["pdf_path"] is None
    assert json.loads(byid["2401.00101"]["authors"])[0] == "Ada Lovelace"


def test_scope_and_cap_are_rejections_not_silence(tmp_path):
    params = make_params(tmp_path, crawl={"arxiv": {"categories": ["cs"], "max_papers": 3,
                                                    "until_date": "2024-01-12"},
                                          "pdf": {"from_arxiv": False}})
    stats = run_named("crawl", params)
    assert stats.n_out == 3
    assert stats.by_reason["out_of_scope"] >= 4  # math, eess and the late papers
    assert stats.by_reason["over_max_papers"] > 0
    assert stats.n_out + stats.n_rejected == 16
    ledger = ShardSet(stage_paths(params, "crawl").rejections, REJECTION_SCHEMA).read_all()
    assert "arxiv:2401.00103" in ledger.column("locator").to_pylist()
