"""Sessions (the turn window and its rolling summary) and working memory (a task's scratch state) on
SQLite."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memscribe.store import sql
from memscribe.store.codec import (
    SESSION_COLUMNS,
    decode_session,
    decode_session_message,
    decode_working_item,
    encode_json,
    epoch,
    iso,
    now,
)
from memscribe.store.rows import SessionMessageRow, SessionRow, WorkingItemRow
from memscribe.store.sql import SQLITE
from memscribe.store.sqlite.connection import SQLiteConnection

__all__ = ["SQLiteSessions"]


class SQLiteSessions(SQLiteConnection):
    def append_session_messages(self, session_id: str, user_id: str, rows: Sequence[dict[str, Any]]) -> None:
        with self.atomic():
            self._exec(
                "INSERT OR IGNORE INTO sessions (session_id, user_id, updated_at) VALUES (?, ?, ?)",
                (session_id, user_id, now().isoformat()),
            )
            self._exec_many(
                "INSERT INTO session_messages (session_id, user_id, role, name, content, message_id, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        session_id,
                        user_id,
                        r["role"],
                        r.get("name"),
                        r["content"],
                        r.get("message_id"),
                        r.get("at"),
                    )
                    for r in rows
                ],
            )

    def session_messages(self, session_id: str, *, last: int | None = None) -> list[SessionMessageRow]:
        return [
            decode_session_message(r)
            for r in self._exec(*sql.select_session_messages(SQLITE, session_id, last))
        ]

    def get_session(self, session_id: str) -> SessionRow | None:
        rows = self._exec(
            f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions WHERE session_id=?", (session_id,)
        )
        return decode_session(rows[0]) if rows else None

    def put_session(self, session_id: str, user_id: str, *, summary: str, summarized_upto: int) -> None:
        self._exec(
            "INSERT INTO sessions (session_id, user_id, summary, summarized_upto, updated_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(session_id) DO UPDATE SET summary=excluded.summary, "
            "summarized_upto=excluded.summarized_upto, updated_at=excluded.updated_at",
            (session_id, user_id, summary, summarized_upto, now().isoformat()),
        )

    def put_working(
        self, user_id: str, task_id: str, key: str, value: Any, *, kind: str, expire_at: datetime | None
    ) -> None:
        self._exec(
            "INSERT INTO working_items VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(user_id, task_id, key) DO UPDATE "
            "SET value=excluded.value, kind=excluded.kind, expire_at=excluded.expire_at, "
            "expire_ts=excluded.expire_ts, updated_at=excluded.updated_at",
            (
                user_id,
                task_id,
                key,
                encode_json(value),
                kind,
                iso(expire_at),
                epoch(expire_at),
                now().isoformat(),
            ),
        )

    def working_items(self, user_id: str, task_id: str | None = None) -> list[WorkingItemRow]:
        return [decode_working_item(r) for r in self._exec(*sql.select_working(SQLITE, user_id, task_id))]

    def delete_working(self, user_id: str, task_id: str, key: str | None = None) -> int:
        return self._changed(*sql.delete_working(SQLITE, user_id, task_id, key))

    def expire_working(self, now: datetime) -> int:
        """Deletes every working item (of every user) whose expiry has passed; how many went."""
        return self._changed(
            "DELETE FROM working_items WHERE expire_ts IS NOT NULL AND expire_ts <= ?", (now.timestamp(),)
        )
