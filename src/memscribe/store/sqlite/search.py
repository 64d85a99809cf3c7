"""Search on SQLite: exact cosine KNN (sqlite-vec, or the in-process matrix for large scopes), FTS5 BM25
over the segmented keyword index, time ranges; and access statistics."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

import numpy as np

from memscribe.store.codec import scope_token
from memscribe.store.sqlite import vector_sidecar
from memscribe.store.sqlite.connection import SQLiteConnection
from memscribe.store.sqlite.vector_cache import VectorCache

__all__ = ["SQLiteSearch"]

# span bounds of the time indexes (migration 4), in seconds; literal in the SQL so the partial indexes apply
_DAY = 86400
_MONTH = 2764800  # 32 days


class SQLiteSearch(SQLiteConnection):
    _vectors: VectorCache

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
                snapshot=lambda: self._load_vector_snapshot(user_id),
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

    def _load_vector_snapshot(self, user_id: str):  # type: ignore[no-untyped-def]
        """The scope's matrix as last saved beside the file, if the store recorded that very snapshot."""
        if str(self.path) == ":memory:":
            return None
        dim = self.get_meta("embedder_dim")  # type: ignore[attr-defined]
        return vector_sidecar.load(
            self.path,
            user_id,
            token=self.get_meta(vector_sidecar.meta_key(user_id)),  # type: ignore[attr-defined]
            dim=int(dim) if dim else None,
        )

    def save_vector_snapshots(self, *, min_new_rows: int | None = None) -> int:
        """Save each large scope whose matrix took at least ``min_new_rows`` rows (default: the cache's
        ``min_size``; or a 50th of the scope, if more) from SQL since it was last loaded or saved: the next
        process then reads one file instead of every BLOB. Returns how many were written."""
        if min_new_rows is None:
            min_new_rows = self._vectors.min_size
        if str(self.path) == ":memory:":
            return 0
        written = 0
        with self._lock:
            for user_id, matrix in self._vectors.scopes():
                if self._vectors.unsaved.get(user_id, 0) < max(min_new_rows, matrix.n // 50):
                    continue
                token = vector_sidecar.save(self.path, user_id, matrix)
                with self.atomic():  # type: ignore[attr-defined]
                    self.set_meta(vector_sidecar.meta_key(user_id), token)  # type: ignore[attr-defined]
                self._vectors.mark_saved(user_id)
                written += 1
        return written

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
        match = f'scope : "{scope_token(user_id)}" AND terms : ({words})'
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
        """Memories whose time overlaps [start, end], earliest first.

        Three bounded index scans, one per span length (migration 4): a span of at most a day that
        overlaps the window starts at most a day before it, a span of at most 32 days at most 32 days
        before it; only the rare longer spans are scanned from the beginning. Each returns its k earliest;
        the k earliest of their union are the answer."""
        lo, hi = start.timestamp(), end.timestamp()
        marks = ",".join("?" * len(statuses))
        tail = f"AND status IN ({marks}) ORDER BY time_start_ts LIMIT ?"
        tiers = [
            (
                "time_start_ts >= ? AND time_start_ts <= ? AND coalesce(time_end_ts, time_start_ts) >= ?",
                (lo - _DAY, hi, lo),
            ),
            (
                f"time_end_ts - time_start_ts > {_DAY} AND time_end_ts - time_start_ts <= {_MONTH} "
                "AND time_start_ts >= ? AND time_start_ts <= ? AND time_end_ts >= ?",
                (lo - _MONTH, hi, lo),
            ),
            (f"time_end_ts - time_start_ts > {_MONTH} AND time_start_ts <= ? AND time_end_ts >= ?", (hi, lo)),
        ]
        found: dict[str, tuple[float, int]] = {}
        for where, params in tiers:
            for mid, ts, pk in self._exec(
                f"SELECT id, time_start_ts, pk FROM memories WHERE user_id=? AND {where} {tail}",
                (user_id, *params, *statuses, k),
            ):
                found[mid] = (ts, pk)
        return sorted(found, key=found.__getitem__)[:k]

    def touch(self, ids: Iterable[str], at: datetime) -> None:
        ids = list(ids)
        if not ids:
            return
        with self.atomic():
            self._conn.executemany(
                "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? WHERE id = ?",
                [(at.isoformat(), i) for i in ids],
            )
