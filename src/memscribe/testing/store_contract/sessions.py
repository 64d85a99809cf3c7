"""Sessions and working memory: typed rows, the turn window, the rolling summary, upserts, deletes and
expiry across users."""

from __future__ import annotations

from datetime import timedelta

from memscribe.store.rows import SessionMessageRow, SessionRow, WorkingItemRow
from memscribe.testing.store_contract.records import PLUS8, T0

__all__ = ["SessionContract"]


class SessionContract:
    def test_session_window_and_summary(self, store) -> None:  # type: ignore[no-untyped-def]
        store.append_session_messages(
            "s1", "u1", [{"role": "user", "content": f"turn {i}"} for i in range(5)]
        )
        assert [m.content for m in store.session_messages("s1", last=2)] == ["turn 3", "turn 4"]
        assert [m.content for m in store.session_messages("s1")][:2] == ["turn 0", "turn 1"]
        fresh = store.get_session("s1")
        assert isinstance(fresh, SessionRow) and (fresh.user_id, fresh.summary, fresh.summarized_upto) == (
            "u1",
            "",
            0,
        )
        store.put_session("s1", "u1", summary="- user: 不要红色", summarized_upto=3)
        got = store.get_session("s1")
        assert (got.summary, got.summarized_upto) == ("- user: 不要红色", 3)
        assert got.updated_at.tzinfo is not None
        assert store.get_session("nope") is None
        assert store.session_messages("nope") == []

    def test_session_messages_are_typed_rows(self, store) -> None:  # type: ignore[no-untyped-def]
        at = T0.astimezone(PLUS8)
        store.append_session_messages(
            "s1",
            "u1",
            [
                {
                    "role": "user",
                    "content": "我不吃香菜",
                    "name": "Ann",
                    "message_id": "m-1",
                    "at": at.isoformat(),
                },
                {"role": "assistant", "content": "好的"},
            ],
        )
        first, second = store.session_messages("s1")
        assert isinstance(first, SessionMessageRow)
        assert first == SessionMessageRow(
            seq=first.seq, role="user", name="Ann", content="我不吃香菜", message_id="m-1", at=at
        )
        assert first.at.utcoffset() == timedelta(hours=8)
        assert (second.role, second.name, second.message_id, second.at) == ("assistant", None, None, None)
        assert second.seq > first.seq

    def test_working_items_upsert_and_delete(self, store) -> None:  # type: ignore[no-untyped-def]
        store.put_working("u1", "task", "draft", {"v": 1}, kind="result", expire_at=T0)
        store.put_working(
            "u1", "task", "draft", {"v": 2, "注": "二"}, kind="result", expire_at=T0 + timedelta(hours=1)
        )
        store.put_working("u1", "other", "seat", "aisle", kind="note", expire_at=None)
        [item] = store.working_items("u1", "task")
        assert isinstance(item, WorkingItemRow)
        assert (item.task_id, item.key, item.value, item.kind) == (
            "task",
            "draft",
            {"v": 2, "注": "二"},
            "result",
        )
        assert item.expire_at == T0 + timedelta(hours=1) and item.updated_at.tzinfo is not None
        assert {(i.task_id, i.key) for i in store.working_items("u1")} == {
            ("task", "draft"),
            ("other", "seat"),
        }
        assert store.delete_working("u1", "other", "seat") == 1
        assert store.delete_working("u1", "other", "seat") == 0
        assert store.delete_working("u1", "task") == 1
        assert store.working_items("u1") == []

    def test_expire_working_takes_only_what_expired_of_every_user(self, store) -> None:  # type: ignore[no-untyped-def]
        store.put_working("u1", "t", "old", 1, kind="note", expire_at=T0 - timedelta(hours=1))
        store.put_working(
            "u2", "t", "old", 2, kind="note", expire_at=T0.astimezone(PLUS8)
        )  # the same instant
        store.put_working("u1", "t", "new", 3, kind="note", expire_at=T0 + timedelta(hours=1))
        store.put_working("u1", "t", "forever", 4, kind="note", expire_at=None)
        assert store.expire_working(T0) == 2
        assert [i.key for i in store.working_items("u1")] and store.working_items("u2") == []
        assert sorted(i.key for i in store.working_items("u1")) == ["forever", "new"]
        assert store.expire_working(T0) == 0
