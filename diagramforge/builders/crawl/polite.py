"""A polite HTTP session for crawling: one User-Agent, one pace, retries that listen.

Every request of a crawl — the arXiv API client's, sickle's OAI-PMH harvest and our own
downloads — goes through one :class:`PoliteAdapter`, so the pace (one request every
``delay_s`` seconds, arXiv's rule) holds across all of them.  Retries on 429/5xx and dropped
connections are tenacity's, honouring ``Retry-After`` and paced like any request; truncated
bodies are retried by :func:`download`, since they only show up while reading.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path

import requests
from requests.adapters import HTTPAdapter
from tenacity import (
    RetryCallState,
    Retrying,
    retry,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)
from urllib3.exceptions import ProtocolError, ReadTimeoutError

from diagramforge.store import atomic

RETRY_STATUS = (429, 500, 502, 503, 504)


class RateLimiter:
    """Spaces request starts at least ``interval`` seconds apart (thread-safe)."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.interval = interval
        self._clock = clock
        self._sleep = sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> float:
        """Block until the next request may start; return how long we waited."""
        with self._lock:
            now = self._clock()
            delay = max(0.0, self._next - now)
            if delay:
                self._sleep(delay)
            self._next = max(now, self._next) + self.interval
            return delay


class RetryableStatus(Exception):
    """A 429/5xx answer worth asking again (carries the response for Retry-After)."""

    def __init__(self, response: requests.Response):
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


def retry_after_seconds(response: requests.Response) -> float | None:
    """Seconds the server asked us to wait (delta-seconds or HTTP-date), if it said."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    if value.strip().isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class PoliteAdapter(HTTPAdapter):
    """Sets the User-Agent, keeps the pace and retries 429/5xx and dropped connections.

    Retries go through the rate limiter like any request, so a retry never jumps the queue;
    the wait before one is the server's Retry-After when given, else exponential backoff.
    """

    def __init__(self, limiter: RateLimiter, user_agent: str, retries: int, backoff: float,
                 max_wait: float = 300.0):
        super().__init__()
        self.limiter = limiter
        self.user_agent = user_agent
        self.retries = retries
        self.backoff = backoff
        self.max_wait = max_wait
        self.requests_sent = 0

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, RetryableStatus):
            ra = retry_after_seconds(exc.response)
            if ra is not None:
                return min(ra, self.max_wait)
        return min(self.backoff * 2 ** (state.attempt_number - 1), self.max_wait)

    def send(self, request, *args, **kwargs):  # noqa: ANN001, ANN201 - requests API
        request.headers["User-Agent"] = self.user_agent

        def attempt() -> requests.Response:
            self.limiter.wait()
            self.requests_sent += 1
            resp = HTTPAdapter.send(self, request, *args, **kwargs)
            if resp.status_code in RETRY_STATUS:
                raise RetryableStatus(resp)
            return resp

        def give_up(state: RetryCallState) -> requests.Response:
            exc = state.outcome.exception() if state.outcome else None
            if isinstance(exc, RetryableStatus):
                return exc.response  # the caller sees the final status
            raise exc  # type: ignore[misc]

        return Retrying(
            retry=retry_if_exception_type((RetryableStatus, requests.ConnectionError)),
            stop=stop_after_attempt(self.retries + 1), wait=self._wait,
            retry_error_callback=give_up,
        )(attempt)


def polite_session(user_agent: str, delay_s: float, retries: int,
                   timeout_s: float) -> requests.Session:
    """A session whose every request is paced, identified and retried."""
    s = requests.Session()
    adapter = PoliteAdapter(RateLimiter(delay_s), user_agent, retries,
                            backoff=max(delay_s, 0.1))
    s.mount("http://", adapter)
    s.mount("https://", adapter)
    s.headers["User-Agent"] = user_agent
    s.request = _with_timeout(s.request, timeout_s)  # type: ignore[method-assign]
    return s


def _with_timeout(fn: Callable, timeout_s: float) -> Callable:
    def request(method, url, **kwargs):  # noqa: ANN001, ANN202
        kwargs.setdefault("timeout", timeout_s)
        return fn(method, url, **kwargs)
    return request


class TruncatedDownload(IOError):
    """The server closed the connection before sending the promised bytes."""


class TooLarge(IOError):
    """The body passed the download cap."""


class NotFound(IOError):
    """The resource does not exist (HTTP 404/410): retrying will not help."""


def download(session: requests.Session, url: str, dest: Path, attempts: int = 4,
             max_bytes: int = 1_000_000_000) -> Path:
    """Fetch ``url`` into ``dest`` atomically; a cached ``dest`` is never fetched again.

    The body is stored as sent (``Content-Encoding`` is *not* undone: a gzip e-print stays
    gzip, and its inflation is capped later by the archive reader), and never more than
    ``max_bytes``.  A 404/410 is remembered (``dest.missing``) so a rerun does not ask again.
    """
    if dest.exists():
        return dest
    missing = dest.with_name(dest.name + ".missing")
    if missing.exists():
        raise NotFound(f"known missing: {url}")

    @retry(retry=retry_if_exception_type((TruncatedDownload, requests.ConnectionError,
                                          requests.exceptions.ChunkedEncodingError)),
           stop=stop_after_attempt(attempts), wait=wait_exponential(multiplier=0.1, max=10),
           reraise=True)
    def fetch() -> bytes:
        with session.get(url, stream=True) as resp:
            if resp.status_code in (404, 410):
                raise NotFound(f"{resp.status_code} for {url}")
            resp.raise_for_status()
            chunks, got = [], 0
            try:
                for chunk in resp.raw.stream(1 << 16, decode_content=False):
                    got += len(chunk)
                    if got > max_bytes:
                        raise TooLarge(f"{url}: more than {max_bytes} bytes")
                    chunks.append(chunk)
            except (ProtocolError, ReadTimeoutError) as exc:
                raise TruncatedDownload(f"{url}: {exc}") from None
            expected = resp.headers.get("Content-Length")
            if expected is not None and int(expected) != got:
                raise TruncatedDownload(f"{url}: got {got} of {expected} bytes")
            return b"".join(chunks)

    try:
        data = fetch()
    except NotFound:
        missing.parent.mkdir(parents=True, exist_ok=True)
        missing.write_text(url + "\n")
        raise
    atomic.write_bytes(dest, data)
    return dest
