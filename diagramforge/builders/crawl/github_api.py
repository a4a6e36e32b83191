"""A polite GitHub REST client: paced, rate limits read from the answers, conditional.

GitHub asks API clients to (docs, "Best practices for using the REST API"): wait out a
``Retry-After``; when ``x-ratelimit-remaining`` is 0, wait until ``x-ratelimit-reset`` (epoch
seconds); after a secondary rate limit with neither header, wait at least a minute, longer
each time; make conditional requests (``If-None-Match`` with the ``ETag`` of the last answer:
a 304 costs nothing against the primary limit); follow the ``Link`` header for pages.  This
client does all of it, for every request, with the clock and the sleep injected so tests
never wait.  A wait longer than ``max_wait_s`` raises :class:`RateLimited` instead: the
caller keeps what it has and a later run resumes.

The token comes in as a value read from the environment by the caller; it is only ever put
in the ``Authorization`` header, never in a cache file, an error or a log line.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from diagramforge.builders.crawl.polite import RateLimiter
from diagramforge.store import atomic

SECONDARY_WAIT_S = 60.0
"""GitHub: after a secondary rate limit without a Retry-After, wait at least a minute."""


class GitHubError(RuntimeError):
    """An answer that retrying will not change (4xx other than rate limits, bad JSON)."""

    def __init__(self, status: int, message: str):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status


class RateLimited(GitHubError):
    """The next allowed request is further away than ``max_wait_s``."""

    def __init__(self, wait_s: float, resource: str):
        super().__init__(429, f"{resource} rate limit: next request allowed in {wait_s:.0f}s")
        self.wait_s = wait_s


@dataclass(frozen=True)
class Page:
    data: Any
    next_url: str | None
    status: int
    """200, or 304 when the cached copy was still current."""


def resource_of(url: str) -> str:
    """The rate-limit bucket a URL draws on (GitHub names them in ``x-ratelimit-resource``)."""
    path = requests.utils.urlparse(url).path
    if "/search/code" in path:
        return "code_search"
    return "search" if "/search/" in path else "core"


class GitHubClient:
    def __init__(self, api_url: str, token: str | None, user_agent: str, cache_dir: Path, *,
                 min_interval_s: float = 1.0, max_wait_s: float = 900.0, retries: int = 5,
                 timeout_s: float = 30.0, clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], None] = time.sleep,
                 session: requests.Session | None = None):
        self.api_url = api_url.rstrip("/")
        self.cache_dir = Path(cache_dir)
        self.max_wait_s = max_wait_s
        self.retries = retries
        self.timeout_s = timeout_s
        self.clock = clock
        self.sleep = sleep
        self.limiter = RateLimiter(min_interval_s, clock=clock, sleep=sleep)
        self.session = session or requests.Session()
        self.session.headers.update({"User-Agent": user_agent,
                                     "Accept": "application/vnd.github+json",
                                     "X-GitHub-Api-Version": "2022-11-28"})
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"
        self.blocked_until: dict[str, float] = {}
        self.counters = {"requests": 0, "not_modified": 0, "rate_limited": 0,
                         "waited_s": 0.0}

    # -- cache ---------------------------------------------------------------------------
    def _cache_path(self, url: str) -> Path:
        return self.cache_dir / f"{hashlib.sha256(url.encode()).hexdigest()[:32]}.json"

    def _cached(self, url: str) -> dict | None:
        p = self._cache_path(url)
        return json.loads(p.read_text()) if p.exists() else None

    # -- waiting -------------------------------------------------------------------------
    def _wait(self, seconds: float, resource: str) -> None:
        if seconds <= 0:
            return
        if seconds > self.max_wait_s:
            raise RateLimited(seconds, resource)
        self.counters["waited_s"] += seconds
        self.sleep(seconds)

    def _note_limits(self, resp: requests.Response, resource: str) -> None:
        h = resp.headers
        resource = h.get("x-ratelimit-resource", resource)
        if h.get("x-ratelimit-remaining") == "0" and h.get("x-ratelimit-reset", "").isdigit():
            self.blocked_until[resource] = float(h["x-ratelimit-reset"]) + 1.0
        else:
            self.blocked_until.pop(resource, None)

    def _limit_wait(self, resp: requests.Response, strikes: int) -> float | None:
        """Seconds to wait before asking again, when the answer is a rate limit."""
        if resp.status_code not in (403, 429):
            return None
        h = resp.headers
        ra = h.get("retry-after", "").strip()
        if ra.isdigit():
            return float(ra)
        if h.get("x-ratelimit-remaining") == "0" and h.get("x-ratelimit-reset", "").isdigit():
            return max(0.0, float(h["x-ratelimit-reset"]) + 1.0 - self.clock())
        if resp.status_code == 429 or "rate limit" in resp.text.lower():
            return SECONDARY_WAIT_S * 2 ** strikes
        return None  # a 403 that is a refusal, not a limit

    # -- requests ------------------------------------------------------------------------
    def url(self, path: str, params: dict | None = None) -> str:
        full = path if path.startswith(("http://", "https://")) else self.api_url + path
        return requests.Request("GET", full, params=params).prepare().url

    def get(self, path: str, params: dict | None = None) -> Page:
        """One GET, conditional on the cached ETag, waiting out rate limits and retrying
        5xx and dropped connections with backoff."""
        url = self.url(path, params)
        resource = resource_of(url)
        cached = self._cached(url)
        strikes = 0
        for attempt in range(self.retries + 1):
            self._wait(self.blocked_until.get(resource, 0.0) - self.clock(), resource)
            self.limiter.wait()
            headers = {"If-None-Match": cached["etag"]} if cached and cached.get("etag") else {}
            self.counters["requests"] += 1
            try:
                resp = self.session.get(url, headers=headers, timeout=self.timeout_s)
            except requests.ConnectionError:
                if attempt == self.retries:
                    raise
                self.sleep(min(2.0 ** attempt, self.max_wait_s))
                continue
            self._note_limits(resp, resource)
            if resp.status_code == 304 and cached is not None:
                self.counters["not_modified"] += 1
                return Page(cached["data"], cached.get("next"), 304)
            if resp.status_code == 200:
                return self._store(url, resp)
            wait = self._limit_wait(resp, strikes)
            if wait is not None:
                self.counters["rate_limited"] += 1
                strikes += 1
                self._wait(wait, resource)
                continue
            if resp.status_code >= 500 and attempt < self.retries:
                self.sleep(min(2.0 ** attempt, self.max_wait_s))
                continue
            raise GitHubError(resp.status_code, _message(resp))
        raise GitHubError(0, f"gave up on {path} after {self.retries + 1} attempts")

    def _store(self, url: str, resp: requests.Response) -> Page:
        try:
            data = resp.json()
        except ValueError as exc:
            raise GitHubError(resp.status_code, f"not JSON: {exc}") from None
        nxt = resp.links.get("next", {}).get("url")
        if resp.headers.get("ETag"):
            atomic.write_json(self._cache_path(url), {"url": url, "etag": resp.headers["ETag"],
                                                      "next": nxt, "data": data})
        return Page(data, nxt, 200)


def _message(resp: requests.Response) -> str:
    try:
        return str(resp.json().get("message", ""))[:300]
    except ValueError:
        return resp.text[:300]
