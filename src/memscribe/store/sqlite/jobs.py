"""The durable job queue on SQLite: claim (pending → running, attempts + 1), finish (deleted), fail (back to
pending at ``retry_at``, or 'failed' for good, kept with its error)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memscribe.store.codec import JOB_COLUMNS, clip_error, decode_job, encode_json, epoch, now
from memscribe.store.rows import JOB_STATUSES, JobRow
from memscribe.store.sqlite.connection import SQLiteConnection

__all__ = ["SQLiteJobs"]

_SELECT = f"SELECT {', '.join(JOB_COLUMNS)} FROM jobs"


class SQLiteJobs(SQLiteConnection):
    def enqueue(self, kind: str, payload: dict[str, Any], *, run_after: datetime | None = None) -> int:
        rows = self._exec(
            "INSERT INTO jobs (kind, payload, run_after_ts, created_at) VALUES (?, ?, ?, ?) RETURNING id",
            (kind, encode_json(payload), epoch(run_after) or 0.0, now().isoformat()),
        )
        return int(rows[0][0])

    def claim_jobs(self, *, limit: int, now: datetime) -> list[JobRow]:
        rows = self._exec(
            "UPDATE jobs SET status='running', attempts=attempts+1 WHERE id IN (SELECT id FROM jobs "
            f"WHERE status='pending' AND run_after_ts <= ? ORDER BY id LIMIT ?) RETURNING {', '.join(JOB_COLUMNS)}",
            (now.timestamp(), limit),
        )
        return sorted((decode_job(r) for r in rows), key=lambda j: j.id)

    def requeue_running(self) -> int:
        """Jobs left 'running' by a process that died go back to pending (at-least-once, idempotent jobs).
        Failed jobs stay failed."""
        return self._changed("UPDATE jobs SET status='pending' WHERE status='running'")

    def finish_job(self, job_id: int) -> None:
        self._exec("DELETE FROM jobs WHERE id=?", (job_id,))

    def fail_job(self, job_id: int, error: str, *, retry_at: datetime | None) -> None:
        if retry_at is None:
            self._exec("UPDATE jobs SET status='failed', error=? WHERE id=?", (clip_error(error), job_id))
        else:
            self._exec(
                "UPDATE jobs SET status='pending', error=?, run_after_ts=? WHERE id=?",
                (clip_error(error), retry_at.timestamp(), job_id),
            )

    def pending_jobs(self) -> int:
        return int(self._exec("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')")[0][0])

    def job_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(JOB_STATUSES, 0)
        counts.update(
            (r[0], int(r[1])) for r in self._exec("SELECT status, count(*) FROM jobs GROUP BY status")
        )
        return counts

    def failed_jobs(self, limit: int = 50) -> list[JobRow]:
        rows = self._exec(f"{_SELECT} WHERE status='failed' ORDER BY id DESC LIMIT ?", (limit,))
        return [decode_job(r) for r in rows]
