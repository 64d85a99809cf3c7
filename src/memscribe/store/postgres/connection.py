"""The PostgreSQL engine's plumbing: a psycopg 3 connection pool, ``atomic()`` and per-user advisory locks.

Threads: ``atomic()`` binds one pooled connection to the calling thread for the whole transaction
(nested calls become savepoints); every other call borrows a connection for one autocommit statement.
Writes of one user inside a transaction take a per-user advisory lock first, so concurrent writers of
the same user queue up instead of deadlocking, and writers of different users never wait on each other.
psycopg errors are translated to ``memscribe.errors`` in ``translate`` (one boundary).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
import time
import unicodedata
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from memscribe.errors import ConcurrencyError, StoreError

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

__all__ = [
    "MIGRATION_LOCK",
    "PostgresConnection",
    "clean_text",
    "keyword_terms",
    "split_store_url",
    "translate",
]

MIGRATION_LOCK = 0x6D656D73  # advisory lock key of schema migrations and of the vector column ("mems")
_RETRYABLE = (pg_errors.DeadlockDetected, pg_errors.SerializationFailure, pg_errors.LockNotAvailable)
_TOKEN = re.compile(r"[^\W_]+")
Params = Sequence[Any] | dict[str, Any]
T = TypeVar("T")


def clean_text(text: str) -> str:
    """PostgreSQL text cannot hold NUL; lone surrogates cannot be encoded to UTF-8."""
    return text.replace("\x00", "").encode("utf-8", "replace").decode("utf-8")


def keyword_terms(text: str) -> str:
    """Text as the keyword index sees it, whatever the server's locale: letter/digit runs (as FTS5's
    unicode61 splits them), lower case, diacritics removed. Chinese arrives already segmented by jieba."""
    text = unicodedata.normalize("NFKD", clean_text(text).lower())
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


def _user_lock_key(user_id: str) -> int:
    return int.from_bytes(
        hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).digest()[:8], "big", signed=True
    )


@contextmanager
def translate(what: str) -> Iterator[None]:
    """Foreign errors become memscribe errors here, and only here."""
    try:
        yield
    except _RETRYABLE as exc:
        raise ConcurrencyError(f"{what}: {exc}") from exc
    except psycopg.OperationalError as exc:
        raise StoreError(f"{what}: the PostgreSQL server is unreachable or refused: {exc}") from exc
    except psycopg.Error as exc:
        raise StoreError(f"{what}: {exc}") from exc


class PostgresConnection:
    """Pooled access to one PostgreSQL database (and schema); the area mixins of ``PostgresStore`` build
    on it."""

    ef_search = 64
    retries = 6  # standalone statements hit by a deadlock / serialization failure are retried

    def _setup(self, url: str, schema: str | None) -> None:
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
        self._iterative = False

    def _open_pool(self, *, min_size: int, max_size: int) -> None:
        self._iterative = self._vector_version() >= (0, 8)
        self._pool = ConnectionPool(
            self._conninfo,
            kwargs=self._kwargs,
            min_size=min_size,
            max_size=max_size,
            configure=self._configure,
            open=False,
            name=self.instance,
        )
        with translate("cannot open the PostgreSQL store"):
            self._pool.open(wait=True, timeout=30)

    def _configure(self, conn: psycopg.Connection) -> None:
        """Every pooled connection: the vector type, and the HNSW scan settings filtered KNN relies on
        (iterative index scans keep going until k rows pass the scope and status filters)."""
        register_vector(conn)
        # short OLTP statements only: JIT compilation would cost more than any of them (and the cost
        # penalty of enable_sort = off in _ann_search would otherwise trigger it)
        conn.execute("SET jit = off")
        # every statement is planned for its own values: psycopg prepares a statement after 5 runs, and the
        # server may then keep a generic plan made while the planner's statistics were stale (right after a
        # bulk load, a vector search of a 100k scope took 30 ms on such a plan against 2 ms on a custom one).
        # Planning these short statements costs ~0.1 ms.
        conn.execute("SET plan_cache_mode = force_custom_plan")
        conn.execute(f"SET hnsw.ef_search = {int(self.ef_search)}")
        if self._iterative:
            conn.execute("SET hnsw.iterative_scan = relaxed_order")

    def _connect(self) -> psycopg.Connection:
        with translate("cannot connect to the PostgreSQL store"):
            return psycopg.connect(self._conninfo, **self._kwargs)

    def _vector_version(self) -> tuple[int, ...]:
        with self._connect() as conn, translate("reading the pgvector version"):
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname='vector'").fetchone()
        return tuple(int(p) for p in str(row[0]).split(".")[:2]) if row else (0, 0)

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection]:
        """The thread's transaction connection inside atomic(), else a pooled autocommit connection."""
        bound = getattr(self._local, "conn", None)
        if bound is not None:
            yield bound
            return
        with translate("cannot get a PostgreSQL connection"):
            cm = self._pool.connection(timeout=60)
            conn = cm.__enter__()
        try:
            yield conn
        except BaseException as exc:
            cm.__exit__(type(exc), exc, exc.__traceback__)
            raise
        cm.__exit__(None, None, None)

    def _run(self, fn: Callable[[psycopg.Connection], T], what: str) -> T:
        """fn(conn) once inside a transaction, or with retries on deadlock / serialization failure when
        standalone (then nothing of a failed attempt was committed, so a retry is safe)."""
        inside = getattr(self._local, "conn", None) is not None
        for attempt in range(1 if inside else self.retries):
            try:
                with self._conn() as conn, translate(what):
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
            with translate("savepoint failed"):
                tx = bound.transaction()
                tx.__enter__()
            try:
                yield
            except BaseException as exc:
                with contextlib.suppress(psycopg.Error):
                    tx.__exit__(type(exc), exc, exc.__traceback__)
                self._local.users = set()  # user locks taken inside the savepoint went with it
                raise
            with translate("releasing a savepoint failed"):
                tx.__exit__(None, None, None)
            return
        with self._conn() as conn:
            self._local.conn, self._local.users = conn, set()
            try:
                with translate("transaction failed"):
                    tx = conn.transaction()
                    tx.__enter__()
                try:
                    yield
                except BaseException as exc:
                    with contextlib.suppress(psycopg.Error):
                        tx.__exit__(type(exc), exc, exc.__traceback__)
                    raise
                with translate("commit failed"):
                    tx.__exit__(None, None, None)
                if getattr(self._local, "pending_dim", None) is not None:
                    self._dim = self._local.pending_dim
            finally:
                self._local.conn, self._local.users, self._local.pending_dim = None, set(), None

    def close(self) -> None:
        self._pool.close()
