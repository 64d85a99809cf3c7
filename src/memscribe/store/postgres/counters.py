"""The audit log and the per-user counters on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterable

from memscribe.models import AuditEvent
from memscribe.store import sql
from memscribe.store.codec import AUDIT_COLUMNS, decode_audit, encode_audit
from memscribe.store.postgres.connection import PostgresConnection, clean_text
from memscribe.store.sql import POSTGRES

__all__ = ["PostgresCounters"]

_INSERT = sql.insert(POSTGRES, "audit", AUDIT_COLUMNS)


class PostgresCounters(PostgresConnection):
    def add_audit(self, events: Iterable[AuditEvent]) -> None:
        rows = [encode_audit(e, clean_text) for e in events]
        if rows:
            self._run(lambda conn: conn.cursor().executemany(_INSERT, rows), "writing audit events failed")

    def audit_for(self, *, memory_id: str | None = None, user_id: str | None = None) -> list[AuditEvent]:
        return [
            decode_audit(r)
            for r in self._all(*sql.select_audit(POSTGRES, memory_id=memory_id, user_id=user_id))
        ]

    def bump_counter(self, user_id: str, name: str, n: int = 1) -> None:
        self._all(
            "INSERT INTO counters VALUES (%s, %s, %s) ON CONFLICT (user_id, name) "
            "DO UPDATE SET value = counters.value + excluded.value",
            (user_id, name, n),
        )

    def counters(self, user_id: str | None = None) -> dict[str, int]:
        if user_id is None:
            rows = self._all("SELECT name, sum(value) FROM counters GROUP BY name")
        else:
            rows = self._all("SELECT name, value FROM counters WHERE user_id=%s", (user_id,))
        return {r[0]: int(r[1]) for r in rows}
