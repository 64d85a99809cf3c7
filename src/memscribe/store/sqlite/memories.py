"""Memories on SQLite: the row with its vector, keyword entry and links; versions; reads and counts."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta

import numpy as np

from memscribe.models import MemoryRecord, Version
from memscribe.store import sql
from memscribe.store.codec import (
    MEMORY_SELECT,
    MEMORY_WRITE_COLUMNS,
    decode_memories,
    decode_version,
    encode_memory,
    encode_version,
    epoch,
    now,
    scope_token,
)
from memscribe.store.sql import SQLITE
from memscribe.store.sqlite.connection import SQLiteConnection

__all__ = ["SQLiteMemories"]

_INSERT = sql.insert(SQLITE, "memories", MEMORY_WRITE_COLUMNS)
_UPDATE = f"UPDATE memories SET {', '.join(c + '=?' for c in MEMORY_WRITE_COLUMNS)} WHERE pk=?"
_CHUNK = 500  # ids bound per statement (SQLite's variable limit is far above; plans stay small)


def _marks(n: int) -> str:
    return ",".join("?" * n)


class SQLiteMemories(SQLiteConnection):
    def _pk(self, memory_id: str) -> int | None:
        rows = self._exec("SELECT pk FROM memories WHERE id=?", (memory_id,))
        return rows[0][0] if rows else None

    def put_memories(self, items: Sequence[tuple[MemoryRecord, np.ndarray | None, str | None]]) -> None:
        """Many ``put_memory`` calls in one transaction (in process, a statement costs no round trip)."""
        with self.atomic():
            for rec, vector, keyword_text in items:
                self.put_memory(rec, vector=vector, keyword_text=keyword_text)

    @contextmanager
    def bulk_load(self, expected: int) -> Iterator[None]:
        """One transaction for a load of about ``expected`` new memories (nothing to defer here)."""
        with self.atomic():
            yield

    def put_memory(
        self, rec: MemoryRecord, *, vector: np.ndarray | None = None, keyword_text: str | None = None
    ) -> None:
        values = encode_memory(rec, instant=epoch)
        with self.atomic():
            pk = self._pk(rec.id)
            created = pk is None
            if created:
                self._exec(_INSERT, values)
                pk = self._conn.last_insert_rowid()
            else:
                self._exec(_UPDATE, (*values, pk))
            # the store-wide write sequence lets the vector cache of any process catch up with this row
            seq = self._exec(
                "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='vseq' RETURNING value"
            )
            self._exec("UPDATE memories SET vseq=? WHERE pk=?", (int(seq[0][0]), pk))
            if vector is not None:
                blob = np.asarray(vector, dtype=np.float32).tobytes()
                self._exec(
                    "INSERT INTO memory_vectors (pk, user_id, embedding) VALUES (?, ?, ?) "
                    "ON CONFLICT(pk) DO UPDATE SET embedding=excluded.embedding, user_id=excluded.user_id",
                    (pk, rec.user_id, blob),
                )
            if keyword_text is not None:
                if not created:
                    self._exec("DELETE FROM memories_fts WHERE rowid=?", (pk,))
                self._exec(
                    "INSERT INTO memories_fts (rowid, scope, terms) VALUES (?, ?, ?)",
                    (pk, scope_token(rec.user_id), keyword_text),
                )
            if not created:
                self._exec("DELETE FROM links WHERE src=?", (rec.id,))
            for link in rec.links:
                self._exec(
                    "INSERT OR IGNORE INTO links VALUES (?, ?, ?, ?)",
                    (rec.id, link.target, link.type, rec.user_id),
                )

    def add_version(self, rec: MemoryRecord, *, reason: str, actor: str, at: datetime) -> None:
        self._exec(
            "INSERT OR REPLACE INTO versions VALUES (?, ?, ?, ?, ?, ?, ?)",
            encode_version(rec, reason=reason, actor=actor, at=at),
        )

    def get_memory(self, memory_id: str) -> MemoryRecord | None:
        recs = decode_memories(self._exec(f"SELECT {MEMORY_SELECT} FROM memories WHERE id=?", (memory_id,)))
        return recs[0] if recs else None

    def get_memories(self, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        out: dict[str, MemoryRecord] = {}
        ids = list(dict.fromkeys(ids))
        for i in range(0, len(ids), _CHUNK):
            chunk = ids[i : i + _CHUNK]
            rows = self._exec(
                f"SELECT {MEMORY_SELECT} FROM memories WHERE id IN ({_marks(len(chunk))})", chunk
            )
            out.update((r.id, r) for r in decode_memories(rows))
        return out

    def list_memories(
        self,
        user_id: str,
        *,
        statuses: Sequence[str] | None = ("active",),
        kind: str | None = None,
        layer: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[MemoryRecord]:
        q = sql.select_memories(
            SQLITE, user_id, statuses=statuses, kind=kind, layer=layer, limit=limit, offset=offset
        )
        return decode_memories(self._exec(*q))

    def memories_in_slot(
        self, user_id: str, subject: str, slot: str, *, statuses: Sequence[str] | None = ("active",)
    ) -> list[MemoryRecord]:
        """The user's memories whose structured subject and slot are exactly these, in write order."""
        return decode_memories(
            self._exec(*sql.select_memories(SQLITE, user_id, statuses=statuses, slot=(subject, slot)))
        )

    def memories_from_messages(
        self, user_id: str, message_ids: Sequence[str], *, statuses: Sequence[str] | None = ("active",)
    ) -> list[MemoryRecord]:
        """The user's memories first said in these messages, in write order."""
        if not message_ids:
            return []
        return decode_memories(
            self._exec(*sql.select_memories(SQLITE, user_id, statuses=statuses, origins=list(message_ids)))
        )

    def count_memories(self, user_id: str | None = None) -> dict[str, int]:
        return dict(self._exec(*sql.count_by(SQLITE, "status", user_id)))

    def memory_facets(self, user_id: str | None = None, *, days: int = 30) -> dict[str, dict[str, int]]:
        out = {
            facet: dict(self._read(*sql.count_by(SQLITE, facet, user_id)))
            for facet in ("status", "layer", "kind")
        }
        since = (now() - timedelta(days=days)).isoformat()
        out["daily_new"] = dict(self._read(*sql.daily_new(SQLITE, user_id, since)))
        return out

    def versions(self, memory_id: str) -> list[Version]:
        rows = self._exec(
            "SELECT memory_id, version, record, reason, actor, created_at FROM versions WHERE memory_id=? "
            "ORDER BY version",
            (memory_id,),
        )
        return [decode_version(r) for r in rows]

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        ids = list(dict.fromkeys(ids))
        for i in range(0, len(ids), _CHUNK):
            chunk = ids[i : i + _CHUNK]
            rows = self._exec(
                "SELECT m.id, v.embedding FROM memories m JOIN memory_vectors v ON v.pk = m.pk "
                f"WHERE m.id IN ({_marks(len(chunk))})",
                chunk,
            )
            out.update((r[0], np.frombuffer(r[1], dtype=np.float32)) for r in rows)
        return out

    def iter_users(self) -> Iterator[str]:
        for r in self._exec("SELECT DISTINCT user_id FROM memories ORDER BY user_id"):
            yield r[0]
