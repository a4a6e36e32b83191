"""The ``crawl`` stage: list papers, check scope and licence, fetch e-prints and PDFs.

Every listed paper becomes a row of ``data/crawl`` or a rejection (out of scope, licence
not allowed, e-print missing).  With ``crawl.arxiv.source`` a directory the embedded corpus
is read in place; with an http(s) URL the polite HTTP crawler downloads into the cache.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol

from diagramforge.builders.crawl.arxiv import (
    CrawlReason,
    Entry,
    licence_refusal,
    local_versions,
    parse_listing,
)
from diagramforge.builders.crawl.arxiv_http import crawl_http
from diagramforge.builders.crawl.bulk import BulkSettings, crawl_bulk
from diagramforge.builders.crawl.file_sources import FileReason
from diagramforge.builders.crawl.repo_search import search_rows
from diagramforge.builders.crawl.repos import GitError, checkout, find_licence, list_files
from diagramforge.builders.crawl.settings import CrawlSettings, RepoSpec
from diagramforge.builders.crawl.stack import stack_rows
from diagramforge.builders.crawl.stackexchange import stackexchange_rows
from diagramforge.formats import capabilities
from diagramforge.formats.registry import instantiate
from diagramforge.formats.settings import FormatSettings
from diagramforge.licensing.repository import Evidence, RepoLicence
from diagramforge.licensing.spdx import parse_expression
from diagramforge.stage import StageLog, TableStage
from diagramforge.store.records import SOURCE_SCHEMA, Rejection, SourceKind


class CrawlStageSettings(BulkSettings, FormatSettings, Protocol):
    """What the crawl stage reads: its helpers' sections (``crawl``, ``licences``,
    ``runner``), the stage base's, and what the format handlers that claim archive members
    are handed. The runner hands the loaded ``Params``."""


def _local(params: CrawlSettings, log_: StageLog) -> list[dict]:
    cfg = params.crawl.arxiv
    root = Path(cfg.source)
    entries: list[Entry] = []
    if not root.is_dir():
        raise FileNotFoundError(f"crawl.arxiv.source {root} is not a directory")
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
        refusal = licence_refusal(e, params)
        if refusal:
            log_.reject(refusal)
            continue
        srcs = local_versions(root / "src", e.id)
        if not srcs:
            log_.reject(Rejection(loc, CrawlReason.NO_EPRINT, f"no e-print under {root}/src"))
            continue
        version, path = list(srcs.items())[-1]
        pdf = local_versions(root / "pdf", e.id).get(version) if cfg.download_pdfs else None
        rows.append(e.to_row(version, str(path), str(pdf) if pdf else None))
    return rows


def stated_licence(spec: RepoSpec) -> RepoLicence | None:
    """The licence ``params.yaml`` states for a pinned repository (a maintainer who read a
    conflicting or unreadable licence decides), as evidence of its own."""
    if not spec.licence:
        return None
    parsed = parse_expression(spec.licence)
    spdx = parsed.render() if parsed is not None else spec.licence
    return RepoLicence(spdx, (Evidence("params.yaml", "stated", spdx, 100.0,
                                       "crawl.repos.repositories[].licence"),))


def _repos(params: CrawlSettings, log_: StageLog) -> Iterator[dict]:
    """One source row per matching file of each pinned repository, as they are listed."""
    cfg = params.crawl.repos
    for spec in cfg.repositories:
        try:
            co = checkout(spec, Path(cfg.cache_dir), cfg.timeout_s)
        except GitError as exc:
            log_.stats.n_in += 1
            log_.reject(Rejection(f"repo:{spec.url}@{spec.ref}", CrawlReason.CLONE, str(exc)))
            continue
        log_.stats.extra["repos_cloned" if co.cloned else "repos_cached"] = \
            log_.stats.extra.get("repos_cloned" if co.cloned else "repos_cached", 0) + 1
        lic = stated_licence(spec) or find_licence(co.root)
        lic_file = lic.meta()["licence_file"]
        for rel in list_files(co.root, cfg):
            log_.stats.n_in += 1
            loc = f"{co.name}@{co.commit[:12]}:{rel}"
            size = (co.root / rel).stat().st_size
            if size > cfg.max_file_bytes:
                log_.reject(Rejection(loc, CrawlReason.TOO_LARGE,
                                      f"{size} bytes > {cfg.max_file_bytes}"))
                continue
            if lic.conflict:
                log_.reject(Rejection(loc, FileReason.LICENCE_CONFLICT, lic.conflict))
                continue
            yield {
                "id": loc, "kind": SourceKind.REPO, "version": co.commit, "title": rel,
                "authors": json.dumps([f"{co.name} contributors"]), "categories": None,
                "date": None, "licence": lic.spdx,
                "licence_url": f"{spec.url}@{co.commit}:{lic_file}" if lic_file else None,
                "url": spec.url, "path": str(co.root / rel), "pdf_path": None,
                "meta": json.dumps({"repo": co.name, "commit": co.commit, "ref": spec.ref,
                                    "file": rel, **lic.meta()}),
            }


def _pdfs(params: CrawlSettings, arxiv_rows: list[dict], log_: StageLog) -> list[dict]:
    """``pdf`` sources: each crawled arXiv paper's PDF (its licence and group travel with
    it) and every ``*.pdf`` under ``crawl.pdf.folder``; each is one input of the funnel."""
    cfg = params.crawl.pdf
    rows: list[dict] = []
    n_before = log_.stats.n_in
    if cfg.from_arxiv:
        for r in arxiv_rows:
            if not r.get("pdf_path"):
                continue
            log_.stats.n_in += 1
            rows.append({**r, "id": f"{r['id']}.pdf", "kind": SourceKind.PDF,
                         "path": r["pdf_path"],
                         "meta": json.dumps({"arxiv_id": r["id"], "origin": "arxiv"})})
    if cfg.folder:
        root = Path(cfg.folder)
        if not root.is_dir():
            raise FileNotFoundError(f"crawl.pdf.folder {root} is not a directory")
        for k, p in enumerate(sorted(q for q in root.rglob("*") if q.suffix.lower() == ".pdf"
                                     and q.is_file() and not q.is_symlink())):
            rel = p.relative_to(root).as_posix()
            log_.stats.n_in += 1
            if k >= cfg.max_files:
                log_.reject(Rejection(f"pdf:{rel}", CrawlReason.OVER_MAX,
                                      f"crawl.pdf.max_files={cfg.max_files}"))
                continue
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
            rows.append({"id": f"pdf:{rel}", "kind": SourceKind.PDF, "version": digest[:16],
                         "title": p.stem, "authors": None, "categories": None, "date": None,
                         "licence": cfg.licence, "licence_url": None,
                         "url": p.resolve().as_uri(), "path": str(p), "pdf_path": str(p),
                         "meta": json.dumps({"origin": "folder", "file": rel})})
    log_.stats.extra["pdf_files"] = log_.stats.n_in - n_before
    return rows


def _archives(params: CrawlStageSettings, log_: StageLog) -> Iterator[dict]:
    """Files streamed from code archives (The Stack), repositories found by search and the
    posts of a Stack Exchange dump: rows are yielded as they come, so the runner writes
    them shard by shard."""
    crawl = params.crawl
    if not (crawl.stack.enabled or crawl.repo_search.enabled or crawl.stackexchange.enabled):
        return
    formats = instantiate(params, str)  # only their claims are asked for
    allow = params.licences.allow
    if crawl.stack.enabled:
        log_.source = SourceKind.STACK
        n0 = log_.stats.n_in
        yield from stack_rows(crawl.stack, formats, allow, log_)
        log_.stats.extra["stack_rows"] = log_.stats.n_in - n0
    if crawl.repo_search.enabled:
        log_.source = SourceKind.REPO_SEARCH
        n0 = log_.stats.n_in
        yield from search_rows(crawl.repo_search, formats, allow, log_)
        log_.stats.extra["repo_search_inputs"] = log_.stats.n_in - n0
    if crawl.stackexchange.enabled:
        log_.source = SourceKind.STACKEXCHANGE
        n0 = log_.stats.n_in
        snippets = list(capabilities.every("snippet").values())
        yield from stackexchange_rows(
            crawl.stackexchange,
            lambda code: any(m.claims(code, params.extract) for m in snippets), allow, log_)
        log_.stats.extra["stackexchange_posts"] = log_.stats.n_in - n0


SNIPPET_SECTIONS = tuple(dict.fromkeys(
    s for m in capabilities.every("snippet").values() for s in m.SECTIONS))
"""The settings the formats' code-block claims read (``formats/<name>/snippet.py``'s
``SECTIONS``): which Stack Exchange posts are kept depends on them."""


class CrawlStage(TableStage):
    """List arXiv papers (OAI-PMH, with licences), check scope and licence, fetch e-prints
    and PDFs into the cache; check out pinned template repositories; list PDFs (the
    papers', a folder's) as ``pdf`` sources; stream The Stack's subsets and crawl the
    repositories a code search finds (both off by default); read a Stack Exchange site's
    data dump, post by post. Reads samples/arxiv by
    default, so it runs offline."""

    name = "crawl"
    params: CrawlStageSettings
    output_schema = SOURCE_SCHEMA
    writes = tuple(SOURCE_SCHEMA.names)
    param_sections = ("crawl", "licences", *SNIPPET_SECTIONS)
    code = ("builders/crawl/arxiv.py", "builders/crawl/arxiv_http.py", "builders/crawl/polite.py",
            "builders/crawl/repos.py", "licensing/spdx.py", "licensing/detection.py",
            "licensing/gnu.py",
            "licensing/match.py", "licensing/notes.py", "licensing/repository.py",
            "licensing/declared.py", "licensing/statements.py",
            "builders/crawl/file_sources.py",
            "builders/crawl/stack.py", "builders/crawl/github_api.py",
            "builders/crawl/repo_search.py",
            "builders/crawl/bulk.py", "builders/crawl/bulk_fetch.py",
            "builders/crawl/bulk_manifest.py",
            "builders/crawl/bulk_metadata.py", "builders/crawl/stackexchange.py",
            "builders/crawl/se_dump.py",
            "builders/crawl/se_posts.py", "builders/crawl/se_licence.py",
            "formats", "notation", "graphs/model.py")  # the format handlers claim the files
    inputs = ("samples/arxiv", "samples/repos", "samples/stackexchange")

    def run_table(self, table: None, log: StageLog) -> Iterable[dict]:
        if self.params.crawl.arxiv.bulk.url:
            return self._bulk(log)
        params = self.params
        src = params.crawl.arxiv.source
        log.source = SourceKind.ARXIV
        if not src:
            rows = []
        elif src.startswith(("http://", "https://")):
            rows = crawl_http(params, log)
        else:
            rows = _local(params, log)
        n_arxiv = log.stats.n_in
        log.source = SourceKind.REPO
        rows += _repos(params, log)
        log.source = SourceKind.PDF
        rows += _pdfs(params, [r for r in rows if r["kind"] == SourceKind.ARXIV], log)
        log.stats.extra["arxiv_listed"] = n_arxiv
        log.stats.extra["repo_files"] = log.stats.n_in - n_arxiv - log.stats.extra["pdf_files"]
        return itertools.chain(rows, _archives(params, log))

    def _bulk(self, log: StageLog) -> Iterator[dict]:
        """Bulk mode streams: rows go to shards chunk by chunk, never all held at once. The
        bulk archive has no PDFs, so only ``crawl.pdf.folder`` adds ``pdf`` sources."""
        log.source = SourceKind.ARXIV
        yield from crawl_bulk(self.params, log)
        n_arxiv = log.stats.n_in
        log.source = SourceKind.REPO
        yield from _repos(self.params, log)
        log.source = SourceKind.PDF
        yield from _pdfs(self.params, [], log)
        log.stats.extra["arxiv_listed"] = n_arxiv
        log.stats.extra["repo_files"] = log.stats.n_in - n_arxiv - log.stats.extra["pdf_files"]
        yield from _archives(self.params, log)
