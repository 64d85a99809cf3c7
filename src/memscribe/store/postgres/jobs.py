"""The durable job queue on PostgreSQL, shared by every worker process: claims skip each other's locked
rows (FOR UPDATE SKIP LOCKED); ``claimed_by`` names the store instance running a job, so a restarted
worker requeues only jobs whose owner is gone."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memscribe.store.codec import JOB_COLUMNS, clip_error, decode_job, encode_json, now
from memscribe.store.postgres.connection import PostgresConnection, clean_text
from memscribe.store.rows import JOB_STATUSES, JobRow

__all__ = ["PostgresJobs"]

_COLS = ", ".join(JOB_COLUMNS)


class PostgresJobs(PostgresConnection):
    def enqueue(self, kind: str, payload: dict[str, Any], *, run_after: datetime | None = None) -> int:
        row = self._one(
            "INSERT INTO jobs (kind, payload, run_after, created_at) "
            "VALUES (%s, %s::jsonb, coalesce(%s::timestamptz, '-infinity'), %s) RETURNING id",
            (kind, encode_json(payload, clean_text), run_after, now().isoformat()),
        )
        return int(row[0])

    def claim_jobs(self, *, limit: int, now: datetime) -> list[JobRow]:
        """Hand out due jobs; concurrent workers skip each other's locked rows (FOR UPDATE SKIP LOCKED)."""
        rows = self._all(
            "UPDATE jobs j SET status='running', attempts=j.attempts+1, claimed_by=%s FROM "
            "(SELECT id FROM jobs WHERE status='pending' AND run_after <= %s ORDER BY id LIMIT %s "
            " FOR UPDATE SKIP LOCKED) c WHERE j.id = c.id RETURNING "
            + ", ".join(f"j.{c}" for c in JOB_COLUMNS),
            (self.instance, now, limit),
        )
        return sorted((decode_job(r) for r in rows), key=lambda j: j.id)

    def requeue_running(self) -> int:
        """Jobs left 'running' by a worker that is gone (no open connection under its name) go back to
        pending (at-least-once, idempotent jobs). Jobs of live workers and failed jobs are left alone."""
        return self._rowcount(
            "UPDATE jobs SET status='pending', claimed_by=NULL WHERE status='running' AND (claimed_by IS NULL "
            "OR claimed_by NOT IN (SELECT application_name FROM pg_stat_activity WHERE application_name <> ''))"
        )

    def finish_job(self, job_id: int) -> None:
        self._all("DELETE FROM jobs WHERE id=%s", (job_id,))

    def fail_job(self, job_id: int, error: str, *, retry_at: datetime | None) -> None:
        if retry_at is None:
            self._all(
                "UPDATE jobs SET status='failed', error=%s, claimed_by=NULL WHERE id=%s",
                (clip_error(error, clean_text), job_id),
            )
        else:
            self._all(
                "UPDATE jobs SET status='pending', error=%s, run_after=%s, claimed_by=NULL WHERE id=%s",
                (clip_error(error, clean_text), retry_at, job_id),
            )

    def pending_jobs(self) -> int:
        return int(self._one("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')")[0])

    def job_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(JOB_STATUSES, 0)
        counts.update(
            (r[0], int(r[1])) for r in self._all("SELECT status, count(*) FROM jobs GROUP BY status")
        )
        return counts

    def failed_jobs(self, limit: int = 50) -> list[JobRow]:
        rows = self._all(
            f"SELECT {_COLS} FROM jobs WHERE status='failed' ORDER BY id DESC LIMIT %s", (limit,)
        )
        return [decode_job(r) for r in rows]
