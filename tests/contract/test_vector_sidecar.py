"""The vector matrix saved beside the SQLite file (store/sqlite/vector_sidecar.py): a new process reads it
instead of every vector BLOB, and it is never used when it is not exactly the scope in SQLite."""

from __future__ import annotations

import json
import stat

import pytest

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


def _projected_matrix(n=1500):  # type: ignore[no-untyped-def]
    import numpy as np

    from memscribe.store.sqlite.vector_cache import ScopeMatrix

    rng = np.random.default_rng(8)
    mat = rng.standard_normal((n, 384)).astype(np.float32)
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    sm = ScopeMatrix(seq=41, dim=0, pca_min=1000, shortlist=100)
    sm.apply(
        [(10 * i + 1, f"mem_{i}", "archived" if i % 7 == 0 else "active", mat[i].tobytes()) for i in range(n)]
    )
    assert sm._mat.dtype.name == "float16" and sm._basis is not None
    return sm, mat


def test_a_float16_matrix_round_trips_through_the_sidecar(tmp_path):
    import numpy as np

    db = tmp_path / "m.db"
    sm, mat = _projected_matrix()
    token = vector_sidecar.save(db, "u1", sm)
    back = vector_sidecar.load(db, "u1", token=token, dim=384)
    assert back is not None and back.n == sm.n and back.seq == 41
    assert back._mat.dtype.name == "float16"
    assert np.array_equal(back._mat[: sm.n], sm._mat[: sm.n])  # bit for bit: the file holds float16 too
    assert np.array_equal(back._proj[: sm.n], sm._proj[: sm.n]) and np.array_equal(back._basis, sm._basis)
    for i in range(1, sm.n, 150):
        for statuses in (("active",), ("active", "archived")):
            # k leaves no room for a shortlist: every row scored (BLAS may round the last bit differently
            # on arrays at other addresses, so scores are compared to 1e-6, not bit for bit)
            full, ref = back.search(mat[i], sm.n, statuses), sm.search(mat[i], sm.n, statuses)
            assert [m for m, _ in full] == [m for m, _ in ref]
            assert [s for _, s in full] == pytest.approx([s for _, s in ref], abs=1e-6)
            assert (back.search(mat[i], 5, statuses)[0][0] == f"mem_{i}") == (i % 7 != 0 or len(statuses) > 1)
    # the loaded matrix keeps following writes: a row rewritten by its key, and a new one
    back.apply([(11, "mem_1", "archived", mat[1].tobytes()), (99_999, "mem_new", "active", mat[1].tobytes())])
    assert back.n == sm.n + 1 and back.row_of(11) == 1
    assert back.search(mat[1], 1, ("active",))[0][0] == "mem_new"


def test_an_older_format_or_another_layout_is_never_read(tmp_path, monkeypatch):
    """A FORMAT 1 snapshot (float32 vectors, unicode ids) is ignored and the scope rebuilt; a file that
    claims this format but holds arrays of another dtype is refused, never reinterpreted."""
    import numpy as np

    db = tmp_path / "m.db"
    sm, _ = _projected_matrix()
    monkeypatch.setattr(vector_sidecar, "FORMAT", 1)
    token = vector_sidecar.save(db, "u1", sm)
    monkeypatch.setattr(vector_sidecar, "FORMAT", 2)
    assert vector_sidecar.load(db, "u1", token=token, dim=384) is None
    assert vector_sidecar.load(db, "u1", token=vector_sidecar.save(db, "u1", sm), dim=384) is not None
    wide = sm._mat
    sm._mat = wide.astype(np.float32)  # the old layout's float32 vectors under the new header
    assert vector_sidecar.load(db, "u1", token=vector_sidecar.save(db, "u1", sm), dim=384) is None
    sm._mat = wide
    sm._ids = np.array([sm.id_at(i) for i in range(sm.n)], dtype=np.str_)  # unicode ids, as FORMAT 1 wrote
    assert vector_sidecar.load(db, "u1", token=vector_sidecar.save(db, "u1", sm), dim=384) is None


def test_a_store_with_an_old_format_snapshot_rebuilds_from_sql(tmp_path, monkeypatch):
    db = tmp_path / "m.db"
    monkeypatch.setattr(vector_sidecar, "FORMAT", 1)
    a = _store(db)
    _fill(a)
    _search_ids(a, 3)
    a.close()  # saved as FORMAT 1, and recorded
    monkeypatch.setattr(vector_sidecar, "FORMAT", 2)
    b = _store(db)
    assert _search_ids(b, 3) == _sql_scan(b, unit_vector(3))
    assert b._vectors.unsaved["u1"] == N  # every row read from SQL: the old snapshot was not used
    b.close()
    c = _store(db)
    assert _search_ids(c, 3)[0] == "m3"
    assert c._vectors.unsaved["u1"] == 0  # the rebuilt matrix was saved in the current format
    c.close()
