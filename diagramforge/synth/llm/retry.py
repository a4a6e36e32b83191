"""Retries with backoff that honour ``Retry-After`` (429 and 5xx), shared by the backends.

The vendor clients' own retries are switched off so there is one policy, one place to test
it, and an injectable ``sleep`` so tests exercise the waits without waiting.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping
from typing import TypeVar

import tenacity

T = TypeVar("T")
MAX_WAIT_S = 60.0
RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


def retry_after_s(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``Retry-After`` as seconds
    or an HTTP date), or ``None``."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(float(ms) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(when - (time.time() if now is None else now), 0.0)


def backoff_s(attempt: int, base: float = 0.5, cap: float = 30.0) -> float:
    """Exponential backoff with full jitter for attempt 1, 2, …"""
    return random.uniform(0, min(cap, base * 2 ** (attempt - 1)))


def call_with_retries(fn: Callable[[], T], *, max_retries: int,
                      retryable: Callable[[BaseException], bool],
                      server_wait: Callable[[BaseException], float | None],
                      sleep: Callable[[float], None] = time.sleep,
                      max_wait_s: float = MAX_WAIT_S,
                      on_retry: Callable[[BaseException, int, float], None] | None = None,
                      ) -> T:
    """``fn()`` retried up to ``max_retries`` times on ``retryable`` errors; the wait is the
    server's ``Retry-After`` when given, else jittered exponential backoff, both capped at
    ``max_wait_s``.  ``on_retry(error, attempt, wait)`` is told before each wait (for a
    scrubbed log line).  The last error is re-raised as is."""

    def wait(state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        asked = server_wait(exc) if exc is not None else None
        seconds = asked if asked is not None else backoff_s(state.attempt_number)
        return min(seconds, max_wait_s)

    def before_sleep(state: tenacity.RetryCallState) -> None:
        # told only when a retry will really happen (tenacity computes the wait before it
        # decides to stop, so logging from ``wait`` announced retries that never came)
        exc = state.outcome.exception() if state.outcome else None
        if on_retry is not None and exc is not None:
            on_retry(exc, state.attempt_number, state.upcoming_sleep)

    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(max_retries + 1),
        retry=tenacity.retry_if_exception(retryable),
        wait=wait, sleep=sleep, before_sleep=before_sleep, reraise=True)
    return retrying(fn)
