"""Copy a SQLite store into an empty PostgreSQL store (``memscribe copy``).

Everything moves in one PostgreSQL transaction — memories with their vectors and keyword text,
versions, links, audit, counters, sessions and their messages, working items, queued jobs, vault rows
and the embedder record — so a failed copy leaves the target empty. Row ids (memory pk, audit id,
message seq, job id, vault id) are kept, and the sequences continue after them. The HNSW index is
rebuilt once at the end instead of row by row. The target must be empty: copy never merges.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import numpy as np

from memscribe.errors import StoreError
from memscribe.store.codec import scope_token as _scope_token
from memscribe.store.postgres.connection import clean_text as _clean
from memscribe.store.postgres.connection import keyword_terms as _terms
from memscribe.store.postgres.store import PostgresStore
from memscribe.store.sqlite.store import SQLiteStore

__all__ = ["copy_sqlite_to_postgres"]

_CHUNK = 2000


def _dt(iso: str | None) -> datetime | None:
    return datetime.fromisoformat(iso) if iso else None


def _epoch(ts: float | None) -> datetime | None:
    return datetime.fromtimestamp(ts, UTC) if ts else None


def _rows(src: SQLiteStore, sql: str) -> Iterator[tuple]:
    """All rows of a query, in pk order, a chunk at a time (bounded memory at millions of rows)."""
    last = -(1 << 62)
    while True:
        chunk = src._exec(sql + " LIMIT ?", (last, _CHUNK))
        if not chunk:
            return
        yield from chunk
        last = chunk[-1][0]


def _vec_text(blob: bytes) -> str:
    return "[" + ",".join(map(str, np.frombuffer(blob, dtype=np.float32).tolist())) + "]"


def copy_sqlite_to_postgres(
    src: SQLiteStore, dst: PostgresStore, *, progress: Callable[[str, int], None] | None = None
) -> dict[str, int]:
    """Copy every row of ``src`` into the empty ``dst``; returns rows copied per table."""
    note = progress or (lambda table, n: None)
    busy = {
        t: dst._one(f"SELECT count(*) FROM (SELECT 1 FROM {t} LIMIT 1) s")[0]
        for t in ("memories", "versions", "audit", "sessions", "vault", "counters", "jobs", "working_items")
    }
    if any(busy.values()):
        raise StoreError(
            f"the target store is not empty ({', '.join(t for t, n in busy.items() if n)} have rows); "
            "copy fills an empty store only: use a new database or ?schema=…, or forget its users first"
        )
    counts: dict[str, int] = {}
    meta = dict(src._exec("SELECT key, value FROM meta WHERE key IN ('embedder', 'embedder_dim')"))
    first = src._exec("SELECT embedding FROM memory_vectors LIMIT 1")
    dim = len(first[0][0]) // 4 if first else int(meta.get("embedder_dim") or 0)
    if meta.get("embedder_dim") and first and int(meta["embedder_dim"]) != dim:
        raise StoreError(f"the source store records {meta['embedder_dim']}-d vectors but holds {dim}-d ones")

    with dst.atomic():
        conn = dst._local.conn
        for key, value in meta.items():
            dst.set_meta(key, value)
        if dim:
            dst._ensure_dim(dim)
        conn.execute("DROP INDEX IF EXISTS memory_vectors_hnsw")

        def copy(table: str, cols: str, rows: Iterator[tuple[Any, ...]]) -> None:
            n = 0
            with conn.cursor().copy(f"COPY {table} ({cols}) FROM STDIN") as cp:
                for row in rows:
                    cp.write_row(row)
                    n += 1
                    if n % 10_000 == 0:
                        note(table, n)
            counts[table] = n
            note(table, n)

        copy(
            "memories",
            "pk, id, user_id, agent_id, session_id, layer, kind, status, text, raw, structured, entities, links, "
            "sources, metadata, time_start, time_end, time_start_ts, time_end_ts, importance, timeliness, "
            "confidence, superseded_by, created_at, updated_at, created_ts, last_accessed_at, access_count, "
            "expire_at, version, subject_key, slot_key, origin_message",
            (
                (
                    r[0],
                    *r[1:8],
                    _clean(r[8]),
                    _clean(r[9]),
                    *(_clean(x) for x in r[10:15]),
                    r[15],
                    r[16],
                    _dt(r[15]),
                    _dt(r[16]),
                    *r[17:21],
                    r[21],
                    r[22],
                    _dt(r[21]),
                    *r[23:27],
                    *(None if x is None else _clean(x) for x in r[27:30]),
                )
                for r in _rows(
                    src,
                    "SELECT pk, id, user_id, agent_id, session_id, layer, kind, status, text, raw, structured, "
                    "entities, links, sources, metadata, time_start, time_end, importance, timeliness, "
                    "confidence, superseded_by, created_at, updated_at, last_accessed_at, access_count, "
                    "expire_at, version, subject_key, slot_key, origin_message FROM memories WHERE pk > ? "
                    "ORDER BY pk",
                )
            ),
        )
        copy(
            "memory_vectors",
            "pk, user_id, status, embedding",
            (
                (r[0], r[1], r[2], _vec_text(r[3]))
                for r in _rows(
                    src,
                    "SELECT v.pk, m.user_id, m.status, v.embedding FROM memory_vectors v "
                    "JOIN memories m ON m.pk = v.pk WHERE v.pk > ? ORDER BY v.pk",
                )
            ),
        )
        conn.execute(
            "CREATE TEMP TABLE copy_terms (pk BIGINT, user_id TEXT, status TEXT, terms TEXT, scope TEXT) ON COMMIT DROP"
        )
        copy(
            "copy_terms",
            "pk, user_id, status, terms, scope",
            (
                (r[0], r[1], r[2], _terms(r[3]), _scope_token(r[1]))
                for r in _rows(
                    src,
                    "SELECT f.rowid, m.user_id, m.status, f.terms FROM memories_fts f JOIN memories m ON m.pk = f.rowid "
                    "WHERE f.rowid > ? ORDER BY f.rowid",
                )
            ),
        )
        conn.execute(
            "INSERT INTO memory_terms (pk, user_id, status, terms, tsv) SELECT pk, user_id, status, terms, "
            "to_tsvector('memscribe_kw', terms) || scope::tsvector FROM copy_terms"
        )
        counts["memory_terms"] = counts.pop("copy_terms")
        copy(
            "versions",
            "memory_id, version, record, reason, actor, created_at, user_id",
            (
                (r[1], r[2], _clean(r[3]), _clean(r[4]), r[5], r[6], r[7])
                for r in _rows(
                    src,
                    "SELECT rowid, memory_id, version, record, reason, actor, created_at, user_id FROM versions "
                    "WHERE rowid > ? ORDER BY rowid",
                )
            ),
        )
        copy(
            "links",
            "src, dst, type, user_id",
            (
                r[1:]
                for r in _rows(
                    src, "SELECT rowid, src, dst, type, user_id FROM links WHERE rowid > ? ORDER BY rowid"
                )
            ),
        )
        copy(
            "audit",
            "id, ts, user_id, memory_id, message_id, stage, action, reason, scores, detail",
            (
                (*r[:7], _clean(r[7]), r[8], _clean(r[9]))
                for r in _rows(
                    src,
                    "SELECT id, ts, user_id, memory_id, message_id, stage, action, reason, scores, detail "
                    "FROM audit WHERE id > ? ORDER BY id",
                )
            ),
        )
        copy(
            "counters",
            "user_id, name, value",
            (
                r[1:]
                for r in _rows(
                    src, "SELECT rowid, user_id, name, value FROM counters WHERE rowid > ? ORDER BY rowid"
                )
            ),
        )
        copy(
            "sessions",
            "session_id, user_id, summary, summarized_upto, updated_at",
            (
                (r[1], r[2], _clean(r[3]), r[4], r[5])
                for r in _rows(
                    src,
                    "SELECT rowid, session_id, user_id, summary, summarized_upto, updated_at FROM sessions "
                    "WHERE rowid > ? ORDER BY rowid",
                )
            ),
        )
        copy(
            "session_messages",
            "seq, session_id, user_id, role, name, content, message_id, at",
            (
                (*r[:5], _clean(r[5]), r[6], r[7])
                for r in _rows(
                    src,
                    "SELECT seq, session_id, user_id, role, name, content, message_id, at FROM session_messages "
                    "WHERE seq > ? ORDER BY seq",
                )
            ),
        )
        copy(
            "working_items",
            "user_id, task_id, key, value, kind, expire_at, expire_ts, updated_at",
            (
                (*r[1:5], r[5], r[6], _dt(r[6]), r[7])
                for r in _rows(
                    src,
                    "SELECT rowid, user_id, task_id, key, value, kind, expire_at, updated_at FROM working_items "
                    "WHERE rowid > ? ORDER BY rowid",
                )
            ),
        )
        # a job 'running' in the source belongs to no live worker of the target: it is pending again
        copy(
            "jobs",
            "id, kind, payload, status, attempts, run_after, error, created_at",
            (
                (
                    r[0],
                    r[1],
                    json.dumps(json.loads(r[2]), ensure_ascii=False),
                    "pending" if r[3] == "running" else r[3],
                    r[4],
                    _epoch(r[5]) or "-infinity",
                    r[6],
                    r[7],
                )
                for r in _rows(
                    src,
                    "SELECT id, kind, payload, status, attempts, run_after_ts, error, created_at FROM jobs "
                    "WHERE id > ? ORDER BY id",
                )
            ),
        )
        copy(
            "vault",
            "id, user_id, memory_id, label, kind, ciphertext, key_id",
            (
                (*r[:5], bytes(r[5]), r[6])
                for r in _rows(
                    src,
                    "SELECT id, user_id, memory_id, label, kind, ciphertext, key_id FROM vault WHERE id > ? ORDER BY id",
                )
            ),
        )
        for table, col in (
            ("memories", "pk"),
            ("audit", "id"),
            ("session_messages", "seq"),
            ("jobs", "id"),
            ("vault", "id"),
        ):
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', '{col}'), coalesce(max({col}), 0) + 1, false) "
                f"FROM {table}"
            )
        if dim:
            note("hnsw index", counts["memory_vectors"])
            conn.execute(
                "CREATE INDEX memory_vectors_hnsw ON memory_vectors "
                "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
            )
    dst._all("ANALYZE memories, memory_vectors, memory_terms")
    return counts
