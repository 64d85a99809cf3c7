"""A store written by the wave-1 code (30f5b50, schema version 1; tests/fixtures/make_store_30f5b50.py)
opens with today's migrations and keeps every memory, version, audit row, vault row and index entry;
the slot keys are backfilled from each record's structured JSON."""

from __future__ import annotations

import shutil
from pathlib import Path

import apsw
import pytest

from memscribe.store.sqlite import SQLiteStore
from memscribe.store.sqlite.migrations import LATEST

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "store_30f5b50"

# every table of schema version 1, with the columns it had then
_V1_TABLES = {
    "memories": "pk, id, user_id, agent_id, session_id, layer, kind, status, text, raw, structured, entities, "
    "links, sources, metadata, time_start, time_end, time_start_ts, time_end_ts, importance, timeliness, "
    "confidence, superseded_by, created_at, updated_at, created_ts, last_accessed_at, access_count, expire_at, "
    "version, vseq",
    "memory_vectors": "pk, user_id, embedding",
    "memories_fts": "rowid, scope, terms",
    "versions": "memory_id, version, record, reason, actor, created_at, user_id",
    "links": "src, dst, type, user_id",
    "audit": "id, ts, user_id, memory_id, message_id, stage, action, reason, scores, detail",
    "counters": "user_id, name, value",
    "sessions": "session_id, user_id, summary, summarized_upto, updated_at",
    "session_messages": "seq, session_id, user_id, role, name, content, message_id, at",
    "working_items": "user_id, task_id, key, value, kind, expire_at, expire_ts, updated_at",
    "jobs": "id, kind, payload, status, attempts, run_after_ts, error, created_at",
    "vault": "id, user_id, memory_id, label, kind, ciphertext, key_id",
    "meta": "key, value",
}


def _dump(path: Path) -> dict[str, list[tuple]]:
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return {t: sorted(conn.execute(f"SELECT {cols} FROM {t}")) for t, cols in _V1_TABLES.items()}
    finally:
        conn.close()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    if not (FIXTURE / "memscribe.db").exists():
        pytest.fail(f"{FIXTURE}/memscribe.db is missing: run tests/fixtures/make_store_30f5b50.py at 30f5b50")
    dest = tmp_path / "home"
    shutil.copytree(FIXTURE, dest)
    return dest


def test_the_wave1_store_is_version_1_with_data(home: Path) -> None:
    conn = apsw.Connection(str(home / "memscribe.db"), flags=apsw.SQLITE_OPEN_READONLY)
    assert list(conn.execute("SELECT max(version) FROM schema_migrations")) == [(1,)]
    conn.close()
    before = _dump(home / "memscribe.db")
    assert len(before["memories"]) == 10 and len(before["versions"]) == 12
    assert len(before["audit"]) > 10 and len(before["vault"]) == 1


def test_migration_keeps_every_row_and_backfills_slot_keys(home: Path) -> None:
    db = home / "memscribe.db"
    before = _dump(db)
    store = SQLiteStore(db)
    try:
        assert store.schema_version() == LATEST
        assert store.integrity_check() == "ok"
        users = sorted(store.iter_users())
        assert users == ["u1", "u2"]
        recs = [r for u in users for r in store.list_memories(u, statuses=None)]
        assert sorted(r.id for r in recs) == sorted(r[1] for r in before["memories"])
        assert sum(len(store.versions(r.id)) for r in recs) == len(before["versions"])
        for r in recs:
            latest = store.versions(r.id)[-1]
            assert latest.version == r.version and latest.record.text == r.text
        assert len(store.audit_for()) == len(before["audit"])
        assert [(s.id, s.memory_id, s.label, s.ciphertext, s.key_id) for s in store.all_secrets()] == [
            (v[0], v[2], v[3], bytes(v[5]), v[6]) for v in before["vault"]
        ]
        # the slot keys came from the structured JSON: the two residence facts share one slot
        residence = [r for r in recs if r.structured.get("slot") == "the user|residence"]
        assert len(residence) == 2
        found = store.memories_in_slot("u1", "the user", "the user|residence", statuses=None)
        assert sorted(r.id for r in found) == sorted(r.id for r in residence)
        assert [r.id for r in store.memories_in_slot("u1", "the user", "the user|residence")] == [
            r.id for r in residence if r.status.value == "active"
        ]
        keys = dict(
            (r[0], (r[1], r[2])) for r in store._exec("SELECT id, subject_key, slot_key FROM memories")
        )
        for r in recs:
            assert keys[r.id] == (r.structured.get("subject"), r.structured.get("slot"))
        # and each record's origin message from its first source (the statements said together)
        origins = dict(store._exec("SELECT id, origin_message FROM memories"))
        assert origins == {r.id: (r.sources[0].message_id if r.sources else None) for r in recs}
        first = next(r for r in recs if r.sources)
        assert first.id in {
            m.id
            for m in store.memories_from_messages(first.user_id, [first.sources[0].message_id], statuses=None)
        }
        # the indexes still answer
        denver = next(r for r in recs if "Denver" in r.text)
        assert store.keyword_search("u1", ["denver"], k=3)[0][0] == denver.id
        vec = store.get_vectors([denver.id])[denver.id]
        assert store.vector_search("u1", vec, k=1)[0][0] == denver.id
    finally:
        store.close()
    after = _dump(db)
    for table, rows in before.items():
        if table == "meta":
            continue  # vseq moves on only with writes; checked below
        assert after[table] == rows, f"{table} changed in the migration"
    assert dict(after["meta"]) == dict(before["meta"])
    again = SQLiteStore(db)  # a second open applies nothing
    assert again.schema_version() == LATEST and _dump(db) == after
    again.close()


def test_the_migrated_store_works_through_memory(home: Path) -> None:
    from memscribe import Memory

    vaulted = _dump(home / "memscribe.db")["vault"][0][2]
    with Memory(home=home) as mem:
        revealed = mem.reveal(vaulted)
        assert any("建国路88号" in v for v in revealed.values())  # the fixture's key still opens the vault
        hits = mem.search("Where do I live?", user_id="u1", limit=3)
        assert hits and "Denver" in hits[0].memory.text
        assert len(mem.history(hits[0].memory.id)) >= 1
