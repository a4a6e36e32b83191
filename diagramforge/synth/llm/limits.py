"""Requests- and tokens-per-minute limits over a sliding 60 s window.

The clock and the sleep are injectable so tests check the waiting without waiting.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

WINDOW_S = 60.0


class RateLimiter:
    """Blocks in ``acquire`` until one more request of ``tokens`` fits both limits (0 = off)."""

    def __init__(self, rpm: int = 0, tpm: int = 0,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.rpm, self.tpm = rpm, tpm
        self.clock, self.sleep = clock, sleep
        self._log: deque[tuple[float, int]] = deque()

    def _fits(self, tokens: int) -> bool:
        if self.rpm and len(self._log) >= self.rpm:
            return False
        used = sum(n for _, n in self._log)
        # a single request larger than the whole tpm still goes once the window is empty
        return not (self.tpm and self._log and used + tokens > self.tpm)

    def acquire(self, tokens: int = 0) -> float:
        """Wait until the request fits; returns the seconds waited."""
        waited = 0.0
        while True:
            now = self.clock()
            while self._log and now - self._log[0][0] >= WINDOW_S:
                self._log.popleft()
            if self._fits(tokens):
                self._log.append((now, tokens))
                return waited
            delay = max(WINDOW_S - (now - self._log[0][0]), 0.001)
            self.sleep(delay)
            waited += delay
