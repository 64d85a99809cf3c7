"""Search on SQLite: exact cosine KNN (sqlite-vec, or the in-process matrix for large scopes), FTS5 BM25
over the segmented keyword index, time ranges; and access statistics."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import cache
from typing import Any

import apsw
import numpy as np

from memscribe.store.codec import scope_token
from memscribe.store.sqlite import vector_sidecar
from memscribe.store.sqlite.connection import SQLiteConnection
from memscribe.store.sqlite.vector_cache import ScopeMatrix, VectorCache

__all__ = ["SQLiteSearch"]

# span bounds of the time indexes (migration 4), in seconds; literal in the SQL so the partial indexes apply
_DAY = 86400
_MONTH = 2764800  # 32 days
# documents a keyword query scores at most (see keyword_search): FTS5 spends ~1.5 µs on each, so a query
# stays within ~6 ms of BM25 work however many memories hold its words
KEYWORD_CANDIDATES = 4096


def _window(total: int, matches: int, budget: int) -> tuple[int, int]:
    """(the rowid after which to score, the store's last rowid): all rows when the estimated matches fit
    the budget, else the newest span expected to hold ``budget`` of them."""
    if matches <= budget:
        return 0, total
    return total - max(budget, budget * total // max(1, matches)), total


_TOKENIZER_LOCK = threading.Lock()


@cache
def _index_tokenizer() -> Any:
    """The memories index's tokenizer (porter over unicode61, diacritics removed) on a connection of its own."""
    return apsw.Connection(":memory:").fts5_tokenizer("porter", ["unicode61", "remove_diacritics", "2"])


class SQLiteSearch(SQLiteConnection):
    _vectors: VectorCache

    def vector_search(
        self,
        user_id: str,
        query: np.ndarray,
        *,
        k: int,
        statuses: Sequence[str] = ("active",),
        near: bool = False,
    ) -> list[tuple[str, float]]:
        """Cosine KNN inside one user's scope: sqlite-vec's exact distance over a small scope; over a large
        one, the scope's matrix (a projection's shortlist rescored exactly) or, for ``near`` look-ups of the
        write path, its neighbour graph."""
        with self._lock:
            matrix = self._scope_matrix(user_id)
            if matrix is not None:
                return matrix.near(query, k, statuses) if near else matrix.search(query, k, statuses)
        q = np.asarray(query, dtype=np.float32).tobytes()
        rows = self._exec(
            "SELECT m.id, vec_distance_cosine(v.embedding, ?) AS d FROM memory_vectors v "
            "JOIN memories m ON m.pk = v.pk "
            f"WHERE v.user_id = ? AND m.status IN ({','.join('?' * len(statuses))}) ORDER BY d LIMIT ?",
            (q, user_id, *statuses, k),
        )
        return [(r[0], 1.0 - float(r[1])) for r in rows]

    def build_neighbour_index(self, user_id: str) -> bool:
        """Ready the scope's neighbour graph now (read from the sidecar, else built) instead of in the first
        write that needs it: a one-time cost (about a minute per million vectors on two cores) a bulk import
        or a benchmark can pay up front. False when the scope is too small to use one."""
        with self._lock:
            matrix = self._scope_matrix(user_id)
            return matrix is not None and matrix.neighbour_graph(build=True) is not None

    def _scope_matrix(self, user_id: str) -> ScopeMatrix | None:
        """The scope's matrix brought up to date (None for a scope small enough for SQL, or empty).
        Called with the lock held."""
        seq = self._exec("SELECT max(vseq) FROM memories WHERE user_id=?", (user_id,))[0][0]
        if seq is None:
            self._vectors.drop(user_id)
            return None
        return self._vectors.get(
            user_id,
            int(seq),
            lambda: int(self._exec("SELECT count(*) FROM memory_vectors WHERE user_id=?", (user_id,))[0][0]),
            # paged from the cursor: a scope built from SQL is never all in memory as rows at once
            lambda since: self._rows(
                "SELECT m.pk, m.id, m.status, v.embedding FROM memories m JOIN memory_vectors v ON v.pk = m.pk "
                "WHERE m.user_id=? AND m.vseq > ?",
                (user_id, since),
            ),
            snapshot=lambda: self._load_vector_snapshot(user_id),
        )

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
                few = self._vectors.unsaved.get(user_id, 0) < max(min_new_rows, matrix.n // 50)
                if few and not matrix.graph_unsaved:
                    continue
                token = vector_sidecar.save(self.path, user_id, matrix)
                with self.atomic():  # type: ignore[attr-defined]
                    self.set_meta(vector_sidecar.meta_key(user_id), token)  # type: ignore[attr-defined]
                self._vectors.mark_saved(user_id)
                matrix.graph_unsaved = False
                written += 1
        return written

    def _term_docs(self, terms: list[str]) -> tuple[dict[str, int], dict[str, int]]:
        """Documents holding each term, over all users, from FTS5's vocabulary (one walk of each term's
        list): by the term as given (lower case) and by the term as indexed — stemmed by the index's own
        tokenizer, the least common token standing for a term that the tokenizer splits."""
        indexed = {t: self._index_tokens(t) for t in terms}
        keys = sorted({t.lower() for t in terms} | {tok for toks in indexed.values() for tok in toks})
        marks = ",".join("?" * len(keys))
        df = dict(self._read(f"SELECT term, doc FROM memories_vocab WHERE term IN ({marks})", keys))
        by_token = {t: min((df.get(tok, 0) for tok in toks), default=0) for t, toks in indexed.items()}
        return {t.lower(): df.get(t.lower(), 0) for t in terms}, by_token

    def _index_tokens(self, term: str) -> list[str]:
        """The term as the index's tokenizer stores it. The tokenizer lives on a private in-memory connection
        with its own lock: an apsw connection may be used by one thread at a time, and keyword search runs in
        a pool thread beside the store's own connections (the writer's lock would make it wait for writes)."""
        with _TOKENIZER_LOCK:
            tokenize = _index_tokenizer()
            return [
                tok[2]
                for tok in tokenize(term.encode("utf-8", "surrogatepass"), apsw.FTS5_TOKENIZE_QUERY, None)
            ]

    @staticmethod
    def _selective(terms: list[str], df: dict[str, int], total: int) -> list[str]:
        """Drop terms found in over a quarter of all documents when rarer ones remain: they add almost
        nothing to BM25 but make FTS5 score most of the index (every memory says 用户 / the user).

        ``df`` is by the term as given, not as stemmed: a stemmed English word ("allergies") is never
        dropped here — kept so as not to change recall in this change."""
        if len(terms) < 2 or total < 200:
            return terms
        kept = [t for t in terms if df.get(t.lower(), 0) <= 0.25 * total]
        return kept or [min(terms, key=lambda t: df.get(t.lower(), 0))]

    def _owns_most_matches(self, user_id: str, words: str) -> bool:
        """Whether most of the newest documents matching the terms are this user's (a sample of 64).

        Then the scope token is left out of the MATCH: intersecting with it walks the whole scope's list
        (and BM25 counts its documents) on every query — 60 ms at a million memories — while it removes
        almost nothing; the join on memories drops the other users' rows either way."""
        rows = self._read(
            "SELECT count(*), coalesce(sum(m.user_id = ?), 0) FROM (SELECT rowid FROM memories_fts "
            "WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT 64) f JOIN memories m ON m.pk = f.rowid",
            (user_id, f"terms : ({words})"),
        )
        seen, own = rows[0]
        return seen > 0 and 2 * own >= seen

    def keyword_search(
        self, user_id: str, terms: Sequence[str], *, k: int, statuses: Sequence[str] = ("active",)
    ) -> list[tuple[str, float]]:
        """BM25 over the segmented keyword index. Terms are quoted: query syntax never reaches FTS5.

        FTS5 scores every document a MATCH returns before it can sort, so the cost of a query grows with
        how many memories hold its words. The scored documents are capped at a candidate budget: when the
        terms match more than ``KEYWORD_CANDIDATES`` documents, only the newest rowid window expected to
        hold that many (from the terms' document counts) is scored, and before it only the documents that
        hold one of the query's rare terms (see ``_older_by_rare``). Below the budget — every store up to
        some 10^5 memories for common words — the ranking is exact BM25; above it, an old document that
        holds only common words can be missed. The scores are the exact BM25 of the whole index either
        way (FTS5 counts each term over all rows): the budget changes which documents are scored, never a
        document's score."""
        # NUL ends a C string inside FTS5's parser; other control characters carry no meaning
        terms = ["".join(ch for ch in t if ch >= " ") for t in terms]
        terms = [t for t in terms if t.strip()]
        if not terms:
            return []
        terms = terms[:64]
        total = self._read("SELECT max(pk) FROM memories")[0][0] or 0
        df, indexed_df = self._term_docs(terms)
        terms = self._selective(terms, df, total)
        quoted = ['"' + t.replace('"', '""') + '"' for t in terms]
        words = " OR ".join(quoted)
        scope = "" if self._owns_most_matches(user_id, words) else f'scope : "{scope_token(user_id)}" AND '
        budget = max(KEYWORD_CANDIDATES, 16 * k)
        # an upper bound of the matches (a document holding two terms counts twice)
        matches = sum(indexed_df[t] for t in terms)
        window = _window(total, matches, budget)
        found = self._ranked(f"{scope}terms : ({words})", user_id, statuses, k, window)
        if window[0] > 0:
            # Older than the window: every document holding one of the rare terms (together no more than
            # half the budget: the stage scores them twice) — a name, an order number — is still scored;
            # only documents holding nothing but common words are left to the newest ones.
            rare, seen = [], 0
            for q, t in sorted(zip(quoted, terms, strict=True), key=lambda qt: indexed_df[qt[1]]):
                if seen + indexed_df[t] > budget // 2:
                    break
                rare.append(q)
                seen += indexed_df[t]
            if rare:
                found += self._older_by_rare(scope, " OR ".join(rare), words, window[0], user_id, statuses)
            elif len(terms) > 1:
                # a window of the newest matches may hold few of the documents with every term, the best
                # ones as a rule: those come from their own window, of the conjunction (at most as many
                # documents as the rarest term has)
                both = " AND ".join(f"terms : {q}" for q in quoted)
                rarest = min(indexed_df[t] for t in terms)
                found += self._ranked(f"{scope}{both}", user_id, statuses, k, _window(total, rarest, budget))
        best: dict[str, tuple[float, int]] = {}
        for mid, score, pk in found:
            best[mid] = (score, pk)
        ranked = sorted(best.items(), key=lambda kv: (kv[1][0], -kv[1][1]))[:k]
        # FTS5's bm25() is negative (lower is better); report the positive score.
        return [(mid, -score) for mid, (score, _pk) in ranked]

    def _older_by_rare(
        self, scope: str, rare: str, words: str, before: int, user_id: str, statuses: Sequence[str]
    ) -> list[tuple[str, float, int]]:
        """(id, bm25 of the whole query, pk) of this user's documents up to rowid ``before`` that hold a
        rare term. BM25 is a sum over the query's phrases, so MATCH "rare AND all" scores the rare phrases
        twice; subtracting the score of "rare" alone leaves each document's exact score for "all"."""
        marks = ",".join("?" * len(statuses))
        sql = (
            "SELECT m.id, f.s, f.rowid FROM (SELECT rowid, bm25(memories_fts, 0.0, 1.0) AS s "
            "FROM memories_fts WHERE memories_fts MATCH ? AND rowid <= ?) f "
            "CROSS JOIN memories m ON m.pk = f.rowid "
            f"WHERE m.user_id = ? AND m.status IN ({marks})"
        )
        both = self._read(sql, (f"{scope}terms : ({rare}) AND terms : ({words})", before, user_id, *statuses))
        alone = {
            pk: s for _mid, s, pk in self._read(sql, (f"{scope}terms : ({rare})", before, user_id, *statuses))
        }
        return [(mid, s - alone[pk], pk) for mid, s, pk in both if pk in alone]

    def _ranked(
        self, match: str, user_id: str, statuses: Sequence[str], k: int, window: tuple[int, int]
    ) -> list[tuple[str, float, int]]:
        """The k best (id, bm25, pk) of one MATCH among rowids after ``window``'s start, of this user's
        memories in ``statuses``. FTS5 ranks inside the index (its top-k path); the join only drops other
        statuses (and users), so it asks for more than k, and widens the window — then the limit — when
        too many of the best are archived or superseded."""
        start, total = window
        marks = ",".join("?" * len(statuses))
        limit = 4 * k + 50
        while True:
            # CROSS JOIN keeps FTS5 outermost: otherwise the planner may walk the user's whole scope
            rows = self._read(
                "SELECT m.id, f.s, f.rowid FROM (SELECT rowid, bm25(memories_fts, 0.0, 1.0) AS s "
                "FROM memories_fts WHERE memories_fts MATCH ? AND rowid > ? ORDER BY s LIMIT ?) f "
                "CROSS JOIN memories m ON m.pk = f.rowid "
                f"WHERE m.user_id = ? AND m.status IN ({marks}) ORDER BY f.s, f.rowid DESC LIMIT ?",
                (match, start, limit, user_id, *statuses, k),
            )
            if len(rows) >= k or limit >= 1 << 22:
                return rows
            if start > 0:
                start = max(0, total - 4 * (total - start))
                continue
            n = self._read("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (match,))[0][0]
            if n <= limit:
                return rows
            limit *= 8

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
