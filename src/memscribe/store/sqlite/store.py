"""The embedded store: one SQLite file (WAL) through apsw, sqlite-vec for vectors, FTS5 for BM25.

``SQLiteStore`` composes one mixin per area over the connection plumbing (``connection.py``):
memories, search, jobs, sessions and working memory, vault, audit and counters. This module opens the
file, applies the migrations and holds what spans every area: meta, maintenance and erasure.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import apsw

from memscribe.errors import MigrationError, StoreError
from memscribe.store.codec import now
from memscribe.store.meta import EmbedderRecord
from memscribe.store.private import private_file
from memscribe.store.sql import USER_TABLES
from memscribe.store.sqlite import vector_sidecar
from memscribe.store.sqlite.counters import SQLiteCounters
from memscribe.store.sqlite.jobs import SQLiteJobs
from memscribe.store.sqlite.memories import SQLiteMemories
from memscribe.store.sqlite.migrations import LATEST, MIGRATIONS
from memscribe.store.sqlite.search import SQLiteSearch
from memscribe.store.sqlite.sessions import SQLiteSessions
from memscribe.store.sqlite.vault import SQLiteVault
from memscribe.store.sqlite.vector_cache import VectorCache

__all__ = ["SQLiteStore"]


class SQLiteStore(
    SQLiteMemories, SQLiteSearch, SQLiteJobs, SQLiteSessions, SQLiteVault, SQLiteCounters, EmbedderRecord
):
    """Store contract over SQLite. Thread-safe: one connection guarded by a re-entrant lock."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        self._vectors = VectorCache()
        self._migrate()

    # ------------------------------------------------------------------ schema
    def _migrate(self) -> None:
        """Each pending migration commits together with the row that records it (one transaction)."""
        with self.atomic():
            have = {r[0] for r in self._exec("SELECT name FROM sqlite_master WHERE type='table'")}
            if "schema_migrations" not in have:
                self._exec(
                    "CREATE TABLE schema_migrations "
                    "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
                )
            current = self.schema_version()
            if current > LATEST:
                raise MigrationError(
                    f"store {self.path} has schema version {current}, newer than this memscribe ({LATEST}); "
                    "upgrade memscribe"
                )
            for version, name, sql in MIGRATIONS:
                if version <= current:
                    continue
                try:
                    self._conn.execute(sql)
                except apsw.Error as exc:
                    raise MigrationError(f"migration {version} {name} failed: {exc}") from exc
                self._exec(
                    "INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, now().isoformat())
                )

    def schema_version(self) -> int:
        return int(self._exec("SELECT max(version) FROM schema_migrations")[0][0] or 0)

    # ------------------------------------------------------------------ meta
    def get_meta(self, key: str) -> str | None:
        rows = self._exec("SELECT value FROM meta WHERE key=?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self._exec(
            "INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value)
        )

    def _describe(self) -> str:
        return f"store {self.path}"

    # ------------------------------------------------------------------ maintenance
    def checkpoint(self) -> None:
        """Fold the WAL into the main file and truncate it."""
        self._exec("PRAGMA wal_checkpoint(TRUNCATE)")

    def integrity_check(self) -> str:
        return str(self._exec("PRAGMA integrity_check")[0][0])

    def backup_to(self, path: str | Path) -> None:
        """A consistent copy of the whole file while the store is in use (SQLite's online backup), owner-only
        like the store itself."""
        try:
            private_file(path)
            dest = apsw.Connection(str(path))
        except (apsw.Error, OSError) as exc:
            raise StoreError(f"cannot write a backup to {path}: {exc}") from exc
        try:
            with self._lock, dest.backup("main", self._conn, "main") as b:
                while not b.done:
                    b.step(1024)
        finally:
            dest.close()

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(FileNotFoundError):
                total += Path(str(self.path) + suffix).stat().st_size
        return total

    def close(self) -> None:
        """Save the large scopes' vector matrices that grew since they were loaded, then close the file."""
        with contextlib.suppress(
            StoreError, OSError
        ):  # a snapshot is an optimisation, never a reason to fail
            self.save_vector_snapshots()
        super().close()

    # ------------------------------------------------------------------ erase
    def forget_user(self, user_id: str) -> int:
        """Hard erase of everything of one user; then FTS segments are rewritten and the WAL truncated so
        no byte of the user's text is left in the files (secure_delete zeroes the freed pages)."""
        with self.atomic():
            pks = [r[0] for r in self._exec("SELECT pk FROM memories WHERE user_id=?", (user_id,))]
            self._exec_many("DELETE FROM memories_fts WHERE rowid=?", [(pk,) for pk in pks])
            self._exec("DELETE FROM memory_vectors WHERE user_id=?", (user_id,))
            self._vectors.drop(user_id)
            self._exec("DELETE FROM meta WHERE key=?", (vector_sidecar.meta_key(user_id),))
            vector_sidecar.erase(self.path, user_id)
            self._exec("DELETE FROM memories WHERE user_id=?", (user_id,))
            for table in USER_TABLES:
                self._exec(f"DELETE FROM {table} WHERE user_id=?", (user_id,))
            self._exec("DELETE FROM jobs WHERE json_extract(payload, '$.user_id') = ?", (user_id,))
        self._exec("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
        # another connection may hold the WAL open; its checkpoint finishes the job
        with contextlib.suppress(StoreError):
            self.checkpoint()
        return len(pks)
