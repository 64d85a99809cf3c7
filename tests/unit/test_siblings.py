"""Statements said together are read together (read/siblings.py) — and through Memory.context."""

from __future__ import annotations

from memscribe import Memory
from memscribe.models import Source
from memscribe.read.rerank import Scored
from memscribe.read.siblings import with_siblings
from memscribe.testing.store_contract import make_record
from memscribe.testing.store_contract.records import T0


def _rec(mid: str, origin: str | None):  # type: ignore[no-untyped-def]
    src = [Source(message_id=origin, session_id="s", role="user", name="Ann", at=T0)] if origin else []
    return make_record(mid, text=f"statement {mid}", sources=src)


def _scored(*recs) -> list[Scored]:  # type: ignore[no-untyped-def]
    return [Scored(record=r, score=1.0 - i / 10, why={}) for i, r in enumerate(recs)]


def test_siblings_follow_their_statement_once_and_in_write_order() -> None:
    a1, a2, a3, b1, c1 = (
        _rec("a1", "m1"),
        _rec("a2", "m1"),
        _rec("a3", "m1"),
        _rec("b1", "m2"),
        _rec("c1", None),
    )
    store = {"m1": [a1, a2, a3], "m2": [b1]}
    asked: list[list[str]] = []

    def find(ids: list[str]):  # type: ignore[no-untyped-def]
        asked.append(ids)
        return [r for i in ids for r in store.get(i, [])]

    out = with_siblings(_scored(b1, a2, c1, a3), find)
    assert [s.record.id for s in out] == ["b1", "a2", "a1", "a3", "c1"]
    assert asked == [["m2", "m1"]]  # one lookup for the whole list
    a1_scored = out[2]
    assert a1_scored.why == {"sibling_of": "a2"} and a1_scored.score < out[1].score
    assert with_siblings([], find) == [] and asked == [["m2", "m1"]]


def test_a_long_message_is_not_pulled_in_whole() -> None:
    many = [_rec(f"x{i}", "m1") for i in range(10)]
    out = with_siblings(_scored(many[5]), lambda ids: many, limit=3)
    assert [s.record.id for s in out] == ["x5", "x0", "x1", "x2"]


def test_context_brings_the_other_statements_of_the_message(tmp_path) -> None:
    with Memory(home=tmp_path) as mem:
        mem.add(
            [
                {
                    "role": "user",
                    "name": "Ann",
                    "content": "I adopted a rescue dog named Biscuit last week.",
                    "id": "t1",
                },
                {"role": "user", "name": "Bo", "content": "That's lovely! What breed is it?", "id": "t2"},
                {
                    "role": "user",
                    "name": "Ann",
                    "content": "Biscuit is a beagle mix. I walk him every morning before work at the bakery.",
                    "id": "t3",
                },
            ],
            user_id="u1",
            session_id="s1",
            at="2026-05-04T10:00:00+00:00",
        )
        mem.flush()
        from_t3 = [r for r in mem.list(user_id="u1") if r.sources[0].message_id == "t3"]
        assert len(from_t3) >= 2, [r.text for r in mem.list(user_id="u1")]
        ctx = mem.context("What breed is Ann's dog Biscuit?", user_id="u1", budget_tokens=400)
        got = [h.memory.id for h in ctx.items]
        assert {r.id for r in from_t3} <= set(got)
        # the siblings sit together: no other memory between the statements of t3
        pos = sorted(got.index(r.id) for r in from_t3)
        assert pos == list(range(pos[0], pos[0] + len(pos)))
        # with a filter, only what the filter admits
        assert all(
            h.memory.kind.value == "event"
            for h in mem.context("dog", user_id="u1", filters={"kind": "event"}).items
        )
