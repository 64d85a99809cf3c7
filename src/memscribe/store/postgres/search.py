"""Search on PostgreSQL: cosine KNN (an exact scan for small scopes, HNSW with pgvector's iterative index
scans for large ones, falling back to the exact scan when the filtered index scan comes back short), a
BM25-like ranking over the GIN-indexed ``tsvector`` of the jieba-segmented text (idf from the planner's
statistics), time ranges; and access statistics."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache

import numpy as np
import psycopg

from memscribe.errors import EmbedderMismatch
from memscribe.store.codec import scope_token
from memscribe.store.postgres.connection import PostgresConnection, keyword_terms

__all__ = ["PostgresSearch"]

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


class PostgresSearch(PostgresConnection):
    exact_max_scope = 1000  # vectors in a scope up to which KNN is an exact scan (no index, recall 1.0)

    def scope_size(self, user_id: str, *, cap: int) -> int:
        """Vectors in a scope, counted up to ``cap`` + 1 (an index-only scan bounded by the cap)."""
        return int(
            self._one(
                "SELECT count(*) FROM (SELECT 1 FROM memory_vectors WHERE user_id=%s LIMIT %s) s",
                (user_id, cap + 1),
            )[0]
        )

    def vector_search(
        self,
        user_id: str,
        query: np.ndarray,
        *,
        k: int,
        statuses: Sequence[str] = ("active",),
        near: bool = False,
    ) -> list[tuple[str, float]]:
        """Cosine KNN inside one scope: exact for small scopes, HNSW with iterative scans for large ones (the
        same for the write path's ``near`` look-ups: the server's graph already serves both)."""
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
        terms = [keyword_terms(t) for t in terms]
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
            (*params, scope_token(user_id), query, user_id, list(statuses), k),
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
