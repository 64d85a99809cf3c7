"""The Store contract as a reusable pytest mixin. An engine's test module subclasses
``StoreContractTests`` and provides one fixture, ``store``, returning a fresh, empty store.

    class TestSQLiteStore(StoreContractTests):
        @pytest.fixture
        def store(self, tmp_path):
            return SQLiteStore(tmp_path / "m.db")
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memscribe.models import AuditEvent, Kind, Layer, Link, MemoryRecord, Source, Status

__all__ = ["StoreContractTests", "make_record", "unit_vector"]

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


def unit_vector(seed: int, dim: int = 384) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def make_record(mid: str, user: str = "u1", text: str = "用户不吃香菜", **kw) -> MemoryRecord:  # type: ignore[no-untyped-def]
    base = dict(
        id=mid,
        user_id=user,
        agent_id="agent-7",
        session_id="s1",
        layer=Layer.semantic,
        kind=Kind.preference,
        text=text,
        raw="我不吃香菜",
        structured={"subject": "用户", "negated": True, "nested": {"a": [1, 2, {"b": None}]}},
        entities=["香菜"],
        time_start=datetime(2026, 6, 17, 15, 0, tzinfo=timezone_plus8()),
        time_end=datetime(2026, 6, 17, 16, 0, tzinfo=timezone_plus8()),
        importance=0.8,
        timeliness=0.3,
        confidence=0.9,
        status=Status.active,
        superseded_by=None,
        links=[Link(type="related", target="mem_other")],
        sources=[Source(message_id="m-1", session_id="s1", role="user", name="Ann", at=T0)],
        metadata={"channel": "app", "n": 3},
        created_at=T0,
        updated_at=T0,
        last_accessed_at=None,
        access_count=0,
        expire_at=T0 + timedelta(days=30),
        version=1,
    )
    base.update(kw)
    return MemoryRecord(**base)


def timezone_plus8():  # type: ignore[no-untyped-def]
    from datetime import timezone

    return timezone(timedelta(hours=8))


class StoreContractTests:
    """Behaviour every Store must have. Subclasses provide the ``store`` fixture."""

    def _put(self, store, rec: MemoryRecord, seed: int = 1, terms: str | None = None) -> None:  # type: ignore[no-untyped-def]
        with store.atomic():
            store.put_memory(rec, vector=unit_vector(seed), keyword_text=terms or rec.text)
            store.add_version(rec, reason="add", actor="test", at=T0)

    def test_round_trip_every_field(self, store) -> None:  # type: ignore[no-untyped-def]
        rec = make_record("m1")
        self._put(store, rec)
        got = store.get_memory("m1")
        assert got is not None
        assert got.model_dump() == rec.model_dump()
        assert got.time_start.utcoffset() == timedelta(hours=8)  # the message's local time survives

    def test_missing_memory_is_none(self, store) -> None:  # type: ignore[no-untyped-def]
        assert store.get_memory("nope") is None
        assert store.get_memories(["nope"]) == {}

    def test_scope_isolation(self, store) -> None:  # type: ignore[no-untyped-def]
        self._put(store, make_record("a1", user="alice", text="alice likes green tea"), seed=1)
        self._put(store, make_record("b1", user="bob", text="bob likes green tea"), seed=1)
        assert [r.id for r in store.list_memories("alice")] == ["a1"]
        assert [i for i, _ in store.vector_search("alice", unit_vector(1), k=10)] == ["a1"]
        assert [i for i, _ in store.keyword_search("alice", ["green", "tea"], k=10)] == ["a1"]
        assert [i for i, _ in store.keyword_search("bob", ["alice"], k=10)] == []

    def test_vector_search_orders_by_similarity(self, store) -> None:  # type: ignore[no-untyped-def]
        for i in range(5):
            self._put(store, make_record(f"m{i}", text=f"memory {i}"), seed=i)
        hits = store.vector_search("u1", unit_vector(3), k=3)
        assert hits[0][0] == "m3"
        assert hits[0][1] == pytest.approx(1.0, abs=1e-5)
        assert len(hits) == 3
        assert hits[0][1] >= hits[1][1] >= hits[2][1]

    def test_status_filter_in_search(self, store) -> None:  # type: ignore[no-untyped-def]
        self._put(store, make_record("m1", text="flight NH110 to Tokyo", status=Status.archived), seed=1)
        assert store.vector_search("u1", unit_vector(1), k=5) == []
        assert store.keyword_search("u1", ["nh110"], k=5) == []
        assert [
            i for i, _ in store.keyword_search("u1", ["nh110"], k=5, statuses=("active", "archived"))
        ] == ["m1"]

    def test_keyword_search_exact_ids_and_hostile_terms(self, store) -> None:  # type: ignore[no-untyped-def]
        self._put(store, make_record("m1", text="order A12345 arrived damaged"), seed=1)
        self._put(store, make_record("m2", text="order B99999 arrived fine"), seed=2)
        assert store.keyword_search("u1", ["a12345"], k=5)[0][0] == "m1"
        for hostile in ['"', "*", "NEAR(", "OR", "AND NOT", "a12345*", "'); DROP TABLE memories; --", "^x"]:
            store.keyword_search("u1", [hostile], k=5)  # never an FTS5 syntax error
        assert store.get_memory("m1") is not None

    def test_versions_and_rollback_data(self, store) -> None:  # type: ignore[no-untyped-def]
        rec = make_record("m1")
        self._put(store, rec)
        v2 = rec.model_copy(update={"text": "用户现在吃香菜了", "version": 2, "entities": ["香菜", "新"]})
        with store.atomic():
            store.put_memory(v2, vector=unit_vector(2), keyword_text=v2.text)
            store.add_version(v2, reason="edit", actor="test", at=T0)
        versions = store.versions("m1")
        assert [v.version for v in versions] == [1, 2]
        assert versions[0].record.model_dump() == rec.model_dump()  # v1 restorable exactly
        assert versions[1].record.text == "用户现在吃香菜了"

    def test_atomicity_exception_leaves_nothing(self, store) -> None:  # type: ignore[no-untyped-def]
        rec = make_record("m1", text="zebra crossing memory")
        with pytest.raises(RuntimeError), store.atomic():
            store.put_memory(rec, vector=unit_vector(1), keyword_text=rec.text)
            store.add_version(rec, reason="add", actor="test", at=T0)
            store.add_audit(
                [AuditEvent(ts=T0, user_id="u1", memory_id="m1", stage="t", action="a", reason="r")]
            )
            raise RuntimeError("crash mid-write")
        assert store.get_memory("m1") is None
        assert store.vector_search("u1", unit_vector(1), k=5) == []
        assert store.keyword_search("u1", ["zebra"], k=5) == []
        assert store.versions("m1") == []
        assert store.audit_for(memory_id="m1") == []

    def test_soft_delete_keeps_history(self, store) -> None:  # type: ignore[no-untyped-def]
        rec = make_record("m1")
        self._put(store, rec)
        gone = rec.model_copy(update={"status": Status.deleted, "version": 2})
        with store.atomic():
            store.put_memory(gone)
            store.add_version(gone, reason="delete", actor="test", at=T0)
        assert store.list_memories("u1") == []
        assert [r.id for r in store.list_memories("u1", statuses=None)] == ["m1"]
        assert len(store.versions("m1")) == 2

    def test_forget_erases_everything_of_one_user(self, store) -> None:  # type: ignore[no-untyped-def]
        self._put(store, make_record("a1", user="alice", text="alice secret plan zanzibar"), seed=1)
        self._put(store, make_record("b1", user="bob", text="bob keeps this"), seed=2)
        store.add_audit(
            [AuditEvent(ts=T0, user_id="alice", memory_id="a1", stage="t", action="a", reason="zanzibar")]
        )
        store.append_session_messages(
            "sa", "alice", [{"role": "user", "content": "zanzibar trip", "message_id": "x"}]
        )
        store.put_working("alice", "t1", "k", "zanzibar", kind="note", expire_at=None)
        assert store.forget_user("alice") == 1
        assert store.get_memory("a1") is None
        assert store.versions("a1") == []
        assert store.audit_for(user_id="alice") == []
        assert store.session_messages("sa") == []
        assert store.working_items("alice") == []
        assert store.keyword_search("alice", ["zanzibar"], k=5) == []
        assert store.get_memory("b1") is not None

    def test_touch_updates_access_stats(self, store) -> None:  # type: ignore[no-untyped-def]
        self._put(store, make_record("m1"))
        store.touch(["m1"], T0 + timedelta(days=1))
        store.touch(["m1"], T0 + timedelta(days=2))
        got = store.get_memory("m1")
        assert got.access_count == 2
        assert got.last_accessed_at == T0 + timedelta(days=2)

    def test_time_range_search(self, store) -> None:  # type: ignore[no-untyped-def]
        self._put(store, make_record("m1"), seed=1)  # 2026-06-17 15:00+08:00
        assert store.time_range_search(
            "u1", datetime(2026, 6, 15, tzinfo=UTC), datetime(2026, 6, 21, tzinfo=UTC), k=5
        ) == ["m1"]
        assert (
            store.time_range_search(
                "u1", datetime(2026, 7, 1, tzinfo=UTC), datetime(2026, 7, 5, tzinfo=UTC), k=5
            )
            == []
        )

    def test_job_queue_is_durable_and_exactly_once(self, store) -> None:  # type: ignore[no-untyped-def]
        ids = [store.enqueue("verify", {"memory_id": f"m{i}", "user_id": "u1"}) for i in range(3)]
        jobs = store.claim_jobs(limit=2, now=T0 + timedelta(days=1))
        assert [j["id"] for j in jobs] == ids[:2]
        assert (
            store.claim_jobs(limit=5, now=T0 + timedelta(days=1))[0]["id"] == ids[2]
        )  # claimed ones are not handed out twice
        store.finish_job(ids[0])
        assert store.pending_jobs() == 2
        store.fail_job(ids[1], "boom", retry_at=None)
        assert store.pending_jobs() == 1

    def test_sessions_and_working_items(self, store) -> None:  # type: ignore[no-untyped-def]
        store.append_session_messages(
            "s1", "u1", [{"role": "user", "content": f"turn {i}"} for i in range(5)]
        )
        assert [m["content"] for m in store.session_messages("s1", last=2)] == ["turn 3", "turn 4"]
        store.put_session("s1", "u1", summary="- user: 不要红色", summarized_upto=3)
        assert store.get_session("s1")["summary"] == "- user: 不要红色"
        store.put_working("u1", "task", "draft", {"v": 1}, kind="result", expire_at=T0)
        assert store.working_items("u1", "task")[0]["value"] == {"v": 1}
        assert store.delete_working("u1", "task") == 1

    def test_embedder_recorded_and_checked(self, store) -> None:  # type: ignore[no-untyped-def]
        from memscribe.errors import EmbedderMismatch

        store.check_embedder("model-a", 384)
        store.check_embedder("model-a", 384)
        with pytest.raises(EmbedderMismatch):
            store.check_embedder("model-b", 768)

    def test_vault_rows(self, store) -> None:  # type: ignore[no-untyped-def]
        store.put_secret("u1", "m1", "[地址#1]", "address", b"v1-ciphertext", "k1")
        assert store.secrets_for("m1")[0]["ciphertext"] == b"v1-ciphertext"

    def test_nested_atomic_rolls_back_to_the_savepoint_only(self, store) -> None:  # type: ignore[no-untyped-def]
        outer = make_record("m1", text="outer write kept")
        inner = make_record("m2", text="inner write undone zebra")
        with store.atomic():
            store.put_memory(outer, vector=unit_vector(1), keyword_text=outer.text)
            with pytest.raises(RuntimeError), store.atomic():
                store.put_memory(inner, vector=unit_vector(2), keyword_text=inner.text)
                store.add_version(inner, reason="add", actor="test", at=T0)
                raise RuntimeError("inner block fails")
            store.add_version(outer, reason="add", actor="test", at=T0)
        assert store.get_memory("m1") is not None and len(store.versions("m1")) == 1
        assert store.get_memory("m2") is None and store.versions("m2") == []
        assert [i for i, _ in store.vector_search("u1", unit_vector(2), k=5)] == ["m1"]
        assert store.keyword_search("u1", ["zebra"], k=5) == []

    def test_status_change_without_new_vector_reaches_every_index(self, store) -> None:  # type: ignore[no-untyped-def]
        rec = make_record("m1", text="weekly meetings with Rosalind")
        self._put(store, rec, seed=4)
        store.put_memory(rec.model_copy(update={"status": Status.archived, "version": 2}))
        assert store.vector_search("u1", unit_vector(4), k=5) == []
        assert store.keyword_search("u1", ["rosalind"], k=5) == []
        assert [i for i, _ in store.vector_search("u1", unit_vector(4), k=5, statuses=("archived",))] == [
            "m1"
        ]
        store.put_memory(rec.model_copy(update={"version": 3}))  # active again
        assert store.vector_search("u1", unit_vector(4), k=1)[0][0] == "m1"
        assert store.keyword_search("u1", ["meeting"], k=5)[0][0] == "m1"  # English stems match
        got = store.get_vectors(["m1", "nope"])
        assert list(got) == ["m1"] and np.allclose(got["m1"], unit_vector(4), atol=1e-6)

    def test_jobs_wait_for_run_after_and_retry(self, store) -> None:  # type: ignore[no-untyped-def]
        later = store.enqueue("verify", {"user_id": "u1"}, run_after=T0 + timedelta(hours=1))
        assert store.claim_jobs(limit=5, now=T0) == []
        job = store.claim_jobs(limit=5, now=T0 + timedelta(hours=2))
        assert [j["id"] for j in job] == [later] and job[0]["attempts"] == 1
        assert job[0]["payload"] == {"user_id": "u1"}
        store.fail_job(later, "transient", retry_at=T0 + timedelta(hours=3))
        assert store.claim_jobs(limit=5, now=T0 + timedelta(hours=2)) == []
        assert store.claim_jobs(limit=5, now=T0 + timedelta(hours=4))[0]["attempts"] == 2

    def test_size_and_facets(self, store) -> None:  # type: ignore[no-untyped-def]
        self._put(store, make_record("m1"), seed=1)
        self._put(store, make_record("m2", user="u2", kind=Kind.event, layer=Layer.episodic), seed=2)
        assert store.size_bytes() > 0
        facets = store.memory_facets("u1", days=100_000)
        assert facets["status"] == {"active": 1} and facets["kind"] == {"preference": 1}
        assert sum(facets["daily_new"].values()) == 1
        assert store.memory_facets(None, days=100_000)["layer"] == {"semantic": 1, "episodic": 1}
        assert store.count_memories() == {"active": 2} and sorted(store.iter_users()) == ["u1", "u2"]
