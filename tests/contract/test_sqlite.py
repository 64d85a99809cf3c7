import pytest

from memscribe.store.sqlite import SQLiteStore
from memscribe.testing.store_contract import StoreContractTests, make_record, unit_vector


class TestSQLiteStore(StoreContractTests):
    @pytest.fixture
    def store(self, tmp_path):
        s = SQLiteStore(tmp_path / "m.db")
        yield s
        s.close()


def test_forget_leaves_no_bytes_in_the_files(tmp_path):
    """After forget + checkpoint, no byte of the forgotten text remains in the database or WAL."""
    s = SQLiteStore(tmp_path / "m.db")
    secret_text = "Zanzibar-Quokka-Marmalade plan 7781"
    for i in range(30):
        rec = make_record(
            f"a{i}",
            user="alice",
            text=f"{secret_text} number {i}",
            raw=secret_text,
            entities=["Zanzibar-Quokka-Marmalade"],
        )
        with s.atomic():
            s.put_memory(rec, vector=unit_vector(i), keyword_text=rec.text)
            s.add_version(rec, reason="add", actor="t", at=rec.created_at)
    keep = make_record("b1", user="bob", text="bob keeps a harmless note")
    with s.atomic():
        s.put_memory(keep, vector=unit_vector(99), keyword_text=keep.text)
    s.forget_user("alice")
    s.close()
    for p in tmp_path.iterdir():
        data = p.read_bytes()
        for needle in (b"Zanzibar", b"zanzibar", b"Quokka", b"quokka", b"Marmalade", b"marmalade"):
            assert needle not in data, f"{needle!r} left in {p.name}"
    s2 = SQLiteStore(tmp_path / "m.db")
    assert s2.get_memory("b1") is not None
    assert s2.integrity_check() == "ok"
    s2.close()


def test_reopen_keeps_data_and_schema_version(tmp_path):
    s = SQLiteStore(tmp_path / "m.db")
    rec = make_record("m1")
    with s.atomic():
        s.put_memory(rec, vector=unit_vector(1), keyword_text=rec.text)
    s.close()
    s2 = SQLiteStore(tmp_path / "m.db")
    assert s2.get_memory("m1").model_dump() == rec.model_dump()
    s2.close()


def test_a_restart_requeues_running_jobs_but_never_failed_ones(tmp_path):
    from datetime import timedelta

    from memscribe.testing.store_contract import T0

    s = SQLiteStore(tmp_path / "m.db")
    ok = s.enqueue("verify", {"memory_id": "m1", "user_id": "u1"})
    poison = s.enqueue("deferred_add", {"user_id": "u1", "sealed": "%%%"})
    assert [j.attempts for j in s.claim_jobs(limit=5, now=T0)] == [1, 1]
    s.fail_job(poison, "binascii.Error: Incorrect padding", retry_at=None)
    s.close()  # the process dies with `ok` running
    again = SQLiteStore(tmp_path / "m.db")
    assert again.requeue_running() == 1
    [job] = again.claim_jobs(limit=5, now=T0 + timedelta(days=1))
    assert (job.id, job.attempts) == (ok, 2)
    assert [(j.id, j.error) for j in again.failed_jobs()] == [(poison, "binascii.Error: Incorrect padding")]
    assert again.job_counts() == {"pending": 0, "running": 1, "failed": 1}
    again.close()


def test_newer_schema_is_refused(tmp_path):
    from memscribe.errors import MigrationError

    s = SQLiteStore(tmp_path / "m.db")
    s._exec("INSERT INTO schema_migrations VALUES (999, 'future', 'x')")
    s.close()
    with pytest.raises(MigrationError):
        SQLiteStore(tmp_path / "m.db")


def test_vector_cache_matches_the_sql_scan_and_follows_other_connections(tmp_path):
    """Large scopes are searched from an in-process matrix; it must return exactly what SQL returns,
    including after status changes and writes made through another connection (another process)."""
    from memscribe.models import Status

    a = SQLiteStore(tmp_path / "m.db")
    b = SQLiteStore(tmp_path / "m.db")
    a._vectors.min_size = 10
    for i in range(40):
        rec = make_record(f"m{i}", text=f"memory {i}")
        with b.atomic():
            b.put_memory(rec, vector=unit_vector(i), keyword_text=rec.text)

    def sql_scan(q, k, statuses=("active",)):
        a._vectors.min_size = 10**9
        a._vectors.drop("u1")
        try:
            return a.vector_search("u1", q, k=k, statuses=statuses)
        finally:
            a._vectors.min_size = 10

    q = unit_vector(7)
    cached = a.vector_search("u1", q, k=5)
    assert "u1" in a._vectors._scopes
    assert [i for i, _ in cached] == [i for i, _ in sql_scan(q, 5)]
    assert cached[0][0] == "m7"
    # another connection archives m7 and adds m40 close to the query
    with b.atomic():
        b.put_memory(make_record("m7", text="memory 7", status=Status.archived))
        b.put_memory(make_record("m40", text="memory 40"), vector=unit_vector(7), keyword_text="memory 40")
    a._vectors.min_size = 10
    after = a.vector_search("u1", q, k=5)
    assert after[0][0] == "m40"
    assert "m7" not in [i for i, _ in after]
    assert [i for i, _ in after] == [i for i, _ in sql_scan(q, 5)]
    assert a.vector_search("u1", q, k=3, statuses=("active", "archived"))[0][1] == pytest.approx(
        1.0, abs=1e-5
    )
    b.forget_user("u1")
    assert a.vector_search("u1", q, k=5) == []
    a.close()
    b.close()


def test_large_scope_projection_shortlist_matches_exact_search():
    """Past pca_min vectors a low-rank first pass shortlists candidates that are scored exactly: the
    top hits must be those of the exact scan, statuses respected."""
    import numpy as np

    from memscribe.store.sqlite.vector_cache import ScopeMatrix

    rng = np.random.default_rng(1)
    centers = rng.standard_normal((300, 384)).astype(np.float32)
    mat = centers[rng.integers(0, 300, 6000)] + 0.3 * rng.standard_normal((6000, 384)).astype(np.float32)
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    sm = ScopeMatrix(seq=0, dim=0, pca_min=5000, rank=96, shortlist=400)
    statuses = ["archived" if i % 10 == 0 else "active" for i in range(6000)]
    sm.apply([(i, f"m{i}", statuses[i], mat[i].tobytes()) for i in range(6000)])
    assert sm._basis is not None
    hits = 0
    for q in mat[rng.integers(0, 6000, 40)] + 0.1 * rng.standard_normal((40, 384)).astype(np.float32):
        q /= np.linalg.norm(q)
        sims = np.where(np.array([s == "active" for s in statuses]), mat @ q, -np.inf)
        exact = set(np.argsort(-sims)[:10].tolist())
        got = sm.search(q, 10, ("active",))
        assert all(statuses[int(i[1:])] == "active" for i, _ in got)
        hits += len(exact & {int(i[1:]) for i, _ in got})
    assert hits / 400 >= 0.97
