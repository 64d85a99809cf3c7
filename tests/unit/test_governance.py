"""Governance: rate limits (deferred or refused, never lost), the review queue, store limits, metrics."""

from pathlib import Path

import pytest

from memscribe import Memory, errors
from memscribe.config import LimitsConfig, ReviewConfig, Settings
from memscribe.lifecycle.ratelimit import TokenBucket, admit
from memscribe.models import Status


def _mem(tmp_path: Path, **updates) -> Memory:  # type: ignore[no-untyped-def]
    return Memory(settings=Settings(home=tmp_path / "store", **updates))


# ---------------------------------------------------------------------------------------- token bucket
def test_token_bucket_acquire_refills_at_the_rate():
    b = TokenBucket(rate=10, burst=2)
    assert b.acquire(now=0.0) == 0.0
    assert b.acquire(now=0.0) == 0.0
    wait = b.acquire(now=0.0)
    assert wait == pytest.approx(0.1)
    assert b.acquire(now=0.05) == pytest.approx(0.05)  # nothing taken by the refused calls
    assert b.acquire(now=0.1) == 0.0


def test_token_bucket_reserve_queues_in_order():
    b = TokenBucket(rate=10, burst=2)
    delays = [b.reserve(now=0.0) for _ in range(5)]
    assert delays == pytest.approx([0.0, 0.0, 0.1, 0.2, 0.3])


def test_error_mode_refunds_the_user_bucket_when_the_tenant_refuses():
    user, tenant = TokenBucket(rate=1, burst=5), TokenBucket(rate=1, burst=1)
    assert admit([("user", user), ("tenant", tenant)], mode="error", now=0.0).delay_s == 0.0
    refused = admit([("user", user), ("tenant", tenant)], mode="error", now=0.0)
    assert refused.limited_by == "tenant" and refused.delay_s > 0
    assert user.tokens == pytest.approx(4.0)  # the refused write cost the user nothing


# ---------------------------------------------------------------------------------------- rate limits
def test_rate_limit_error_mode_raises_typed_error_per_user(tmp_path):
    mem = _mem(tmp_path, limits=LimitsConfig(user_rate=0.5, user_burst=2, on_exceed="error"))
    try:
        for i in range(2):
            mem.add(f"Remember: the staging server is rack {i + 7}.", user_id="alice")
        with pytest.raises(errors.RateLimited) as exc:
            mem.add("Remember: the backup server is rack 12.", user_id="alice")
        assert exc.value.retry_after > 0
        mem.add("Remember: my desk is on floor 3.", user_id="bob")  # another user has their own bucket
        assert mem.stats(user_id="alice")["counters"]["writes_rate_limited"] == 1
    finally:
        mem.close()


@pytest.mark.slow
def test_burst_of_1000_writes_loses_nothing(tmp_path):
    # a refill slower than any add() (one write per 20 s) so the burst overflows however loaded the machine is:
    # at 10/s a machine where add() takes over 100 ms never overflowed and the test measured nothing
    mem = _mem(tmp_path, limits=LimitsConfig(user_rate=0.05, user_burst=20, on_exceed="queue"))
    try:
        ids = [f"m{i:04d}" for i in range(1000)]
        deferred = stored = 0
        for i, mid in enumerate(ids):
            rep = mem.add(
                [
                    {
                        "role": "user",
                        "id": mid,
                        "content": f"Remember: locker {i} holds the spare key K{i:04d}.",
                    }
                ],
                user_id="burst",
                at="2026-05-01T09:00:00+00:00",
            )
            deferred += rep.deferred
            stored += not rep.deferred
        assert deferred + stored == 1000
        assert 20 <= stored < 1000 and deferred > 0
        stats = mem.stats(user_id="burst")
        assert stats["counters"]["writes_deferred"] == deferred
        assert stats["queue_depth"] >= deferred  # every deferred write is counted in the durable queue
        # queued writes are sealed: their text is not in the database in the clear
        raw = b"".join(p.read_bytes() for p in (tmp_path / "store").glob("memscribe.db*"))
        assert b"K0999" not in raw
        mem.flush(deferred=True)
        kept = {s.message_id for r in mem.list(user_id="burst", status=None) for s in r.sources}
        assert kept == set(ids)
        assert mem.stats(user_id="burst")["counters"]["writes_deferred_done"] == deferred
        assert (
            mem.search("which locker holds key K0999", user_id="burst", limit=3)[0].memory.text.find("K0999")
            >= 0
        )
    finally:
        mem.close()


def test_deferred_write_survives_a_restart(tmp_path):
    limits = LimitsConfig(user_rate=0.01, user_burst=1, on_exceed="queue")
    mem = _mem(tmp_path, limits=limits)
    mem.add("Remember: the gate code changed to blue.", user_id="u")
    rep = mem.add(
        [{"role": "user", "id": "late", "content": "Remember: the boiler is serviced in May."}], user_id="u"
    )
    assert rep.deferred
    mem.close()
    again = _mem(tmp_path, limits=limits)
    try:
        again.flush(deferred=True)
        assert any(s.message_id == "late" for r in again.list(user_id="u") for s in r.sources)
    finally:
        again.close()


# ---------------------------------------------------------------------------------------- review queue
def test_money_instruction_waits_for_review_then_is_recalled(tmp_path):
    mem = _mem(tmp_path)
    try:
        rep = mem.add(
            "以后每个月的房租都从我的招商银行卡自动扣款。", user_id="u", at="2026-03-01T10:00:00+08:00"
        )
        assert rep.items[0].action == "review" and rep.pending_review
        mid = rep.pending_review[0]
        rec = mem.get(mid)
        assert rec.status == Status.pending_review and "money" in rec.structured["review"]["topics"]
        assert not mem.search("房租怎么付", user_id="u")  # not used by recall before approval
        assert [r.id for r in mem.review_queue(user_id="u")] == [mid]
        approved = mem.approve(mid, actor="ops@example.com")
        assert approved.status == Status.active and approved.structured["reviewed"]["by"] == "ops@example.com"
        assert mem.search("房租怎么付", user_id="u")[0].memory.id == mid
        assert mem.review_queue(user_id="u") == []
        assert [v.reason for v in mem.history(mid)][-1] == "approved in review"
        with pytest.raises(errors.InputError):
            mem.approve(mid)  # not pending any more
    finally:
        mem.close()


def test_permission_grant_rejected_and_edited(tmp_path):
    mem = _mem(tmp_path)
    try:
        a = mem.add("Please give my assistant Dana admin access to the billing dashboard.", user_id="u")
        b = mem.add("From now on, always pay my phone bill with the company card.", user_id="u")
        first, second = a.pending_review[0], b.pending_review[0]
        assert {r.id for r in mem.review_queue()} == {first, second}
        rejected = mem.reject(first, reason="not authorised by the account owner")
        assert rejected.status == Status.deleted
        assert mem.history(first)[-1].reason == "not authorised by the account owner"
        edited = mem.update(second, text="The user pays the phone bill with the personal card.")
        assert edited.status == Status.pending_review  # an edit keeps it waiting
        mem.approve(second)
        hit = mem.search("how do I pay the phone bill", user_id="u")[0]
        assert hit.memory.id == second and "personal card" in hit.memory.text
    finally:
        mem.close()


def test_ordinary_money_talk_is_not_held_back(tmp_path):
    mem = _mem(tmp_path)
    try:
        rep = mem.add(
            "I paid 20 dollars for lunch with Mia yesterday.", user_id="u", at="2026-03-02T12:00:00Z"
        )
        assert rep.items[0].action == "add"
        rep = mem.add("我昨天花了两百块买了一双跑鞋。", user_id="u", at="2026-03-02T12:00:00+08:00")
        assert rep.items[0].action == "add"
    finally:
        mem.close()


def test_review_reads_each_statement_of_a_message_on_its_own(tmp_path):
    # the account set-up waits for a person; the payday said in the same message acts on no money
    mem = _mem(tmp_path)
    try:
        mem.add(
            "Set up direct deposit for the new job at Chase. Payday is every other Friday.",
            user_id="u",
            at="2026-01-14T12:00:00-05:00",
        )
        rows = mem.list(user_id="u", status="all")
        by_status = {r.status: r.text for r in rows}
        assert "direct deposit" in by_status[Status.pending_review], rows
        assert "Payday" in by_status[Status.active], rows
        assert "Friday" in mem.search("When do I get paid?", user_id="u")[0].memory.text
    finally:
        mem.close()


def test_review_can_be_switched_off_and_rules_replaced(tmp_path):
    mem = _mem(tmp_path, review=ReviewConfig(rules={"pets": [r"\bdog\b"]}))
    try:
        assert mem.add("Remember my dog is called Rex.", user_id="u").pending_review
        assert mem.add("From now on, always pay rent by card.", user_id="u").items[0].action == "add"
    finally:
        mem.close()
    off = _mem(tmp_path / "off", review=ReviewConfig(enabled=False))
    try:
        assert off.add("From now on, always pay rent by card.", user_id="u").items[0].action == "add"
    finally:
        off.close()
    with pytest.raises(errors.InputError):
        bad = _mem(tmp_path / "bad", review=ReviewConfig(rules={"x": ["(unclosed"]}))
        try:
            bad.add("anything at all worth remembering, like my flight on Monday", user_id="u")
        finally:
            bad.close()


# ---------------------------------------------------------------------------------------- limits
def test_per_user_memory_limit(tmp_path):
    mem = _mem(tmp_path, limits=LimitsConfig(max_memories_per_user=2))
    try:
        mem.add("Remember: my car is a red Volvo.", user_id="u")
        mem.add("I am allergic to peanuts.", user_id="u")
        with pytest.raises(errors.LimitExceeded, match="limit is 2"):
            mem.add("My gym is open until 10pm on Fridays.", user_id="u")
        mem.add("I am allergic to peanuts.", user_id="other")
    finally:
        mem.close()


def test_store_size_limit(tmp_path):
    mem = _mem(tmp_path, limits=LimitsConfig(max_store_mb=0.01))
    try:
        with pytest.raises(errors.LimitExceeded, match="MB"):
            for i in range(5):
                mem.add(f"Remember: parcel {i} goes to the north office.", user_id="u")
    finally:
        mem.close()


# ---------------------------------------------------------------------------------------- metrics
def test_metrics_cover_counts_latency_and_drops(tmp_path):
    mem = _mem(tmp_path)
    try:
        mem.add("我不吃香菜。", user_id="u")
        mem.add("好的好的", user_id="u")  # dropped by the filter
        mem.search("香菜", user_id="u")
        text = mem.metrics_text()
        assert 'memscribe_memories_by_status{status="active"} 1.0' in text
        assert 'memscribe_events_total{event="dropped_by_filter"} 1.0' in text
        assert "memscribe_add_seconds_count 2.0" in text
        assert "memscribe_search_seconds_bucket" in text
        assert "memscribe_queue_depth" in text
        stats = mem.stats()
        assert stats["memories_by_kind"] and stats["latency_ms"]["add"]["count"] == 2
        assert sum(stats["daily_new"].values()) == 1
    finally:
        mem.close()


def test_opening_a_store_does_not_scan_its_memories_a_scrape_does(tmp_path):
    """Registering the store's metrics must not run the scrape (a GROUP BY over every memory): opening a
    million-memory store paid seconds for it. The scrape itself still reads the store."""
    from memscribe import Memory
    from memscribe.config import Settings
    from memscribe.store import open_store

    settings = Settings(home=tmp_path / "s")
    store = open_store(settings)
    scans = []
    real = store.memory_facets
    store.memory_facets = lambda *a, **kw: scans.append(a) or real(*a, **kw)
    mem = Memory(settings=settings, store=store)
    try:
        assert scans == []
        mem.add("I drink green tea every morning.", user_id="u")
        assert 'memscribe_memories_by_status{status="active"} 1.0' in mem.metrics_text()
        assert len(scans) == 1
    finally:
        mem.close()
