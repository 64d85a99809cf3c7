"""The Store contract every engine implements (and ``memscribe.testing.store_contract`` checks).

A store keeps records and their derived index entries (vector, keyword terms) together: a memory's
row, vector, keyword entry, version and audit events are written inside one ``atomic()`` block.
Stores know nothing about pipelines; they persist and look up.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memscribe.models import AuditEvent, MemoryRecord, Version
from memscribe.store.rows import JobRow, SecretRow, SessionMessageRow, SessionRow, WorkingItemRow

__all__ = ["JobRow", "SecretRow", "SessionMessageRow", "SessionRow", "Store", "WorkingItemRow"]


class Store(Protocol):
    # lifecycle ------------------------------------------------------------------------------------
    def close(self) -> None: ...
    def atomic(self) -> AbstractContextManager[None]: ...
    def check_embedder(self, name: str, dim: int, *, allow_reset: bool = False) -> None: ...
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def schema_version(self) -> int:
        """The highest schema migration applied (the store is migrated to the latest when opened)."""
        ...

    # maintenance ------------------------------------------------------------------------------------
    def checkpoint(self) -> None:
        """Fold the engine's write-ahead log into the data files (a no-op where the server does it)."""
        ...

    def integrity_check(self) -> str:
        """'ok', or a description of what is damaged."""
        ...

    def backup_to(self, path: str | Path) -> None:
        """Write a consistent copy of the store, usable while it is in use, as a SQLite file at ``path``;
        an engine that cannot (a server's store) raises ``StoreError`` naming the tool to use instead."""
        ...

    # memories -------------------------------------------------------------------------------------
    def put_memory(
        self, rec: MemoryRecord, *, vector: np.ndarray | None = None, keyword_text: str | None = None
    ) -> None: ...
    def put_memories(self, items: Sequence[tuple[MemoryRecord, np.ndarray | None, str | None]]) -> None:
        """``put_memory`` for each (record, vector, keyword text), in one transaction, batched where the
        engine gains by it."""
        ...

    def bulk_load(self, expected: int) -> AbstractContextManager[None]:
        """One transaction for a load of about ``expected`` new memories; an engine may defer index
        maintenance to its end."""
        ...

    def add_version(self, rec: MemoryRecord, *, reason: str, actor: str, at: datetime) -> None: ...
    def get_memory(self, memory_id: str) -> MemoryRecord | None: ...
    def get_memories(self, ids: Sequence[str]) -> dict[str, MemoryRecord]: ...
    def list_memories(
        self,
        user_id: str,
        *,
        statuses: Sequence[str] | None = ("active",),
        kind: str | None = None,
        layer: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[MemoryRecord]: ...
    def count_memories(self, user_id: str | None = None) -> dict[str, int]: ...
    def size_bytes(self) -> int:
        """Bytes the store occupies (SQLite: database file + WAL; PostgreSQL: its tables and indexes)."""
        ...

    def memory_facets(self, user_id: str | None = None, *, days: int = 30) -> dict[str, dict[str, int]]:
        """Counts by "status", "layer" and "kind", and "daily_new": first versions written per UTC day
        (YYYY-MM-DD) over the last ``days`` days."""
        ...

    def memories_in_slot(
        self, user_id: str, subject: str, slot: str, *, statuses: Sequence[str] | None = ("active",)
    ) -> list[MemoryRecord]:
        """The user's memories whose ``structured`` subject and slot are exactly these (string values),
        in write order; ``statuses=None`` means every status."""
        ...

    def memories_from_messages(
        self, user_id: str, message_ids: Sequence[str], *, statuses: Sequence[str] | None = ("active",)
    ) -> list[MemoryRecord]:
        """The user's memories whose first source is one of these messages (the statements said in
        them), in write order; ``statuses=None`` means every status."""
        ...

    def versions(self, memory_id: str) -> list[Version]: ...
    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]: ...
    def iter_users(self) -> Iterator[str]: ...

    # search ---------------------------------------------------------------------------------------
    def vector_search(
        self,
        user_id: str,
        query: np.ndarray,
        *,
        k: int,
        statuses: Sequence[str] = ("active",),
        near: bool = False,  # the write path's look-up of a statement's neighbours: an engine may use a graph
    ) -> list[tuple[str, float]]: ...
    def keyword_search(
        self, user_id: str, terms: Sequence[str], *, k: int, statuses: Sequence[str] = ("active",)
    ) -> list[tuple[str, float]]: ...
    def time_range_search(
        self, user_id: str, start: datetime, end: datetime, *, k: int, statuses: Sequence[str] = ("active",)
    ) -> list[str]: ...
    def touch(self, ids: Iterable[str], at: datetime) -> None: ...

    # audit ----------------------------------------------------------------------------------------
    def add_audit(self, events: Iterable[AuditEvent]) -> None: ...
    def audit_for(self, *, memory_id: str | None = None, user_id: str | None = None) -> list[AuditEvent]: ...
    def bump_counter(self, user_id: str, name: str, n: int = 1) -> None: ...
    def counters(self, user_id: str | None = None) -> dict[str, int]: ...

    # sessions, working memory ------------------------------------------------------------------------
    def append_session_messages(
        self, session_id: str, user_id: str, rows: Sequence[dict[str, Any]]
    ) -> None: ...
    def session_messages(self, session_id: str, *, last: int | None = None) -> list[SessionMessageRow]: ...
    def get_session(self, session_id: str) -> SessionRow | None: ...
    def put_session(self, session_id: str, user_id: str, *, summary: str, summarized_upto: int) -> None: ...
    def put_working(
        self, user_id: str, task_id: str, key: str, value: Any, *, kind: str, expire_at: datetime | None
    ) -> None: ...
    def working_items(self, user_id: str, task_id: str | None = None) -> list[WorkingItemRow]: ...
    def delete_working(self, user_id: str, task_id: str, key: str | None = None) -> int: ...
    def expire_working(self, now: datetime) -> int:
        """Delete every user's working items whose expiry is at or before ``now``; how many went."""
        ...

    # durable job queue ----------------------------------------------------------------------------
    def enqueue(self, kind: str, payload: dict[str, Any], *, run_after: datetime | None = None) -> int: ...
    def claim_jobs(self, *, limit: int, now: datetime) -> list[JobRow]:
        """Due pending jobs become 'running' (attempts + 1), oldest first; never handed out twice."""
        ...

    def finish_job(self, job_id: int) -> None:
        """The job is done: it leaves the queue."""
        ...

    def fail_job(self, job_id: int, error: str, *, retry_at: datetime | None) -> None:
        """The attempt failed: pending again from ``retry_at``, or with ``retry_at=None`` 'failed' for
        good, kept with ``error`` (cut to 500 characters) for stats and review."""
        ...

    def requeue_running(self) -> int:
        """Jobs left 'running' by a worker that is gone go back to pending; failed jobs stay failed."""
        ...

    def pending_jobs(self) -> int:
        """Jobs still to run: pending or running."""
        ...

    def job_counts(self) -> dict[str, int]:
        """Jobs by status; 'pending', 'running' and 'failed' are always present."""
        ...

    def failed_jobs(self, limit: int = 50) -> list[JobRow]:
        """The failed jobs, the latest first."""
        ...

    # vault ----------------------------------------------------------------------------------------
    def put_secret(
        self, user_id: str, memory_id: str, label: str, kind: str, blob: bytes, key_id: str
    ) -> None: ...
    def secrets_for(self, memory_id: str) -> list[SecretRow]: ...
    def all_secrets(self) -> list[SecretRow]: ...
    def replace_secret(self, secret_id: int, blob: bytes, key_id: str) -> None: ...

    # erase ----------------------------------------------------------------------------------------
    def forget_user(self, user_id: str) -> int: ...
