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
    # statement memories of one message, as the statement pipeline (#14) writes them, through import_
    with Memory(home=tmp_path / "a") as mem:
        mem.add("Remember: my dog Biscuit is a beagle mix.", user_id="u1", at="2026-05-04T10:00:00+00:00")
        (seed,) = [r for r in mem.export() if r.get("sources")]
    said = [
        "Ann adopted a rescue dog named Biscuit last week.",
        "Biscuit is a beagle mix.",
        "Ann walks him every morning before her shift at the bakery.",
        "The bakery on Elm Street opens at six.",
    ]
    origins = ["t1", "t3", "t3", "t9"]
    records = [
        {
            **{k: v for k, v in seed.items() if k != "_versions"},
            "id": f"mem_{i}",
            "text": t,
            "raw": t,
            "sources": [{**seed["sources"][0], "message_id": o}],
        }
        for i, (t, o) in enumerate(zip(said, origins, strict=True))
    ]
    with Memory(home=tmp_path / "b") as mem:
        assert mem.import_(records).memories == 4
        ctx = mem.context("What breed is Biscuit?", user_id="u1", budget_tokens=400)
        got = [h.memory.id for h in ctx.items]
        assert {"mem_1", "mem_2"} <= set(got)
        assert got.index("mem_2") == got.index("mem_1") + 1  # said together, read together
        assert next(h for h in ctx.items if h.memory.id == "mem_2").why == {"sibling_of": "mem_1"}
        # with a filter, recall alone decides: a sibling need not match the filter
        hits = mem.context("What breed is Biscuit?", user_id="u1", filters={"kind": "event"}).items
        assert all(h.memory.kind.value == "event" for h in hits)
