"""What spans the areas: transactions (all or nothing, nested savepoints), erasure of a user, the
embedder record, meta, schema version and maintenance."""

from __future__ import annotations

import pytest

from memscribe.errors import EmbedderMismatch, StoreError
from memscribe.models import AuditEvent
from memscribe.testing.store_contract.records import T0, make_record, put, unit_vector

__all__ = ["LifecycleContract", "TransactionContract"]


class TransactionContract:
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

    def test_forget_erases_everything_of_one_user(self, store) -> None:  # type: ignore[no-untyped-def]
        put(store, make_record("a1", user="alice", text="alice secret plan zanzibar"), seed=1)
        put(store, make_record("b1", user="bob", text="bob keeps this"), seed=2)
        store.add_audit(
            [AuditEvent(ts=T0, user_id="alice", memory_id="a1", stage="t", action="a", reason="zanzibar")]
        )
        store.append_session_messages(
            "sa", "alice", [{"role": "user", "content": "zanzibar trip", "message_id": "x"}]
        )
        store.put_working("alice", "t1", "k", "zanzibar", kind="note", expire_at=None)
        store.put_secret("alice", "a1", "[地址#1]", "address", b"sealed", "k1")
        store.bump_counter("alice", "dropped")
        store.enqueue("verify", {"memory_id": "a1", "user_id": "alice"})
        store.enqueue("verify", {"memory_id": "b1", "user_id": "bob"})
        assert store.forget_user("alice") == 1
        assert store.get_memory("a1") is None
        assert store.versions("a1") == []
        assert store.audit_for(user_id="alice") == []
        assert store.session_messages("sa") == [] and store.get_session("sa") is None
        assert store.working_items("alice") == []
        assert store.secrets_for("a1") == [] and store.counters("alice") == {}
        assert store.keyword_search("alice", ["zanzibar"], k=5) == []
        assert store.vector_search("alice", unit_vector(1), k=5) == []
        assert store.memories_in_slot("alice", "用户", "x", statuses=None) == []
        assert store.pending_jobs() == 1  # bob's job stays
        assert store.get_memory("b1") is not None and list(store.iter_users()) == ["bob"]


class LifecycleContract:
    def test_embedder_recorded_and_checked(self, store) -> None:  # type: ignore[no-untyped-def]
        store.check_embedder("model-a", 384)
        store.check_embedder("model-a", 384)
        with pytest.raises(EmbedderMismatch):
            store.check_embedder("model-b", 768)
        store.check_embedder("model-b", 768, allow_reset=True)  # a reindex re-records it
        store.check_embedder("model-b", 768)

    def test_meta(self, store) -> None:  # type: ignore[no-untyped-def]
        assert store.get_meta("nope") is None
        store.set_meta("k", "v1")
        store.set_meta("k", "值 2")
        assert store.get_meta("k") == "值 2"

    def test_schema_version_and_maintenance(self, store) -> None:  # type: ignore[no-untyped-def]
        assert store.schema_version() >= 2  # the slot keys migration
        put(store, make_record("m1"))
        store.checkpoint()
        assert store.integrity_check() == "ok"
        assert store.get_memory("m1") is not None

    def test_backup_is_a_copy_or_a_typed_refusal(self, store, tmp_path) -> None:  # type: ignore[no-untyped-def]
        from memscribe.store.sqlite import SQLiteStore

        rec = make_record("m1")
        put(store, rec)
        dest = tmp_path / "backup.db"
        try:
            store.backup_to(dest)
        except StoreError as exc:  # a server's store: the message names the tools that back it up
            assert "pg_dump" in str(exc) or "backup" in str(exc)
            assert not dest.exists()
            return
        copy = SQLiteStore(dest)
        try:
            assert copy.integrity_check() == "ok"
            assert copy.get_memory("m1").model_dump() == rec.model_dump()
            assert [v.version for v in copy.versions("m1")] == [1]
        finally:
            copy.close()
