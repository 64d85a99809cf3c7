"""Storage: one Store contract (base.py), two engines (SQLite embedded default, PostgreSQL later)."""

from __future__ import annotations

from memscribe.store.base import Store

__all__ = ["Store", "open_store"]


def open_store(settings) -> Store:  # type: ignore[no-untyped-def]
    url = settings.store
    if url and url.startswith(("postgresql://", "postgres://")):
        from memscribe.errors import StoreError

        raise StoreError("the PostgreSQL store is not available in this build yet; use the SQLite default")
    from memscribe.store.sqlite.store import SQLiteStore

    return SQLiteStore(settings.db_path)
