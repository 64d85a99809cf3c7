"""The SQLite engine's plumbing: one writer connection (WAL) behind a re-entrant lock, a read-only second
connection for reads outside transactions, and ``atomic()`` (BEGIN IMMEDIATE; nested calls are savepoints).

apsw is used instead of the stdlib module because many Pythons (pyenv builds, macOS system Python)
cannot load extensions with ``sqlite3``; apsw wheels carry a current SQLite and load sqlite-vec.
apsw's busy errors become ``ConcurrencyError`` here, and only here.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw
import apsw.bestpractice
import sqlite_vec

from memscribe.errors import ConcurrencyError, StoreError
from memscribe.store.private import private_file, tighten

__all__ = ["SQLiteConnection"]

Params = Sequence[Any] | dict[str, Any]


class SQLiteConnection:
    """Thread-safe access to one SQLite file; the area mixins of ``SQLiteStore`` build on it."""

    busy_timeout_ms = 30_000

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            # owner-only before SQLite creates it: the WAL and SHM inherit the database file's mode
            try:
                private_file(self.path)
            except OSError as exc:
                raise StoreError(f"cannot create store {self.path}: {exc}") from exc
            tighten(f"{self.path}-wal", f"{self.path}-shm")
        self._lock = threading.RLock()
        self._depth = 0
        try:
            self._conn = apsw.Connection(str(self.path))
            self._conn.enable_load_extension(True)
            self._conn.load_extension(sqlite_vec.loadable_path())
            self._conn.enable_load_extension(False)
        except apsw.Error as exc:
            raise StoreError(f"cannot open store {self.path}: {exc}") from exc
        self._conn.set_busy_timeout(self.busy_timeout_ms)
        # a second connection so keyword search runs beside vector search
        self._reader: apsw.Connection | None = None
        self._rlock = threading.Lock()
        self._exec("PRAGMA journal_mode=WAL")
        self._exec("PRAGMA synchronous=NORMAL")
        self._exec("PRAGMA foreign_keys=ON")
        # Deleted content is overwritten with zeros: forget() must leave no bytes of a user's text behind.
        self._exec("PRAGMA secure_delete=ON")

    def _exec(self, sql: str, params: Params = ()) -> list[tuple]:
        with self._lock:
            try:
                return list(self._conn.execute(sql, params))
            except apsw.BusyError as exc:
                raise ConcurrencyError(f"store is busy: {exc}") from exc

    def _rows(self, sql: str, params: Params = ()) -> Iterator[tuple]:
        """The rows of a query as they are stepped, for results too large to hold as one list (a scope's
        vectors). Iterate it to the end under the caller's hold of the connection."""
        with self._lock:
            try:
                yield from self._conn.execute(sql, params)
            except apsw.BusyError as exc:
                raise ConcurrencyError(f"store is busy: {exc}") from exc

    def _exec_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._lock:
            try:
                self._conn.executemany(sql, rows)
            except apsw.BusyError as exc:
                raise ConcurrencyError(f"store is busy: {exc}") from exc

    def _changed(self, sql: str, params: Params = ()) -> int:
        """Run one write statement; the number of rows it changed."""
        with self._lock:
            self._exec(sql, params)
            return self._conn.changes()

    def _read(self, sql: str, params: Params = ()) -> list[tuple]:
        """A read on the reader connection (WAL: sees every committed write, never blocks the writer).
        Falls back to the writer while a transaction is open, so a caller inside atomic() sees its own rows."""
        if self._depth or str(self.path) == ":memory:":
            return self._exec(sql, params)
        with self._rlock:
            if self._reader is None:
                self._reader = apsw.Connection(str(self.path), flags=apsw.SQLITE_OPEN_READONLY)
                self._reader.set_busy_timeout(self.busy_timeout_ms)
            try:
                return list(self._reader.execute(sql, params))
            except apsw.BusyError as exc:
                raise ConcurrencyError(f"store is busy: {exc}") from exc

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction (BEGIN IMMEDIATE); nested calls become savepoints."""
        with self._lock:
            depth = self._depth
            name = f"sp{depth}"
            try:
                if depth == 0:
                    self._conn.execute("BEGIN IMMEDIATE")
                else:
                    self._conn.execute(f"SAVEPOINT {name}")
            except apsw.BusyError as exc:
                raise ConcurrencyError(f"store is busy: {exc}") from exc
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if depth == 0:
                    self._conn.execute("ROLLBACK")
                else:
                    self._conn.execute(f"ROLLBACK TO {name}; RELEASE {name}")
                raise
            self._depth -= 1
            if depth == 0:
                self._commit()
            else:
                self._conn.execute(f"RELEASE {name}")

    def _commit(self) -> None:
        for attempt in range(50):
            try:
                self._conn.execute("COMMIT")
                return
            except apsw.BusyError:
                time.sleep(0.01 * (attempt + 1))
        self._conn.execute("ROLLBACK")
        raise ConcurrencyError("could not commit: the store stayed locked")

    def close(self) -> None:
        with self._rlock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None
        with self._lock:
            # another connection may hold the WAL; it checkpoints on its own close
            with contextlib.suppress(apsw.Error):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()
