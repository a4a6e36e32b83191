"""``repo_search`` sources: repositories GitHub's code search finds diagram files in.

Each extension × slice (``extension:drawio size:<2000``) is one *listing*: its pages are
walked by the ``Link`` header through the polite client (:mod:`.github_api`) and every hit
is appended to a JSON-lines file under ``cache_dir/listings`` as soon as its page arrives,
with the next page's URL saved beside it — so a listing cut short (a kill, a rate-limit wait
past ``max_wait_s``) resumes at that page in the next run, and a finished one is not asked
again (``relist`` walks it once more, conditionally).

Hits are then grouped by repository.  A repository is checked out at the commit the search
saw (the ``/blob/<sha>/`` of its hits) exactly as a pinned template repository is, its
licence read from its licence files, and every file a format handler claims — the hits and
their neighbours — becomes a source row.  Code search has no star or date qualifier, so a
star or ``pushed`` range is checked on the repository's metadata (one conditional request).
Every listed repository ends up as file rows or a ledger row.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from diagramforge.builders.crawl.file_sources import FileReason, RepoFile, admit
from diagramforge.builders.crawl.github_api import GitHubClient, GitHubError, RateLimited
from diagramforge.builders.crawl.repos import GitError, checkout, find_licence
from diagramforge.builders.crawl.settings import RepoSearchParams, RepoSpec
from diagramforge.formats.registry import DiagramFormat, named_by
from diagramforge.stage import StageLog
from diagramforge.store import atomic
from diagramforge.store.records import Rejection, SourceKind

_BLOB_SHA = re.compile(r"/blob/([0-9a-f]{40})/")
VIA = "GitHub code search"


_LICENCE_REASONS = (FileReason.LICENCE, FileReason.LICENCE_UNKNOWN, FileReason.LICENCE_MISSING)


class SearchReason:
    OVER_MAX = "over_max_repos"
    OUT_OF_RANGE = "repo_out_of_range"
    GONE = "repo_unavailable"
    RATE_LIMITED = "rate_limited"
    CLONE = "clone_failed"
    NO_FILES = "no_diagram_files"
    FILE_MISSING = "file_missing"


@dataclass(frozen=True)
class Hit:
    repo: str
    path: str
    commit: str | None
    repo_url: str

    @classmethod
    def from_item(cls, item: dict) -> Hit:
        m = _BLOB_SHA.search(item.get("html_url") or "")
        return cls(repo=item["repository"]["full_name"], path=item["path"],
                   commit=m.group(1) if m else None,
                   repo_url=item["repository"].get("html_url")
                   or f"https://github.com/{item['repository']['full_name']}")


class Listing:
    """One query's hits and where its walk stopped, kept across runs."""

    def __init__(self, root: Path, query: str, per_page: int):
        self.query = query
        self.per_page = per_page
        key = hashlib.sha256(f"{query}\0{per_page}".encode()).hexdigest()[:20]
        self.state_path = root / f"{key}.json"
        self.hits_path = root / f"{key}.jsonl"
        self.state = json.loads(self.state_path.read_text()) if self.state_path.exists() \
            else {"query": query, "next": None, "done": False, "pages": 0}

    def walk(self, client: GitHubClient, relist: bool = False) -> dict[str, int]:
        """Fetch the pages not fetched yet (all of them again with ``relist``)."""
        counts = Counter()
        if self.state["done"] and not relist:
            return dict(counts)
        url = self.state["next"] if not self.state["done"] and self.state["next"] else \
            client.url("/search/code", {"q": self.query, "per_page": self.per_page})
        self.state.update(done=False)
        self.hits_path.parent.mkdir(parents=True, exist_ok=True)
        while url:
            page = client.get(url)
            data = page.data
            counts["pages"] += 1
            if data.get("total_count", 0) > 1000:
                counts["capped"] = 1  # GitHub serves 1,000 hits a query: slice it finer
            if data.get("incomplete_results"):
                counts["incomplete"] += 1
            if page.status == 200:
                with open(self.hits_path, "a", encoding="utf-8") as fh:
                    for item in data.get("items", []):
                        fh.write(json.dumps(asdict(Hit.from_item(item))) + "\n")
            url = page.next_url
            self.state.update(next=url, pages=self.state["pages"] + 1,
                              total_count=data.get("total_count"))
            atomic.write_json(self.state_path, self.state)
        self.state.update(done=True, next=None)
        atomic.write_json(self.state_path, self.state)
        return dict(counts)

    def hits(self) -> list[Hit]:
        if not self.hits_path.exists():
            return []
        seen: dict[tuple[str, str], Hit] = {}
        for line in self.hits_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                h = Hit(**json.loads(line))
                seen.setdefault((h.repo, h.path), h)
        return list(seen.values())


def make_client(cfg: RepoSearchParams, **kw: object) -> GitHubClient:
    return GitHubClient(cfg.api_url, os.environ.get(cfg.token_env) or None, cfg.user_agent,
                        Path(cfg.cache_dir) / "http", min_interval_s=cfg.min_interval_s,
                        max_wait_s=cfg.max_wait_s, retries=cfg.retries,
                        timeout_s=cfg.timeout_s, **kw)


def list_hits(cfg: RepoSearchParams, client: GitHubClient, log: StageLog
              ) -> dict[str, list[Hit]]:
    """Walk every listing (stopping at a rate limit too far away) and group the hits by
    repository, in the order repositories were first seen."""
    root = Path(cfg.cache_dir) / "listings"
    listings = [Listing(root, f"extension:{ext} {s}".strip(), cfg.per_page)
                for ext in cfg.extensions for s in cfg.slices]
    extra = log.stats.extra
    for listing in listings:
        try:
            counts = listing.walk(client, cfg.relist)
        except RateLimited as exc:
            extra["search_listing_paused"] = 1
            extra["search_resume_in_s"] = int(exc.wait_s)
            break
        for k, v in counts.items():
            extra[f"search_{k}"] = extra.get(f"search_{k}", 0) + v
    by_repo: dict[str, list[Hit]] = {}
    for listing in listings:
        for h in listing.hits():
            by_repo.setdefault(h.repo, []).append(h)
    return by_repo


def _in_range(meta: dict, cfg: RepoSearchParams) -> str | None:
    """Why a repository is outside the star / push-date range, or None."""
    stars = int(meta.get("stargazers_count") or 0)
    pushed = str(meta.get("pushed_at") or "")[:10]
    if stars < cfg.min_stars or (cfg.max_stars is not None and stars > cfg.max_stars):
        return f"{stars} stars outside {cfg.min_stars}..{cfg.max_stars or ''}"
    if cfg.pushed_from and pushed < cfg.pushed_from:
        return f"pushed {pushed} before {cfg.pushed_from}"
    if cfg.pushed_until and pushed > cfg.pushed_until:
        return f"pushed {pushed} after {cfg.pushed_until}"
    return None


def _candidates(root: Path, formats: dict[str, DiagramFormat], hits: list[Hit]) -> list[str]:
    """Files of the checkout a format claims by name, plus every hit's path (a hit no
    format takes — ``.mmd`` before a Mermaid format exists — is ledgered, not dropped)."""
    named = set()
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink():
            rel = p.relative_to(root).as_posix()
            if not rel.startswith((".diagramforge", ".git/")) and named_by(formats, rel):
                named.add(rel)
    return sorted(named | {h.path for h in hits})


def search_rows(cfg: RepoSearchParams, formats: dict[str, DiagramFormat],
                allow: list[str], log: StageLog, client: GitHubClient | None = None
                ) -> Iterator[dict]:
    """Every listed repository's diagram files as crawl rows; the rest ledgered."""
    client = client or make_client(cfg)
    by_repo = list_hits(cfg, client, log)
    ranged = cfg.min_stars > 0 or cfg.max_stars is not None or cfg.pushed_from \
        or cfg.pushed_until
    for k, (repo, hits) in enumerate(by_repo.items()):
        loc = f"{SourceKind.REPO_SEARCH}:{repo}"

        def refuse(reason: str, detail: str, loc: str = loc) -> None:
            log.stats.n_in += 1
            log.reject(Rejection(loc, reason, detail, source=SourceKind.REPO_SEARCH))

        if k >= cfg.max_repos:
            refuse(SearchReason.OVER_MAX, f"crawl.repo_search.max_repos={cfg.max_repos}")
            continue
        shas = Counter(h.commit for h in hits if h.commit)
        meta: dict = {}
        if ranged or not shas:
            try:
                meta = client.get(f"/repos/{repo}").data
            except RateLimited as exc:
                refuse(SearchReason.RATE_LIMITED, f"metadata not fetched: {exc}")
                continue
            except GitHubError as exc:
                refuse(SearchReason.GONE, str(exc))
                continue
            why = _in_range(meta, cfg) if ranged else None
            if why:
                refuse(SearchReason.OUT_OF_RANGE, why)
                continue
        ref = shas.most_common(1)[0][0] if shas else meta.get("default_branch", "HEAD")
        spec = RepoSpec(url=cfg.clone_url.format(full_name=repo), ref=ref,
                        name=repo.replace("/", "__"))
        try:
            co = checkout(spec, Path(cfg.cache_dir) / "repos", cfg.clone_timeout_s)
        except GitError as exc:
            refuse(SearchReason.CLONE, str(exc))
            continue
        log.stats.extra["search_repos_crawled"] = \
            log.stats.extra.get("search_repos_crawled", 0) + 1
        yield from _repo_files(co.root, co.commit, repo, hits, cfg, formats, allow, log,
                               refuse)


def _repo_files(root: Path, commit: str, repo: str, hits: list[Hit], cfg: RepoSearchParams,
                formats: dict[str, DiagramFormat], allow: list[str], log: StageLog,
                refuse) -> Iterator[dict]:  # noqa: ANN001 - the caller's closure
    lic = find_licence(root)
    spdx, lic_file = lic.spdx, lic.meta()["licence_file"]
    repo_url = hits[0].repo_url
    lic_url = f"{repo_url}/blob/{commit}/{lic_file}" if lic_file and "," not in lic_file \
        else f"{repo_url}/tree/{commit}"
    hit_paths = {h.path for h in hits}
    files = _candidates(root, formats, hits)
    if not files:
        refuse(SearchReason.NO_FILES, "no file a format claims")
        return
    for rel in files:
        f = RepoFile(SourceKind.REPO_SEARCH, repo, commit, rel, spdx, repo_url, VIA)
        p = root / rel
        if not p.is_file() or p.is_symlink():
            refuse(SearchReason.FILE_MISSING, f"{rel} not in {commit[:12]}", f.locator)
            continue
        size = p.stat().st_size
        if size > cfg.max_file_bytes:
            refuse(FileReason.TOO_LARGE, f"{size} bytes > {cfg.max_file_bytes}", f.locator)
            continue
        log.stats.n_in += 1
        fmt, rej = admit(f, p.read_bytes(), formats, cfg.max_file_bytes,
                         allow if cfg.skip_disallowed_licences else None)
        if lic.conflict and (rej is None or rej.reason in _LICENCE_REASONS):
            rej = Rejection(f.locator, FileReason.LICENCE_CONFLICT, lic.conflict,
                            source=f.kind)
        if rej is not None:
            log.reject(rej)
            continue
        yield f.row({**lic.meta(), "hit": rel in hit_paths, "format": fmt},
                    local_path=str(p), licence_url=lic_url)
