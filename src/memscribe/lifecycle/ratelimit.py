"""Token-bucket admission for writes, per user and per tenant.

Two ways to take from a bucket:

- ``acquire`` takes only what is there now and otherwise says how long to wait (the caller gets a typed
  ``RateLimited`` error, or an HTTP 429 with ``Retry-After``);
- ``reserve`` always takes and lets the bucket go into debt; the debt is the delay until this write's
  turn. Deferred writes queued that way keep their order and never run faster than the rate.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

__all__ = ["KeyedBuckets", "RateDecision", "TokenBucket", "admit"]


class TokenBucket:
    def __init__(self, rate: float, burst: int) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a token bucket needs rate > 0 and burst >= 1")
        self.rate = float(rate)
        self.burst = int(burst)
        self._tokens = float(burst)
        self._last: float | None = None
        self._lock = threading.Lock()

    def _refill(self, now: float) -> None:
        if self._last is not None and now > self._last:
            self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.rate)
        if self._last is None or now > self._last:
            self._last = now

    def acquire(self, n: int = 1, now: float | None = None) -> float:
        """Take ``n`` tokens if they are there: 0.0. Otherwise take nothing and return the seconds to wait."""
        now = time.monotonic() if now is None else now
        with self._lock:
            self._refill(now)
            if self._tokens >= n:
                self._tokens -= n
                return 0.0
            return (n - self._tokens) / self.rate

    def reserve(self, n: int = 1, now: float | None = None) -> float:
        """Take ``n`` tokens, going into debt if needed; return the seconds until they are covered."""
        now = time.monotonic() if now is None else now
        with self._lock:
            self._refill(now)
            self._tokens -= n
            return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    @property
    def tokens(self) -> float:
        return self._tokens


class KeyedBuckets:
    """One bucket per key (user, tenant, API key), the least recently used forgotten past ``max_keys``:
    a forgotten key starts again with a full burst, which errs on the side of admitting."""

    def __init__(self, rate: float, burst: int, *, max_keys: int = 10_000) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> TokenBucket:
        with self._lock:
            b = self._buckets.get(key)
            if b is None:
                b = self._buckets[key] = TokenBucket(self.rate, self.burst)
                while len(self._buckets) > self.max_keys:
                    self._buckets.popitem(last=False)
            else:
                self._buckets.move_to_end(key)
            return b


@dataclass(frozen=True)
class RateDecision:
    """What admission control decided for one write."""

    delay_s: float  # 0: write now; > 0: defer by this much (queue) or refuse with this Retry-After (error)
    limited_by: str | None  # "user" | "tenant" | None


def admit(buckets: list[tuple[str, TokenBucket]], *, mode: str, now: float | None = None) -> RateDecision:
    """Decide one write against every bucket that applies (user, then tenant).

    In ``error`` mode nothing is taken unless every bucket admits it (a refused write costs no tokens).
    In ``queue`` mode every bucket is charged and the write runs when the slowest one allows.
    """
    now = time.monotonic() if now is None else now
    if mode == "error":
        waits = []
        for name, b in buckets:
            w = b.acquire(1, now)
            if w > 0:
                # give back what the earlier buckets took for this refused write
                for _, taken in buckets[: len(waits)]:
                    with taken._lock:
                        taken._tokens = min(float(taken.burst), taken._tokens + 1)
                return RateDecision(delay_s=w, limited_by=name)
            waits.append(0.0)
        return RateDecision(delay_s=0.0, limited_by=None)
    worst, by = 0.0, None
    for name, b in buckets:
        d = b.reserve(1, now)
        if d > worst:
            worst, by = d, name
    return RateDecision(delay_s=worst, limited_by=by)
