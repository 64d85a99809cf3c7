"""The vector matrix saved beside the SQLite file (store/sqlite/vector_sidecar.py): a new process reads it
instead of every vector BLOB, and it is never used when it is not exactly the scope in SQLite."""

from __future__ import annotations

import json
import stat

from memscribe.models import Status
from memscribe.store.sqlite import SQLiteStore, vector_sidecar
from memscribe.testing.store_contract import make_record, unit_vector

N = 60  # scopes of at least min_size vectors use the matrix; the tests lower min_size to keep them small


def _store(path, min_size=20):  # type: ignore[no-untyped-def]
    s = SQLiteStore(path)
    s._vectors.min_size = min_size
    return s


def _fill(s, n=N, start=0, user="u1"):  # type: ignore[no-untyped-def]
    with s.atomic():
        for i in range(start, start + n):
            rec = make_record(f"m{i}", user=user, text=f"memory {i}")
            s.put_memory(rec, vector=unit_vector(i), keyword_text=rec.text)


def _sql_scan(s, q, k=5):  # type: ignore[no-untyped-def]
    fresh = _store(s.path, min_size=10**9)  # below min_size: sqlite-vec's exact scan, no matrix
    try:
        return [i for i, _ in fresh.vector_search("u1", q, k=k)]
    finally:
        fresh._vectors.unsaved.clear()
        fresh.close()


def _search_ids(s, seed, k=5):  # type: ignore[no-untyped-def]
    return [i for i, _ in s.vector_search("u1", unit_vector(seed), k=k)]


def test_a_new_process_starts_from_the_snapshot_and_adds_only_what_was_written_since(tmp_path):
    db = tmp_path / "m.db"
    a = _store(db)
    _fill(a)
    assert _search_ids(a, 7)[0] == "m7"  # built from SQL: every row read
    assert a._vectors.unsaved["u1"] == N
    a.close()
    snap = vector_sidecar.path_for(db, "u1")
    assert snap.exists() and "u1" not in snap.name  # the file name does not reveal the user id
    assert stat.S_IMODE(snap.stat().st_mode) == 0o600

    b = _store(db)
    _fill(b, n=3, start=N)  # written after the snapshot
    with b.atomic():
        b.put_memory(make_record("m7", text="memory 7", status=Status.archived))
    got = _search_ids(b, 7)
    assert b._vectors.unsaved["u1"] == 4  # the snapshot plus the 4 rows written since, not all of them
    assert "m7" not in got and got == _sql_scan(b, unit_vector(7))
    assert _search_ids(b, N + 1)[0] == f"m{N + 1}"
    b.close()  # 4 new rows: below the threshold, the snapshot is not rewritten
    c = _store(db)
    assert _search_ids(c, N + 2)[0] == f"m{N + 2}"
    assert c._vectors.unsaved["u1"] == 4
    c.close()


def test_a_damaged_snapshot_is_ignored_and_rebuilt_from_sql(tmp_path):
    db = tmp_path / "m.db"
    a = _store(db)
    _fill(a)
    _search_ids(a, 3)
    a.close()
    snap = vector_sidecar.path_for(db, "u1")
    data = bytearray(snap.read_bytes())
    mid = len(data) // 2
    data[mid] ^= 0x01  # one flipped bit inside the vectors: that array's checksum no longer matches
    snap.write_bytes(bytes(data))
    b = _store(db)
    assert _search_ids(b, 3) == _sql_scan(b, unit_vector(3))
    assert b._vectors.unsaved["u1"] == N  # rebuilt from every row
    b.close()
    snap.write_bytes(snap.read_bytes()[:100])  # torn
    c = _store(db)
    assert _search_ids(c, 3)[0] == "m3"
    c.close()


def test_a_snapshot_the_store_did_not_record_is_not_used(tmp_path):
    """Restoring an older backup keeps the newer snapshot file; the restored file's meta names another
    snapshot (or none), so the matrix is rebuilt from the restored rows."""
    db = tmp_path / "m.db"
    a = _store(db)
    _fill(a, n=30)
    a.backup_to(tmp_path / "backup.db")
    _fill(a, n=30, start=30)
    _search_ids(a, 1)
    a.close()  # snapshot of 60 rows, recorded in m.db's meta only
    (tmp_path / "backup.db").replace(db)
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"m.db{suffix}").unlink(missing_ok=True)
    b = _store(db)
    _fill(b, n=35, start=100)  # the restored store grows past the snapshot's write sequence
    got = _search_ids(b, 40)
    assert "m40" not in got  # m40 only ever existed after the backup
    assert got == _sql_scan(b, unit_vector(40))
    assert b._vectors.unsaved["u1"] == 65
    b.close()


def test_a_hard_erase_removes_the_snapshot_and_a_stale_one_never_resurrects_rows(tmp_path):
    db = tmp_path / "m.db"
    a = _store(db)
    _fill(a)
    _fill(a, n=25, user="u2")
    _search_ids(a, 5)
    a.vector_search("u2", unit_vector(5), k=3)
    a.close()
    kept = vector_sidecar.path_for(db, "u1").read_bytes()
    b = _store(db)
    b.forget_user("u1")
    assert not vector_sidecar.path_for(db, "u1").exists()
    assert b.get_meta(vector_sidecar.meta_key("u1")) is None
    assert vector_sidecar.path_for(db, "u2").exists()  # another user's snapshot stays
    b.close()
    # even if an old copy of the file comes back and the token is forged, rows erased from SQL are not
    # served: the matrix must hold exactly the scope's vectors
    vector_sidecar.path_for(db, "u1").write_bytes(kept)
    c = _store(db)
    _fill(c, n=25, start=500)
    raw = vector_sidecar.path_for(db, "u1").read_bytes()
    token = json.loads(raw[16 : 16 + int.from_bytes(raw[8:16], "little")])["token"]
    with c.atomic():
        c.set_meta(vector_sidecar.meta_key("u1"), token)
    got = _search_ids(c, 5, k=25)
    assert all(int(i[1:]) >= 500 for i in got)
    c.close()
