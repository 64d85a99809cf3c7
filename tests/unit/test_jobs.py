"""The job runner: every job ends done or failed, a bad job never blocks the others, and a failed job is
never resurrected by a restart — on SQLite here and on PostgreSQL in tests/contract."""

from __future__ import annotations

import base64
import os
import threading
import uuid

import pytest

from memscribe import Memory
from memscribe.config import LimitsConfig, Settings


def _fast(home, **limits):  # type: ignore[no-untyped-def]
    s = Settings(home=home)
    return s.model_copy(
        update={
            "write": s.write.model_copy(update={"verify": "off"}),
            "limits": LimitsConfig(**limits) if limits else s.limits,
        }
    )


def _store(mem: Memory):  # type: ignore[no-untyped-def]
    return mem._store if hasattr(mem, "_store") else mem.store


def _audit(mem: Memory, user: str):  # type: ignore[no-untyped-def]
    return _store(mem).audit_for(user_id=user)


def poison_then_normal(mem: Memory) -> None:
    """A deferred write whose sealed payload cannot be opened, then a normal deferred write behind it."""
    store = _store(mem)
    store.enqueue(
        "deferred_add",
        {"user_id": "u1", "sealed": base64.b64encode(b"not a sealed payload").decode(), "key_id": "x"},
    )
    store.enqueue("deferred_add", {"user_id": "u1", "sealed": "%%% not base64 %%%", "key_id": "x"})


def check_poison_job(mem: Memory, reopen) -> None:  # type: ignore[no-untyped-def]
    # only flush() runs the queue here (a background worker racing it would make the report partial)
    mem._worker.stop()
    mem.add("Remember: my badge number is 4471.", user_id="u1")  # spends the burst of one
    poison_then_normal(mem)
    # a normal write over the rate limit lands in the queue behind the poison jobs
    rep = mem.add("Remember: I moved to Lisbon last month.", user_id="u1")
    assert rep.deferred
    report = mem.flush(deferred=True)  # returns; does not raise for the poison jobs
    assert len(report.failed) == 2 and all(f.attempts == mem._jobs.max_attempts for f in report.failed)
    assert report.done >= 1
    assert any("Lisbon" in r.text for r in mem.list(user_id="u1"))  # the normal job behind them ran
    stats = mem.stats(user_id="u1")
    assert stats["counters"].get("jobs_failed") == 2 and stats["jobs"]["failed"] == 2
    failed = [e for e in _audit(mem, "u1") if e.stage == "jobs" and e.action == "failed"]
    assert len(failed) == 2 and all("deferred_add job" in e.reason for e in failed)
    mem.close()
    again = reopen()
    again._worker.stop()
    try:
        assert again.flush(deferred=True).done == 0  # the restart did not resurrect them
        assert [e.action for e in _audit(again, "u1") if e.stage == "jobs"] == ["failed", "failed"]
    finally:
        again.close()


DSN = os.environ.get("MEMSCRIBE_TEST_PG_DSN")


@pytest.mark.parametrize("engine", ["sqlite", "postgres"])
def test_poison_job_fails_after_its_cap_and_stays_failed(tmp_path, engine):
    if engine == "postgres" and not DSN:
        pytest.skip("MEMSCRIBE_TEST_PG_DSN is not set: no PostgreSQL server (see .ci/setup-postgres.sh)")
    home = tmp_path / "store"
    limits = {"user_rate": 0.001, "user_burst": 1}
    schema = "jobs_" + uuid.uuid4().hex[:10]
    url = f"{DSN}?schema={schema}" if engine == "postgres" else None
    try:
        mem = Memory(settings=_fast(home, **limits), store=url)
        check_poison_job(mem, lambda: Memory(settings=_fast(home, **limits), store=url))
    finally:
        if engine == "postgres":
            import psycopg

            with psycopg.connect(DSN, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def test_a_handler_error_is_retried_with_backoff_then_fails(tmp_path):
    from datetime import UTC, datetime, timedelta

    from memscribe.jobs import JobRunner

    mem = Memory(settings=_fast(tmp_path / "s"))
    try:
        store = _store(mem)
        now = datetime(2026, 1, 1, tzinfo=UTC)
        runner = JobRunner(store, clock=lambda: now, max_attempts=3, backoff_s=10)
        calls: list[int] = []

        def flaky(job):  # type: ignore[no-untyped-def]
            calls.append(job.attempts if hasattr(job, "attempts") else job["attempts"])
            raise RuntimeError("upstream unavailable")

        runner.register("flaky", flaky)
        store.enqueue("flaky", {"user_id": "u1"})
        first = runner.run(until=now)
        assert first.retried == 1 and not first.failed  # not due again before its backoff
        assert runner.run(until=now + timedelta(seconds=5)).done == 0
        last = runner.run(until=now + timedelta(seconds=60))
        assert [f.final for f in last.failures] == [False, True] and calls == [1, 2, 3]
        assert runner.run(until=now + timedelta(days=1)).failures == []
    finally:
        mem.close()


def test_two_users_writes_do_not_wait_on_each_other(tmp_path):
    """Prefix tenancy serves every tenant from one Memory: a write holding one user's lock (a slow commit)
    must not hold up another user's write."""
    mem = Memory(settings=_fast(tmp_path / "s"))
    try:
        held = threading.Event()
        release = threading.Event()

        def slow_tenant() -> None:
            with mem._pipeline.locks.hold("tenantA:alice"):
                held.set()
                release.wait(30)

        t = threading.Thread(target=slow_tenant)
        t.start()
        assert held.wait(10)
        done = threading.Event()

        def other_tenant() -> None:
            mem.add("I live in Porto.", user_id="tenantB:bob")
            done.set()

        w = threading.Thread(target=other_tenant)
        w.start()
        assert done.wait(60), "tenant B's write waited for tenant A's lock"
        blocked = threading.Event()

        def same_user() -> None:
            mem.add("I live in Braga.", user_id="tenantA:alice")
            blocked.set()

        s = threading.Thread(target=same_user)
        s.start()
        assert not blocked.wait(1.0), "a write of the same user must wait for its lock"
        release.set()
        t.join(10)
        assert blocked.wait(60)
        s.join(10)
        w.join(10)
    finally:
        mem.close()
