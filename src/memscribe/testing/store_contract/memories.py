"""Memories: every field round-trips, versions keep each state, soft deletes keep history, counts and
facets, and the (subject, slot) lookup merge relies on."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memscribe.models import Kind, Layer, Source, Status
from memscribe.testing.store_contract.records import T0, make_record, put

__all__ = ["MemoryContract", "OriginContract", "SlotContract"]


class MemoryContract:
    def test_round_trip_every_field(self, store) -> None:  # type: ignore[no-untyped-def]
        rec = make_record("m1")
        put(store, rec)
        got = store.get_memory("m1")
        assert got is not None
        assert got.model_dump() == rec.model_dump()
        assert got.time_start.utcoffset() == timedelta(hours=8)  # the message's local time survives
        assert store.get_memories(["m1", "m1", "nope"]) == {"m1": got}

    def test_missing_memory_is_none(self, store) -> None:  # type: ignore[no-untyped-def]
        assert store.get_memory("nope") is None
        assert store.get_memories(["nope"]) == {}
        assert store.get_memories([]) == {}

    def test_hostile_text_round_trips(self, store) -> None:  # type: ignore[no-untyped-def]
        text = "quote ' \" back\\slash; -- 表情 😀 e\u0301 \t tab"
        rec = make_record("m1", text=text, metadata={"k": text, "nested": [text]})
        put(store, rec)
        assert store.get_memory("m1").model_dump() == rec.model_dump()

    def test_versions_and_rollback_data(self, store) -> None:  # type: ignore[no-untyped-def]
        rec = make_record("m1")
        put(store, rec)
        v2 = rec.model_copy(update={"text": "用户现在吃香菜了", "version": 2, "entities": ["香菜", "新"]})
        with store.atomic():
            store.put_memory(v2, keyword_text=v2.text)
            store.add_version(v2, reason="edit", actor="test", at=T0 + timedelta(hours=1))
        versions = store.versions("m1")
        assert [(v.version, v.reason, v.actor) for v in versions] == [(1, "add", "test"), (2, "edit", "test")]
        assert versions[0].record.model_dump() == rec.model_dump()  # v1 restorable exactly
        assert versions[1].record.text == "用户现在吃香菜了"
        assert versions[1].created_at == T0 + timedelta(hours=1)
        assert store.get_memory("m1").text == "用户现在吃香菜了"

    def test_soft_delete_keeps_history(self, store) -> None:  # type: ignore[no-untyped-def]
        rec = make_record("m1")
        put(store, rec)
        gone = rec.model_copy(update={"status": Status.deleted, "version": 2})
        with store.atomic():
            store.put_memory(gone)
            store.add_version(gone, reason="delete", actor="test", at=T0)
        assert store.list_memories("u1") == []
        assert [r.id for r in store.list_memories("u1", statuses=None)] == ["m1"]
        assert len(store.versions("m1")) == 2

    def test_list_filters_and_pages_in_write_order(self, store) -> None:  # type: ignore[no-untyped-def]
        for i in range(5):
            kind = Kind.event if i % 2 else Kind.preference
            put(store, make_record(f"m{i}", text=f"memory {i}", kind=kind), seed=i)
        put(store, make_record("x", user="u2"), seed=9)
        assert [r.id for r in store.list_memories("u1")] == ["m0", "m1", "m2", "m3", "m4"]
        assert [r.id for r in store.list_memories("u1", kind="event")] == ["m1", "m3"]
        assert [r.id for r in store.list_memories("u1", layer="episodic")] == []
        assert [r.id for r in store.list_memories("u1", limit=2, offset=2)] == ["m2", "m3"]

    def test_size_and_facets(self, store) -> None:  # type: ignore[no-untyped-def]
        put(store, make_record("m1"), seed=1)
        put(store, make_record("m2", user="u2", kind=Kind.event, layer=Layer.episodic), seed=2)
        assert store.size_bytes() > 0
        facets = store.memory_facets("u1", days=100_000)
        assert facets["status"] == {"active": 1} and facets["kind"] == {"preference": 1}
        assert sum(facets["daily_new"].values()) == 1
        assert store.memory_facets(None, days=100_000)["layer"] == {"semantic": 1, "episodic": 1}
        assert store.count_memories() == {"active": 2} and store.count_memories("u2") == {"active": 1}
        assert sorted(store.iter_users()) == ["u1", "u2"]


def _fact(mid: str, subject: object, slot: object, user: str = "u1", **kw):  # type: ignore[no-untyped-def]
    return make_record(
        mid, user=user, text=f"{subject} {slot} {mid}", structured={"subject": subject, "slot": slot}, **kw
    )


class SlotContract:
    """``memories_in_slot``: the records holding one subject's value of one attribute."""

    def _ids(self, store, *args, **kw) -> list[str]:  # type: ignore[no-untyped-def]
        return [r.id for r in store.memories_in_slot(*args, **kw)]

    def test_slot_lookup_is_exact_and_scoped(self, store) -> None:  # type: ignore[no-untyped-def]
        put(store, _fact("boston", "user", "home_city"), seed=1)
        put(store, _fact("denver", "user", "home_city"), seed=2)
        put(store, _fact("ann", "Ann", "home_city"), seed=3)  # a third party is a subject of her own
        put(store, _fact("job", "user", "employer"), seed=4)
        put(store, _fact("theirs", "user", "home_city", user="u2"), seed=5)
        put(store, _fact("zh", "用户", "居住地"), seed=6)
        put(store, make_record("plain", structured={"subject": "user"}), seed=7)  # no slot
        put(store, _fact("odd", ["user"], 3), seed=8)  # not strings: no identity
        assert self._ids(store, "u1", "user", "home_city") == ["boston", "denver"]
        assert self._ids(store, "u1", "Ann", "home_city") == ["ann"]
        assert self._ids(store, "u2", "user", "home_city") == ["theirs"]
        assert self._ids(store, "u1", "用户", "居住地") == ["zh"]
        assert self._ids(store, "u1", "User", "home_city") == []  # exact, as stored
        assert self._ids(store, "u1", "user", "3") == []
        got = store.memories_in_slot("u1", "user", "home_city")
        assert [r.model_dump() for r in got] == [
            store.get_memory(i).model_dump() for i in ("boston", "denver")
        ]

    def test_slot_lookup_follows_status_and_edits(self, store) -> None:  # type: ignore[no-untyped-def]
        old, new = _fact("boston", "user", "home_city"), _fact("denver", "user", "home_city")
        put(store, old, seed=1)
        put(store, new, seed=2)
        with store.atomic():
            store.put_memory(old.model_copy(update={"status": Status.superseded, "superseded_by": "denver"}))
        assert self._ids(store, "u1", "user", "home_city") == ["denver"]
        assert self._ids(store, "u1", "user", "home_city", statuses=None) == ["boston", "denver"]
        assert self._ids(store, "u1", "user", "home_city", statuses=("superseded",)) == ["boston"]
        # an edit that changes the slot moves the record; one that drops it takes it out
        store.put_memory(new.model_copy(update={"structured": {"subject": "user", "slot": "work_city"}}))
        assert self._ids(store, "u1", "user", "home_city", statuses=None) == ["boston"]
        assert self._ids(store, "u1", "user", "work_city") == ["denver"]
        store.put_memory(new.model_copy(update={"structured": {"subject": "user"}}))
        assert self._ids(store, "u1", "user", "work_city") == []

    def test_slot_rows_go_with_a_rolled_back_write(self, store) -> None:  # type: ignore[no-untyped-def]
        with pytest.raises(RuntimeError), store.atomic():
            store.put_memory(_fact("m1", "user", "home_city"))
            raise RuntimeError("crash mid-write")
        assert self._ids(store, "u1", "user", "home_city", statuses=None) == []


def _said(mid: str, *message_ids: str, user: str = "u1", **kw):  # type: ignore[no-untyped-def]
    return make_record(
        mid,
        user=user,
        text=f"statement {mid}",
        sources=[Source(message_id=m, session_id="s1", role="user", name="Ann", at=T0) for m in message_ids],
        **kw,
    )


class OriginContract:
    """``memories_from_messages``: the statements first said in a message, read together at recall."""

    def _origin_ids(self, store, *args, **kw) -> list[str]:  # type: ignore[no-untyped-def]
        return [r.id for r in store.memories_from_messages(*args, **kw)]

    def test_statements_are_found_by_the_message_they_were_first_said_in(self, store) -> None:  # type: ignore[no-untyped-def]
        put(store, _said("a1", "m1"), seed=1)
        put(store, _said("a2", "m1"), seed=2)
        put(store, _said("b1", "m2", "m1"), seed=3)  # first said in m2, repeated in m1: m2's statement
        put(store, _said("c1", "m1", user="u2"), seed=4)  # another tenant's message of the same id
        put(store, _said("none"), seed=5)  # no source at all
        assert self._origin_ids(store, "u1", ["m1"]) == ["a1", "a2"]
        assert self._origin_ids(store, "u1", ["m2", "m1"]) == ["a1", "a2", "b1"]
        assert self._origin_ids(store, "u2", ["m1"]) == ["c1"]
        assert self._origin_ids(store, "u1", []) == [] and self._origin_ids(store, "u1", ["nope"]) == []

    def test_origin_lookup_follows_status(self, store) -> None:  # type: ignore[no-untyped-def]
        a, b = _said("a1", "m1"), _said("a2", "m1")
        put(store, a, seed=1)
        put(store, b, seed=2)
        with store.atomic():
            store.put_memory(b.model_copy(update={"status": Status.superseded}))
        assert self._origin_ids(store, "u1", ["m1"]) == ["a1"]
        assert self._origin_ids(store, "u1", ["m1"], statuses=None) == ["a1", "a2"]
