"""The scale-out store: PostgreSQL through psycopg 3 (a connection pool) with pgvector and tsvector.

Same tables as the SQLite store. ``PostgresStore`` composes one mixin per area over the pool plumbing
(``connection.py``): memories, search, jobs, sessions and working memory, vault, audit and counters.
This module opens the store, applies the migrations and holds what spans every area: meta,
maintenance and erasure.
"""

from __future__ import annotations

from pathlib import Path

import psycopg

from memscribe.errors import MigrationError, StoreError
from memscribe.store.codec import now
from memscribe.store.meta import EmbedderRecord
from memscribe.store.postgres.connection import MIGRATION_LOCK, split_store_url, translate
from memscribe.store.postgres.counters import PostgresCounters
from memscribe.store.postgres.jobs import PostgresJobs
from memscribe.store.postgres.memories import PostgresMemories
from memscribe.store.postgres.migrations import LATEST, MIGRATIONS
from memscribe.store.postgres.search import PostgresSearch
from memscribe.store.postgres.sessions import PostgresSessions
from memscribe.store.postgres.vault import PostgresVault
from memscribe.store.sql import USER_TABLES

__all__ = ["PostgresStore", "split_store_url"]

_TABLES = ("schema_migrations", "meta", "memories", "memory_vectors", "memory_terms", "jobs", *USER_TABLES)


class PostgresStore(
    PostgresMemories,
    PostgresSearch,
    PostgresJobs,
    PostgresSessions,
    PostgresVault,
    PostgresCounters,
    EmbedderRecord,
):
    """Store contract over PostgreSQL + pgvector. Thread-safe; many processes may share one database."""

    def __init__(self, url: str, *, schema: str | None = None, min_size: int = 1, max_size: int = 10) -> None:
        self._setup(url, schema)
        self._migrate()
        self._open_pool(min_size=min_size, max_size=max_size)
        dim = self.get_meta("vector_dim")
        self._dim = int(dim) if dim else None

    # ------------------------------------------------------------------ schema
    def _migrate(self) -> None:
        """Schema, extension and migrations in one transaction under an advisory lock: processes
        opening a new store at once apply everything exactly once."""
        with self._connect() as conn, translate("migrating the PostgreSQL store"), conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            if self.schema:
                conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
            if conn.execute("SELECT 1 FROM pg_extension WHERE extname='vector'").fetchone() is None:
                try:
                    with conn.transaction():
                        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                except psycopg.Error as exc:
                    raise MigrationError(
                        "the pgvector extension is not installed in this database and this role cannot "
                        f"create it ({exc}); run `CREATE EXTENSION vector;` as a superuser once"
                    ) from exc
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            current = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] or 0
            if current > LATEST:
                raise MigrationError(
                    f"store has schema version {current}, newer than this memscribe ({LATEST}); upgrade memscribe"
                )
            for version, name, sql in MIGRATIONS:
                if version <= current:
                    continue
                try:
                    with conn.transaction():
                        conn.execute(sql)
                except psycopg.Error as exc:
                    raise MigrationError(f"migration {version} {name} failed: {exc}") from exc
                conn.execute(
                    "INSERT INTO schema_migrations VALUES (%s, %s, %s)", (version, name, now().isoformat())
                )

    def schema_version(self) -> int:
        return int(self._one("SELECT max(version) FROM schema_migrations")[0] or 0)

    # ------------------------------------------------------------------ meta
    def get_meta(self, key: str) -> str | None:
        row = self._one("SELECT value FROM meta WHERE key=%s", (key,))
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self._all(
            "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    def _record_dim(self, dim: int, *, reset: bool) -> None:
        self._ensure_dim(dim, reset=reset)

    def check_embedder(self, name: str, dim: int, *, allow_reset: bool = False) -> None:
        super().check_embedder(name, dim, allow_reset=allow_reset)
        # opening a store with its recorded embedder also makes sure the vector index is there
        self._ensure_vector_index()

    # ------------------------------------------------------------------ maintenance
    def checkpoint(self) -> None:
        """PostgreSQL checkpoints on its own (the WAL is the server's business)."""

    def integrity_check(self) -> str:
        """'ok' when every memory with a vector or keyword entry is whole and no index row is orphaned."""
        bad = self._one(
            "SELECT (SELECT count(*) FROM memory_vectors v LEFT JOIN memories m ON m.pk = v.pk "
            "        WHERE m.pk IS NULL OR m.status <> v.status OR m.user_id <> v.user_id) "
            "     + (SELECT count(*) FROM memory_terms t LEFT JOIN memories m ON m.pk = t.pk "
            "        WHERE m.pk IS NULL OR m.status <> t.status OR m.user_id <> t.user_id)"
        )[0]
        return "ok" if bad == 0 else f"{bad} index rows do not match their memory"

    def backup_to(self, path: str | Path) -> None:
        raise StoreError(
            "backup() copies a SQLite file; back up a PostgreSQL store with the server's tools "
            "(pg_dump, base backups / PITR, or your provider's snapshots)"
        )

    def size_bytes(self) -> int:
        """Bytes of this store's tables, their indexes and TOAST data (not other tables of the database)."""
        row = self._one(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname = ANY(%s)",
            (list(_TABLES),),
        )
        return int(row[0])

    # ------------------------------------------------------------------ erase
    def forget_user(self, user_id: str) -> int:
        """Hard erase of everything of one user, in one transaction. The deleted tuples stay on disk
        until VACUUM reuses their space (``VACUUM FULL`` rewrites the tables if bytes must go now)."""

        def go(conn: psycopg.Connection) -> int:
            self._lock_user(conn, user_id)
            n = conn.execute("DELETE FROM memories WHERE user_id=%s", (user_id,)).rowcount
            for table in ("memory_vectors", "memory_terms", *USER_TABLES):
                conn.execute(f"DELETE FROM {table} WHERE user_id=%s", (user_id,))
            conn.execute("DELETE FROM jobs WHERE payload->>'user_id' = %s", (user_id,))
            return n

        with self.atomic():
            return int(self._run(go, "forgetting a user failed"))
