"""Memories on PostgreSQL: the row with its vector, keyword entry and links; versions; reads and counts.

The vector column has no dimension until the first embedder is recorded; ``_ensure_dim`` fixes it to
``vector(dim)`` and builds the HNSW index once per store.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta

import numpy as np
import psycopg

from memscribe.errors import EmbedderMismatch
from memscribe.models import MemoryRecord, Version
from memscribe.store import sql
from memscribe.store.codec import (
    MEMORY_SELECT,
    MEMORY_WRITE_COLUMNS,
    decode_memories,
    decode_version,
    encode_memory,
    encode_version,
    now,
    scope_token,
)
from memscribe.store.postgres.connection import (
    MIGRATION_LOCK,
    PostgresConnection,
    clean_text,
    keyword_terms,
    translate,
)
from memscribe.store.sql import POSTGRES

__all__ = ["PostgresMemories"]

# a bulk load of at least this many memories is vacuumed and analysed after its commit (bulk_load)
BULK_MAINTAIN_MIN = 1000

_HNSW_PARAMS = "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
_CREATE_HNSW = f"CREATE INDEX IF NOT EXISTS memory_vectors_hnsw ON memory_vectors {_HNSW_PARAMS}"
_HAS_HNSW = (
    "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'memory_vectors_hnsw'"
)

_UPSERT = (
    f"INSERT INTO memories ({', '.join(MEMORY_WRITE_COLUMNS)}) VALUES ({', '.join(['%s'] * len(MEMORY_WRITE_COLUMNS))}) "
    f"ON CONFLICT (id) DO UPDATE SET {', '.join(f'{c}=excluded.{c}' for c in MEMORY_WRITE_COLUMNS[1:])} "
    "RETURNING pk, (xmax = 0)"
)


def _instant(dt: datetime | None) -> datetime | None:
    return dt  # TIMESTAMPTZ columns take the datetime itself


class PostgresMemories(PostgresConnection):
    def _ensure_dim(self, dim: int, *, reset: bool = False) -> None:
        """Fix the vector column to ``vector(dim)`` and build its HNSW index, once per store. A reset to
        another dimension drops the old vectors (a reindex writes new ones)."""
        if self._dim == dim:
            return

        def go(conn: psycopg.Connection) -> None:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            row = conn.execute("SELECT value FROM meta WHERE key='vector_dim'").fetchone()
            have = int(row[0]) if row else None
            if have == dim:
                return
            if have is not None and not reset:
                raise EmbedderMismatch(f"this store holds {have}-d vectors; got a {dim}-d vector")
            conn.execute("DROP INDEX IF EXISTS memory_vectors_hnsw")
            if have is not None:
                conn.execute("DELETE FROM memory_vectors")
            conn.execute(f"ALTER TABLE memory_vectors ALTER COLUMN embedding TYPE vector({int(dim)})")
            conn.execute(_CREATE_HNSW)
            conn.execute(
                "INSERT INTO meta VALUES ('vector_dim', %s) ON CONFLICT (key) DO UPDATE SET value=excluded.value",
                (str(dim),),
            )

        if getattr(self._local, "conn", None) is None:
            with self.atomic():
                self._run(go, "setting the vector dimension failed")
            self._dim = dim
        else:  # known for sure only once the enclosing transaction commits
            self._run(go, "setting the vector dimension failed")
            self._local.pending_dim = dim

    def _ensure_vector_index(self) -> None:
        """Build the HNSW index if the store has typed vectors and the index is missing (dropped by hand, or
        lost to an older version's half-done load): without it every search of a large scope scans every
        vector, and nothing else would build it again. One catalogue read when it is there."""

        def go(conn: psycopg.Connection) -> None:
            if conn.execute(_HAS_HNSW).fetchone() is not None:
                return
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            if conn.execute("SELECT 1 FROM meta WHERE key='vector_dim'").fetchone() is not None:
                conn.execute(_CREATE_HNSW)

        with self.atomic():
            self._run(go, "building the vector index failed")

    def put_memory(
        self, rec: MemoryRecord, *, vector: np.ndarray | None = None, keyword_text: str | None = None
    ) -> None:
        values = encode_memory(rec, instant=_instant, clean=clean_text)
        vec = None if vector is None else np.asarray(vector, dtype=np.float32).reshape(-1)
        scope = (rec.user_id, rec.status.value)
        with self.atomic():
            if vec is not None:
                self._ensure_dim(int(vec.shape[0]))

            def go(conn: psycopg.Connection) -> None:
                self._lock_user(conn, rec.user_id)
                pk, created = conn.execute(_UPSERT, values).fetchone()
                if not created:  # the copies of user_id / status in the index tables follow the row
                    for table, rewritten in (
                        ("memory_vectors", vec is not None),
                        ("memory_terms", keyword_text),
                    ):
                        if not rewritten:
                            conn.execute(
                                f"UPDATE {table} SET user_id=%s, status=%s WHERE pk=%s AND (user_id, status) <> (%s, %s)",
                                (*scope, pk, *scope),
                            )
                if vec is not None:
                    conn.execute(
                        "INSERT INTO memory_vectors (pk, user_id, status, embedding) VALUES (%s, %s, %s, %s) "
                        "ON CONFLICT (pk) DO UPDATE SET embedding=excluded.embedding, "
                        "user_id=excluded.user_id, status=excluded.status",
                        (pk, *scope, vec),
                    )
                if keyword_text is not None:
                    terms = keyword_terms(keyword_text)
                    conn.execute(
                        "INSERT INTO memory_terms (pk, user_id, status, terms, tsv) VALUES "
                        "(%s, %s, %s, %s, to_tsvector('memscribe_kw', %s) || %s::tsvector) "
                        "ON CONFLICT (pk) DO UPDATE SET user_id=excluded.user_id, status=excluded.status, "
                        "terms=excluded.terms, tsv=excluded.tsv",
                        (pk, *scope, terms, terms, scope_token(rec.user_id)),
                    )
                if not created:
                    conn.execute("DELETE FROM links WHERE src=%s", (rec.id,))
                if rec.links:
                    conn.cursor().executemany(
                        "INSERT INTO links VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                        [(rec.id, link.target, link.type, rec.user_id) for link in rec.links],
                    )

            self._run(go, "writing a memory failed")

    def put_memories(self, items: Sequence[tuple[MemoryRecord, np.ndarray | None, str | None]]) -> None:
        """Many ``put_memory`` calls in one transaction, batched: the new rows in one pipelined
        statement batch, their vectors in one binary COPY, keyword entries and links in one batch each
        (three round trips per memory become a handful per batch). An id already stored, or repeated in
        the batch, takes ``put_memory``'s path."""
        items = list(items)
        if not items:
            return
        with self.atomic():
            dims = {int(np.asarray(v).reshape(-1).shape[0]) for _, v, _ in items if v is not None}
            for dim in sorted(dims):
                self._ensure_dim(dim)  # a second dimension fails here, as put_memory would
            later: list[tuple[MemoryRecord, np.ndarray | None, str | None]] = []

            def go(conn: psycopg.Connection) -> None:
                ids = [rec.id for rec, _, _ in items]
                stored = {r[0] for r in conn.execute("SELECT id FROM memories WHERE id = ANY(%s)", (ids,))}
                fresh, seen = [], set()
                for item in items:
                    if item[0].id in stored or item[0].id in seen:
                        later.append(item)
                    else:
                        seen.add(item[0].id)
                        fresh.append(item)
                if not fresh:
                    return
                for user in sorted({rec.user_id for rec, _, _ in fresh}):
                    self._lock_user(conn, user)
                cur = conn.cursor()
                cur.executemany(
                    _UPSERT,
                    [encode_memory(rec, instant=_instant, clean=clean_text) for rec, _, _ in fresh],
                    returning=True,
                )
                pks = []
                while True:
                    pks.append(cur.fetchone()[0])  # type: ignore[index]
                    if not cur.nextset():
                        break
                rows = list(zip(pks, fresh, strict=True))
                with cur.copy(
                    "COPY memory_vectors (pk, user_id, status, embedding) FROM STDIN (FORMAT BINARY)"
                ) as cp:
                    cp.set_types(["int8", "text", "text", "vector"])
                    for pk, (rec, vec, _) in rows:
                        if vec is not None:
                            cp.write_row(
                                (
                                    pk,
                                    rec.user_id,
                                    rec.status.value,
                                    np.asarray(vec, dtype=np.float32).reshape(-1),
                                )
                            )
                terms = [
                    (pk, rec.user_id, rec.status.value, t, t, scope_token(rec.user_id))
                    for pk, (rec, _, kw) in rows
                    if kw is not None
                    for t in [keyword_terms(kw)]
                ]
                if terms:
                    cur.executemany(
                        "INSERT INTO memory_terms (pk, user_id, status, terms, tsv) VALUES "
                        "(%s, %s, %s, %s, to_tsvector('memscribe_kw', %s) || %s::tsvector)",
                        terms,
                    )
                links = [(rec.id, ln.target, ln.type, rec.user_id) for rec, _, _ in fresh for ln in rec.links]
                if links:
                    cur.executemany("INSERT INTO links VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING", links)

            self._run(go, "writing memories failed")
            for rec, vec, kw in later:
                self.put_memory(rec, vector=vec, keyword_text=kw)

    @contextmanager
    def bulk_load(self, expected: int) -> Iterator[None]:
        """One transaction for a load of about ``expected`` new memories. When they are at least as many
        as the vectors already stored, the HNSW index is dropped for the load and built once before the
        commit: pgvector inserts a vector into the graph at ~350 rows/s here and builds one at ~2,500
        (a rollback keeps the old index). Concurrent readers of the vectors wait for the commit."""
        outermost = getattr(self._local, "conn", None) is None
        with self.atomic():
            rebuild = False

            def go(conn: psycopg.Connection) -> None:
                nonlocal rebuild
                held = conn.execute("SELECT count(*) FROM memory_vectors").fetchone()[0]  # type: ignore[index]
                rebuild = expected >= held
                if rebuild:
                    conn.execute("DROP INDEX IF EXISTS memory_vectors_hnsw")

            self._run(go, "preparing a bulk load failed")
            yield
            if rebuild:

                def build(conn: psycopg.Connection) -> None:
                    # built whether or not the load found one (a missing index comes back); not before the
                    # store knows its vectors' dimension (an index needs a typed column)
                    if conn.execute("SELECT 1 FROM meta WHERE key='vector_dim'").fetchone() is not None:
                        conn.execute(_CREATE_HNSW)

                self._run(build, "rebuilding the vector index failed")
        if outermost and expected >= BULK_MAINTAIN_MIN:
            # fresh rows carry no hint bits and no visibility-map bits, and the planner's statistics predate
            # the load: until autovacuum comes by, every read pays for them (keyword search of a 100k scope
            # 13 ms before, 4 ms after). VACUUM cannot run inside a transaction, so it follows the commit.
            with self._connect() as conn, translate("vacuuming after a bulk load failed"):
                conn.execute("VACUUM (ANALYZE) memories, memory_vectors, memory_terms")

    def add_version(self, rec: MemoryRecord, *, reason: str, actor: str, at: datetime) -> None:
        def go(conn: psycopg.Connection) -> None:
            if getattr(self._local, "conn", None) is conn:
                self._lock_user(conn, rec.user_id)
            conn.execute(
                "INSERT INTO versions VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (memory_id, version) "
                "DO UPDATE SET record=excluded.record, reason=excluded.reason, actor=excluded.actor, "
                "created_at=excluded.created_at, user_id=excluded.user_id",
                encode_version(rec, reason=reason, actor=actor, at=at, clean=clean_text),
            )

        self._run(go, "writing a version failed")

    def get_memory(self, memory_id: str) -> MemoryRecord | None:
        recs = decode_memories(self._all(f"SELECT {MEMORY_SELECT} FROM memories WHERE id=%s", (memory_id,)))
        return recs[0] if recs else None

    def get_memories(self, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        rows = self._all(f"SELECT {MEMORY_SELECT} FROM memories WHERE id = ANY(%s)", (ids,))
        return {r.id: r for r in decode_memories(rows)}

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
            POSTGRES, user_id, statuses=statuses, kind=kind, layer=layer, limit=limit, offset=offset
        )
        return decode_memories(self._all(*q))

    def memories_in_slot(
        self, user_id: str, subject: str, slot: str, *, statuses: Sequence[str] | None = ("active",)
    ) -> list[MemoryRecord]:
        """The user's memories whose structured subject and slot are exactly these, in write order."""
        identity = (clean_text(subject), clean_text(slot))
        return decode_memories(
            self._all(*sql.select_memories(POSTGRES, user_id, statuses=statuses, slot=identity))
        )

    def memories_from_messages(
        self, user_id: str, message_ids: Sequence[str], *, statuses: Sequence[str] | None = ("active",)
    ) -> list[MemoryRecord]:
        """The user's memories first said in these messages, in write order."""
        if not message_ids:
            return []
        return decode_memories(
            self._all(*sql.select_memories(POSTGRES, user_id, statuses=statuses, origins=list(message_ids)))
        )

    def count_memories(self, user_id: str | None = None) -> dict[str, int]:
        return {r[0]: int(r[1]) for r in self._all(*sql.count_by(POSTGRES, "status", user_id))}

    def memory_facets(self, user_id: str | None = None, *, days: int = 30) -> dict[str, dict[str, int]]:
        out = {
            facet: {r[0]: int(r[1]) for r in self._all(*sql.count_by(POSTGRES, facet, user_id))}
            for facet in ("status", "layer", "kind")
        }
        since = (now() - timedelta(days=days)).isoformat()
        out["daily_new"] = {r[0]: int(r[1]) for r in self._all(*sql.daily_new(POSTGRES, user_id, since))}
        return out

    def versions(self, memory_id: str) -> list[Version]:
        rows = self._all(
            "SELECT memory_id, version, record, reason, actor, created_at FROM versions "
            "WHERE memory_id=%s ORDER BY version",
            (memory_id,),
        )
        return [decode_version(r) for r in rows]

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        rows = self._all(
            "SELECT m.id, v.embedding FROM memories m JOIN memory_vectors v ON v.pk = m.pk WHERE m.id = ANY(%s)",
            (ids,),
        )
        return {
            r[0]: np.asarray(r[1].to_numpy() if hasattr(r[1], "to_numpy") else r[1], dtype=np.float32)
            for r in rows
        }

    def iter_users(self) -> Iterator[str]:
        for r in self._all("SELECT DISTINCT user_id FROM memories ORDER BY user_id"):
            yield r[0]
