"""Reader process for the concurrency test: while writers run, read the store over and over and check that
every memory it can see is whole (its vector, its keyword entry and at least one version), both in the raw
tables (one read transaction = one snapshot) and through the public API (list + get + versions).

Stops when the stop file appears (after one final pass); prints one JSON line with what it checked.
"""

import json
import sys
import time
from pathlib import Path

import apsw

from memscribe.store.sqlite import SQLiteStore

db, stop_file, user = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
conn.set_busy_timeout(30_000)
store = SQLiteStore(db)  # the engine's own read path (its reader connection, its record decoding)
passes = checked = api_checked = max_seen = 0
partial: list[str] = []


def snapshot_pass() -> None:
    global checked, max_seen
    conn.execute("BEGIN")  # a read transaction: every SELECT below sees the same committed state
    try:
        rows = list(conn.execute("SELECT pk, id, version FROM memories"))
        vec = {r[0] for r in conn.execute("SELECT pk FROM memory_vectors")}
        fts = {r[0] for r in conn.execute("SELECT rowid FROM memories_fts")}
        ver = {(r[0], r[1]) for r in conn.execute("SELECT memory_id, version FROM versions")}
    finally:
        conn.execute("COMMIT")
    for pk, mid, version in rows:
        if pk not in vec or pk not in fts or (mid, version) not in ver:
            partial.append(f"{mid}: vector={pk in vec} fts={pk in fts} version={(mid, version) in ver}")
    checked += len(rows)
    max_seen = max(max_seen, len(rows))


def api_pass() -> None:
    global api_checked
    total = sum(store.count_memories(user).values())
    # the newest ones: the ones a torn write would show first
    recs = store.list_memories(user, statuses=None, limit=50, offset=max(0, total - 50))
    for rec in recs:
        got = store.get_memory(rec.id)
        versions = store.versions(rec.id)
        if got is None or not versions or versions[-1].version != got.version:
            partial.append(f"{rec.id}: api get/versions inconsistent")
    if recs:
        vecs = store.get_vectors([r.id for r in recs])
        partial.extend(f"{r.id}: no vector via api" for r in recs if r.id not in vecs)
    api_checked += len(recs)


while True:
    last = stop_file.exists()
    snapshot_pass()
    api_pass()
    passes += 1
    if last or len(partial) > 20:
        break
    time.sleep(0.25)  # a reader beside the writers, not a CPU hog starving them
print(
    json.dumps(
        {
            "passes": passes,
            "checked": checked,
            "api_checked": api_checked,
            "max_seen": max_seen,
            "partial": partial[:20],
        }
    ),
    flush=True,
)
store.close()
conn.close()
