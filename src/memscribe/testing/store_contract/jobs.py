"""The durable job queue: claimed once, run_after respected, retries count attempts, a job out of
retries ends 'failed' and stays so (kept with its reason, never requeued)."""

from __future__ import annotations

from datetime import timedelta

from memscribe.store.rows import JobRow
from memscribe.testing.store_contract.records import T0

__all__ = ["JobContract"]

DUE = T0 + timedelta(days=1)


class JobContract:
    def test_job_queue_is_durable_and_exactly_once(self, store) -> None:  # type: ignore[no-untyped-def]
        ids = [store.enqueue("verify", {"memory_id": f"m{i}", "user_id": "u1"}) for i in range(3)]
        jobs = store.claim_jobs(limit=2, now=DUE)
        assert [j.id for j in jobs] == ids[:2]
        assert [j.id for j in store.claim_jobs(limit=5, now=DUE)] == ids[2:]  # never handed out twice
        assert store.claim_jobs(limit=5, now=DUE) == []
        store.finish_job(ids[0])
        assert store.pending_jobs() == 2
        store.fail_job(ids[1], "boom", retry_at=None)
        assert store.pending_jobs() == 1

    def test_claimed_jobs_are_typed_rows_with_attempts(self, store) -> None:  # type: ignore[no-untyped-def]
        payload = {"user_id": "u1", "sealed": "AAEC", "note": "用户 ✓", "n": [1, {"x": None}]}
        jid = store.enqueue("deferred_add", payload)
        [job] = store.claim_jobs(limit=5, now=DUE)
        assert isinstance(job, JobRow)
        assert (job.id, job.kind, job.payload, job.attempts, job.status, job.error) == (
            jid,
            "deferred_add",
            payload,
            1,
            "running",
            None,
        )
        assert job.created_at.tzinfo is not None

    def test_jobs_wait_for_run_after_and_retry(self, store) -> None:  # type: ignore[no-untyped-def]
        later = store.enqueue("verify", {"user_id": "u1"}, run_after=T0 + timedelta(hours=1))
        assert store.claim_jobs(limit=5, now=T0) == []
        job = store.claim_jobs(limit=5, now=T0 + timedelta(hours=2))
        assert [j.id for j in job] == [later] and job[0].attempts == 1
        assert job[0].payload == {"user_id": "u1"}
        store.fail_job(later, "transient", retry_at=T0 + timedelta(hours=3))
        assert store.job_counts() == {"pending": 1, "running": 0, "failed": 0}
        assert store.claim_jobs(limit=5, now=T0 + timedelta(hours=2)) == []
        [again] = store.claim_jobs(limit=5, now=T0 + timedelta(hours=4))
        assert (again.attempts, again.error) == (2, "transient")  # the handler sees why the last one failed

    def test_a_job_out_of_retries_stays_failed(self, store) -> None:  # type: ignore[no-untyped-def]
        assert store.job_counts() == {"pending": 0, "running": 0, "failed": 0}
        good = store.enqueue("verify", {"memory_id": "m1", "user_id": "u1"})
        poison = store.enqueue("deferred_add", {"user_id": "u1", "sealed": "not base64"})
        assert [j.id for j in store.claim_jobs(limit=5, now=DUE)] == [good, poison]
        store.fail_job(poison, "binascii.Error: Incorrect padding " + "x" * 1000, retry_at=None)
        assert store.job_counts() == {"pending": 0, "running": 1, "failed": 1}
        assert store.pending_jobs() == 1  # a failed job is not work left to do
        [failed] = store.failed_jobs(10)
        assert (failed.id, failed.kind, failed.status, failed.attempts) == (
            poison,
            "deferred_add",
            "failed",
            1,
        )
        assert failed.payload == {"user_id": "u1", "sealed": "not base64"}
        assert failed.error.startswith("binascii.Error: Incorrect padding") and len(failed.error) == 500
        # a restart requeues what was running; what failed stays failed and is never handed out again
        store.requeue_running()
        assert [j.id for j in store.failed_jobs(10)] == [poison]
        assert poison not in [j.id for j in store.claim_jobs(limit=5, now=DUE + timedelta(days=1))]
        assert store.job_counts()["failed"] == 1
        store.finish_job(good)
        assert store.job_counts() == {"pending": 0, "running": 0, "failed": 1}

    def test_failed_jobs_latest_first_and_limited(self, store) -> None:  # type: ignore[no-untyped-def]
        ids = [store.enqueue("verify", {"memory_id": f"m{i}", "user_id": "u1"}) for i in range(4)]
        store.claim_jobs(limit=4, now=DUE)
        for i in ids[:3]:
            store.fail_job(i, f"reason {i}", retry_at=None)
        assert [(j.id, j.error) for j in store.failed_jobs(2)] == [
            (ids[2], f"reason {ids[2]}"),
            (ids[1], f"reason {ids[1]}"),
        ]
        assert store.job_counts() == {"pending": 0, "running": 1, "failed": 3}
