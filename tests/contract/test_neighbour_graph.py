"""The write path's neighbour graph over a large scope (store/sqlite/neighbour_graph.py): it finds a statement's
near neighbours as the exact scan does, follows every write, and is saved with the scope's snapshot and read
back only when a write needs it."""

from __future__ import annotations

import numpy as np
import pytest

from memscribe.models import Status
from memscribe.store.sqlite import SQLiteStore, vector_sidecar
from memscribe.store.sqlite.vector_cache import ScopeMatrix
from memscribe.testing.store_contract import make_record

DIM = 384


def _corpus(n: int, seed: int = 0) -> np.ndarray:
    """Vectors shaped like sentence embeddings: a shared direction (every pair has a high cosine, as e5's
    do) plus topic clusters plus noise; unit length."""
    rng = np.random.default_rng(seed)
    common = rng.normal(size=DIM)
    topics = rng.normal(size=(40, DIM))
    v = 2.5 * common / np.linalg.norm(common) + topics[rng.integers(0, 40, n)] / np.sqrt(DIM) * 3
    v = v + rng.normal(size=(n, DIM)) / np.sqrt(DIM) * 2
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def _near_copy(v: np.ndarray, rng: np.random.Generator, noise: float = 0.35) -> np.ndarray:
    w = v + rng.normal(size=v.shape) / np.sqrt(DIM) * noise
    return (w / np.linalg.norm(w)).astype(np.float32)


def _matrix(vecs: np.ndarray, graph_min: int) -> ScopeMatrix:
    m = ScopeMatrix(seq=0, dim=DIM, pca_min=500, graph_min=graph_min)
    m.apply([(i, f"m{i}", "active", vecs[i].tobytes()) for i in range(len(vecs))])
    return m


def test_the_graph_finds_the_near_neighbours_the_exact_scan_finds():
    vecs = _corpus(4000)
    m = _matrix(vecs, graph_min=1000)
    rng = np.random.default_rng(1)
    found = total = 0
    for target in rng.choice(len(vecs), 150, replace=False):
        q = _near_copy(vecs[target], rng)  # a new statement close to a stored one
        exact = np.argsort(-(vecs @ q))[:8]
        got = {i for i, _ in m.near(q, 8, ("active",))}
        found += len({f"m{i}" for i in exact} & got)
        total += 8
        assert f"m{target}" in got
    assert m._graph is not None  # past graph_min: the look-up used the graph
    assert found / total >= 0.97


def test_scores_are_exact_cosines_and_small_scopes_build_no_graph():
    vecs = _corpus(1500)
    m = _matrix(vecs, graph_min=10_000)
    q = _near_copy(vecs[3], np.random.default_rng(2))
    assert m.near(q, 5, ("active",)) == m.search(q, 5, ("active",))
    assert m._graph is None
    big = _matrix(vecs, graph_min=1000)
    for mid, score in big.near(q, 5, ("active",)):
        assert score == pytest.approx(float(vecs[int(mid[1:])] @ q), abs=2e-4)


def test_a_row_written_again_is_found_by_its_new_vector_only_and_statuses_filter():
    vecs = _corpus(3000)
    m = _matrix(vecs, graph_min=1000)
    rng = np.random.default_rng(3)
    q_old = _near_copy(vecs[10], rng)
    assert "m10" in {i for i, _ in m.near(q_old, 8, ("active",))}
    moved = _corpus(1, seed=99)[0]  # m10 re-embedded (an edit): far from where it was
    m.apply([(10, "m10", "active", moved.tobytes())])
    assert "m10" not in {i for i, _ in m.near(q_old, 8, ("active",))}
    assert m.near(_near_copy(moved, rng), 1, ("active",))[0][0] == "m10"
    nodes = m._graph.nodes
    m.apply([(11, "m11", "archived", vecs[11].tobytes())])  # a status change: same vector, no new node
    assert m._graph.nodes == nodes
    q11 = _near_copy(vecs[11], rng)
    assert "m11" not in {i for i, _ in m.near(q11, 8, ("active",))}
    assert "m11" in {i for i, _ in m.near(q11, 8, ("archived",))}
    new = _near_copy(vecs[20], rng)  # a new row joins the graph as it is written
    m.apply([(5000, "m-new", "active", new.tobytes())])
    assert m.near(_near_copy(new, rng, 0.1), 1, ("active",))[0][0] == "m-new"


def _store(path):  # type: ignore[no-untyped-def]
    s = SQLiteStore(path)
    s._vectors.min_size = 200
    s._vectors.graph_min = 600
    return s


def _fill(s, vecs, start, stop):  # type: ignore[no-untyped-def]
    with s.atomic():
        for i in range(start, stop):
            rec = make_record(f"m{i}", text=f"memory {i}")
            s.put_memory(rec, vector=vecs[i], keyword_text=rec.text)


def test_the_graph_is_saved_with_the_snapshot_and_read_back_only_when_a_write_needs_it(tmp_path):
    db = tmp_path / "m.db"
    vecs = _corpus(1200, seed=5)
    rng = np.random.default_rng(6)
    a = _store(db)
    _fill(a, vecs, 0, 1000)
    q = _near_copy(vecs[7], rng)
    assert a.vector_search("u1", q, k=3, near=True)[0][0] == "m7"
    assert a._vectors._scopes["u1"]._graph is not None
    a.close()

    b = _store(db)
    _fill(b, vecs, 1000, 1100)  # written after the snapshot
    assert b.vector_search("u1", q, k=3)[0][0] == "m7"  # a read: the graph stays on disk
    scope = b._vectors._scopes["u1"]
    assert scope._graph is None and scope._graph_saved is not None
    q_late = _near_copy(vecs[1050], rng)
    assert b.vector_search("u1", q_late, k=3, near=True)[0][0] == "m1050"  # the saved graph, caught up
    assert scope._graph is not None and scope._graph.nodes == 1100
    b.close()


def test_a_damaged_graph_in_the_snapshot_is_rebuilt_never_used(tmp_path):
    db = tmp_path / "m.db"
    vecs = _corpus(1000, seed=7)
    a = _store(db)
    _fill(a, vecs, 0, 1000)
    a.vector_search("u1", vecs[0], k=3, near=True)
    a.close()
    path = vector_sidecar.path_for(db, "u1")
    raw = bytearray(path.read_bytes())
    raw[-100] ^= 0xFF  # the graph and its node rows are the last arrays written
    path.write_bytes(bytes(raw))
    b = _store(db)
    q = _near_copy(vecs[42], np.random.default_rng(8))
    assert b.vector_search("u1", q, k=3, near=True)[0][0] == "m42"
    scope = b._vectors._scopes["u1"]
    assert scope._graph is not None and scope.graph_unsaved  # rebuilt from the matrix, to be saved again
    with b.atomic():
        b.put_memory(make_record("m42", text="memory 42", status=Status.archived))
    assert "m42" not in [i for i, _ in b.vector_search("u1", q, k=3, near=True)]
    b.close()


def test_the_graph_can_be_built_up_front_and_a_small_scope_builds_none(tmp_path):
    s = _store(tmp_path / "m.db")
    vecs = _corpus(700, seed=9)
    with s.atomic():
        s.set_meta("embedder_dim", str(DIM))
    _fill(s, vecs, 0, 300)
    assert s.build_neighbour_index("u1") is False  # under graph_min: the exact pass stays
    _fill(s, vecs, 300, 700)
    assert s.build_neighbour_index("u1") is True
    scope = s._vectors._scopes["u1"]
    assert scope._graph is not None and scope._graph.nodes == 700
    s.close()
