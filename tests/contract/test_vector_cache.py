"""The in-process vector matrix of a large scope (store/sqlite/vector_cache.py): float16 vectors past the
projection threshold, float32 scores close to the exact ones, and row keys held in numpy arrays."""

from __future__ import annotations

import numpy as np
import pytest

from memscribe.store.sqlite.vector_cache import ScopeMatrix

DIM = 384


def _clustered(n: int, seed: int = 3) -> np.ndarray:
    """Unit vectors in topic clusters, as sentence embeddings are (cosines 0.7-0.95 within a topic)."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((max(2, n // 20), DIM)).astype(np.float32)
    mat = centers[rng.integers(0, centers.shape[0], n)] + 0.4 * rng.standard_normal((n, DIM)).astype(
        np.float32
    )
    return mat / np.linalg.norm(mat, axis=1, keepdims=True)


def _rows(mat: np.ndarray, pks: list[int], status: str = "active") -> list[tuple[int, str, str, bytes]]:
    return [(pk, f"m{pk}", status, mat[pk].tobytes()) for pk in pks]


def test_past_the_projection_threshold_vectors_are_float16_and_scores_stay_close_to_float32():
    mat = _clustered(3000)
    sm = ScopeMatrix(seq=0, dim=0, pca_min=1000, rank=96, shortlist=200)
    sm.apply(_rows(mat, list(range(3000))))
    assert sm._basis is not None and sm._mat.dtype == np.float16
    rng = np.random.default_rng(4)
    worst = 0.0
    for q in mat[rng.integers(0, 3000, 30)] + 0.2 * rng.standard_normal((30, DIM)).astype(np.float32):
        q /= np.linalg.norm(q)
        exact = mat @ q
        for k in (20, 2900):  # the shortlist path, and the full scan once k leaves no room for one
            got = sm.search(q, k, ("active",))
            assert len(got) == min(k, 200 if k == 20 else k)
            scores = np.array([s for _, s in got])
            assert np.all(np.diff(scores) <= 0)
            ref = exact[[int(i[1:]) for i, _ in got]]
            worst = max(worst, float(np.abs(scores - ref).max()))
    # the relevance model downstream is calibrated on float32 cosines: float16 storage moves them ~1e-5
    assert worst < 2e-4


def test_small_scopes_keep_float32_and_score_exactly():
    mat = _clustered(500)
    sm = ScopeMatrix(seq=0, dim=0)
    sm.apply(_rows(mat, list(range(500))))
    assert sm._basis is None and sm._mat.dtype == np.float32
    q = mat[17]
    got = sm.search(q, 5, ("active",))
    assert got[0][0] == "m17"
    assert [s for _, s in got] == pytest.approx(sorted((mat @ q).tolist(), reverse=True)[:5], abs=1e-6)


def test_rows_are_found_by_key_across_batches_in_any_order():
    """Rows arrive in batches, keys out of order, some written again (a status change, a new vector):
    each key keeps one row and the latest write, whether the key sits in the sorted index or in the
    rows appended since."""
    rng = np.random.default_rng(5)
    mat = _clustered(4000)
    sm = ScopeMatrix(seq=0, dim=0, pca_min=2500, shortlist=100)
    keys = rng.permutation(np.arange(4000) * 7 + 3).tolist()  # sparse store-wide keys, shuffled
    by_key = {k: i for i, k in enumerate(keys)}
    state: dict[int, tuple[int, str]] = {}  # key -> (vector index, status)
    start = 0
    for size in (1500, 1, 40, 2000, 3, 456):
        batch = keys[start : start + size]
        start += size
        # re-write some earlier keys in the same batch, a few twice (the last write counts)
        again = rng.choice(keys[:start], size=min(30, start), replace=False).tolist()
        rows = []
        for k in batch + again + again[:5]:
            vec = int(rng.integers(0, 4000))
            status = "archived" if rng.random() < 0.3 else "active"
            rows.append((k, f"id-{k}", status, mat[vec].tobytes()))
            state[k] = (vec, status)
        sm.apply(rows)
        assert sm.n == len({k for k in keys[:start]})
    assert start == 4000 and sm._mat.dtype == np.float16
    for k, (vec, status) in list(state.items())[::150]:
        row = sm.row_of(k)
        assert row is not None and sm.id_at(row) == f"id-{k}"
        assert np.allclose(sm.vectors(slice(row, row + 1))[0], mat[vec], atol=1e-3)
        hits = dict(sm.search(mat[vec], 4000, ("active", "archived")))
        assert hits[f"id-{k}"] == pytest.approx(1.0, abs=1e-3)
        assert (f"id-{k}" in dict(sm.search(mat[vec], 4000, ("active",)))) == (status == "active")
    assert sm.row_of(2) is None and by_key  # a key never written has no row


def test_ids_of_any_text_round_trip():
    mat = _clustered(3)
    odd = ["mem_ä漢字", "ends-with-nul\x00", ""]
    sm = ScopeMatrix(seq=0, dim=0)
    sm.apply([(i, mid, "active", mat[i].tobytes()) for i, mid in enumerate(odd)])
    assert [sm.id_at(i) for i in range(3)] == odd
    assert {i for i, _ in sm.search(mat[0], 3, ("active",))} == set(odd)


def test_vectors_of_another_dimension_are_refused():
    sm = ScopeMatrix(seq=0, dim=0)
    sm.apply([(1, "a", "active", np.ones(DIM, dtype=np.float32).tobytes())])
    with pytest.raises(ValueError):
        sm.apply([(2, "b", "active", np.ones(DIM // 2, dtype=np.float32).tobytes())])


def test_rows_from_a_one_pass_cursor_build_the_same_matrix_as_a_list(monkeypatch):
    # a scope built from SQL reads its rows from a cursor a chunk at a time (never all as Python objects)
    import memscribe.store.sqlite.vector_cache as vc

    monkeypatch.setattr(vc, "_CHUNK", 700)  # several chunks, the projection fitted between two of them
    mat = _clustered(3000, seed=5)
    listed = ScopeMatrix(seq=0, dim=0, pca_min=1000, rank=96, shortlist=200)
    listed.apply(_rows(mat, list(range(3000))))
    cursor = ScopeMatrix(seq=0, dim=0, pca_min=1000, rank=96, shortlist=200)
    assert cursor.apply(iter(_rows(mat, list(range(3000))))) == 3000
    assert cursor.n == listed.n == 3000
    q = mat[42]
    assert cursor.search(q, 10, ("active",)) == listed.search(q, 10, ("active",))
    assert cursor.search(q, 1, ("active",))[0][0] == "m42"
