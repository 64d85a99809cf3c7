"""Nothing lost, nothing half-written: SIGKILL at random points, and 8 processes writing to one store."""

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.store.sqlite import SQLiteStore

WORKER = Path(__file__).with_name("worker.py")
READER = Path(__file__).with_name("reader.py")


def _start(home, proc, n):
    return subprocess.Popen(
        [sys.executable, str(WORKER), str(home), proc, str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _check_whole(home: Path) -> set[str]:
    """Every memory has its vector, keyword entry and first version; returns the source ids present."""
    store = SQLiteStore(home / "memscribe.db")
    assert store.integrity_check() == "ok"
    rows = store._exec("SELECT pk, id FROM memories")
    vec = {r[0] for r in store._exec("SELECT pk FROM memory_vectors")}
    fts = {r[0] for r in store._exec("SELECT rowid FROM memories_fts")}
    ver = {r[0] for r in store._exec("SELECT memory_id FROM versions")}
    for pk, mid in rows:
        assert pk in vec and pk in fts and mid in ver, f"half-written memory {mid}"
    ids = [s.message_id for r in store.list_memories("shared-user", statuses=None) for s in r.sources]
    assert len(ids) == len(set(ids)), "a message stored twice"
    store.close()
    return set(ids)


@pytest.mark.slow
def test_sigkill_at_random_points_loses_nothing_acknowledged(tmp_path):
    rng = random.Random(7)
    home = tmp_path / "store"
    acknowledged: set[str] = set()
    trials = 20
    for t in range(trials):
        p = _start(home, f"t{t}", 40)
        # kill at a random point of the ingest, timed from the worker's first acknowledged write rather than
        # from its start (interpreter + model start-up time varies with the machine's load)
        first = p.stdout.readline()
        time.sleep(rng.uniform(0.0, 1.2))
        p.send_signal(signal.SIGKILL)
        out, _ = p.communicate()
        acknowledged |= {line.strip() for line in (first + out).splitlines() if line.strip()}
        present = _check_whole(home)
        missing = acknowledged - present
        assert not missing, f"trial {t}: acknowledged writes lost: {sorted(missing)[:5]}"
    assert len(acknowledged) > 20  # the kills did land mid-ingest, after some writes
    mem = Memory(home=home)  # reopening resumes the queue: pending verification finishes exactly once
    mem.flush()
    assert mem.stats()["queue_depth"] == 0
    verified = [
        e.memory_id
        for e in mem._store.audit_for(user_id="shared-user")
        if e.stage == "verify" and e.action == "ok"
    ]
    assert len(verified) == len(set(verified))
    mem.close()


@pytest.mark.slow
def test_eight_processes_write_one_store_while_a_reader_checks(tmp_path):
    """8 writer processes x 500 adds on one SQLite file (WAL, busy timeout, commit retries), with a reader
    process checking all along that every memory it can see is whole. Every acknowledged write is present
    exactly once; no reader ever saw a memory without its vector, keyword entry or version."""
    home = tmp_path / "store"
    Memory(home=home).close()  # create the schema once
    n, writers = 500, 8
    stop = tmp_path / "stop"
    reader = subprocess.Popen(
        [sys.executable, str(READER), str(home / "memscribe.db"), str(stop), "shared-user"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    procs = [_start(home, f"p{i}", n) for i in range(writers)]
    acked: list[str] = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=900)
            assert p.returncode == 0, err[-2000:]
            acked += [line.strip() for line in out.splitlines() if line.strip()]
    finally:
        stop.touch()
        rout, rerr = reader.communicate(timeout=120)
    assert reader.returncode == 0, rerr[-2000:]
    seen = json.loads(rout.strip().splitlines()[-1])
    print("reader:", {k: v for k, v in seen.items() if k != "partial"})
    assert seen["partial"] == [], f"a reader saw half-written memories: {seen['partial']}"
    assert seen["passes"] >= 3 and seen["max_seen"] > 0  # it did read while the writers wrote
    assert len(acked) == len(set(acked)) == writers * n
    present = _check_whole(home)  # also: no message id stored twice
    assert set(acked) <= present
    store = SQLiteStore(home / "memscribe.db")
    raw = [m for r in store.list_memories("shared-user", statuses=None) for m in r.source_ids]
    store.close()
    assert sorted(raw) == sorted(acked), "every write present exactly once, nothing extra"
