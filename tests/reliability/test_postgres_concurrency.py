"""8 processes writing to one PostgreSQL store at once (the SQLite test's worker, MEMSCRIBE_STORE set),
while this process reads snapshots: every acknowledged write present exactly once, every memory whole
in every snapshot, no deadlock or lock error reaching a caller, and the shared verification queue
(FOR UPDATE SKIP LOCKED) drained with each job done once."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

DSN = os.environ.get("MEMSCRIBE_TEST_PG_DSN")
pytestmark = pytest.mark.skipif(
    not DSN, reason="MEMSCRIBE_TEST_PG_DSN is not set: no PostgreSQL server (see .ci/setup-postgres.sh)"
)
WORKER = Path(__file__).with_name("worker.py")
WRITERS, N = 8, 30


def _whole_snapshot(conn) -> tuple[int, list[str]]:  # type: ignore[no-untyped-def]
    """One REPEATABLE READ snapshot: memories without vector, keyword entry or their version."""
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        n = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        bad = conn.execute(
            "SELECT m.id FROM memories m LEFT JOIN memory_vectors v ON v.pk = m.pk "
            "LEFT JOIN memory_terms t ON t.pk = m.pk "
            "LEFT JOIN versions r ON r.memory_id = m.id AND r.version = m.version "
            "WHERE v.pk IS NULL OR t.pk IS NULL OR r.memory_id IS NULL"
        ).fetchall()
    return n, [r[0] for r in bad]


@pytest.mark.slow
def test_eight_processes_write_one_postgres_store(tmp_path):
    import psycopg

    from memscribe import Memory

    schema = "conc_" + uuid.uuid4().hex[:10]
    url = f"{DSN}?schema={schema}"
    home = tmp_path / "store"
    Memory(home=home, store=url).close()  # schema and embedder record once
    env = {**os.environ, "MEMSCRIBE_STORE": url, "OMP_NUM_THREADS": "1"}
    conn = psycopg.connect(DSN, autocommit=True, options=f"-c search_path={schema},public")
    seen = {"passes": 0, "max": 0, "partial": []}
    done = threading.Event()

    def reader() -> None:
        while not done.is_set():
            n, bad = _whole_snapshot(conn)
            seen["passes"] += 1
            seen["max"] = max(seen["max"], n)
            seen["partial"] += bad
            time.sleep(0.05)

    t0 = time.monotonic()
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), str(home), f"p{i}", str(N)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(WRITERS)
    ]
    th = threading.Thread(target=reader)
    th.start()
    acked: list[str] = []
    errors: list[str] = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=300)
            acked += [line.strip() for line in out.splitlines() if line.strip()]
            if p.returncode != 0:
                errors.append(err[-2000:])
            for needle in ("deadlock", "ConcurrencyError", "could not serialize", "lock timeout"):
                assert needle not in err, err[-2000:]
    finally:
        done.set()
        th.join()
    elapsed = time.monotonic() - t0
    assert not errors, errors[0]
    assert seen["partial"] == [], f"a snapshot saw half-written memories: {seen['partial'][:5]}"
    assert seen["passes"] >= 3 and seen["max"] > 0  # it did read while the writers wrote
    assert len(acked) == len(set(acked)) == WRITERS * N

    mem = Memory(home=home, store=url)
    try:
        mem.flush()  # verification jobs of every writer: claimed with SKIP LOCKED, each done once
        recs = mem.list(user_id="shared-user", status=None)
        stored = [m for r in recs for m in r.source_ids]
        assert sorted(stored) == sorted(acked), "every write present exactly once, nothing extra"
        assert mem._store.integrity_check() == "ok"
        assert mem.stats()["queue_depth"] == 0
        verified = [
            e.memory_id
            for e in mem._store.audit_for(user_id="shared-user")
            if e.stage == "verify" and e.action == "ok"
        ]
        assert len(verified) == len(set(verified)), "a verification job ran twice"
    finally:
        mem.close()
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        conn.close()
    print(f"{WRITERS}x{N} adds in {elapsed:.1f}s, {seen['passes']} snapshot checks")
