"""Statements both engines run, built once in each one's placeholder style (a ``Dialect``).

Only statements whose SQL is the same on SQLite and PostgreSQL live here: filtered reads of memories,
working items, session turns and audit rows, the facet counts, plain inserts. What an engine does its
own way (upserts, search, the job queue, erasure) stays in the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from memscribe.store.codec import AUDIT_COLUMNS, MEMORY_SELECT, SESSION_MESSAGE_COLUMNS, WORKING_COLUMNS

__all__ = [
    "POSTGRES",
    "SQLITE",
    "USER_TABLES",
    "Dialect",
    "Query",
    "Where",
    "count_by",
    "daily_new",
    "delete_working",
    "insert",
    "select_audit",
    "select_memories",
    "select_session_messages",
    "select_working",
]


# the tables (the same in both schemas) whose rows belong to one user by a user_id column: erasing a user
# empties each of them, besides the memories and the engine's own index tables
USER_TABLES = (
    "versions",
    "links",
    "audit",
    "counters",
    "session_messages",
    "sessions",
    "working_items",
    "vault",
)


@dataclass(frozen=True)
class Dialect:
    mark: str  # the placeholder
    arrays: bool  # a list binds as one array parameter (``= ANY(%s)``) instead of one mark per value


SQLITE = Dialect(mark="?", arrays=False)
POSTGRES = Dialect(mark="%s", arrays=True)


class Query(NamedTuple):
    sql: str
    params: list[Any]


@dataclass
class Where:
    """A conjunction of conditions and their parameters, in order."""

    d: Dialect
    parts: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)

    def eq(self, column: str, value: Any) -> Where:
        self.parts.append(f"{column}={self.d.mark}")
        self.params.append(value)
        return self

    def any_of(self, column: str, values: Sequence[Any]) -> Where:
        if self.d.arrays:
            self.parts.append(f"{column} = ANY({self.d.mark})")
            self.params.append(list(values))
        else:
            self.parts.append(f"{column} IN ({','.join([self.d.mark] * len(values))})")
            self.params.extend(values)
        return self

    @property
    def sql(self) -> str:
        return " AND ".join(self.parts) or "TRUE"


def insert(d: Dialect, table: str, columns: Sequence[str]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join([d.mark] * len(columns))})"


def select_memories(
    d: Dialect,
    user_id: str,
    *,
    statuses: Sequence[str] | None,
    kind: str | None = None,
    layer: str | None = None,
    slot: tuple[str, str] | None = None,
    origins: Sequence[str] | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> Query:
    """One user's memories in write order; ``slot`` is a (subject_key, slot_key) identity."""
    w = Where(d).eq("user_id", user_id)
    if slot is not None:
        w.eq("subject_key", slot[0]).eq("slot_key", slot[1])
    if origins is not None:
        w.any_of("origin_message", origins)
    if statuses:
        w.any_of("status", statuses)
    if kind:
        w.eq("kind", kind)
    if layer:
        w.eq("layer", layer)
    sql = f"SELECT {MEMORY_SELECT} FROM memories WHERE {w.sql} ORDER BY pk"
    if limit is not None:
        sql += f" LIMIT {d.mark} OFFSET {d.mark}"
        w.params.extend([limit, offset])
    return Query(sql, w.params)


def count_by(d: Dialect, column: str, user_id: str | None) -> Query:
    """Memories per value of ``column`` (status, layer, kind), of one user or all."""
    w = Where(d) if user_id is None else Where(d).eq("user_id", user_id)
    return Query(f"SELECT {column}, count(*) FROM memories WHERE {w.sql} GROUP BY {column}", w.params)


def daily_new(d: Dialect, user_id: str | None, since_iso: str) -> Query:
    """First versions written per UTC day (YYYY-MM-DD) since ``since_iso``."""
    w = Where(d).eq("version", 1)
    w.parts.append(f"created_at >= {d.mark}")
    w.params.append(since_iso)
    if user_id is not None:
        w.eq("user_id", user_id)
    return Query(
        f"SELECT substr(created_at, 1, 10), count(*) FROM versions WHERE {w.sql} GROUP BY 1", w.params
    )


def select_working(d: Dialect, user_id: str, task_id: str | None) -> Query:
    w = Where(d).eq("user_id", user_id)
    if task_id is not None:
        w.eq("task_id", task_id)
    return Query(
        f"SELECT {', '.join(WORKING_COLUMNS)} FROM working_items WHERE {w.sql} ORDER BY updated_at, task_id, key",
        w.params,
    )


def delete_working(d: Dialect, user_id: str, task_id: str, key: str | None) -> Query:
    w = Where(d).eq("user_id", user_id).eq("task_id", task_id)
    if key is not None:
        w.eq("key", key)
    return Query(f"DELETE FROM working_items WHERE {w.sql}", w.params)


def select_session_messages(d: Dialect, session_id: str, last: int | None) -> Query:
    """A session's turns in order; with ``last``, only the newest ``last`` of them."""
    sql = f"SELECT {', '.join(SESSION_MESSAGE_COLUMNS)} FROM session_messages WHERE session_id={d.mark} ORDER BY seq"
    if last is None:
        return Query(sql, [session_id])
    return Query(f"SELECT * FROM ({sql} DESC LIMIT {d.mark}) s ORDER BY seq", [session_id, last])


def select_audit(d: Dialect, *, memory_id: str | None, user_id: str | None) -> Query:
    """Audit rows of one memory, else of one user, else all, in write order."""
    w = Where(d)
    if memory_id is not None:
        w.eq("memory_id", memory_id)
    elif user_id is not None:
        w.eq("user_id", user_id)
    return Query(f"SELECT id, {', '.join(AUDIT_COLUMNS)} FROM audit WHERE {w.sql} ORDER BY id", w.params)
