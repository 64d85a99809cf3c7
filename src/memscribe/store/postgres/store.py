"""The scale-out store: PostgreSQL through psycopg 3 (a connection pool) with pgvector and tsvector.

Same tables as the SQLite store. Vectors live in ``vector(dim)`` with an HNSW index (cosine);
a scope's KNN is an exact scan while the scope is small and an HNSW scan with pgvector's iterative
index scans (>= 0.8) when it is large, falling back to the exact scan when the filtered index scan
comes back short. Keyword search is a GIN-indexed ``tsvector`` over the jieba-segmented text the
SQLite store gets, ranked BM25-like (idf from the planner's statistics).

Threads: ``atomic()`` binds one pooled connection to the calling thread for the whole transaction
(nested calls become savepoints); every other call borrows a connection for one autocommit statement.
Writes of one user inside a transaction take a per-user advisory lock first, so concurrent writers of
the same user queue up instead of deadlocking, and writers of different users never wait on each other.
psycopg errors are translated to ``memscribe.errors`` in ``_translate`` (one boundary).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import re
import threading
import time
import unicodedata
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np

from memscribe.errors import ConcurrencyError, EmbedderMismatch, MigrationError, StoreError
from memscribe.models import AuditEvent, MemoryRecord, Version
from memscribe.store.base import Job
from memscribe.store.postgres.migrations import LATEST, MIGRATIONS

try:
    import psycopg
    from pgvector.psycopg import register_vector
    from psycopg import errors as pg_errors
    from psycopg.rows import tuple_row
    from psycopg_pool import ConnectionPool
except ImportError as exc:  # pragma: no cover - depends on the install
    raise StoreError(
        "the PostgreSQL store needs psycopg and pgvector: pip install 'memscribe[postgres]'"
    ) from exc

__all__ = ["PostgresStore", "split_store_url"]

_COLUMNS = (
    "id, user_id, agent_id, session_id, layer, kind, status, text, raw, structured, entities, links, "
    "sources, metadata, time_start, time_end, importance, timeliness, confidence, superseded_by, "
    "created_at, updated_at, last_accessed_at, access_count, expire_at, version"
)
_KEYS = tuple(c.strip() for c in _COLUMNS.split(","))
_MIGRATION_LOCK = 0x6D656D73  # advisory lock key of schema migrations ("mems")
_RETRYABLE = (pg_errors.DeadlockDetected, pg_errors.SerializationFailure, pg_errors.LockNotAvailable)


def _iso(dt: datetime | None) -> str | None:
    return dt.isoformat() if dt is not None else None


def _now() -> datetime:
    return datetime.now(UTC)


def _scope_token(user_id: str) -> str:
    return "s" + hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _user_lock_key(user_id: str) -> int:
    return int.from_bytes(
        hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).digest()[:8], "big", signed=True
    )


def _clean(text: str) -> str:
    # PostgreSQL text cannot hold NUL; lone surrogates cannot be encoded to UTF-8
    return text.replace("\x00", "").encode("utf-8", "replace").decode("utf-8")


_TOKEN = re.compile(r"[^\W_]+")


def _terms(text: str) -> str:
    """Text as the keyword index sees it, whatever the server's locale: letter/digit runs (as FTS5's
    unicode61 splits them), lower case, diacritics removed. Chinese arrives already segmented by jieba."""
    text = unicodedata.normalize("NFKD", _clean(text).lower())
    text = unicodedata.normalize("NFC", "".join(c for c in text if not unicodedata.combining(c)))
    return " ".join(_TOKEN.findall(text))


def split_store_url(url: str) -> tuple[str, str | None]:
    """``postgresql://…?schema=name`` → (libpq conninfo without ``schema``, schema). The schema lets
    several stores (tests, tenants) share one database."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), None)
    rest = urlencode([(k, v) for k, v in query if k != "schema"])
    scheme = "postgresql" if parts.scheme == "postgres" else parts.scheme
    return urlunsplit((scheme, parts.netloc, parts.path, rest, parts.fragment)), schema


@contextmanager
def _translate(what: str) -> Iterator[None]:
    """Foreign errors become memscribe errors here, and only here."""
    try:
        yield
    except _RETRYABLE as exc:
        raise ConcurrencyError(f"{what}: {exc}") from exc
    except psycopg.OperationalError as exc:
        raise StoreError(f"{what}: the PostgreSQL server is unreachable or refused: {exc}") from exc
    except psycopg.Error as exc:
        raise StoreError(f"{what}: {exc}") from exc


class PostgresStore:
    """Store contract over PostgreSQL + pgvector. Thread-safe; many processes may share one database."""

    exact_max_scope = 1000  # vectors in a scope up to which KNN is an exact scan (no index, recall 1.0)
    ef_search = 64
    retries = 6  # standalone statements hit by a deadlock / serialization failure are retried

    def __init__(self, url: str, *, schema: str | None = None, min_size: int = 1, max_size: int = 10) -> None:
        conninfo, url_schema = split_store_url(url)
        self.url = url
        self.schema = schema or url_schema
        self.instance = f"memscribe:{uuid.uuid4().hex[:16]}"
        kwargs: dict[str, Any] = {"application_name": self.instance, "autocommit": True}
        if self.schema:
            if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", self.schema):
                raise StoreError(
                    f"invalid schema name {self.schema!r}: lower-case letters, digits and _ only"
                )
            kwargs["options"] = f"-c search_path={self.schema},public"
        self._conninfo, self._kwargs = conninfo, kwargs
        self._local = threading.local()
        self._dim: int | None = None
        self._migrate()
        self._iterative = self._vector_version() >= (0, 8)
        self._pool = ConnectionPool(
            conninfo,
            kwargs=kwargs,
            min_size=min_size,
            max_size=max_size,
            configure=self._configure,
            open=False,
            name=self.instance,
        )
        with _translate("cannot open the PostgreSQL store"):
            self._pool.open(wait=True, timeout=30)
        dim = self.get_meta("vector_dim")
        self._dim = int(dim) if dim else None

    # ------------------------------------------------------------------ plumbing
    def _configure(self, conn: psycopg.Connection) -> None:
        """Every pooled connection: the vector type, and the HNSW scan settings filtered KNN relies on
        (iterative index scans keep going until k rows pass the scope and status filters)."""
        register_vector(conn)
        # short OLTP statements only: JIT compilation would cost more than any of them (and the cost
        # penalty of enable_sort = off in _ann_search would otherwise trigger it)
        conn.execute("SET jit = off")
        conn.execute(f"SET hnsw.ef_search = {int(self.ef_search)}")
        if self._iterative:
            conn.execute("SET hnsw.iterative_scan = relaxed_order")

    def _connect(self) -> psycopg.Connection:
        with _translate("cannot connect to the PostgreSQL store"):
            return psycopg.connect(self._conninfo, **self._kwargs)

    def _vector_version(self) -> tuple[int, ...]:
        with self._connect() as conn, _translate("reading the pgvector version"):
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname='vector'").fetchone()
        return tuple(int(p) for p in str(row[0]).split(".")[:2]) if row else (0, 0)

    def _migrate(self) -> None:
        """Schema, extension and migrations in one transaction under an advisory lock: processes
        opening a new store at once apply everything exactly once."""
        with self._connect() as conn, _translate("migrating the PostgreSQL store"), conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
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
                    f"store has schema version {current}, newer than this memscribe ({LATEST}); "
                    "upgrade memscribe"
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
                    "INSERT INTO schema_migrations VALUES (%s, %s, %s)", (version, name, _now().isoformat())
                )

    def schema_version(self) -> int:
        return int(self._one("SELECT max(version) FROM schema_migrations")[0] or 0)

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection]:
        """The thread's transaction connection inside atomic(), else a pooled autocommit connection."""
        bound = getattr(self._local, "conn", None)
        if bound is not None:
            yield bound
            return
        with _translate("cannot get a PostgreSQL connection"):
            cm = self._pool.connection(timeout=60)
            conn = cm.__enter__()
        try:
            yield conn
        except BaseException as exc:
            cm.__exit__(type(exc), exc, exc.__traceback__)
            raise
        cm.__exit__(None, None, None)

    def _run(self, fn, what: str):  # type: ignore[no-untyped-def]
        """fn(conn) once inside a transaction, or with retries on deadlock / serialization failure when
        standalone (then nothing of a failed attempt was committed, so a retry is safe)."""
        inside = getattr(self._local, "conn", None) is not None
        for attempt in range(1 if inside else self.retries):
            try:
                with self._conn() as conn, _translate(what):
                    return fn(conn)
            except ConcurrencyError:
                if inside or attempt == self.retries - 1:
                    raise
                time.sleep(0.01 * (2**attempt))
        raise AssertionError("unreachable")

    def _all(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple]:
        def go(conn: psycopg.Connection) -> list[tuple]:
            cur = conn.cursor(row_factory=tuple_row)
            cur.execute(sql, params)
            return cur.fetchall() if cur.description is not None else []

        return self._run(go, "store query failed")

    def _one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> tuple:
        rows = self._all(sql, params)
        return rows[0] if rows else ()

    def _rowcount(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> int:
        return self._run(lambda conn: conn.execute(sql, params).rowcount, "store write failed")

    def _lock_user(self, conn: psycopg.Connection, user_id: str) -> None:
        """Inside a transaction: serialize this user's writers (released at commit / rollback)."""
        held = self._local.users
        if user_id not in held:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_user_lock_key(user_id),))
            held.add(user_id)

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction on one connection for this thread; nested calls become savepoints; an
        exception rolls back (to the savepoint when nested) and propagates."""
        bound = getattr(self._local, "conn", None)
        if bound is not None:
            with _translate("savepoint failed"):
                tx = bound.transaction()
                tx.__enter__()
            try:
                yield
            except BaseException as exc:
                with contextlib.suppress(psycopg.Error):
                    tx.__exit__(type(exc), exc, exc.__traceback__)
                self._local.users = set()  # user locks taken inside the savepoint went with it
                raise
            with _translate("releasing a savepoint failed"):
                tx.__exit__(None, None, None)
            return
        with self._conn() as conn:
            self._local.conn, self._local.users = conn, set()
            try:
                with _translate("transaction failed"):
                    tx = conn.transaction()
                    tx.__enter__()
                try:
                    yield
                except BaseException as exc:
                    with contextlib.suppress(psycopg.Error):
                        tx.__exit__(type(exc), exc, exc.__traceback__)
                    raise
                with _translate("commit failed"):
                    tx.__exit__(None, None, None)
                if getattr(self._local, "pending_dim", None) is not None:
                    self._dim = self._local.pending_dim
            finally:
                self._local.conn, self._local.users, self._local.pending_dim = None, set(), None

    def close(self) -> None:
        self._pool.close()

    # SQLite-only maintenance: no-ops or typed errors -------------------------------------------------
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

    def backup_to(self, path: Any) -> None:
        raise StoreError(
            "backup() copies a SQLite file; back up a PostgreSQL store with the server's tools "
            "(pg_dump, base backups / PITR, or your provider's snapshots)"
        )

    # ------------------------------------------------------------------ meta
    def get_meta(self, key: str) -> str | None:
        row = self._one("SELECT value FROM meta WHERE key=%s", (key,))
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self._all(
            "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    def check_embedder(self, name: str, dim: int, *, allow_reset: bool = False) -> None:
        have_name, have_dim = self.get_meta("embedder"), self.get_meta("embedder_dim")
        if have_name is None or allow_reset:
            with self.atomic():
                self._ensure_dim(dim, reset=allow_reset)
                self.set_meta("embedder", name)
                self.set_meta("embedder_dim", str(dim))
            return
        if have_name != name or int(have_dim or 0) != dim:
            raise EmbedderMismatch(
                f"store was built with embedder {have_name} ({have_dim}-d) but {name} ({dim}-d) "
                "is configured; mixing them silently ruins recall. Run `memscribe reindex` to re-embed."
            )

    def _ensure_dim(self, dim: int, *, reset: bool = False) -> None:
        """Fix the vector column to ``vector(dim)`` and build its HNSW index, once per store. A reset to
        another dimension drops the old vectors (a reindex writes new ones)."""
        if self._dim == dim:
            return

        def go(conn: psycopg.Connection) -> None:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
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
            conn.execute(
                "CREATE INDEX memory_vectors_hnsw ON memory_vectors "
                "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
            )
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

    # ------------------------------------------------------------------ memories
    def put_memory(
        self, rec: MemoryRecord, *, vector: np.ndarray | None = None, keyword_text: str | None = None
    ) -> None:
        d = rec.model_dump(mode="json")
        values = (
            rec.id,
            rec.user_id,
            rec.agent_id,
            rec.session_id,
            rec.layer.value,
            rec.kind.value,
            rec.status.value,
            _clean(rec.text),
            _clean(rec.raw),
            _clean(json.dumps(d["structured"], ensure_ascii=False)),
            _clean(json.dumps(d["entities"], ensure_ascii=False)),
            _clean(json.dumps(d["links"], ensure_ascii=False)),
            _clean(json.dumps(d["sources"], ensure_ascii=False)),
            _clean(json.dumps(d["metadata"], ensure_ascii=False)),
            _iso(rec.time_start),
            _iso(rec.time_end),
            rec.time_start,
            rec.time_end,
            rec.importance,
            rec.timeliness,
            rec.confidence,
            rec.superseded_by,
            _iso(rec.created_at),
            _iso(rec.updated_at),
            rec.created_at,
            _iso(rec.last_accessed_at),
            rec.access_count,
            _iso(rec.expire_at),
            rec.version,
        )
        vec = None if vector is None else np.asarray(vector, dtype=np.float32).reshape(-1)
        with self.atomic():
            if vec is not None:
                self._ensure_dim(int(vec.shape[0]))

            def go(conn: psycopg.Connection) -> None:
                self._lock_user(conn, rec.user_id)
                pk, created = conn.execute(
                    "INSERT INTO memories (id, user_id, agent_id, session_id, layer, kind, status, text, raw, "
                    "structured, entities, links, sources, metadata, time_start, time_end, time_start_ts, "
                    "time_end_ts, importance, timeliness, confidence, superseded_by, created_at, updated_at, "
                    "created_ts, last_accessed_at, access_count, expire_at, version) "
                    "VALUES ("
                    + ",".join(["%s"] * 29)
                    + ") ON CONFLICT (id) DO UPDATE SET "
                    + ", ".join(f"{c}=excluded.{c}" for c in _INSERT_COLS[1:])
                    + " RETURNING pk, (xmax = 0)",
                    values,
                ).fetchone()
                if not created:  # the copies of user_id / status in the index tables follow the row
                    if vec is None:
                        conn.execute(
                            "UPDATE memory_vectors SET user_id=%s, status=%s WHERE pk=%s "
                            "AND (user_id, status) <> (%s, %s)",
                            (rec.user_id, rec.status.value, pk, rec.user_id, rec.status.value),
                        )
                    if keyword_text is None:
                        conn.execute(
                            "UPDATE memory_terms SET user_id=%s, status=%s WHERE pk=%s "
                            "AND (user_id, status) <> (%s, %s)",
                            (rec.user_id, rec.status.value, pk, rec.user_id, rec.status.value),
                        )
                if vec is not None:
                    conn.execute(
                        "INSERT INTO memory_vectors (pk, user_id, status, embedding) VALUES (%s, %s, %s, %s) "
                        "ON CONFLICT (pk) DO UPDATE SET embedding=excluded.embedding, "
                        "user_id=excluded.user_id, status=excluded.status",
                        (pk, rec.user_id, rec.status.value, vec),
                    )
                if keyword_text is not None:
                    terms = _terms(keyword_text)
                    conn.execute(
                        "INSERT INTO memory_terms (pk, user_id, status, terms, tsv) VALUES "
                        "(%s, %s, %s, %s, to_tsvector('memscribe_kw', %s) || %s::tsvector) "
                        "ON CONFLICT (pk) DO UPDATE SET user_id=excluded.user_id, status=excluded.status, "
                        "terms=excluded.terms, tsv=excluded.tsv",
                        (pk, rec.user_id, rec.status.value, terms, terms, _scope_token(rec.user_id)),
                    )
                if not created:
                    conn.execute("DELETE FROM links WHERE src=%s", (rec.id,))
                if rec.links:
                    conn.cursor().executemany(
                        "INSERT INTO links VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                        [(rec.id, link.target, link.type, rec.user_id) for link in rec.links],
                    )

            self._run(go, "writing a memory failed")

    def add_version(self, rec: MemoryRecord, *, reason: str, actor: str, at: datetime) -> None:
        def go(conn: psycopg.Connection) -> None:
            if getattr(self._local, "conn", None) is conn:
                self._lock_user(conn, rec.user_id)
            conn.execute(
                "INSERT INTO versions VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (memory_id, version) "
                "DO UPDATE SET record=excluded.record, reason=excluded.reason, actor=excluded.actor, "
                "created_at=excluded.created_at, user_id=excluded.user_id",
                (
                    rec.id,
                    rec.version,
                    _clean(rec.model_dump_json()),
                    _clean(reason),
                    actor,
                    at.isoformat(),
                    rec.user_id,
                ),
            )

        self._run(go, "writing a version failed")

    @staticmethod
    def _rows_to_records(rows: list[tuple]) -> list[MemoryRecord]:
        return [MemoryRecord.model_validate(dict(zip(_KEYS, r, strict=True))) for r in rows]

    def get_memory(self, memory_id: str) -> MemoryRecord | None:
        recs = self._rows_to_records(self._all(f"SELECT {_COLUMNS} FROM memories WHERE id=%s", (memory_id,)))
        return recs[0] if recs else None

    def get_memories(self, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        rows = self._all(f"SELECT {_COLUMNS} FROM memories WHERE id = ANY(%s)", (ids,))
        return {r.id: r for r in self._rows_to_records(rows)}

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
        where, params = ["user_id=%s"], [user_id]
        if statuses:
            where.append("status = ANY(%s)")
            params.append(list(statuses))
        if kind:
            where.append("kind=%s")
            params.append(kind)
        if layer:
            where.append("layer=%s")
            params.append(layer)
        sql = f"SELECT {_COLUMNS} FROM memories WHERE {' AND '.join(where)} ORDER BY pk"
        if limit is not None:
            sql += " LIMIT %s OFFSET %s"
            params.extend([limit, offset])
        return self._rows_to_records(self._all(sql, params))

    def count_memories(self, user_id: str | None = None) -> dict[str, int]:
        if user_id is None:
            rows = self._all("SELECT status, count(*) FROM memories GROUP BY status")
        else:
            rows = self._all(
                "SELECT status, count(*) FROM memories WHERE user_id=%s GROUP BY status", (user_id,)
            )
        return {r[0]: int(r[1]) for r in rows}

    def size_bytes(self) -> int:
        """Bytes of this store's tables, their indexes and TOAST data (not other tables of the database)."""
        row = self._one(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname = ANY(%s)",
            (list(_TABLES),),
        )
        return int(row[0])

    def memory_facets(self, user_id: str | None = None, *, days: int = 30) -> dict[str, dict[str, int]]:
        scope, args = ("WHERE user_id=%s", (user_id,)) if user_id is not None else ("", ())
        out: dict[str, dict[str, int]] = {}
        for facet in ("status", "layer", "kind"):
            rows = self._all(f"SELECT {facet}, count(*) FROM memories {scope} GROUP BY {facet}", args)
            out[facet] = {r[0]: int(r[1]) for r in rows}
        since = (_now() - timedelta(days=days)).isoformat()
        rows = self._all(
            "SELECT substr(created_at, 1, 10), count(*) FROM versions WHERE version = 1 AND created_at >= %s "
            + ("AND user_id = %s " if user_id is not None else "")
            + "GROUP BY 1",
            (since, *args),
        )
        out["daily_new"] = {r[0]: int(r[1]) for r in rows}
        return out

    def versions(self, memory_id: str) -> list[Version]:
        rows = self._all(
            "SELECT memory_id, version, record, reason, actor, created_at FROM versions "
            "WHERE memory_id=%s ORDER BY version",
            (memory_id,),
        )
        return [
            Version(
                memory_id=r[0],
                version=r[1],
                record=MemoryRecord.model_validate_json(r[2]),
                reason=r[3],
                actor=r[4],
                created_at=r[5],
            )
            for r in rows
        ]

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

    # ------------------------------------------------------------------ search
    def scope_size(self, user_id: str, *, cap: int) -> int:
        """Vectors in a scope, counted up to ``cap`` + 1 (an index-only scan bounded by the cap)."""
        return int(
            self._one(
                "SELECT count(*) FROM (SELECT 1 FROM memory_vectors WHERE user_id=%s LIMIT %s) s",
                (user_id, cap + 1),
            )[0]
        )

    def vector_search(
        self, user_id: str, query: np.ndarray, *, k: int, statuses: Sequence[str] = ("active",)
    ) -> list[tuple[str, float]]:
        """Cosine KNN inside one scope: exact for small scopes, HNSW with iterative scans for large ones."""
        if k <= 0 or self._dim is None:
            if self._dim is None:
                dim = self.get_meta("vector_dim")
                self._dim = int(dim) if dim else None
            if k <= 0 or self._dim is None:
                return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self._dim:
            raise EmbedderMismatch(
                f"query vector has {q.shape[0]} dimensions; this store holds {self._dim}-d"
            )
        if self.scope_size(user_id, cap=self.exact_max_scope) > self.exact_max_scope:
            hits = self._ann_search(user_id, q, k, statuses)
            if len(hits) >= k:
                return hits
        return self._exact_search(user_id, q, k, statuses)

    def _exact_search(
        self, user_id: str, q: np.ndarray, k: int, statuses: Sequence[str]
    ) -> list[tuple[str, float]]:
        # "+ 0" keeps the planner off the HNSW index: this is the exact scan of the scope
        rows = self._all(
            "SELECT m.id, d FROM (SELECT pk, (embedding <=> %s) + 0 AS d FROM memory_vectors "
            "WHERE user_id=%s AND status = ANY(%s) ORDER BY d, pk LIMIT %s) v JOIN memories m ON m.pk = v.pk "
            "ORDER BY d, v.pk",
            (q, user_id, list(statuses), k),
        )
        return [(r[0], 1.0 - float(r[1])) for r in rows]

    def _ann_search(
        self, user_id: str, q: np.ndarray, k: int, statuses: Sequence[str], *, explain: bool = False
    ) -> list[tuple[str, float]]:
        """KNN through the HNSW index. Sorting is switched off for this statement so the planner cannot
        fall back to a scan + sort of the scope (that is the exact path, chosen by scope size instead).
        Relaxed order: the index may yield slightly out of order, so the materialized top k is re-sorted."""
        sql = (
            "WITH hits AS MATERIALIZED (SELECT pk, embedding <=> %s AS d FROM memory_vectors "
            "WHERE user_id=%s AND status = ANY(%s) ORDER BY embedding <=> %s LIMIT %s) "
            "SELECT m.id, h.d FROM hits h JOIN memories m ON m.pk = h.pk ORDER BY h.d + 0, h.pk"
        )
        params = (q, user_id, list(statuses), q, k)

        def go(conn: psycopg.Connection) -> list[tuple]:
            with conn.transaction():
                conn.execute("SET LOCAL enable_sort = off")
                if 2 * k > self.ef_search:
                    conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(2 * k),))
                return conn.execute(("EXPLAIN " if explain else "") + sql, params).fetchall()

        rows = self._run(go, "vector search failed")
        if explain:
            return [(r[0], 0.0) for r in rows]
        return [(r[0], 1.0 - float(r[1])) for r in rows]

    def keyword_search(
        self, user_id: str, terms: Sequence[str], *, k: int, statuses: Sequence[str] = ("active",)
    ) -> list[tuple[str, float]]:
        """BM25-like ranking over the segmented keyword index (see ``_keyword_sql``). Each term goes
        through plainto_tsquery, so query syntax never reaches the parser; the second statement gets
        the resulting tsqueries as values, so the planner sees real lexemes and picks the GIN index."""
        terms = [_terms(t) for t in terms]
        terms = [t for t in terms if t.strip()][:64]
        if not terms or k <= 0:
            return []
        weighted = self._all(_TERMS_SQL, (terms,))
        if not weighted:
            return []
        # as in the SQLite store: terms in over a quarter of all documents are dropped while rarer remain
        rarest = min(df for _, df in weighted)
        kept = [(q, math.log(1 + 1 / max(df, 0.0005))) for q, df in weighted if df <= 0.25 or df == rarest]
        query = " | ".join(f"( {q} )" for q, _ in kept)
        params = [x for pair in kept for x in pair]
        rows = self._all(
            _keyword_sql(len(kept)),
            (*params, _scope_token(user_id), query, user_id, list(statuses), k),
        )
        return [(r[0], float(r[1])) for r in rows]

    def time_range_search(
        self, user_id: str, start: datetime, end: datetime, *, k: int, statuses: Sequence[str] = ("active",)
    ) -> list[str]:
        """Memories whose time overlaps [start, end], earliest first."""
        rows = self._all(
            "SELECT id FROM memories WHERE user_id=%s AND time_start_ts IS NOT NULL AND time_start_ts <= %s "
            "AND coalesce(time_end_ts, time_start_ts) >= %s AND status = ANY(%s) ORDER BY time_start_ts, pk LIMIT %s",
            (user_id, end, start, list(statuses), k),
        )
        return [r[0] for r in rows]

    def touch(self, ids: Iterable[str], at: datetime) -> None:
        ids = sorted(set(ids))
        if not ids:
            return
        # rows are locked in id order, so two touches never deadlock each other; standalone, a deadlock
        # with a writer is retried
        self._all(
            "UPDATE memories m SET access_count = m.access_count + 1, last_accessed_at = %s FROM "
            "(SELECT pk FROM memories WHERE id = ANY(%s) ORDER BY id FOR NO KEY UPDATE) s WHERE m.pk = s.pk",
            (at.isoformat(), ids),
        )

    # ------------------------------------------------------------------ audit and counters
    def add_audit(self, events: Iterable[AuditEvent]) -> None:
        rows = [
            (
                e.ts.isoformat(),
                e.user_id,
                e.memory_id,
                e.message_id,
                e.stage,
                e.action,
                _clean(e.reason),
                json.dumps(e.scores),
                _clean(json.dumps(e.detail, ensure_ascii=False, default=str)),
            )
            for e in events
        ]
        if rows:
            self._run(
                lambda conn: conn.cursor().executemany(
                    "INSERT INTO audit (ts, user_id, memory_id, message_id, stage, action, reason, scores, "
                    "detail) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    rows,
                ),
                "writing audit events failed",
            )

    def audit_for(self, *, memory_id: str | None = None, user_id: str | None = None) -> list[AuditEvent]:
        cols = "id, ts, user_id, memory_id, message_id, stage, action, reason, scores, detail"
        if memory_id is not None:
            rows = self._all(f"SELECT {cols} FROM audit WHERE memory_id=%s ORDER BY id", (memory_id,))
        elif user_id is not None:
            rows = self._all(f"SELECT {cols} FROM audit WHERE user_id=%s ORDER BY id", (user_id,))
        else:
            rows = self._all(f"SELECT {cols} FROM audit ORDER BY id")
        return [
            AuditEvent(
                id=r[0],
                ts=r[1],
                user_id=r[2],
                memory_id=r[3],
                message_id=r[4],
                stage=r[5],
                action=r[6],
                reason=r[7],
                scores=json.loads(r[8]),
                detail=json.loads(r[9]),
            )
            for r in rows
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

    # ------------------------------------------------------------------ sessions and working memory
    def append_session_messages(self, session_id: str, user_id: str, rows: Sequence[dict[str, Any]]) -> None:
        def go(conn: psycopg.Connection) -> None:
            with conn.transaction():
                conn.execute(
                    "INSERT INTO sessions (session_id, user_id, updated_at) VALUES (%s, %s, %s) "
                    "ON CONFLICT (session_id) DO NOTHING",
                    (session_id, user_id, _now().isoformat()),
                )
                conn.cursor().executemany(
                    "INSERT INTO session_messages (session_id, user_id, role, name, content, message_id, at) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    [
                        (
                            session_id,
                            user_id,
                            r["role"],
                            r.get("name"),
                            _clean(r["content"]),
                            r.get("message_id"),
                            r.get("at"),
                        )
                        for r in rows
                    ],
                )

        self._run(go, "appending session messages failed")

    def session_messages(self, session_id: str, *, last: int | None = None) -> list[dict[str, Any]]:
        sql = "SELECT seq, role, name, content, message_id, at FROM session_messages WHERE session_id=%s ORDER BY seq"
        params: list[Any] = [session_id]
        if last is not None:
            sql = f"SELECT * FROM ({sql} DESC LIMIT %s) s ORDER BY seq"
            params.append(last)
        keys = ("seq", "role", "name", "content", "message_id", "at")
        return [dict(zip(keys, r, strict=True)) for r in self._all(sql, params)]

    def get_session(self, session_id: str) -> dict[str, Any] | None:
        row = self._one(
            "SELECT session_id, user_id, summary, summarized_upto, updated_at FROM sessions WHERE session_id=%s",
            (session_id,),
        )
        if not row:
            return None
        return dict(
            zip(("session_id", "user_id", "summary", "summarized_upto", "updated_at"), row, strict=True)
        )

    def put_session(self, session_id: str, user_id: str, *, summary: str, summarized_upto: int) -> None:
        self._all(
            "INSERT INTO sessions (session_id, user_id, summary, summarized_upto, updated_at) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (session_id) DO UPDATE SET summary=excluded.summary, "
            "summarized_upto=excluded.summarized_upto, updated_at=excluded.updated_at",
            (session_id, user_id, _clean(summary), summarized_upto, _now().isoformat()),
        )

    def put_working(
        self, user_id: str, task_id: str, key: str, value: Any, *, kind: str, expire_at: datetime | None
    ) -> None:
        self._all(
            "INSERT INTO working_items VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (user_id, task_id, key) DO UPDATE SET value=excluded.value, kind=excluded.kind, "
            "expire_at=excluded.expire_at, expire_ts=excluded.expire_ts, updated_at=excluded.updated_at",
            (
                user_id,
                task_id,
                key,
                _clean(json.dumps(value, ensure_ascii=False, default=str)),
                kind,
                _iso(expire_at),
                expire_at,
                _now().isoformat(),
            ),
        )

    def working_items(self, user_id: str, task_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT task_id, key, value, kind, expire_at, updated_at FROM working_items WHERE user_id=%s"
        params: list[Any] = [user_id]
        if task_id is not None:
            sql += " AND task_id=%s"
            params.append(task_id)
        rows = self._all(sql + " ORDER BY updated_at, task_id, key", params)
        return [
            {
                "task_id": r[0],
                "key": r[1],
                "value": json.loads(r[2]),
                "kind": r[3],
                "expire_at": r[4],
                "updated_at": r[5],
            }
            for r in rows
        ]

    def delete_working(self, user_id: str, task_id: str, key: str | None = None) -> int:
        if key is None:
            return self._rowcount(
                "DELETE FROM working_items WHERE user_id=%s AND task_id=%s", (user_id, task_id)
            )
        return self._rowcount(
            "DELETE FROM working_items WHERE user_id=%s AND task_id=%s AND key=%s", (user_id, task_id, key)
        )

    def expire_working(self, now: datetime) -> int:
        return self._rowcount(
            "DELETE FROM working_items WHERE expire_ts IS NOT NULL AND expire_ts <= %s", (now,)
        )

    # ------------------------------------------------------------------ durable job queue
    def enqueue(self, kind: str, payload: dict[str, Any], *, run_after: datetime | None = None) -> int:
        row = self._one(
            "INSERT INTO jobs (kind, payload, run_after, created_at) "
            "VALUES (%s, %s::jsonb, coalesce(%s::timestamptz, '-infinity'), %s) RETURNING id",
            (kind, _clean(json.dumps(payload, ensure_ascii=False)), run_after, _now().isoformat()),
        )
        return int(row[0])

    def claim_jobs(self, *, limit: int, now: datetime) -> list[Job]:
        """Hand out due jobs; concurrent workers skip each other's locked rows (FOR UPDATE SKIP LOCKED)."""
        rows = self._all(
            "UPDATE jobs j SET status='running', attempts=j.attempts+1, claimed_by=%s FROM "
            "(SELECT id FROM jobs WHERE status='pending' AND run_after <= %s ORDER BY id LIMIT %s "
            " FOR UPDATE SKIP LOCKED) c WHERE j.id = c.id RETURNING j.id, j.kind, j.payload, j.attempts",
            (self.instance, now, limit),
        )
        return [Job(id=r[0], kind=r[1], payload=r[2], attempts=r[3]) for r in sorted(rows)]

    def requeue_running(self) -> int:
        """Jobs left 'running' by a worker that is gone (no open connection under its name) go back to
        pending (at-least-once, idempotent jobs). Jobs of live workers are left alone."""
        return self._rowcount(
            "UPDATE jobs SET status='pending', claimed_by=NULL WHERE status='running' AND (claimed_by IS NULL "
            "OR claimed_by NOT IN (SELECT application_name FROM pg_stat_activity WHERE application_name <> ''))"
        )

    def finish_job(self, job_id: int) -> None:
        self._all("DELETE FROM jobs WHERE id=%s", (job_id,))

    def fail_job(self, job_id: int, error: str, *, retry_at: datetime | None) -> None:
        if retry_at is None:
            self._all(
                "UPDATE jobs SET status='failed', error=%s, claimed_by=NULL WHERE id=%s",
                (_clean(error[:500]), job_id),
            )
        else:
            self._all(
                "UPDATE jobs SET status='pending', error=%s, run_after=%s, claimed_by=NULL WHERE id=%s",
                (_clean(error[:500]), retry_at, job_id),
            )

    def pending_jobs(self) -> int:
        return int(self._one("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')")[0])

    # ------------------------------------------------------------------ vault
    def put_secret(
        self, user_id: str, memory_id: str, label: str, kind: str, blob: bytes, key_id: str
    ) -> None:
        self._all(
            "INSERT INTO vault (user_id, memory_id, label, kind, ciphertext, key_id) VALUES (%s, %s, %s, %s, %s, %s)",
            (user_id, memory_id, label, kind, bytes(blob), key_id),
        )

    def secrets_for(self, memory_id: str) -> list[dict[str, Any]]:
        rows = self._all(
            "SELECT id, label, kind, ciphertext, key_id FROM vault WHERE memory_id=%s ORDER BY id",
            (memory_id,),
        )
        return [
            {"id": r[0], "label": r[1], "kind": r[2], "ciphertext": bytes(r[3]), "key_id": r[4]} for r in rows
        ]

    def all_secrets(self) -> list[dict[str, Any]]:
        rows = self._all("SELECT id, memory_id, label, kind, ciphertext, key_id FROM vault ORDER BY id")
        return [
            {
                "id": r[0],
                "memory_id": r[1],
                "label": r[2],
                "kind": r[3],
                "ciphertext": bytes(r[4]),
                "key_id": r[5],
            }
            for r in rows
        ]

    def replace_secret(self, secret_id: int, blob: bytes, key_id: str) -> None:
        self._all("UPDATE vault SET ciphertext=%s, key_id=%s WHERE id=%s", (bytes(blob), key_id, secret_id))

    # ------------------------------------------------------------------ erase
    def forget_user(self, user_id: str) -> int:
        """Hard erase of everything of one user, in one transaction. The deleted tuples stay on disk
        until VACUUM reuses their space (``VACUUM FULL`` rewrites the tables if bytes must go now)."""
        with self.atomic():

            def go(conn: psycopg.Connection) -> int:
                self._lock_user(conn, user_id)
                n = conn.execute("DELETE FROM memories WHERE user_id=%s", (user_id,)).rowcount
                for table in (
                    "memory_vectors",
                    "memory_terms",
                    "versions",
                    "links",
                    "audit",
                    "counters",
                    "session_messages",
                    "sessions",
                    "working_items",
                    "vault",
                ):
                    conn.execute(f"DELETE FROM {table} WHERE user_id=%s", (user_id,))
                conn.execute("DELETE FROM jobs WHERE payload->>'user_id' = %s", (user_id,))
                return n

            return int(self._run(go, "forgetting a user failed"))


# Query terms → their tsqueries and document frequencies. Frequencies come from the planner's statistics
# of the tsvector column (most common lexemes and their frequencies; a lexeme not listed is rarer than
# all listed ones), so no term table has to be maintained on write.
_TERMS_SQL = """
WITH st AS (
    SELECT s.most_common_elems::text::text[] AS e, s.most_common_elem_freqs AS f FROM pg_stats s
    WHERE s.schemaname = current_schema() AND s.tablename = 'memory_terms' AND s.attname = 'tsv'
      AND (SELECT c.reltuples FROM pg_class c WHERE c.oid = 'memory_terms'::regclass) >= 200)
SELECT w.q::text, coalesce((SELECT max(st.f[array_position(st.e, l)]) FROM st,
                            unnest(tsvector_to_array(to_tsvector('memscribe_kw', w.term))) l), 0)
FROM (SELECT t AS term, plainto_tsquery('memscribe_kw', t) AS q, n FROM unnest(%s::text[]) WITH ORDINALITY u(t, n)) w
WHERE numnode(w.q) > 0 ORDER BY w.n
"""


@lru_cache(maxsize=64)
def _keyword_sql(n: int) -> str:
    """BM25-like ranking of ``n`` weighted terms. A memory is one or two sentences, so term frequency
    is ~1 and a document scores sum(idf of the query terms it contains), normalised by its length as in
    BM25 (k1 = 1.2, b = 0.75, average length 16 lexemes)."""
    score = " + ".join(["CASE WHEN t.tsv @@ %s::tsquery THEN %s ELSE 0 END"] * n)
    return f"""
SELECT m.id, h.s FROM (
    SELECT t.pk, ({score}) * 2.2 / (1 + 1.2 * (0.25 + 0.75 * length(t.tsv) / 16.0)) AS s FROM memory_terms t
    WHERE t.tsv @@ (%s::tsquery && %s::tsquery) AND t.user_id = %s AND t.status = ANY(%s)
    ORDER BY s DESC, t.pk LIMIT %s) h
JOIN memories m ON m.pk = h.pk ORDER BY h.s DESC, h.pk
"""


_TABLES = (
    "schema_migrations",
    "meta",
    "memories",
    "memory_vectors",
    "memory_terms",
    "versions",
    "links",
    "audit",
    "counters",
    "sessions",
    "session_messages",
    "working_items",
    "jobs",
    "vault",
)
_INSERT_COLS = (
    "id",
    "user_id",
    "agent_id",
    "session_id",
    "layer",
    "kind",
    "status",
    "text",
    "raw",
    "structured",
    "entities",
    "links",
    "sources",
    "metadata",
    "time_start",
    "time_end",
    "time_start_ts",
    "time_end_ts",
    "importance",
    "timeliness",
    "confidence",
    "superseded_by",
    "created_at",
    "updated_at",
    "created_ts",
    "last_accessed_at",
    "access_count",
    "expire_at",
    "version",
)
