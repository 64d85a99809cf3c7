"""The Store contract on PostgreSQL + pgvector (a real server: MEMSCRIBE_TEST_PG_DSN, set by
.ci/setup-postgres.sh), plus what only this engine has: filtered HNSW recall, the shared job queue,
schema migrations and selection by URL."""

from __future__ import annotations

import os
import uuid
from datetime import timedelta

import numpy as np
import pytest

from memscribe.testing.store_contract import T0, StoreContractTests, make_record, unit_vector

DSN = os.environ.get("MEMSCRIBE_TEST_PG_DSN")
pytestmark = pytest.mark.skipif(
    not DSN, reason="MEMSCRIBE_TEST_PG_DSN is not set: no PostgreSQL server (see .ci/setup-postgres.sh)"
)


def _drop(schema: str) -> None:
    import psycopg

    with psycopg.connect(DSN, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def pg_schema():
    schema = "t_" + uuid.uuid4().hex[:12]
    yield schema
    _drop(schema)


def _open(schema: str, **kw):  # type: ignore[no-untyped-def]
    from memscribe.store.postgres import PostgresStore

    return PostgresStore(DSN, schema=schema, **kw)


class TestPostgresStore(StoreContractTests):
    @pytest.fixture
    def store(self, pg_schema):
        s = _open(pg_schema)
        yield s
        s.close()


def test_filtered_hnsw_recall_matches_exact_search(pg_schema):
    """A large scope is searched through the HNSW index with iterative scans and a status filter that
    drops 1 in 5 rows, beside another user of the same size: recall@10 against the exact scan >= 0.9,
    and never a row of another scope or status."""
    s = _open(pg_schema)
    rng = np.random.default_rng(3)
    dim = 384
    centers = rng.standard_normal((40, dim)).astype(np.float32)
    n = 1000
    with s.atomic():
        for user in ("big", "other"):
            mat = centers[rng.integers(0, 40, n)] + 0.5 * rng.standard_normal((n, dim)).astype(np.float32)
            mat /= np.linalg.norm(mat, axis=1, keepdims=True)
            for i in range(n):
                status = "archived" if i % 5 == 0 else "active"
                rec = make_record(f"{user}{i}", user=user, text=f"note {i}", status=status, links=[])
                s.put_memory(rec, vector=mat[i])
    s.exact_max_scope = 200  # "big" (1000 vectors) now goes through the index
    assert s.scope_size("big", cap=200) == 201
    plan = "\n".join(line for line, _ in s._ann_search("big", unit_vector(1), 10, ("active",), explain=True))
    assert "memory_vectors_hnsw" in plan  # the index path really is an index scan
    recall = []
    for j in range(20):
        q = centers[j] + 0.3 * rng.standard_normal(dim).astype(np.float32)
        q /= np.linalg.norm(q)
        ann = s._ann_search("big", q, 10, ("active",))
        exact = s._exact_search("big", q, 10, ("active",))
        assert len(ann) == 10
        assert all(i.startswith("big") and int(i[3:]) % 5 != 0 for i, _ in ann)
        assert [sc for _, sc in ann] == sorted((sc for _, sc in ann), reverse=True)
        recall.append(len({i for i, _ in ann} & {i for i, _ in exact}) / 10)
        assert s.vector_search("big", q, k=10)[0][0] == exact[0][0] or recall[-1] >= 0.9
    assert sum(recall) / len(recall) >= 0.9
    # a selective filter (a status few rows have) still gets k results: the index scan keeps going, or
    # the exact scan takes over when it comes back short
    q = unit_vector(5)
    # 1 row in 10 of the table passes this filter: ef_search (64) candidates alone would come back
    # short; pgvector's iterative scan keeps walking the graph until 10 rows pass
    assert len(s._ann_search("big", q, 10, ("archived",))) == 10
    got = s.vector_search("big", q, k=10, statuses=("archived",))
    want = s._exact_search("big", q, 10, ("archived",))
    assert len(got) == 10 and len({i for i, _ in got} & {i for i, _ in want}) >= 9
    s.close()


def test_job_queue_is_shared_by_workers_skip_locked(pg_schema):
    """Two stores (two workers) claim from one queue at once: every job handed out exactly once; a
    restarted worker requeues only jobs whose owner is gone."""
    import threading

    a, b = _open(pg_schema), _open(pg_schema)
    ids = [a.enqueue("verify", {"memory_id": f"m{i}", "user_id": "u1"}) for i in range(60)]
    claimed: dict[str, list[int]] = {"a": [], "b": []}
    now = T0 + timedelta(days=1)

    def drain(name, st):  # type: ignore[no-untyped-def]
        while jobs := st.claim_jobs(limit=3, now=now):
            claimed[name] += [j.id for j in jobs]

    threads = [threading.Thread(target=drain, args=(n, st)) for n, st in (("a", a), ("b", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed["a"] + claimed["b"]) == ids
    assert claimed["a"] and claimed["b"]
    assert a.requeue_running() == 0  # both owners are alive: nothing is taken from them
    poison = claimed["b"][0]
    b.fail_job(poison, "unreadable sealed payload", retry_at=None)  # out of retries before b dies
    b.close()  # b "dies" with its other jobs running
    c = _open(pg_schema)
    assert c.requeue_running() == len(claimed["b"]) - 1
    assert sorted(j.id for j in c.claim_jobs(limit=100, now=now)) == sorted(claimed["b"][1:])
    assert [(j.id, j.status, j.error) for j in c.failed_jobs(10)] == [
        (poison, "failed", "unreadable sealed payload")
    ]
    assert c.job_counts() == {"pending": 0, "running": len(ids) - 1, "failed": 1}
    a.close()
    c.close()


def test_migration_2_backfills_slot_keys_on_a_version_1_store(pg_schema):
    """A store at schema version 1 (no slot keys) gains them on open, taken from each record's
    structured JSON, and keeps every row."""
    import psycopg

    from memscribe.store.postgres.migrations import LATEST

    s = _open(pg_schema)
    recs = [
        make_record("home", text="lives in Denver", structured={"subject": "the user", "slot": "residence"}),
        make_record("zh", structured={"subject": "用户", "slot": "居住地"}),
        make_record("noslot", structured={"subject": "用户"}),
        make_record("odd", structured={"subject": ["x"], "slot": 3}),
    ]
    for i, rec in enumerate(recs):
        with s.atomic():
            s.put_memory(rec, vector=unit_vector(i), keyword_text=rec.text)
            s.add_version(rec, reason="add", actor="test", at=T0)
    s.close()
    cols = "pk, id, user_id, status, text, structured::text, time_start_ts, created_ts, version"
    with psycopg.connect(DSN, autocommit=True, options=f"-c search_path={pg_schema}") as conn:
        conn.execute("DROP INDEX memories_slot")
        conn.execute("DROP INDEX memories_origin")
        conn.execute(
            "ALTER TABLE memories DROP COLUMN subject_key, DROP COLUMN slot_key, DROP COLUMN origin_message"
        )
        conn.execute("DELETE FROM schema_migrations WHERE version >= 2")
        before = conn.execute(f"SELECT {cols} FROM memories ORDER BY pk").fetchall()
        versions = conn.execute("SELECT count(*) FROM versions").fetchone()
    s = _open(pg_schema)
    assert s.schema_version() == LATEST
    assert [r.id for r in s.memories_in_slot("u1", "the user", "residence")] == ["home"]
    assert [r.id for r in s.memories_in_slot("u1", "用户", "居住地")] == ["zh"]
    assert s.all_secrets() == [] and len(s.versions("home")) == 1
    assert s.keyword_search("u1", ["denver"], k=3)[0][0] == "home"
    assert s.get_memory("home").model_dump() == recs[0].model_dump()
    got = s._all(f"SELECT {cols} FROM memories ORDER BY pk")
    assert got == before and s._one("SELECT count(*) FROM versions") == versions
    keys = s._all("SELECT id, subject_key, slot_key, origin_message FROM memories ORDER BY pk")
    assert keys == [  # migration 3 took each record's origin from its first source
        ("home", "the user", "residence", "m-1"),
        ("zh", "用户", "居住地", "m-1"),
        ("noslot", "用户", None, "m-1"),
        ("odd", None, None, "m-1"),
    ]
    assert [r.id for r in s.memories_from_messages("u1", ["m-1"])] == ["home", "zh", "noslot", "odd"]
    s.close()


def test_schema_version_recorded_and_newer_refused(pg_schema):
    from memscribe.errors import MigrationError
    from memscribe.store.postgres.migrations import LATEST

    s = _open(pg_schema)
    assert s.schema_version() == LATEST
    s._all("INSERT INTO schema_migrations VALUES (999, 'future', 'x')")
    s.close()
    with pytest.raises(MigrationError):
        _open(pg_schema)


def test_opened_by_url_and_sqlite_only_operations_are_typed_errors(pg_schema, tmp_path):
    from memscribe.config import Settings
    from memscribe.errors import StoreError
    from memscribe.store import open_store
    from memscribe.store.postgres import PostgresStore

    s = open_store(Settings(store=f"{DSN}?schema={pg_schema}"))
    assert isinstance(s, PostgresStore) and s.schema == pg_schema
    with pytest.raises(StoreError, match="pg_dump"):
        s.backup_to(tmp_path / "b.db")
    assert s.integrity_check() == "ok"
    s.close()
    with pytest.raises(StoreError):
        PostgresStore("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")


def test_memory_end_to_end_on_postgres(pg_schema, tmp_path, monkeypatch):
    """Memory(store=URL) on PostgreSQL: zh + en updates supersede the old fact, search and context find
    the new one, history and explicit update work, the verification queue drains, and the
    environment variable selects the same store."""
    from memscribe import Memory
    from memscribe.store.postgres import PostgresStore

    url = f"{DSN}?schema={pg_schema}"
    mem = Memory(home=tmp_path / "home", store=url)
    assert isinstance(mem._store, PostgresStore)
    mem.add("我订了7月10号去成都的机票，早上八点的航班。", user_id="zh", at="2026-07-01T09:00:00+08:00")
    mem.add("去成都的航班改签到7月12号了。", user_id="zh", at="2026-07-03T20:00:00+08:00")
    mem.add("I live in Boston with my partner.", user_id="en", at="2026-01-05T10:00:00+00:00")
    mem.add("We moved to Denver last week!", user_id="en", at="2026-03-05T10:00:00+00:00")
    mem.flush()
    assert mem.stats()["queue_depth"] == 0

    zh_hits = mem.search("我哪天去成都？", user_id="zh", limit=3)
    assert zh_hits and "7月12" in zh_hits[0].memory.text + zh_hits[0].memory.raw
    en_hits = mem.search("Which city do I live in?", user_id="en", limit=3)
    assert en_hits and "Denver" in en_hits[0].memory.text
    assert all(h.memory.user_id == "en" for h in en_hits)
    old = [r for r in mem.list(user_id="en", status="all") if "Boston" in r.text]
    assert old and old[0].status.value == "superseded" and old[0].superseded_by
    ctx = mem.context("Where do I live now?", user_id="en", budget_tokens=200)
    assert "Denver" in ctx.text and ctx.tokens <= 200

    new = en_hits[0].memory
    mem.update(new.id, text="The user lives in Denver, Colorado.", reason="user added the state")
    assert "Colorado" in mem.get(new.id).text
    assert mem.history(new.id)[-1].record.text == "The user lives in Denver, Colorado."
    assert mem.search("Colorado", user_id="en")[0].memory.id == new.id  # the keyword index followed
    mem.close()

    monkeypatch.setenv("MEMSCRIBE_STORE", url)
    again = Memory(home=tmp_path / "home")
    assert isinstance(again._store, PostgresStore)
    assert again.get(new.id).text == "The user lives in Denver, Colorado."
    assert again.forget(user_id="en") >= 2 and again.list(user_id="en", status="all") == []
    again.close()


def test_cli_copy_moves_a_sqlite_store_and_refuses_a_non_empty_target(pg_schema, tmp_path):
    from typer.testing import CliRunner

    from memscribe import Memory
    from memscribe.interfaces.cli import app
    from memscribe.store.postgres import PostgresStore
    from memscribe.store.sqlite import SQLiteStore

    home = tmp_path / "home"
    mem = Memory(home=home)
    mem.add(
        "我订了7月10号去成都的机票，早上八点的航班。",
        user_id="u1",
        session_id="s1",
        at="2026-07-01T09:00:00+08:00",
    )
    mem.add("去成都的航班改签到7月12号了。", user_id="u1", session_id="s1", at="2026-07-03T20:00:00+08:00")
    mem.add("Ship my order to 1600 Amphitheatre Parkway, Mountain View, CA 94043.", user_id="u2")
    mem.add("ok thanks", user_id="u2")
    mem.working(user_id="u1", task_id="trip").set("seat", "aisle")
    mem.close()
    # a job still pending when the store is copied (queued with no worker running: one queued through the open
    # Memory could be run by its background worker before close, and then there is nothing pending to copy)
    from memscribe.store.sqlite import SQLiteStore as _Queue

    queue = _Queue(home / "memscribe.db")
    queue.enqueue("verify", {"memory_id": "nope", "user_id": "u1"})
    queue.close()
    url = f"{DSN}?schema={pg_schema}"
    runner = CliRunner()
    res = runner.invoke(app, ["copy", "--from", str(home), "--to", url])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["migrate", "--store", url])
    assert res.exit_code == 0 and "schema version" in res.output

    src, dst = SQLiteStore(home / "memscribe.db"), PostgresStore(url)
    for user in ("u1", "u2"):
        a, b = src.list_memories(user, statuses=None), dst.list_memories(user, statuses=None)
        assert [r.model_dump() for r in a] == [r.model_dump() for r in b] and a
        for r in a:
            assert [v.model_dump() for v in src.versions(r.id)] == [
                v.model_dump() for v in dst.versions(r.id)
            ]
        ids = [r.id for r in a]
        va, vb = src.get_vectors(ids), dst.get_vectors(ids)
        assert va.keys() == vb.keys() and all(np.allclose(va[i], vb[i]) for i in va)
        assert [e.model_dump(exclude={"id"}) for e in src.audit_for(user_id=user)] == [
            e.model_dump(exclude={"id"}) for e in dst.audit_for(user_id=user)
        ]
        assert src.counters(user) == dst.counters(user)
        assert src.working_items(user) == dst.working_items(user)
        q = src.get_vectors([a[-1].id])[a[-1].id]
        assert [i for i, _ in dst.vector_search(user, q, k=3)] == [
            i for i, _ in src.vector_search(user, q, k=3)
        ]
    assert src.session_messages("s1") == dst.session_messages("s1") and src.get_session(
        "s1"
    ) == dst.get_session("s1")
    assert src.all_secrets() == dst.all_secrets() and dst.all_secrets()
    assert dst.pending_jobs() == src.pending_jobs() >= 1
    assert dst.keyword_search("u1", ["成都"], k=5)
    assert dst.enqueue("verify", {"user_id": "u1"}) > src._exec("SELECT max(id) FROM jobs")[0][0]  # ids go on
    src.close()
    dst.close()
    # the copied store works through Memory (same home: same vault key), and a second copy is refused
    mem = Memory(home=home, store=url)
    assert "7月12" in mem.search("我哪天去成都？", user_id="u1", limit=1)[0].memory.raw
    assert any("[" in r.text for r in mem.list(user_id="u2"))  # the address sits in the vault
    mem.close()
    res = runner.invoke(app, ["copy", "--from", str(home), "--to", url])
    assert res.exit_code == 2 and "not empty" in res.output


def test_a_bulk_load_is_vacuumed_and_analysed_and_statements_plan_for_their_values(pg_schema):
    """Right after a bulk load the rows have no hint or visibility bits and the planner's statistics predate
    them, and psycopg prepares a statement after five runs, on which the server may keep a generic plan made
    from those statistics (a 100k vector search: 30 ms against 2 ms). A load that commits on its own is
    vacuumed and analysed; one inside a caller's transaction cannot be (VACUUM needs its own) and is left to
    autovacuum; every pooled connection plans each statement for its values."""
    import psycopg

    s = _open(pg_schema)

    def stats() -> dict[str, tuple[object, object]]:
        with psycopg.connect(DSN, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT relname, last_vacuum, last_analyze FROM pg_stat_user_tables WHERE schemaname = %s "
                "AND relname IN ('memories', 'memory_vectors', 'memory_terms')",
                (pg_schema,),
            ).fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    batch = [
        (make_record(f"n{i}", user="big", text=f"nested note {i}", links=[]), unit_vector(i), f"nested {i}")
        for i in range(1200)
    ]
    with s.atomic(), s.bulk_load(len(batch)):
        s.put_memories(batch)
    assert all(v == (None, None) for v in stats().values())  # inside the caller's transaction: not vacuumed
    batch = [
        (
            make_record(f"b{i}", user="big", text=f"bulk note {i}", links=[]),
            unit_vector(5000 + i),
            f"bulk {i}",
        )
        for i in range(1500)
    ]
    with s.bulk_load(len(batch)):
        s.put_memories(batch)
    after = stats()
    assert set(after) == {"memories", "memory_vectors", "memory_terms"}
    assert all(vac is not None and ana is not None for vac, ana in after.values())
    assert s.scope_size("big", cap=5000) == 2700
    with s._pool.connection() as conn:
        assert conn.execute("SHOW plan_cache_mode").fetchone()[0] == "force_custom_plan"
    s.close()


def test_a_missing_vector_index_comes_back(pg_schema):
    """An HNSW index that went missing (dropped by hand, say) made every search of a large scope an exact
    scan of all vectors, for good: neither opening the store nor a bulk load built it again."""
    import psycopg

    def has_index() -> bool:
        with psycopg.connect(DSN, autocommit=True) as conn:
            return bool(
                conn.execute(
                    "SELECT 1 FROM pg_indexes WHERE schemaname = %s AND indexname = 'memory_vectors_hnsw'",
                    (pg_schema,),
                ).fetchone()
            )

    def drop_index() -> None:
        with psycopg.connect(DSN, autocommit=True) as conn:
            conn.execute(f'DROP INDEX "{pg_schema}".memory_vectors_hnsw')

    s = _open(pg_schema)
    s.put_memory(make_record("m0", user="u", links=[]), vector=unit_vector(0))
    assert has_index()
    drop_index()
    batch = [(make_record(f"b{i}", user="u", links=[]), unit_vector(i + 1), f"note {i}") for i in range(30)]
    with s.bulk_load(len(batch)):
        s.put_memories(batch)
    assert has_index()  # the load builds it at its end
    s.close()
    drop_index()
    s = _open(pg_schema)
    s.check_embedder("test-embedder", 384)  # what Memory() does on opening a store: the index is back
    assert has_index()
    assert s.vector_search("u", unit_vector(3), k=1)[0][0] == "b2"
    s.close()
