"""The durable job queue's runner and the background worker that drives it.

A job is claimed, handed to the handler registered for its kind, and ends ``done`` (removed) or — when its
handler raises — goes back to the queue with exponential backoff, until its attempt cap; then it ends
``failed``: kept in the queue table with its error, audited, counted, visible in ``stats()``, and never run
again (a restart requeues only jobs left ``running``). One bad job never blocks the others: the runner moves
on to the next job, and :meth:`JobRunner.run` returns a typed :class:`RunReport`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Protocol

from pydantic import BaseModel, Field

from memscribe.models import AuditEvent
from memscribe.store.base import Store
from memscribe.store.rows import JobRow

__all__ = ["BackgroundWorker", "JobFailure", "JobHandler", "JobRunner", "RunReport"]

log = logging.getLogger("memscribe.jobs")

SYSTEM_USER = "_system"  # audit events of jobs that belong to no user


class JobHandler(Protocol):
    def __call__(self, job: JobRow) -> None: ...


class JobFailure(BaseModel):
    job_id: int
    kind: str
    attempts: int
    error: str
    final: bool  # True: the job ended failed; False: it waits for another attempt


class RunReport(BaseModel):
    """What a run of the queue did."""

    done: int = 0
    retried: int = 0
    failures: list[JobFailure] = Field(default_factory=list)

    @property
    def failed(self) -> list[JobFailure]:
        """Jobs that ended ``failed`` in this run (their attempt cap reached)."""
        return [f for f in self.failures if f.final]

    def merge(self, other: RunReport) -> RunReport:
        return RunReport(
            done=self.done + other.done,
            retried=self.retried + other.retried,
            failures=[*self.failures, *other.failures],
        )


def _describe(exc: BaseException) -> str:
    # the type and the message only: a traceback could quote a job's payload
    return f"{type(exc).__name__}: {exc}"[:300]


class JobRunner:
    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        max_attempts: int = 5,
        backoff_s: float = 2.0,
    ) -> None:
        self._store = store
        self._clock = clock
        self._handlers: dict[str, JobHandler] = {}
        self.max_attempts = max_attempts
        self.backoff_s = backoff_s

    def register(self, kind: str, handler: JobHandler) -> None:
        self._handlers[kind] = handler

    def run(
        self, *, limit: int = 64, until: datetime | None = None, max_jobs: int | None = None
    ) -> RunReport:
        """Run every job due by ``until`` (default: now); a job retried with a backoff that still falls
        before ``until`` is run again in the same call, so a far ``until`` drains the queue to its end."""
        report = RunReport()
        while max_jobs is None or report.done + len(report.failures) < max_jobs:
            jobs = self._store.claim_jobs(limit=limit, now=until or self._clock())
            if not jobs:
                break
            for job in jobs:
                self._run_one(job, report)
        return report

    def _run_one(self, job: JobRow, report: RunReport) -> None:
        job_id, kind, attempts = job.id, job.kind, job.attempts
        handler = self._handlers.get(kind)
        try:
            if handler is None:
                raise LookupError(f"no handler registered for job kind {kind!r}")
            handler(job)
        except Exception as exc:  # the job's failure is recorded (queue, audit, counter, report), not raised
            self._failed(job, job_id, kind, attempts, _describe(exc), report)
            return
        self._store.finish_job(job_id)
        report.done += 1

    def _failed(
        self, job: JobRow, job_id: int, kind: str, attempts: int, error: str, report: RunReport
    ) -> None:
        final = attempts >= self.max_attempts
        now = self._clock()
        payload = job.payload if isinstance(job.payload, Mapping) else {}
        user = str(payload.get("user_id") or SYSTEM_USER)
        with self._store.atomic():
            if final:
                self._store.fail_job(job_id, error, retry_at=None)
                self._store.add_audit(
                    [
                        AuditEvent(
                            ts=now,
                            user_id=user,
                            stage="jobs",
                            action="failed",
                            reason=f"{kind} job {job_id} failed after {attempts} attempts: {error}",
                            detail={"job_id": job_id, "kind": kind, "attempts": attempts},
                        )
                    ]
                )
                self._store.bump_counter(user, "jobs_failed", 1)
            else:
                retry_at = now + timedelta(seconds=self.backoff_s * 2 ** (attempts - 1))
                self._store.fail_job(job_id, error, retry_at=retry_at)
        log.warning("job %s (%s) attempt %s failed%s: %s", job_id, kind, attempts, " for good" * final, error)
        if not final:
            report.retried += 1
        report.failures.append(
            JobFailure(job_id=job_id, kind=kind, attempts=attempts, error=error, final=final)
        )


class BackgroundWorker:
    """A daemon thread that runs the queue when writing pauses (during a burst of add() calls background
    work would only compete with them for the CPU and the GIL) and flushes batched access statistics."""

    def __init__(
        self,
        runner: JobRunner,
        *,
        after_run: Callable[[], None] = lambda: None,
        idle_s: float = 0.3,
        batch: int = 16,
    ) -> None:
        self._runner = runner
        self._after_run = after_run
        self._idle_s = idle_s
        self._batch = batch
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._last_write = 0.0
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        # held while the worker runs jobs: flush() takes it too, so it waits for a job the worker has claimed
        self.busy = threading.Lock()

    @property
    def running(self) -> bool:
        return self._thread is not None

    def note_write(self) -> None:
        """Idle time counts from the end of the last write: a long add() is not a pause."""
        self._last_write = time.monotonic()

    def wake(self) -> None:
        with self._start_lock:
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._loop, name="memscribe-worker", daemon=True)
                self._thread.start()
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=0.5)
            self._wake.clear()
            while not self._stop.is_set() and time.monotonic() - self._last_write < self._idle_s:
                self._stop.wait(self._idle_s / 2)
            if self._stop.is_set():
                break
            try:
                with self.busy:
                    report = self._runner.run(limit=self._batch, max_jobs=self._batch * 4)
                self._after_run()
                if report.done + len(report.failures) >= self._batch * 4:
                    self._wake.set()  # more may be waiting: come back without sleeping
            except Exception:  # a store error must not kill the worker; the jobs stay in the durable queue
                log.exception("background run of the job queue failed; its jobs stay queued")

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout)
