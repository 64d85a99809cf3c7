"""Storage: one Store contract (base.py), two engines: SQLite (embedded default) and PostgreSQL + pgvector.

``settings.store`` picks the engine by URL: unset or ``sqlite:///path`` → SQLite, ``postgresql://…``
(or ``postgres://…``; ``?schema=name`` selects a schema) → PostgreSQL.
"""

from __future__ import annotations

from memscribe.store.base import Store

__all__ = ["Store", "open_store"]


def open_store(settings) -> Store:  # type: ignore[no-untyped-def]
    url = settings.store
    if url and url.startswith(("postgresql://", "postgres://")):
        from memscribe.store.postgres.store import PostgresStore

        return PostgresStore(url)
    if url and "://" in url and not url.startswith("sqlite:///"):
        from memscribe.errors import StoreError

        raise StoreError(f"unknown store URL {url!r}: use sqlite:///path or postgresql://user@host/db")
    from memscribe.store.sqlite.store import SQLiteStore

    return SQLiteStore(settings.db_path)
