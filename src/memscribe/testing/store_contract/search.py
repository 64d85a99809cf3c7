"""Search: scopes never leak, vectors rank by cosine, keyword search takes any text, every index follows
a status change, time ranges overlap; access statistics."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memscribe.models import Status
from memscribe.testing.store_contract.records import T0, make_record, put, unit_vector

__all__ = ["SearchContract"]


class SearchContract:
    def test_scope_isolation(self, store) -> None:  # type: ignore[no-untyped-def]
        put(store, make_record("a1", user="alice", text="alice likes green tea"), seed=1)
        put(store, make_record("b1", user="bob", text="bob likes green tea"), seed=1)
        assert [r.id for r in store.list_memories("alice")] == ["a1"]
        assert [i for i, _ in store.vector_search("alice", unit_vector(1), k=10)] == ["a1"]
        assert [i for i, _ in store.keyword_search("alice", ["green", "tea"], k=10)] == ["a1"]
        assert [i for i, _ in store.keyword_search("bob", ["alice"], k=10)] == []

    def test_vector_search_orders_by_similarity(self, store) -> None:  # type: ignore[no-untyped-def]
        for i in range(5):
            put(store, make_record(f"m{i}", text=f"memory {i}"), seed=i)
        hits = store.vector_search("u1", unit_vector(3), k=3)
        assert hits[0][0] == "m3"
        assert hits[0][1] == pytest.approx(1.0, abs=1e-5)
        assert len(hits) == 3
        assert hits[0][1] >= hits[1][1] >= hits[2][1]
        assert store.vector_search("nobody", unit_vector(3), k=3) == []

    def test_the_write_paths_near_look_up_answers_like_a_search(self, store) -> None:  # type: ignore[no-untyped-def]
        for i in range(6):
            put(store, make_record(f"m{i}", text=f"memory {i}"), seed=i)
        put(store, make_record("m9", text="memory 9", status=Status.archived), seed=9)
        for q in (2, 9):
            near = store.vector_search("u1", unit_vector(q), k=3, near=True)
            exact = store.vector_search("u1", unit_vector(q), k=3)
            assert [i for i, _ in near] == [i for i, _ in exact]
            assert [s for _, s in near] == pytest.approx([s for _, s in exact], abs=1e-5)
        assert "m9" not in [i for i, _ in store.vector_search("u1", unit_vector(9), k=3, near=True)]
        assert store.vector_search("nobody", unit_vector(3), k=3, near=True) == []

    def test_status_filter_in_search(self, store) -> None:  # type: ignore[no-untyped-def]
        put(store, make_record("m1", text="flight NH110 to Tokyo", status=Status.archived), seed=1)
        assert store.vector_search("u1", unit_vector(1), k=5) == []
        assert store.keyword_search("u1", ["nh110"], k=5) == []
        assert [
            i for i, _ in store.keyword_search("u1", ["nh110"], k=5, statuses=("active", "archived"))
        ] == ["m1"]

    def test_keyword_search_exact_ids_and_hostile_terms(self, store) -> None:  # type: ignore[no-untyped-def]
        put(store, make_record("m1", text="order A12345 arrived damaged"), seed=1)
        put(store, make_record("m2", text="order B99999 arrived fine"), seed=2)
        assert store.keyword_search("u1", ["a12345"], k=5)[0][0] == "m1"
        for hostile in [
            '"',
            "*",
            "NEAR(",
            "OR",
            "AND NOT",
            "a12345*",
            "'); DROP TABLE memories; --",
            "^x",
            "\x00",
        ]:
            store.keyword_search("u1", [hostile], k=5)  # never a query syntax error
        assert store.keyword_search("u1", [], k=5) == []
        assert store.get_memory("m1") is not None

    def test_status_change_without_new_vector_reaches_every_index(self, store) -> None:  # type: ignore[no-untyped-def]
        rec = make_record("m1", text="weekly meetings with Rosalind")
        put(store, rec, seed=4)
        store.put_memory(rec.model_copy(update={"status": Status.archived, "version": 2}))
        assert store.vector_search("u1", unit_vector(4), k=5) == []
        assert store.keyword_search("u1", ["rosalind"], k=5) == []
        assert [i for i, _ in store.vector_search("u1", unit_vector(4), k=5, statuses=("archived",))] == [
            "m1"
        ]
        store.put_memory(rec.model_copy(update={"version": 3}))  # active again
        assert store.vector_search("u1", unit_vector(4), k=1)[0][0] == "m1"
        assert store.keyword_search("u1", ["meeting"], k=5)[0][0] == "m1"  # English stems match
        got = store.get_vectors(["m1", "nope"])
        assert list(got) == ["m1"] and np.allclose(got["m1"], unit_vector(4), atol=1e-6)

    def test_new_keyword_text_replaces_the_old(self, store) -> None:  # type: ignore[no-untyped-def]
        rec = make_record("m1", text="lives in Boston")
        put(store, rec, seed=1)
        store.put_memory(rec.model_copy(update={"text": "lives in Denver"}), keyword_text="lives in Denver")
        assert store.keyword_search("u1", ["boston"], k=5) == []
        assert [i for i, _ in store.keyword_search("u1", ["denver"], k=5)] == ["m1"]

    def test_time_range_search(self, store) -> None:  # type: ignore[no-untyped-def]
        put(store, make_record("m1"), seed=1)  # 2026-06-17 15:00+08:00
        assert store.time_range_search(
            "u1", datetime(2026, 6, 15, tzinfo=UTC), datetime(2026, 6, 21, tzinfo=UTC), k=5
        ) == ["m1"]
        assert (
            store.time_range_search(
                "u1", datetime(2026, 7, 1, tzinfo=UTC), datetime(2026, 7, 5, tzinfo=UTC), k=5
            )
            == []
        )

    def test_time_range_search_finds_every_overlap_of_any_span_length(self, store) -> None:  # type: ignore[no-untyped-def]
        """Points, days, weeks, months, years and open-ended spans against windows of every size: the
        result is exactly the k earliest overlapping memories of a brute-force check."""
        import random

        rng = random.Random(11)
        base = datetime(2026, 1, 1, tzinfo=UTC)
        spans = {}
        for i in range(160):
            start = base + timedelta(hours=rng.randrange(0, 24 * 400))
            length = rng.choice(
                [
                    None,
                    timedelta(hours=1),
                    timedelta(days=1),
                    timedelta(days=7),
                    timedelta(days=31),
                    timedelta(days=33),
                    timedelta(days=365),
                    timedelta(days=3000),
                ]
            )
            end = start + length if length else None
            put(store, make_record(f"t{i:03d}", time_start=start, time_end=end), seed=i)
            spans[f"t{i:03d}"] = (start, end or start)
        for _ in range(40):
            lo = base + timedelta(hours=rng.randrange(-24 * 60, 24 * 420))
            hi = lo + rng.choice(
                [timedelta(0), timedelta(hours=3), timedelta(days=1), timedelta(days=10), timedelta(days=90)]
            )
            k = rng.choice([3, 8, 200])
            want = sorted((s, mid) for mid, (s, e) in spans.items() if s <= hi and e >= lo)
            got = store.time_range_search("u1", lo, hi, k=k)
            assert got == [mid for _, mid in want[:k]], (lo, hi, k)

    def test_touch_updates_access_stats(self, store) -> None:  # type: ignore[no-untyped-def]
        put(store, make_record("m1"))
        store.touch(["m1"], T0 + timedelta(days=1))
        store.touch(["m1"], T0 + timedelta(days=2))
        store.touch([], T0 + timedelta(days=3))
        got = store.get_memory("m1")
        assert got.access_count == 2
        assert got.last_accessed_at == T0 + timedelta(days=2)
