"""The audit log and the per-user counters on SQLite."""

from __future__ import annotations

from collections.abc import Iterable

from memscribe.models import AuditEvent
from memscribe.store import sql
from memscribe.store.codec import AUDIT_COLUMNS, decode_audit, encode_audit
from memscribe.store.sql import SQLITE
from memscribe.store.sqlite.connection import SQLiteConnection

__all__ = ["SQLiteCounters"]

_INSERT = sql.insert(SQLITE, "audit", AUDIT_COLUMNS)


class SQLiteCounters(SQLiteConnection):
    def add_audit(self, events: Iterable[AuditEvent]) -> None:
        rows = [encode_audit(e) for e in events]
        if rows:
            self._exec_many(_INSERT, rows)

    def audit_for(self, *, memory_id: str | None = None, user_id: str | None = None) -> list[AuditEvent]:
        return [
            decode_audit(r)
            for r in self._exec(*sql.select_audit(SQLITE, memory_id=memory_id, user_id=user_id))
        ]

    def bump_counter(self, user_id: str, name: str, n: int = 1) -> None:
        self._exec(
            "INSERT INTO counters VALUES (?, ?, ?) "
            "ON CONFLICT(user_id, name) DO UPDATE SET value = value + excluded.value",
            (user_id, name, n),
        )

    def counters(self, user_id: str | None = None) -> dict[str, int]:
        if user_id is None:
            rows = self._exec("SELECT name, sum(value) FROM counters GROUP BY name")
        else:
            rows = self._exec("SELECT name, value FROM counters WHERE user_id=?", (user_id,))
        return {r[0]: int(r[1]) for r in rows}
