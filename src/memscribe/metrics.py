"""Operational metrics: latency histograms kept in process, counts read from the store at scrape time.

``Metrics`` owns one prometheus_client registry per ``Memory`` (two memories in one process never mix
their numbers). Counts that must survive a restart — memories by status/layer/kind, dropped by the
filter, verify failures, deferred or refused writes, queue depth — come from the store when scraped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from memscribe.store.base import Store

__all__ = ["Metrics", "store_snapshot", "store_stats"]

# seconds; add() of one message is ~25 ms offline, search ~20 ms: the buckets resolve both
_BUCKETS = (0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)


class _StoreCollector(Collector):
    def __init__(self, snapshot: Callable[[], dict[str, Any]]) -> None:
        self._snapshot = snapshot

    def describe(self) -> Iterator[Any]:
        """The families without their values: prometheus_client calls this when the collector is
        registered, which otherwise runs ``collect()`` — a scan of every memory in the store, once per
        ``Memory()`` (0.2 s at 100k memories, seconds at a million), for a scrape that may never come."""
        for facet in ("status", "layer", "kind"):
            yield GaugeMetricFamily(
                f"memscribe_memories_by_{facet}", f"Stored memories by {facet}", labels=[facet]
            )
        yield CounterMetricFamily(
            "memscribe_events", "Write-path events counted in the store", labels=["event"]
        )
        yield GaugeMetricFamily(
            "memscribe_daily_growth", "New memories per day, mean over the last 7 days with writes"
        )
        yield GaugeMetricFamily("memscribe_queue_depth", "Pending background jobs")

    def collect(self) -> Iterator[Any]:
        snap = self._snapshot()
        facets = snap["facets"]
        for facet in ("status", "layer", "kind"):
            g = GaugeMetricFamily(
                f"memscribe_memories_by_{facet}", f"Stored memories by {facet}", labels=[facet]
            )
            for value, n in sorted(facets.get(facet, {}).items()):
                g.add_metric([value], n)
            yield g
        counters = CounterMetricFamily(
            "memscribe_events", "Write-path events counted in the store", labels=["event"]
        )
        for name, n in sorted(snap["counters"].items()):
            if not name.startswith("latency_"):
                counters.add_metric([name], n)
        yield counters
        daily = facets.get("daily_new", {})
        growth = GaugeMetricFamily(
            "memscribe_daily_growth", "New memories per day, mean over the last 7 days with writes"
        )
        last7 = sorted(daily)[-7:]
        growth.add_metric([], sum(daily[d] for d in last7) / max(1, len(last7)))
        yield growth
        yield GaugeMetricFamily("memscribe_queue_depth", "Pending background jobs", value=snap["queue_depth"])


class Metrics:
    def __init__(self, snapshot: Callable[[], dict[str, Any]]) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.latency = {
            op: Histogram(
                f"memscribe_{op}_seconds",
                f"Wall time of Memory.{op}()",
                buckets=_BUCKETS,
                registry=self.registry,
            )
            for op in ("add", "search", "context")
        }
        self.registry.register(_StoreCollector(snapshot))

    @contextmanager
    def timed(self, op: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.latency[op].observe(time.perf_counter() - t0)

    def latency_summary(self) -> dict[str, dict[str, float]]:
        """Count, mean and bucket-interpolated p50/p95 (ms) of each timed operation in this process."""
        out: dict[str, dict[str, float]] = {}
        for op, h in self.latency.items():
            samples = {s.name: s for m in h.collect() for s in m.samples}
            count = samples[f"memscribe_{op}_seconds_count"].value
            if not count:
                continue
            total = samples[f"memscribe_{op}_seconds_sum"].value
            buckets = sorted(
                (float(s.labels["le"]), s.value)
                for m in h.collect()
                for s in m.samples
                if s.name.endswith("_bucket")
            )
            out[op] = {
                "count": count,
                "mean_ms": round(1000 * total / count, 2),
                "p50_ms": round(1000 * _quantile(buckets, count, 0.5), 2),
                "p95_ms": round(1000 * _quantile(buckets, count, 0.95), 2),
            }
        return out

    def text(self) -> str:
        return generate_latest(self.registry).decode("utf-8")


def _quantile(buckets: list[tuple[float, float]], count: float, q: float) -> float:
    """Prometheus' histogram_quantile: linear inside the bucket that holds the q-th observation."""
    rank = q * count
    prev_le, prev_n = 0.0, 0.0
    for le, n in buckets:
        if n >= rank:
            if le == float("inf"):
                return prev_le
            span = n - prev_n
            return prev_le + (le - prev_le) * ((rank - prev_n) / span if span else 0.0)
        prev_le, prev_n = le, n
    return prev_le


def store_snapshot(store: Store) -> dict[str, Any]:
    """What a scrape reads from the store: the facets (new memories over 7 days), counters, queue depth."""
    return {
        "facets": store.memory_facets(None, days=7),
        "counters": store.counters(None),
        "queue_depth": store.pending_jobs(),
    }


def store_stats(store: Store, user_id: str | None) -> dict[str, Any]:
    """Counts by status, layer and kind, new memories per day, write-path counters and queue depth, for
    one user or (``None``) the whole store."""
    facets = store.memory_facets(user_id)
    return {
        "memories_by_status": facets["status"],
        "memories_by_layer": facets["layer"],
        "memories_by_kind": facets["kind"],
        "daily_new": facets["daily_new"],
        "counters": store.counters(user_id),
        "queue_depth": store.pending_jobs(),
        "jobs": store.job_counts(),  # by status: pending, running, failed (kept with their error)
        "pending_review": facets["status"].get("pending_review", 0),
    }
