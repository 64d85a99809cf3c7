"""Sessions (the turn window and its rolling summary) and working memory (a task's scratch state) on
PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg

from memscribe.store import sql
from memscribe.store.codec import (
    SESSION_COLUMNS,
    decode_session,
    decode_session_message,
    decode_working_item,
    encode_json,
    iso,
    now,
)
from memscribe.store.postgres.connection import PostgresConnection, clean_text
from memscribe.store.rows import SessionMessageRow, SessionRow, WorkingItemRow
from memscribe.store.sql import POSTGRES

__all__ = ["PostgresSessions"]


class PostgresSessions(PostgresConnection):
    def append_session_messages(self, session_id: str, user_id: str, rows: Sequence[dict[str, Any]]) -> None:
        def go(conn: psycopg.Connection) -> None:
            with conn.transaction():
                conn.execute(
                    "INSERT INTO sessions (session_id, user_id, updated_at) VALUES (%s, %s, %s) "
                    "ON CONFLICT (session_id) DO NOTHING",
                    (session_id, user_id, now().isoformat()),
                )
                conn.cursor().executemany(
                    "INSERT INTO session_messages (session_id, user_id, role, name, content, message_id, at) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    [
                        (
                            session_id,
                            user_id,
                            r["role"],
                            r.get("name"),
                            clean_text(r["content"]),
                            r.get("message_id"),
                            r.get("at"),
                        )
                        for r in rows
                    ],
                )

        self._run(go, "appending session messages failed")

    def session_messages(self, session_id: str, *, last: int | None = None) -> list[SessionMessageRow]:
        return [
            decode_session_message(r)
            for r in self._all(*sql.select_session_messages(POSTGRES, session_id, last))
        ]

    def get_session(self, session_id: str) -> SessionRow | None:
        row = self._one(
            f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions WHERE session_id=%s", (session_id,)
        )
        return decode_session(row) if row else None

    def put_session(self, session_id: str, user_id: str, *, summary: str, summarized_upto: int) -> None:
        self._all(
            "INSERT INTO sessions (session_id, user_id, summary, summarized_upto, updated_at) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (session_id) DO UPDATE SET summary=excluded.summary, "
            "summarized_upto=excluded.summarized_upto, updated_at=excluded.updated_at",
            (session_id, user_id, clean_text(summary), summarized_upto, now().isoformat()),
        )

    def put_working(
        self, user_id: str, task_id: str, key: str, value: Any, *, kind: str, expire_at: datetime | None
    ) -> None:
        self._all(
            "INSERT INTO working_items VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (user_id, task_id, key) DO UPDATE SET value=excluded.value, kind=excluded.kind, "
            "expire_at=excluded.expire_at, expire_ts=excluded.expire_ts, updated_at=excluded.updated_at",
            (
                user_id,
                task_id,
                key,
                encode_json(value, clean_text),
                kind,
                iso(expire_at),
                expire_at,
                now().isoformat(),
            ),
        )

    def working_items(self, user_id: str, task_id: str | None = None) -> list[WorkingItemRow]:
        return [decode_working_item(r) for r in self._all(*sql.select_working(POSTGRES, user_id, task_id))]

    def delete_working(self, user_id: str, task_id: str, key: str | None = None) -> int:
        return self._rowcount(*sql.delete_working(POSTGRES, user_id, task_id, key))

    def expire_working(self, now: datetime) -> int:
        """Deletes every working item (of every user) whose expiry has passed; how many went."""
        return self._rowcount(
            "DELETE FROM working_items WHERE expire_ts IS NOT NULL AND expire_ts <= %s", (now,)
        )
