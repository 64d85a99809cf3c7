"""The background side of one ``Memory``: its durable job queue (with the ``verify`` handler that checks
each new memory after its write), the worker thread that runs the queue when writing pauses, the embedder
its jobs use, and the batched access statistics of recall that the worker writes.

Recall never waits on a write: the ids it returned are noted here and written in one batch by the worker,
at :meth:`Background.flush`, or right away when no worker runs and the batch is large. What a write leaves
for later (verification) runs by the configured ``write.verify`` mode: ``queue`` wakes the worker,
``inline`` runs the queue at once, anything else leaves it for ``flush()``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from datetime import timedelta
from typing import TYPE_CHECKING

from memscribe.jobs import BackgroundWorker, JobHandler, JobRunner, RunReport
from memscribe.read.access import AccessLog
from memscribe.write.verify import VerifyJob

if TYPE_CHECKING:
    from memscribe.clock import Clock
    from memscribe.config import Settings
    from memscribe.ledger import Ledger
    from memscribe.providers.embedders import Embedder
    from memscribe.store.base import Store

__all__ = ["Background"]

# ``flush(deferred=True)`` runs every job due before this far ahead: in practice, all of them
_DRAIN_AHEAD = timedelta(days=36_500)


class Background:
    def __init__(
        self, store: Store, settings: Settings, embedder: Embedder, ledger: Ledger, *, clock: Clock
    ) -> None:
        self._clock = clock
        self._verify = settings.write.verify
        self._caller_embedder = embedder
        self._embedder_lock = threading.Lock()
        self._embedder: Embedder | None = None
        self.jobs = JobRunner(store, clock=clock)
        self.access = AccessLog(store)
        self.worker = BackgroundWorker(self.jobs, after_run=self.access.flush)
        self.register("verify", VerifyJob(store, lambda: self.embedder, settings, ledger, clock=clock))

    @property
    def embedder(self) -> Embedder:
        """The embedder jobs use: its own engine when the provider can clone one, so queued verification
        never waits on (or blocks) the caller's add() and search()."""
        with self._embedder_lock:  # the worker thread and flush() may both ask first: build one engine
            if self._embedder is None:
                clone = getattr(self._caller_embedder, "clone", None)
                self._embedder = clone() if callable(clone) else self._caller_embedder
            return self._embedder

    def register(self, kind: str, handler: JobHandler) -> None:
        self.jobs.register(kind, handler)

    def after_write(self) -> None:
        """A write finished: start what it left for the queue, as ``write.verify`` says."""
        if self._verify == "queue":
            self.worker.wake()
        elif self._verify == "inline":
            self.jobs.run()

    def record_access(self, ids: Iterable[str]) -> None:
        """Recall returned these ids now: batched for the worker, written at once when the batch is large
        and no worker runs to write it."""
        many = self.access.record(ids, self._clock())
        if many and not self.worker.running:
            self.access.flush()
        elif self.worker.running:
            self.worker.wake()

    def flush(self, *, deferred: bool = False) -> RunReport:
        """Run the jobs due now (with ``deferred``, every queued job) and write pending access statistics."""
        with self.worker.busy:  # a job the worker already claimed finishes first
            report = self.jobs.run(until=self._clock() + _DRAIN_AHEAD if deferred else None)
        self.access.flush()
        return report

    def close(self) -> None:
        """Stop the worker (a job it runs finishes first) and write what access statistics are pending."""
        self.worker.stop(timeout=30)
        self.access.flush()
