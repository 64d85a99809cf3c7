"""PostgreSQL + pgvector engine (``pip install 'memscribe[postgres]'``)."""

from memscribe.store.postgres.store import PostgresStore, split_store_url

__all__ = ["PostgresStore", "split_store_url"]
