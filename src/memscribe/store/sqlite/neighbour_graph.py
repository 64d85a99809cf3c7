"""A navigable graph over one large scope's vectors, for the write path's look-up of near neighbours.

Every ``add()`` looks up the stored memories nearest to what it writes (duplicates, an older value of the same
slot). On a scope of a million memories an exact pass over the low-rank projection reads ~400 MB per write
(~30 ms), two or three times the cost of embedding the message: the write grows with the store. An inverted
file over the projection does not help on real sentence embeddings (they do not cluster: scanning a quarter
of the cells was needed to find 99% of the neighbours). A graph does: faiss's HNSW over the vectors scalar-
quantised to 8 bits (384 bytes a vector, the size of the projection) finds a written statement's related
memory almost as often as the projection's shortlist does (``python -m memscribe.bench.neighbour_recall``: of
1,573 labelled relation pairs in the exact top-8 among 7,317 real turns, 0.994 against 0.996), at ~0.3 ms.

Only the write path uses it: ``search()`` keeps the projection's exact pass, whose recall the read path is
measured on. The graph is built once a scope first needs it past ``GRAPH_MIN`` vectors (a one-time cost:
about a minute per million vectors on two cores), follows every write after that, and is saved in the scope's
sidecar snapshot. A node whose row was written again (a memory re-embedded after an edit) is stale: a row's
newest node is the only one returned.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import numpy as np

__all__ = ["CANDIDATES", "GRAPH_MIN", "NeighbourGraph"]

log = logging.getLogger(__name__)

GRAPH_MIN = 100_000  # below it the projection's exact pass costs a few ms: no graph to build or hold
CANDIDATES = 128  # nodes a look-up returns to be rescored exactly (pair recall above)
_M = 16  # links per node
_EF_CONSTRUCTION = 40
_EF_SEARCH = 256
_TRAIN_ROWS = 20_000  # the quantiser's per-dimension ranges come from a sample


def _faiss() -> Any:
    import faiss  # imported on first use: a process that only reads never loads it

    return faiss


class NeighbourGraph:
    """HNSW over 8-bit scalar-quantised vectors, inner product; nodes map to the scope's matrix rows."""

    def __init__(self, index: Any, row_of_node: np.ndarray) -> None:
        self._index = index
        self._row_of_node = row_of_node  # node -> matrix row
        n_rows = int(row_of_node.max()) + 1 if row_of_node.size else 0
        self._node_of_row = np.full(max(n_rows, 1024), -1, dtype=np.int64)
        # a row written twice keeps its newest node (nodes are numbered in the order they were added)
        self._node_of_row[row_of_node] = np.arange(row_of_node.size, dtype=np.int64)

    @property
    def nodes(self) -> int:
        return int(self._row_of_node.size)

    @classmethod
    def build(cls, vectors: Any, n: int, dim: int) -> NeighbourGraph:
        """A graph over rows ``0..n-1``; ``vectors(rows)`` returns their float32 vectors."""
        faiss = _faiss()
        t0 = time.perf_counter()
        index = faiss.IndexHNSWSQ(dim, faiss.ScalarQuantizer.QT_8bit, _M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = _EF_CONSTRUCTION
        index.hnsw.efSearch = _EF_SEARCH
        rng = np.random.default_rng(0)
        index.train(vectors(np.sort(rng.choice(n, size=min(n, _TRAIN_ROWS), replace=False))))
        # a one-time build may use every core (OMP_NUM_THREADS=1 is for the per-query work around it)
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(max(threads, os.cpu_count() or 1))
        try:
            for s in range(0, n, 65_536):  # bounded float32 copies of the float16 matrix
                index.add(np.ascontiguousarray(vectors(slice(s, min(n, s + 65_536)))))
        finally:
            faiss.omp_set_num_threads(threads)
        log.info("neighbour graph of %d vectors built in %.1f s", n, time.perf_counter() - t0)
        return cls(index, np.arange(n, dtype=np.int64))

    def add(self, rows: np.ndarray, vecs: np.ndarray) -> None:
        """Rows written (new, or written again: their older nodes become stale)."""
        if not rows.size:
            return
        first = self._index.ntotal
        self._index.add(np.ascontiguousarray(vecs, dtype=np.float32))
        nodes = np.arange(first, first + rows.size, dtype=np.int64)
        self._row_of_node = np.concatenate([self._row_of_node, rows.astype(np.int64)])
        top = int(rows.max()) + 1
        if top > self._node_of_row.size:
            grown = np.full(
                max(top, self._node_of_row.size + self._node_of_row.size // 4), -1, dtype=np.int64
            )
            grown[: self._node_of_row.size] = self._node_of_row
            self._node_of_row = grown
        self._node_of_row[rows] = nodes

    def candidates(self, q: np.ndarray, k: int = CANDIDATES) -> np.ndarray:
        """Matrix rows of the (approximately) nearest current nodes, at most ``k``."""
        _, found = self._index.search(np.asarray(q, dtype=np.float32).reshape(1, -1), k)
        nodes = found[0][found[0] >= 0]
        rows = self._row_of_node[nodes]
        return rows[self._node_of_row[rows] == nodes]

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"graph": _faiss().serialize_index(self._index), "graph_rows": self._row_of_node}

    @classmethod
    def from_arrays(cls, graph: np.ndarray, rows: np.ndarray, dim: int) -> NeighbourGraph | None:
        """The graph saved by ``to_arrays``, or None when it does not read back as one of ``dim`` vectors."""
        try:
            index = _faiss().deserialize_index(np.ascontiguousarray(graph, dtype=np.uint8))
        except Exception:  # a damaged graph is rebuilt, never used
            return None
        if index.d != dim or index.ntotal != rows.size:
            return None
        index.hnsw.efSearch = _EF_SEARCH
        return cls(index, np.ascontiguousarray(rows, dtype=np.int64))
