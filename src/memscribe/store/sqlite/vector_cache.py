"""Exact KNN for large scopes: the scope's vectors as one numpy matrix, kept in step with SQLite.

SQLite stays the source of truth. Each memory row carries ``vseq``, a store-wide write sequence; the cache
remembers the highest ``vseq`` it has seen per scope and, before each search, loads only rows written
since (by this process or any other). A brute-force matrix-vector product over 100k × 384 floats takes a
few milliseconds, an order of magnitude faster than scanning BLOBs through SQL. Small scopes never use it
(the SQL scan is already ~1 ms there); large ones hold their vectors in float16 (see ``ScopeMatrix``), with
float32 scores.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from memscribe.store.sqlite.neighbour_graph import GRAPH_MIN, NeighbourGraph

__all__ = ["ScopeMatrix", "VectorCache"]


_STATUS_CODES = {"active": 0, "superseded": 1, "archived": 2, "expired": 3, "deleted": 4, "pending_review": 5}


@functools.lru_cache(maxsize=32)
def _status_lut(statuses: tuple[str, ...]) -> np.ndarray:
    lut = np.zeros(128, dtype=bool)
    for s in statuses:
        if s in _STATUS_CODES:
            lut[_STATUS_CODES[s]] = True
    return lut


_ID_END = b"\xff"  # ends every stored id: never UTF-8, and numpy's fixed-width bytes drop trailing NULs only
_CHUNK = 8_192  # rows converted or appended at a time: bounds the temporary float32 copies
# float16 -> float32 by table: every bit pattern's exact float32 value (256 KB). numpy's astype has no SIMD
# conversion on this baseline: 0.30 ms for a 400-row shortlist, against 0.17 ms by this gather
_F16_TO_F32 = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)


@dataclass
class ScopeMatrix:
    """One scope's vectors in a growable matrix (capacity doubles while small: appends are amortised
    O(1)), with statuses as small integer codes so a status filter is one vectorised comparison.

    Memory, the largest part of a fresh process at a million vectors: once a scope is past ``pca_min``
    the full vectors are held in float16 (a 384-d vector rounded to float16 moves its cosine with a
    unit query by ~1e-5) while the first pass runs on the float32 projection, since numpy has no BLAS
    kernel for float16 (its matvec is 13-40x slower than float32's). The shortlist's float16 rows are
    converted back to float32 for the exact rescoring. Smaller scopes stay float32: they are a few MB,
    and converting 8k rows on every search would cost more than the scan. Ids and row keys are numpy
    arrays, not a list of str and a dict (175 MB of Python objects at 1M, against ~50 MB)."""

    seq: int
    dim: int
    _n: int = 0
    _mat: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    _codes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    _ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype="S1"))  # utf-8 + _ID_END per row
    _pks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # row -> memories.pk
    # pk -> row: the pks of the first rows sorted (with their rows), and a dict for rows appended since;
    # the dict is folded into the sorted arrays when it grows past a 32nd of the scope
    _spk: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    _srow: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    _fresh: dict[int, int] = field(default_factory=dict)
    # Scopes past ``pca_min`` vectors keep a low-rank projection too: a first pass over n × rank floats
    # picks ``shortlist`` candidates, which are then scored exactly against the full vectors.
    pca_min: int = 8_000  # measured: 10k x 384 exact 1.7 ms vs projected first pass 0.5 ms
    rank: int = 96
    shortlist: int = 400
    _basis: np.ndarray | None = None
    # rows the scope is known to hold (counted before it is read from SQL): once the vectors are float16 the
    # matrix grows to this at once instead of by quarters, each of which copies it
    expected: int = 0
    _proj: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    # the write path's near-neighbour graph (neighbour_graph.py), past ``graph_min`` vectors; one saved in the
    # snapshot is read on first use (a process that only reads never holds it), with the rows written since
    graph_min: int = GRAPH_MIN
    _graph: NeighbourGraph | None = None
    _graph_saved: Callable[[], NeighbourGraph | None] | None = None
    _graph_since: list[np.ndarray] = field(default_factory=list)
    graph_unsaved: bool = False  # built in this process: worth a snapshot even if few rows came since

    @property
    def n(self) -> int:
        return self._n

    def id_at(self, row: int) -> str:
        return bytes(self._ids[row])[:-1].decode("utf-8")

    def row_of(self, pk: int) -> int | None:
        row = self._lookup(np.array([pk], dtype=np.int64))[0]
        return None if row < 0 else int(row)

    def vectors(self, rows: np.ndarray | slice | int) -> np.ndarray:
        """Rows of the full vectors as float32."""
        part = self._mat[rows]
        return _F16_TO_F32.take(part.view(np.uint16)) if part.dtype == np.float16 else part

    def _lookup(self, pks: np.ndarray) -> np.ndarray:
        """Rows of ``pks`` (-1 where not held)."""
        out = np.full(pks.shape[0], -1, dtype=np.int64)
        if self._spk.size:
            i = np.minimum(np.searchsorted(self._spk, pks), self._spk.size - 1)
            hit = self._spk[i] == pks
            out[hit] = self._srow[i[hit]]
        if self._fresh:
            for j in np.flatnonzero(out < 0).tolist():
                out[j] = self._fresh.get(int(pks[j]), -1)
        return out

    def reindex(self) -> None:
        """Sort the row keys again (a stable sort: the keys arrive almost in order, ~25 ms at 1M)."""
        order = np.argsort(self._pks[: self._n], kind="stable")
        self._spk, self._srow = self._pks[order], order
        self._fresh = {}

    def _grow(self, need: int, dim: int, id_width: int) -> None:
        have = self._mat.shape[0]
        if have < need or self._mat.shape[1] != dim:
            # doubling while small; past 64k rows a quarter more, so a million-row scope never holds room
            # for a second million (amortised O(1) appends either way)
            cap = max(need, 2 * have if have < 65_536 else have + have // 4, 1024)
            if self._basis is not None and need <= self.expected:
                # a scope read from SQL: its size is known, grow once, with room for the writes that follow
                # (else the first write after the build copies the whole matrix: ~1 GB at a million rows)
                cap = max(cap, self.expected + max(1024, self.expected // 8))
            n = self._n
            dtype = self._mat.dtype if n else np.float32
            mat = np.zeros((cap, dim), dtype=dtype)
            codes = np.zeros(cap, dtype=np.int8)
            ids = np.zeros(cap, dtype=self._ids.dtype)
            pks = np.zeros(cap, dtype=np.int64)
            if n:
                mat[:n] = self._mat[:n]
                codes[:n], ids[:n], pks[:n] = self._codes[:n], self._ids[:n], self._pks[:n]
            self._mat, self._codes, self._ids, self._pks = mat, codes, ids, pks
            if self._basis is not None:
                proj = np.zeros((cap, self.rank), dtype=np.float32)
                proj[:n] = self._proj[:n]
                self._proj = proj
        if self._ids.dtype.itemsize < id_width:
            self._ids = self._ids.astype(f"S{id_width}")

    def _fit_projection(self) -> None:
        """Uncentred SVD of a sample: the subspace that best preserves inner products with the vectors.
        The full vectors are float32 until now; from here on they are held in float16."""
        n = self._n
        rng = np.random.default_rng(0)
        sample = self.vectors(np.sort(rng.choice(n, size=min(n, 4000), replace=False)))
        _, _, vt = np.linalg.svd(sample, full_matrices=False)
        self._basis = np.ascontiguousarray(vt[: self.rank].T, dtype=np.float32)
        self._proj = np.zeros((self._mat.shape[0], self.rank), dtype=np.float32)
        self._proj[:n] = self._mat[:n] @ self._basis
        self._mat = self._mat.astype(np.float16)

    def apply(self, rows: Iterable[tuple[int, str, str, bytes]]) -> int:
        """Rows (pk, id, status, embedding) written since ``seq``: replace in place or append. ``rows`` may be
        a cursor: it is read a chunk at a time, so a scope built from SQL (a million BLOBs after an upgrade)
        never holds all its rows as Python objects at once. Returns how many rows were read."""
        it, read = iter(rows), 0
        while chunk := list(itertools.islice(it, _CHUNK)):
            self._apply(chunk)
            read += len(chunk)
            if self._basis is None and self._n >= self.pca_min:
                self._fit_projection()
        return read

    def _apply(self, rows: Sequence[tuple[int, str, str, bytes]]) -> None:
        if not rows:
            return
        pks = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        _, last = np.unique(pks[::-1], return_index=True)
        if last.size < len(rows):  # one pk twice in a batch: its last row is the one written
            keep = np.sort(len(rows) - 1 - last)
            rows, pks = [rows[i] for i in keep.tolist()], pks[keep]
        blobs = [r[3] for r in rows]
        dim = len(blobs[0]) // 4
        if any(len(b) != 4 * dim for b in blobs) or (self._n and self._mat.shape[1] != dim):
            raise ValueError("vectors of different dimensions in one scope")
        vecs = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(rows), dim)
        at = self._lookup(pks)
        new = np.flatnonzero(at < 0)
        if new.size:
            ids = np.array([rows[i][1].encode("utf-8") + _ID_END for i in new.tolist()], dtype=np.bytes_)
            n = self._n
            self._grow(n + new.size, dim, ids.dtype.itemsize)
            at[new] = np.arange(n, n + new.size)
            self._ids[n : n + new.size], self._pks[n : n + new.size] = ids, pks[new]
            self._n = n + new.size
            if len(self._fresh) + new.size > max(1024, self._n // 32):
                self.reindex()
            else:
                self._fresh.update(zip(pks[new].tolist(), at[new].tolist(), strict=True))
        if self._graph is not None or self._graph_saved is not None:
            # a status change rewrites the row with the same vector: only a new vector is a new node
            moved = np.ones(at.size, dtype=bool)
            held = np.flatnonzero(at < self._n - new.size)  # rows held before this batch
            if held.size:
                moved[held] = np.abs(self.vectors(at[held]) - vecs[held]).max(axis=1) > 1e-3
            if self._graph is not None:
                self._graph.add(at[moved], vecs[moved])
            else:
                self._graph_since.append(at[moved])
        self._mat[at] = vecs
        self._codes[at] = [_STATUS_CODES.get(r[2], 127) for r in rows]
        if self._basis is not None:
            self._proj[at] = vecs @ self._basis

    def _full_scores(self, q: np.ndarray) -> np.ndarray:
        n = self._n
        if self._mat.dtype == np.float32:
            return self._mat[:n] @ q
        return np.concatenate([self.vectors(slice(s, min(n, s + _CHUNK))) @ q for s in range(0, n, _CHUNK)])

    def search(self, q: np.ndarray, k: int, statuses: Sequence[str]) -> list[tuple[str, float]]:
        n = self._n
        if not n:
            return []
        q = np.asarray(q, dtype=np.float32)
        # a 128-entry lookup table turns the status filter into one gather (np.isin sorts, per call)
        mask = _status_lut(tuple(statuses))[self._codes[:n]]
        if self._basis is not None and n > self.shortlist + k:
            approx = self._proj[:n] @ (q @ self._basis)
            if not mask.all():
                approx = np.where(mask, approx, -np.inf)
            # the largest without negating the scores first (a copy of n floats: ~1 ms at 1M)
            cand = np.argpartition(approx, n - self.shortlist)[n - self.shortlist :]
            return self._rescore(cand[np.isfinite(approx[cand])], q, k)
        sims = self._full_scores(q)
        if not mask.all():
            sims = np.where(mask, sims, -np.inf)
        k = min(k, n)
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top])]
        return [(self.id_at(int(i)), float(sims[i])) for i in top if np.isfinite(sims[i])]

    def near(self, q: np.ndarray, k: int, statuses: Sequence[str]) -> list[tuple[str, float]]:
        """The write path's nearest neighbours (duplicates, an older value of a slot): from the graph once
        the scope is past ``graph_min`` vectors, rescored exactly; below it, ``search``."""
        graph = self.neighbour_graph(build=True)
        if graph is None:
            return self.search(q, k, statuses)
        q = np.asarray(q, dtype=np.float32)
        rows = graph.candidates(q)
        return self._rescore(rows[_status_lut(tuple(statuses))[self._codes[rows]]], q, k)

    def _rescore(self, rows: np.ndarray, q: np.ndarray, k: int) -> list[tuple[str, float]]:
        """The ``k`` best of candidate ``rows`` by their exact cosine with ``q`` (the full vectors in float32)."""
        rows = np.sort(rows)  # in row order: the gather reads forward
        exact = self.vectors(rows) @ q
        order = np.argsort(-exact)[:k]
        return [(self.id_at(int(rows[i])), float(exact[i])) for i in order]

    def neighbour_graph(self, *, build: bool) -> NeighbourGraph | None:
        """The graph: the saved one (brought up to date) on first use, else built when ``build`` and the
        scope is large enough."""
        if self._graph is None and self._graph_saved is not None:
            loader, self._graph_saved = self._graph_saved, None
            graph = loader()
            if graph is not None:
                since = (
                    np.unique(np.concatenate(self._graph_since)) if self._graph_since else np.zeros(0, int)
                )
                graph.add(since, self.vectors(since))
                self._graph = graph
            self._graph_since = []
        if self._graph is None and build and self._n >= self.graph_min:
            self._graph = NeighbourGraph.build(self.vectors, self._n, int(self._mat.shape[1]))
            self.graph_unsaved = True
        return self._graph


class VectorCache:
    """Per-scope matrices for scopes of at least ``min_size`` vectors. A scope seen for the first time in
    this process starts from its saved snapshot when one is valid (``vector_sidecar``), else from SQL."""

    def __init__(self, min_size: int = 2000, graph_min: int = GRAPH_MIN) -> None:
        self.min_size = min_size
        self.graph_min = graph_min
        self._scopes: dict[str, ScopeMatrix] = {}
        self._small: dict[str, int] = {}  # scope -> write sequence at which it was counted below min_size
        # scope -> rows read from SQL since the matrix was loaded from or written to a snapshot
        self.unsaved: dict[str, int] = {}

    def drop(self, user_id: str) -> None:
        self._scopes.pop(user_id, None)
        self._small.pop(user_id, None)
        self.unsaved.pop(user_id, None)

    def scopes(self) -> list[tuple[str, ScopeMatrix]]:
        return list(self._scopes.items())

    def get(
        self,
        user_id: str,
        seq: int,
        count: Callable[[], int],
        rows_since: Callable[[int], Iterable[tuple[int, str, str, bytes]]],
        snapshot: Callable[[], ScopeMatrix | None] | None = None,
    ) -> ScopeMatrix | None:
        """The up-to-date matrix for a large scope, or None when the scope is small enough for SQL."""
        entry = self._scopes.get(user_id)
        if entry is None:
            if self._small.get(user_id) == seq:
                return None  # nothing written since the scope was counted small
            have = count()
            if have < self.min_size:
                self._small[user_id] = seq
                return None
            self._small.pop(user_id, None)
            entry, applied = self._from_snapshot(snapshot, seq, have, rows_since)
            self.unsaved[user_id] = applied
            if entry is None:
                entry = ScopeMatrix(seq=-1, dim=0, expected=have)
                self.unsaved[user_id] = 0
            entry.graph_min = self.graph_min
            self._scopes[user_id] = entry
        if entry.seq != seq:
            read = entry.apply(rows_since(entry.seq))
            entry.seq = seq
            self.unsaved[user_id] = self.unsaved.get(user_id, 0) + read
        return entry

    @staticmethod
    def _from_snapshot(
        snapshot: Callable[[], ScopeMatrix | None] | None,
        seq: int,
        have: int,
        rows_since: Callable[[int], Iterable[tuple[int, str, str, bytes]]],
    ) -> tuple[ScopeMatrix | None, int]:
        """A snapshot brought up to ``seq`` and the rows that took, if it then holds exactly the scope's
        ``have`` vectors."""
        entry = snapshot() if snapshot is not None else None
        if entry is None or entry.seq > seq:
            return None, 0
        applied = 0
        if entry.seq < seq:
            applied = entry.apply(rows_since(entry.seq))
            entry.seq = seq
        # a hard erase removes rows without a new write sequence: then the snapshot is not the scope
        return (entry, applied) if entry.n == have else (None, 0)

    def mark_saved(self, user_id: str) -> None:
        self.unsaved[user_id] = 0
