"""The audit log (every field kept, filtered by memory or user, in write order) and per-user counters."""

from __future__ import annotations

from datetime import timedelta

from memscribe.models import AuditEvent
from memscribe.testing.store_contract.records import PLUS8, T0

__all__ = ["CounterContract"]


def _event(memory_id: str | None, user: str = "u1", **kw) -> AuditEvent:  # type: ignore[no-untyped-def]
    base = dict(
        ts=T0, user_id=user, memory_id=memory_id, stage="merge", action="supersede", reason="newer value"
    )
    base.update(kw)
    return AuditEvent(**base)


class CounterContract:
    def test_audit_round_trip_and_filters(self, store) -> None:  # type: ignore[no-untyped-def]
        first = _event(
            "m1",
            message_id="msg-1",
            ts=T0.astimezone(PLUS8),
            scores={"cos": 0.91, "p": 1.0},
            detail={"old": "住在北京", "new": ["上海", {"since": "2026-06"}], "n": 3},
        )
        store.add_audit([first, _event("m2"), _event(None, user="u2", stage="filter", action="drop")])
        store.add_audit([])
        got = store.audit_for(memory_id="m1")
        assert [e.model_dump(exclude={"id"}) for e in got] == [first.model_dump(exclude={"id"})]
        assert got[0].ts.utcoffset() == timedelta(hours=8)
        assert [e.memory_id for e in store.audit_for(user_id="u1")] == ["m1", "m2"]
        every = store.audit_for()
        assert [e.user_id for e in every] == ["u1", "u1", "u2"]
        assert [e.id for e in every] == sorted(e.id for e in every) and len({e.id for e in every}) == 3

    def test_counters_sum_per_user_and_overall(self, store) -> None:  # type: ignore[no-untyped-def]
        store.bump_counter("u1", "dropped")
        store.bump_counter("u1", "dropped", 4)
        store.bump_counter("u2", "dropped", 2)
        store.bump_counter("u2", "vaulted")
        assert store.counters("u1") == {"dropped": 5}
        assert store.counters("u2") == {"dropped": 2, "vaulted": 1}
        assert store.counters() == {"dropped": 7, "vaulted": 1}
        assert store.counters("nobody") == {}
