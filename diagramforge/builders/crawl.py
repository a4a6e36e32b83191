"""The ``crawl`` stage: list papers, check scope and licence, fetch e-prints and PDFs.

Every listed paper becomes a row of ``data/crawl`` or a rejection (out of scope, licence
not allowed, e-print missing).  With ``crawl.arxiv.source`` a directory the embedded corpus
is read in place; with an http(s) URL the polite HTTP crawler downloads into the cache.
"""

from __future__ import annotations

import time
from enum import StrEnum
from pathlib import Path

from diagramforge.builders.arxiv import Entry, local_versions, parse_listing
from diagramforge.licences import allowed
from diagramforge.params import Params
from diagramforge.records import SOURCE_SCHEMA, Rejection
from diagramforge.runner import StageLog, commit_outputs
from diagramforge.stats import StageStats

STAGE = "crawl"
WRITES = tuple(SOURCE_SCHEMA.names)


class CrawlReason(StrEnum):
    OUT_OF_SCOPE = "out_of_scope"
    OVER_MAX = "over_max_papers"
    LICENCE = "licence_not_allowed"
    NO_EPRINT = "eprint_missing"
    DOWNLOAD = "download_failed"


def _local(params: Params, log_: StageLog) -> list[dict]:
    cfg = params.crawl.arxiv
    root = Path(cfg.source)
    entries: list[Entry] = []
    for listing in sorted(root.glob("listing*.xml")):
        entries += parse_listing(listing.read_bytes())[0]
    log_.stats.n_in = len(entries)
    rows: list[dict] = []
    for e in entries:
        loc = f"arxiv:{e.id}"
        why = e.in_scope(cfg.categories, cfg.from_date, cfg.until_date)
        if why:
            log_.reject(Rejection(loc, CrawlReason.OUT_OF_SCOPE, why))
            continue
        if len(rows) >= cfg.max_papers:
            log_.reject(Rejection(loc, CrawlReason.OVER_MAX, f"max_papers={cfg.max_papers}"))
            continue
        if cfg.skip_disallowed_licences and not allowed(e.licence, params.licences.allow):
            log_.reject(Rejection(loc, CrawlReason.LICENCE, f"{e.licence} ({e.licence_url})"))
            continue
        srcs = local_versions(root / "src", e.id)
        if not srcs:
            log_.reject(Rejection(loc, CrawlReason.NO_EPRINT, f"no e-print under {root}/src"))
            continue
        version, path = list(srcs.items())[-1]
        pdf = local_versions(root / "pdf", e.id).get(version) if cfg.download_pdfs else None
        rows.append(e.to_row(version, str(path), str(pdf) if pdf else None))
    return rows


def run_crawl(params: Params) -> StageStats:
    """Run the crawl stage and write ``data/crawl`` plus its metrics."""
    t0 = time.perf_counter()
    log_ = StageLog(STAGE, expands=False)
    src = params.crawl.arxiv.source
    if src.startswith(("http://", "https://")):
        from diagramforge.builders.arxiv_http import crawl_http

        rows = crawl_http(params, log_)
    else:
        rows = _local(params, log_)
    return commit_outputs(STAGE, params, rows, log_, SOURCE_SCHEMA, list(WRITES), t0)
