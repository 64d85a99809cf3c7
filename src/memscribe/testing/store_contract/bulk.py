"""The bulk write path: ``put_memories`` stores what one ``put_memory`` per record would, and
``bulk_load`` leaves every index answering — or, on an error, nothing of the load."""

from __future__ import annotations

import pytest

from memscribe.models import Link, Status
from memscribe.testing.store_contract.records import make_record, put, unit_vector

__all__ = ["BulkContract"]


class BulkContract:
    def test_put_memories_is_put_memory_for_each(self, store) -> None:  # type: ignore[no-untyped-def]
        put(store, make_record("old", text="lives in Boston"), seed=9)
        recs = [
            make_record(
                f"b{i}", text=f"booked hotel room {i} in Lisbon", links=[Link(type="related", target="old")]
            )
            for i in range(5)
        ]
        moved = make_record("old", text="lives in Denver", version=2)
        again = recs[1].model_copy(update={"text": "booked hotel room 1 in Porto", "status": Status.archived})
        store.put_memories(
            [(r, unit_vector(20 + i), r.text) for i, r in enumerate(recs)]
            + [
                (moved, unit_vector(3), moved.text),
                (again, None, again.text),
                (make_record("bare"), None, None),
            ]
        )
        for r in recs[:1] + recs[2:]:
            assert store.get_memory(r.id).model_dump() == r.model_dump()
        assert store.get_memory("b1").model_dump() == again.model_dump()  # the later one of a repeated id
        assert store.get_memory("old").text == "lives in Denver"
        assert store.get_memory("bare") is not None and store.get_vectors(["bare"]) == {}
        assert store.vector_search("u1", unit_vector(22), k=1)[0][0] == "b2"
        assert store.vector_search("u1", unit_vector(3), k=1)[0][0] == "old"
        assert store.vector_search("u1", unit_vector(21), k=1, statuses=("archived",))[0][0] == "b1"
        assert {mid for mid, _ in store.keyword_search("u1", ["lisbon"], k=10)} == {"b0", "b2", "b3", "b4"}
        assert [mid for mid, _ in store.keyword_search("u1", ["porto"], k=10, statuses=("archived",))] == [
            "b1"
        ]
        assert [mid for mid, _ in store.keyword_search("u1", ["denver"], k=10)] == ["old"]
        assert store.keyword_search("u1", ["boston"], k=10) == []
        assert store.get_memory("b3").links == [Link(type="related", target="old")]

    def test_bulk_load_leaves_every_index_answering(self, store) -> None:  # type: ignore[no-untyped-def]
        put(store, make_record("first", text="likes green tea"), seed=1)
        with store.bulk_load(30):
            for s in range(0, 30, 10):
                store.put_memories(
                    [
                        (
                            make_record(f"k{i}", text=f"note number {i} about oolong"),
                            unit_vector(40 + i),
                            f"note {i} oolong",
                        )
                        for i in range(s, s + 10)
                    ]
                )
        assert store.vector_search("u1", unit_vector(57), k=1)[0][0] == "k17"
        assert store.vector_search("u1", unit_vector(1), k=1)[0][0] == "first"
        assert len(store.keyword_search("u1", ["oolong"], k=50)) == 30
        with pytest.raises(RuntimeError), store.bulk_load(100):
            store.put_memories([(make_record("lost", text="never stored"), unit_vector(90), "never stored")])
            raise RuntimeError("the load fails")
        assert store.get_memory("lost") is None
        assert store.vector_search("u1", unit_vector(90), k=1)[0][0] != "lost"
        assert store.vector_search("u1", unit_vector(44), k=1)[0][0] == "k4"
