"""Requests- and tokens-per-minute limits as two token buckets.

Each bucket holds up to one minute's allowance and refills continuously (``limit / 60`` per
second), so a run may burst up to the limit and then settles at the limit's rate. A call
reserves its estimated tokens (prompt + ``max_tokens``) before it is sent and ``settle``
gives back what the reported usage shows it did not need. A single call larger than the whole
tokens-per-minute allowance waits for a full bucket and goes (the bucket goes into debt).

Small code rather than a library because the tokens bucket needs weighted takes with a later
refund, and tests need an injectable clock and sleep so the waits are checked without waiting.
Thread-safe: callers in a thread pool queue on one lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

MINUTE_S = 60.0


class TokenBucket:
    """``per_minute`` units per minute; the level starts full and may go negative (debt)."""

    def __init__(self, per_minute: int, now: float) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / MINUTE_S
        self.level = self.capacity
        self.t = now

    def refill(self, now: float) -> None:
        self.level = min(self.capacity, self.level + (now - self.t) * self.rate)
        self.t = now

    def wait_s(self, n: float) -> float:
        """Seconds until ``n`` units (at most a full bucket) are there."""
        need = min(n, self.capacity) - self.level
        return max(need / self.rate, 0.0)


class RateLimiter:
    """Blocks in ``acquire`` until one more request of ``tokens`` fits both limits (0 = off)."""

    def __init__(self, rpm: int = 0, tpm: int = 0,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.clock, self.sleep = clock, sleep
        now = clock()
        self.requests = TokenBucket(rpm, now) if rpm else None
        self.tokens = TokenBucket(tpm, now) if tpm else None
        self._lock = threading.Lock()

    def acquire(self, tokens: int = 0) -> float:
        """Wait until the request fits, take it; returns the seconds waited."""
        waited = 0.0
        with self._lock:
            while True:
                now = self.clock()
                delay = 0.0
                for bucket, n in ((self.requests, 1), (self.tokens, tokens)):
                    if bucket is not None:
                        bucket.refill(now)
                        delay = max(delay, bucket.wait_s(n))
                if delay <= 1e-9:
                    if self.requests is not None:
                        self.requests.level -= 1
                    if self.tokens is not None:
                        self.tokens.level -= tokens
                    return waited
                self.sleep(delay)
                waited += delay

    def settle(self, reserved: int, used: int) -> None:
        """Correct a reservation to the tokens the call really used."""
        if self.tokens is not None:
            with self._lock:
                self.tokens.level = min(self.tokens.capacity,
                                        self.tokens.level + reserved - used)
