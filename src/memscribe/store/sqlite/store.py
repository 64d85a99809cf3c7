"""The embedded store: one SQLite file (WAL) through apsw, sqlite-vec for vectors, FTS5 for BM25.

apsw is used instead of the stdlib module because many Pythons (pyenv builds, macOS system Python)
cannot load extensions with ``sqlite3``; apsw wheels carry a current SQLite and load sqlite-vec.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import apsw
import apsw.bestpractice
import numpy as np
import sqlite_vec

from memscribe.errors import ConcurrencyError, EmbedderMismatch, MigrationError, StoreError
from memscribe.models import AuditEvent, MemoryRecord, Version
from memscribe.store.base import Job
from memscribe.store.sqlite.migrations import LATEST, MIGRATIONS
from memscribe.store.sqlite.vector_cache import VectorCache

__all__ = ["SQLiteStore"]

_COLUMNS = (
    "id, user_id, agent_id, session_id, layer, kind, status, text, raw, structured, entities, links, "
    "sources, metadata, time_start, time_end, importance, timeliness, confidence, superseded_by, "
    "created_at, updated_at, last_accessed_at, access_count, expire_at, version"
)


def _ts(dt: datetime | None) -> float | None:
    return dt.timestamp() if dt is not None else None


def _iso(dt: datetime | None) -> str | None:
    return dt.isoformat() if dt is not None else None


def _now() -> datetime:
    return datetime.now(UTC)


def _scope_token(user_id: str) -> str:
    return "s" + hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).hexdigest()[:20]


class SQLiteStore:
    """Store contract over SQLite. Thread-safe: one connection guarded by a re-entrant lock."""

    busy_timeout_ms = 30_000

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._depth = 0
        self._vectors = VectorCache()
        try:
            self._conn = apsw.Connection(str(self.path))
            self._conn.enable_load_extension(True)
            self._conn.load_extension(sqlite_vec.loadable_path())
            self._conn.enable_load_extension(False)
        except apsw.Error as exc:
            raise StoreError(f"cannot open store {self.path}: {exc}") from exc
        self._conn.set_busy_timeout(self.busy_timeout_ms)
        self._reader: apsw.Connection | None = (
            None  # a second connection so keyword search runs beside vector search
        )
        self._rlock = threading.Lock()
        self._exec("PRAGMA journal_mode=WAL")
        self._exec("PRAGMA synchronous=NORMAL")
        self._exec("PRAGMA foreign_keys=ON")
        # Deleted content is overwritten with zeros: forget() must leave no bytes of a user's text behind.
        self._exec("PRAGMA secure_delete=ON")
        self._migrate()

    # ------------------------------------------------------------------ plumbing
    def _exec(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple]:
        with self._lock:
            try:
                return list(self._conn.execute(sql, params))
            except apsw.BusyError as exc:
                raise ConcurrencyError(f"store is busy: {exc}") from exc

    def _read(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple]:
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

    def _migrate(self) -> None:
        with self.atomic():
            have = {r[0] for r in self._exec("SELECT name FROM sqlite_master WHERE type='table'")}
            current = 0
            if "schema_migrations" not in have:
                self._exec(
                    "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
                )
            else:
                row = self._exec("SELECT max(version) FROM schema_migrations")
                current = row[0][0] or 0
            if current > LATEST:
                raise MigrationError(
                    f"store {self.path} has schema version {current}, newer than this memscribe ({LATEST}); upgrade memscribe"
                )
            for version, name, sql in MIGRATIONS:
                if version <= current:
                    continue
                try:
                    self._conn.execute(sql)
                except apsw.Error as exc:
                    raise MigrationError(f"migration {version} {name} failed: {exc}") from exc
                self._exec(
                    "INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, _now().isoformat())
                )

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

    def checkpoint(self) -> None:
        self._exec("PRAGMA wal_checkpoint(TRUNCATE)")

    def integrity_check(self) -> str:
        return str(self._exec("PRAGMA integrity_check")[0][0])

    def backup_to(self, path: str | Path) -> None:
        dest = apsw.Connection(str(path))
        with self._lock, dest.backup("main", self._conn, "main") as b:
            while not b.done:
                b.step(1024)
        dest.close()

    # ------------------------------------------------------------------ meta
    def get_meta(self, key: str) -> str | None:
        rows = self._exec("SELECT value FROM meta WHERE key=?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self._exec(
            "INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value)
        )

    def check_embedder(self, name: str, dim: int, *, allow_reset: bool = False) -> None:
        have_name, have_dim = self.get_meta("embedder"), self.get_meta("embedder_dim")
        if have_name is None or allow_reset:
            with self.atomic():
                self.set_meta("embedder", name)
                self.set_meta("embedder_dim", str(dim))
            return
        if have_name != name or int(have_dim or 0) != dim:
            raise EmbedderMismatch(
                f"store {self.path} was built with embedder {have_name} ({have_dim}-d) but {name} ({dim}-d) "
                "is configured; mixing them silently ruins recall. Run `memscribe reindex` to re-embed."
            )

    # ------------------------------------------------------------------ memories
    def _pk(self, memory_id: str) -> int | None:
        rows = self._exec("SELECT pk FROM memories WHERE id=?", (memory_id,))
        return rows[0][0] if rows else None

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
            rec.text,
            rec.raw,
            json.dumps(d["structured"], ensure_ascii=False),
            json.dumps(d["entities"], ensure_ascii=False),
            json.dumps(d["links"], ensure_ascii=False),
            json.dumps(d["sources"], ensure_ascii=False),
            json.dumps(d["metadata"], ensure_ascii=False),
            _iso(rec.time_start),
            _iso(rec.time_end),
            _ts(rec.time_start),
            _ts(rec.time_end),
            rec.importance,
            rec.timeliness,
            rec.confidence,
            rec.superseded_by,
            _iso(rec.created_at),
            _iso(rec.updated_at),
            _ts(rec.created_at),
            _iso(rec.last_accessed_at),
            rec.access_count,
            _iso(rec.expire_at),
            rec.version,
        )
        with self.atomic():
            pk = self._pk(rec.id)
            created = pk is None
            if created:
                self._exec(
                    "INSERT INTO memories (id, user_id, agent_id, session_id, layer, kind, status, text, raw, "
                    "structured, entities, links, sources, metadata, time_start, time_end, time_start_ts, "
                    "time_end_ts, importance, timeliness, confidence, superseded_by, created_at, updated_at, "
                    "created_ts, last_accessed_at, access_count, expire_at, version) "
                    "VALUES (" + ",".join("?" * 29) + ")",
                    values,
                )
                pk = self._conn.last_insert_rowid()
            else:
                self._exec(
                    "UPDATE memories SET id=?, user_id=?, agent_id=?, session_id=?, layer=?, kind=?, status=?, "
                    "text=?, raw=?, structured=?, entities=?, links=?, sources=?, metadata=?, time_start=?, "
                    "time_end=?, time_start_ts=?, time_end_ts=?, importance=?, timeliness=?, confidence=?, "
                    "superseded_by=?, created_at=?, updated_at=?, created_ts=?, last_accessed_at=?, "
                    "access_count=?, expire_at=?, version=? WHERE pk=?",
                    (*values, pk),
                )
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
                    (pk, _scope_token(rec.user_id), keyword_text),
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
            (rec.id, rec.version, rec.model_dump_json(), reason, actor, at.isoformat(), rec.user_id),
        )

    def _rows_to_records(self, rows: list[tuple]) -> list[MemoryRecord]:
        out = []
        for r in rows:
            out.append(
                MemoryRecord.model_validate(
                    {
                        "id": r[0],
                        "user_id": r[1],
                        "agent_id": r[2],
                        "session_id": r[3],
                        "layer": r[4],
                        "kind": r[5],
                        "status": r[6],
                        "text": r[7],
                        "raw": r[8],
                        "structured": json.loads(r[9]),
                        "entities": json.loads(r[10]),
                        "links": json.loads(r[11]),
                        "sources": json.loads(r[12]),
                        "metadata": json.loads(r[13]),
                        "time_start": r[14],
                        "time_end": r[15],
                        "importance": r[16],
                        "timeliness": r[17],
                        "confidence": r[18],
                        "superseded_by": r[19],
                        "created_at": r[20],
                        "updated_at": r[21],
                        "last_accessed_at": r[22],
                        "access_count": r[23],
                        "expire_at": r[24],
                        "version": r[25],
                    }
                )
            )
        return out

    def get_memory(self, memory_id: str) -> MemoryRecord | None:
        rows = self._exec(f"SELECT {_COLUMNS} FROM memories WHERE id=?", (memory_id,))
        recs = self._rows_to_records(rows)
        return recs[0] if recs else None

    def get_memories(self, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        out: dict[str, MemoryRecord] = {}
        ids = list(dict.fromkeys(ids))
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            rows = self._exec(
                f"SELECT {_COLUMNS} FROM memories WHERE id IN ({','.join('?' * len(chunk))})", chunk
            )
            out.update((r.id, r) for r in self._rows_to_records(rows))
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
        where, params = ["user_id=?"], [user_id]
        if statuses:
            where.append(f"status IN ({','.join('?' * len(statuses))})")
            params.extend(statuses)
        if kind:
            where.append("kind=?")
            params.append(kind)
        if layer:
            where.append("layer=?")
            params.append(layer)
        sql = f"SELECT {_COLUMNS} FROM memories WHERE {' AND '.join(where)} ORDER BY pk"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            params.extend([limit, offset])
        return self._rows_to_records(self._exec(sql, params))

    def count_memories(self, user_id: str | None = None) -> dict[str, int]:
        if user_id is None:
            rows = self._exec("SELECT status, count(*) FROM memories GROUP BY status")
        else:
            rows = self._exec(
                "SELECT status, count(*) FROM memories WHERE user_id=? GROUP BY status", (user_id,)
            )
        return {r[0]: r[1] for r in rows}

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(FileNotFoundError):
                total += Path(str(self.path) + suffix).stat().st_size
        return total

    def memory_facets(self, user_id: str | None = None, *, days: int = 30) -> dict[str, dict[str, int]]:
        scope, args = ("WHERE user_id=?", (user_id,)) if user_id is not None else ("", ())
        out: dict[str, dict[str, int]] = {}
        for facet in ("status", "layer", "kind"):
            rows = self._read(f"SELECT {facet}, count(*) FROM memories {scope} GROUP BY {facet}", args)
            out[facet] = {r[0]: r[1] for r in rows}
        since = (_now() - timedelta(days=days)).isoformat()
        rows = self._read(
            "SELECT substr(created_at, 1, 10), count(*) FROM versions WHERE version = 1 AND created_at >= ? "
            + ("AND user_id = ? " if user_id is not None else "")
            + "GROUP BY 1",
            (since, *args),
        )
        out["daily_new"] = {r[0]: r[1] for r in rows}
        return out

    def versions(self, memory_id: str) -> list[Version]:
        rows = self._exec(
            "SELECT memory_id, version, record, reason, actor, created_at FROM versions WHERE memory_id=? ORDER BY version",
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
        out: dict[str, np.ndarray] = {}
        ids = list(dict.fromkeys(ids))
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            rows = self._exec(
                "SELECT m.id, v.embedding FROM memories m JOIN memory_vectors v ON v.pk = m.pk "
                f"WHERE m.id IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            out.update((r[0], np.frombuffer(r[1], dtype=np.float32)) for r in rows)
        return out

    def iter_users(self) -> Iterator[str]:
        for r in self._exec("SELECT DISTINCT user_id FROM memories ORDER BY user_id"):
            yield r[0]

    # ------------------------------------------------------------------ search
    def vector_search(
        self, user_id: str, query: np.ndarray, *, k: int, statuses: Sequence[str] = ("active",)
    ) -> list[tuple[str, float]]:
        """Exact cosine KNN inside one user's scope (sqlite-vec's distance over the scope's vectors)."""
        with self._lock:
            seq_row = self._exec("SELECT max(vseq) FROM memories WHERE user_id=?", (user_id,))
            seq = seq_row[0][0]
            if seq is None:
                self._vectors.drop(user_id)
                return []
            matrix = self._vectors.get(
                user_id,
                int(seq),
                lambda: int(
                    self._exec("SELECT count(*) FROM memory_vectors WHERE user_id=?", (user_id,))[0][0]
                ),
                lambda since: self._exec(
                    "SELECT m.pk, m.id, m.status, v.embedding FROM memories m JOIN memory_vectors v ON v.pk = m.pk "
                    "WHERE m.user_id=? AND m.vseq > ?",
                    (user_id, since),
                ),
            )
            if matrix is not None:
                return matrix.search(query, k, statuses)
        q = np.asarray(query, dtype=np.float32).tobytes()
        rows = self._exec(
            "SELECT m.id, vec_distance_cosine(v.embedding, ?) AS d FROM memory_vectors v "
            "JOIN memories m ON m.pk = v.pk "
            f"WHERE v.user_id = ? AND m.status IN ({','.join('?' * len(statuses))}) ORDER BY d LIMIT ?",
            (q, user_id, *statuses, k),
        )
        return [(r[0], 1.0 - float(r[1])) for r in rows]

    def _selective(self, terms: list[str]) -> list[str]:
        """Drop terms found in over a quarter of all documents when rarer ones remain: they add almost
        nothing to BM25 but make FTS5 score most of the index (every memory says 用户 / the user)."""
        if len(terms) < 2:
            return terms
        total = self._read("SELECT max(pk) FROM memories")[0][0] or 0
        if total < 200:
            return terms
        marks = ",".join("?" * len(terms))
        df = dict(
            self._read(
                f"SELECT term, doc FROM memories_vocab WHERE term IN ({marks})", [t.lower() for t in terms]
            )
        )
        kept = [t for t in terms if df.get(t.lower(), 0) <= 0.25 * total]
        return kept or [min(terms, key=lambda t: df.get(t.lower(), 0))]

    def keyword_search(
        self, user_id: str, terms: Sequence[str], *, k: int, statuses: Sequence[str] = ("active",)
    ) -> list[tuple[str, float]]:
        """BM25 over the segmented keyword index. Terms are quoted: query syntax never reaches FTS5."""
        # NUL ends a C string inside FTS5's parser; other control characters carry no meaning
        terms = ["".join(ch for ch in t if ch >= " ") for t in terms]
        terms = [t for t in terms if t.strip()]
        if not terms:
            return []
        terms = self._selective(terms[:64])
        words = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        match = f'scope : "{_scope_token(user_id)}" AND terms : ({words})'
        marks = ",".join("?" * len(statuses))
        limit = 4 * k + 50
        while True:
            # FTS5 ranks inside the index (its top-k path); the join only drops other statuses, so ask
            # for more than k and widen when too many of the best are archived or superseded.
            rows = self._read(
                "SELECT m.id, f.s FROM (SELECT rowid, bm25(memories_fts, 0.0, 1.0) AS s FROM memories_fts "
                "WHERE memories_fts MATCH ? ORDER BY s LIMIT ?) f JOIN memories m ON m.pk = f.rowid "
                f"WHERE m.user_id = ? AND m.status IN ({marks}) ORDER BY f.s LIMIT ?",
                (match, limit, user_id, *statuses, k),
            )
            if len(rows) >= k or limit >= 1 << 22:
                break
            total = self._read("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (match,))[0][0]
            if total <= limit:
                break
            limit *= 8
        # FTS5's bm25() is negative (lower is better); report the positive score.
        return [(r[0], -float(r[1])) for r in rows]

    def time_range_search(
        self, user_id: str, start: datetime, end: datetime, *, k: int, statuses: Sequence[str] = ("active",)
    ) -> list[str]:
        """Memories whose time overlaps [start, end], earliest first."""
        rows = self._exec(
            "SELECT id FROM memories WHERE user_id=? AND time_start_ts IS NOT NULL AND time_start_ts <= ? "
            f"AND coalesce(time_end_ts, time_start_ts) >= ? AND status IN ({','.join('?' * len(statuses))}) "
            "ORDER BY time_start_ts LIMIT ?",
            (user_id, end.timestamp(), start.timestamp(), *statuses, k),
        )
        return [r[0] for r in rows]

    def touch(self, ids: Iterable[str], at: datetime) -> None:
        ids = list(ids)
        if not ids:
            return
        with self.atomic():
            self._conn.executemany(
                "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? WHERE id = ?",
                [(at.isoformat(), i) for i in ids],
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
                e.reason,
                json.dumps(e.scores),
                json.dumps(e.detail, ensure_ascii=False, default=str),
            )
            for e in events
        ]
        if rows:
            with self._lock:
                self._conn.executemany(
                    "INSERT INTO audit (ts, user_id, memory_id, message_id, stage, action, reason, scores, detail) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )

    def audit_for(self, *, memory_id: str | None = None, user_id: str | None = None) -> list[AuditEvent]:
        if memory_id is not None:
            rows = self._exec("SELECT * FROM audit WHERE memory_id=? ORDER BY id", (memory_id,))
        elif user_id is not None:
            rows = self._exec("SELECT * FROM audit WHERE user_id=? ORDER BY id", (user_id,))
        else:
            rows = self._exec("SELECT * FROM audit ORDER BY id")
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
        self._exec(
            "INSERT INTO counters VALUES (?, ?, ?) ON CONFLICT(user_id, name) DO UPDATE SET value = value + excluded.value",
            (user_id, name, n),
        )

    def counters(self, user_id: str | None = None) -> dict[str, int]:
        if user_id is None:
            rows = self._exec("SELECT name, sum(value) FROM counters GROUP BY name")
        else:
            rows = self._exec("SELECT name, value FROM counters WHERE user_id=?", (user_id,))
        return {r[0]: int(r[1]) for r in rows}

    # ------------------------------------------------------------------ sessions and working memory
    def append_session_messages(self, session_id: str, user_id: str, rows: Sequence[dict[str, Any]]) -> None:
        with self.atomic():
            self._exec(
                "INSERT OR IGNORE INTO sessions (session_id, user_id, updated_at) VALUES (?, ?, ?)",
                (session_id, user_id, _now().isoformat()),
            )
            self._conn.executemany(
                "INSERT INTO session_messages (session_id, user_id, role, name, content, message_id, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        session_id,
                        user_id,
                        r["role"],
                        r.get("name"),
                        r["content"],
                        r.get("message_id"),
                        r.get("at"),
                    )
                    for r in rows
                ],
            )

    def session_messages(self, session_id: str, *, last: int | None = None) -> list[dict[str, Any]]:
        sql = "SELECT seq, role, name, content, message_id, at FROM session_messages WHERE session_id=? ORDER BY seq"
        params: list[Any] = [session_id]
        if last is not None:
            sql = f"SELECT * FROM ({sql} DESC LIMIT ?) ORDER BY seq"
            params.append(last)
        keys = ("seq", "role", "name", "content", "message_id", "at")
        return [dict(zip(keys, r, strict=True)) for r in self._exec(sql, params)]

    def get_session(self, session_id: str) -> dict[str, Any] | None:
        rows = self._exec(
            "SELECT session_id, user_id, summary, summarized_upto, updated_at FROM sessions WHERE session_id=?",
            (session_id,),
        )
        if not rows:
            return None
        keys = ("session_id", "user_id", "summary", "summarized_upto", "updated_at")
        return dict(zip(keys, rows[0], strict=True))

    def put_session(self, session_id: str, user_id: str, *, summary: str, summarized_upto: int) -> None:
        self._exec(
            "INSERT INTO sessions (session_id, user_id, summary, summarized_upto, updated_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(session_id) DO UPDATE SET summary=excluded.summary, "
            "summarized_upto=excluded.summarized_upto, updated_at=excluded.updated_at",
            (session_id, user_id, summary, summarized_upto, _now().isoformat()),
        )

    def put_working(
        self, user_id: str, task_id: str, key: str, value: Any, *, kind: str, expire_at: datetime | None
    ) -> None:
        self._exec(
            "INSERT INTO working_items VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(user_id, task_id, key) DO UPDATE "
            "SET value=excluded.value, kind=excluded.kind, expire_at=excluded.expire_at, "
            "expire_ts=excluded.expire_ts, updated_at=excluded.updated_at",
            (
                user_id,
                task_id,
                key,
                json.dumps(value, ensure_ascii=False, default=str),
                kind,
                _iso(expire_at),
                _ts(expire_at),
                _now().isoformat(),
            ),
        )

    def working_items(self, user_id: str, task_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT task_id, key, value, kind, expire_at, updated_at FROM working_items WHERE user_id=?"
        params: list[Any] = [user_id]
        if task_id is not None:
            sql += " AND task_id=?"
            params.append(task_id)
        rows = self._exec(sql + " ORDER BY updated_at", params)
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
        with self.atomic():
            before = self._conn.total_changes()
            if key is None:
                self._exec("DELETE FROM working_items WHERE user_id=? AND task_id=?", (user_id, task_id))
            else:
                self._exec(
                    "DELETE FROM working_items WHERE user_id=? AND task_id=? AND key=?",
                    (user_id, task_id, key),
                )
            return self._conn.total_changes() - before

    def expire_working(self, now: datetime) -> int:
        with self.atomic():
            before = self._conn.total_changes()
            self._exec(
                "DELETE FROM working_items WHERE expire_ts IS NOT NULL AND expire_ts <= ?", (now.timestamp(),)
            )
            return self._conn.total_changes() - before

    # ------------------------------------------------------------------ durable job queue
    def enqueue(self, kind: str, payload: dict[str, Any], *, run_after: datetime | None = None) -> int:
        self._exec(
            "INSERT INTO jobs (kind, payload, run_after_ts, created_at) VALUES (?, ?, ?, ?)",
            (kind, json.dumps(payload, ensure_ascii=False), _ts(run_after) or 0.0, _now().isoformat()),
        )
        return self._conn.last_insert_rowid()

    def claim_jobs(self, *, limit: int, now: datetime) -> list[Job]:
        with self.atomic():
            rows = self._exec(
                "SELECT id, kind, payload, attempts FROM jobs WHERE status='pending' AND run_after_ts <= ? "
                "ORDER BY id LIMIT ?",
                (now.timestamp(), limit),
            )
            for r in rows:
                self._exec("UPDATE jobs SET status='running', attempts=attempts+1 WHERE id=?", (r[0],))
        return [Job(id=r[0], kind=r[1], payload=json.loads(r[2]), attempts=r[3] + 1) for r in rows]

    def requeue_running(self) -> int:
        """Jobs left 'running' by a process that died go back to pending (at-least-once, idempotent jobs)."""
        with self.atomic():
            before = self._conn.total_changes()
            self._exec("UPDATE jobs SET status='pending' WHERE status='running'")
            return self._conn.total_changes() - before

    def finish_job(self, job_id: int) -> None:
        self._exec("DELETE FROM jobs WHERE id=?", (job_id,))

    def fail_job(self, job_id: int, error: str, *, retry_at: datetime | None) -> None:
        if retry_at is None:
            self._exec("UPDATE jobs SET status='failed', error=? WHERE id=?", (error[:500], job_id))
        else:
            self._exec(
                "UPDATE jobs SET status='pending', error=?, run_after_ts=? WHERE id=?",
                (error[:500], retry_at.timestamp(), job_id),
            )

    def pending_jobs(self) -> int:
        return int(self._exec("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')")[0][0])

    # ------------------------------------------------------------------ vault
    def put_secret(
        self, user_id: str, memory_id: str, label: str, kind: str, blob: bytes, key_id: str
    ) -> None:
        self._exec(
            "INSERT INTO vault (user_id, memory_id, label, kind, ciphertext, key_id) VALUES (?, ?, ?, ?, ?, ?)",
            (user_id, memory_id, label, kind, blob, key_id),
        )

    def secrets_for(self, memory_id: str) -> list[dict[str, Any]]:
        rows = self._exec(
            "SELECT id, label, kind, ciphertext, key_id FROM vault WHERE memory_id=? ORDER BY id",
            (memory_id,),
        )
        return [
            {"id": r[0], "label": r[1], "kind": r[2], "ciphertext": bytes(r[3]), "key_id": r[4]} for r in rows
        ]

    def all_secrets(self) -> list[dict[str, Any]]:
        rows = self._exec("SELECT id, memory_id, label, kind, ciphertext, key_id FROM vault ORDER BY id")
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
        self._exec("UPDATE vault SET ciphertext=?, key_id=? WHERE id=?", (blob, key_id, secret_id))

    # ------------------------------------------------------------------ erase
    def forget_user(self, user_id: str) -> int:
        """Hard erase of everything of one user; then FTS segments are rewritten and the WAL truncated so
        no byte of the user's text is left in the files (secure_delete zeroes the freed pages)."""
        with self.atomic():
            pks = [r[0] for r in self._exec("SELECT pk FROM memories WHERE user_id=?", (user_id,))]
            for pk in pks:
                self._exec("DELETE FROM memories_fts WHERE rowid=?", (pk,))
            self._exec("DELETE FROM memory_vectors WHERE user_id=?", (user_id,))
            self._vectors.drop(user_id)
            self._exec("DELETE FROM memories WHERE user_id=?", (user_id,))
            for table in (
                "versions",
                "links",
                "audit",
                "counters",
                "session_messages",
                "sessions",
                "working_items",
                "vault",
            ):
                self._exec(f"DELETE FROM {table} WHERE user_id=?", (user_id,))
            self._exec("DELETE FROM jobs WHERE json_extract(payload, '$.user_id') = ?", (user_id,))
        self._exec("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
        # another connection may hold the WAL open; its checkpoint finishes the job
        with contextlib.suppress(StoreError):
            self.checkpoint()
        return len(pks)
