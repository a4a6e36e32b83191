"""The HTTP arXiv crawler: list with the ``arxiv`` package, licences from OAI-PMH (sickle),
e-prints and PDFs into a content cache keyed by arXiv id + version.

All traffic shares one polite session (:mod:`polite`): a descriptive User-Agent, one
request every ``delay_s`` seconds, retries with backoff on 429/5xx honouring Retry-After.
A rerun never downloads a paper twice.  Tests run this against a loopback server that
speaks arXiv's URL shapes (``tests/builders/arxiv_server.py``).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import arxiv
import requests
from sickle import Sickle
from sickle.oaiexceptions import NoRecordsMatch

from diagramforge.builders.crawl.arxiv import CrawlReason, Entry, licence_refusal, parse_record
from diagramforge.builders.crawl.polite import NotFound, download, polite_session
from diagramforge.builders.crawl.settings import ArxivCrawlParams, CrawlSettings
from diagramforge.stage import StageLog
from diagramforge.store.records import Rejection

log = logging.getLogger(__name__)
_VERSIONED = re.compile(r"abs/(?P<id>.+?)v(?P<v>\d+)$")


class SessionSickle(Sickle):
    """Sickle whose requests go through our polite session (pace, UA, retries)."""

    def __init__(self, endpoint: str, session: requests.Session, **kw):  # noqa: ANN003
        super().__init__(endpoint, **kw)
        self.session = session

    def _request(self, kwargs):  # noqa: ANN001, ANN202 - sickle's hook
        return self.session.get(self.endpoint, params=kwargs)


def search_query(cfg: ArxivCrawlParams) -> str:
    """The arXiv API query for the configured categories and submission dates."""
    cats = [f"cat:{c}.*" if "." not in c else f"cat:{c}" for c in cfg.categories]
    parts = [f"({' OR '.join(cats)})"] if cats else []
    if cfg.from_date or cfg.until_date:
        lo = (cfg.from_date or "1991-01-01").replace("-", "") + "0000"
        hi = (cfg.until_date or "2999-12-31").replace("-", "") + "2359"
        parts.append(f"submittedDate:[{lo} TO {hi}]")
    return " AND ".join(parts) or "all:*"


def list_papers(cfg: ArxivCrawlParams, session: requests.Session) -> list[arxiv.Result]:
    client = arxiv.Client(page_size=cfg.page_size, delay_seconds=0, num_retries=cfg.retries)
    client._session = session  # pace, User-Agent and retries are the session's job
    client.query_url_format = cfg.api_url + "?{}"
    search = arxiv.Search(query=search_query(cfg), max_results=cfg.max_papers,
                          sort_by=arxiv.SortCriterion.SubmittedDate,
                          sort_order=arxiv.SortOrder.Ascending)
    return list(client.results(search))


def harvest(cfg: ArxivCrawlParams, session: requests.Session) -> Iterator[Entry]:
    """OAI-PMH ``arXiv``-format records of the configured archives, as they arrive (the
    bulk crawl streams them into its index)."""
    sickle = SessionSickle(cfg.oai_url, session)
    archives = sorted({c.split(".")[0] for c in cfg.categories}) or [None]
    for archive in archives:
        args = {"metadataPrefix": "arXiv"}
        if archive:
            args["set"] = archive
        if cfg.from_date:
            args["from"] = cfg.from_date
        try:
            for rec in sickle.ListRecords(**args):
                e = parse_record(rec.xml)
                if e:
                    yield e
        except NoRecordsMatch:
            continue


def harvest_licences(cfg: ArxivCrawlParams, session: requests.Session) -> dict[str, Entry]:
    """OAI-PMH ``arXiv``-format records of the configured archives, by arXiv id."""
    return {e.id: e for e in harvest(cfg, session)}


def get_record(cfg: ArxivCrawlParams, session: requests.Session, arxiv_id: str
               ) -> Entry | None:
    try:
        rec = SessionSickle(cfg.oai_url, session).GetRecord(
            identifier=f"oai:arXiv.org:{arxiv_id}", metadataPrefix="arXiv")
    except Exception as exc:  # noqa: BLE001 - a missing record means "no licence known"
        log.info("no OAI record for %s: %s", arxiv_id, exc)
        return None
    return parse_record(rec.xml)


def crawl_http(params: CrawlSettings, log_: StageLog) -> list[dict]:
    """List, check and download; every listed paper becomes a row or a rejection."""

    cfg = params.crawl.arxiv
    session = polite_session(cfg.user_agent, cfg.delay_s, cfg.retries, cfg.timeout_s)
    results = list_papers(cfg, session)
    log_.stats.n_in = len(results)
    licences = harvest_licences(cfg, session) if results else {}
    cache = Path(cfg.cache_dir)
    base = cfg.source.rstrip("/")
    rows: list[dict] = []
    for res in results:
        m = _VERSIONED.search(res.entry_id)
        if not m:
            log_.reject(Rejection(res.entry_id, CrawlReason.NO_EPRINT, "unversioned id"))
            continue
        aid, version = m.group("id"), m.group("v")
        vid = f"{aid}v{version}"
        loc = f"arxiv:{aid}"
        entry = licences.get(aid) or get_record(cfg, session, aid)
        if entry is None:  # not in OAI: keep the API metadata, licence unknown
            entry = Entry(id=aid, title=res.title, authors=[a.name for a in res.authors],
                          categories=res.categories, created=res.published.date().isoformat(),
                          licence_url=None, datestamp="")
        refusal = licence_refusal(entry, params)
        if refusal:
            log_.reject(refusal)
            continue
        safe = vid.replace("/", "_")
        try:
            src = download(session, f"{base}/e-print/{vid}", cache / "src" / safe)
        except NotFound as exc:
            log_.reject(Rejection(loc, CrawlReason.NO_EPRINT, str(exc)))
            continue
        except (requests.RequestException, OSError) as exc:
            log_.reject(Rejection(loc, CrawlReason.DOWNLOAD, repr(exc)))
            continue
        pdf = None
        if cfg.download_pdfs:
            try:
                pdf = download(session, f"{base}/pdf/{vid}", cache / "pdf" / f"{safe}.pdf")
            except (requests.RequestException, OSError) as exc:
                log.warning("PDF of %s not downloaded: %s", vid, exc)
        row = entry.to_row(version, str(src), str(pdf) if pdf else None)
        row["meta"] = json.dumps({**json.loads(row["meta"]), "api_title": res.title})
        rows.append(row)
    return rows
