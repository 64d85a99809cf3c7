"""Admission: limits, write rates and the sealed payload of a deferred write, against a real SQLite store
and a real vault key."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest

from memscribe import Settings, errors
from memscribe.admission import Admission, DeferredWrite
from memscribe.config import LimitsConfig
from memscribe.keyring import KeyRing
from memscribe.models import Message, WriteItem, WriteReport
from memscribe.store.sqlite import SQLiteStore
from memscribe.vault import Vault

AT = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "m.db")
    yield s
    s.close()


def _admission(tmp_path, store, **limits) -> Admission:
    settings = Settings(home=tmp_path, limits=LimitsConfig(**limits))
    return Admission(settings, store, KeyRing(tmp_path, store).vault)


def _write(user="u1") -> DeferredWrite:
    return DeferredWrite(
        user_id=user,
        messages=[
            Message(role="user", content="我下周三飞成都，座位要靠窗", id="m1", at=AT),
            Message(role="user", content="my card ends in 4242, don't keep it", id="m2", at=AT),
        ],
        agent_id="agent-7",
        session_id="s1",
        at=AT,
        metadata={"channel": "wechat", "nested": {"n": [1, 2]}},
    )


def test_a_sealed_write_opens_to_the_same_write_and_hides_its_text(tmp_path, store):
    adm = _admission(tmp_path, store)
    payload = adm.seal(_write())
    assert set(payload) == {"user_id", "sealed", "key_id"} and payload["user_id"] == "u1"
    assert "成都" not in payload["sealed"] and "4242" not in payload["sealed"]
    assert adm.open(payload) == _write()


def _reseal(tmp_path, store, plaintext: str, user="u1") -> dict:
    vault = KeyRing(tmp_path, store).vault()
    blob = vault.encrypt(plaintext, aad=f"deferred:{user}")
    return {"user_id": user, "sealed": base64.b64encode(blob).decode(), "key_id": vault.key_id}


@pytest.mark.parametrize(
    "make",
    [
        lambda good, tp, st: {**good, "sealed": "not base64 at all!!"},  # binascii.Error before
        lambda good, tp, st: {**good, "sealed": base64.b64encode(b"v1" + b"\0" * 40).decode()},  # tampered
        lambda good, tp, st: {**good, "user_id": "u2"},  # moved to another user: the aad does not match
        lambda good, tp, st: {k: v for k, v in good.items() if k != "sealed"},
        lambda good, tp, st: {**good, "sealed": 12345},
        lambda good, tp, st: _reseal(tp, st, "{not json"),  # json error before
        lambda good, tp, st: _reseal(tp, st, '{"messages": []}'),  # fields missing
        lambda good, tp, st: _reseal(
            tp,
            st,
            '{"messages": [{"role": "robot"}], "agent_id": null, '
            '"session_id": null, "at": "2026-03-02", "metadata": {}}',
        ),
        lambda good, tp, st: _reseal(tp, st, '["a list"]'),
    ],
)
def test_a_payload_that_cannot_be_read_is_a_corrupt_job(tmp_path, store, make):
    adm = _admission(tmp_path, store)
    bad = make(adm.seal(_write()), tmp_path, store)
    with pytest.raises(errors.CorruptJob):
        adm.open(bad)


def test_a_payload_sealed_with_another_key_names_the_key(tmp_path, store):
    adm = _admission(tmp_path, store)
    other = Vault(b"k" * 32)
    blob = other.encrypt('{"messages": []}', aad="deferred:u1")
    payload = {"user_id": "u1", "sealed": base64.b64encode(blob).decode(), "key_id": other.key_id}
    with pytest.raises(errors.VaultError, match=other.key_id) as info:
        adm.open(payload)
    assert not isinstance(info.value, errors.CorruptJob)  # the job is fine; the store's key is not


def test_corrupt_job_is_a_store_error():
    assert issubclass(errors.CorruptJob, errors.StoreError)


def test_user_limit_counts_active_archived_and_pending(tmp_path, store):
    from memscribe.testing.store_contract import make_record, unit_vector

    def put(mid, status):
        with store.atomic():
            rec = make_record(mid, status=status)
            store.put_memory(rec, vector=unit_vector(len(mid)), keyword_text=rec.text)

    adm = _admission(tmp_path, store, max_memories_per_user=2)
    for i, status in enumerate(("active", "deleted", "superseded")):
        put(f"m{i}", status)
    adm.check_limits("u1")  # one counts: deleted / superseded memories do not
    put("m10", "pending_review")  # written behind the cache's back (another process)
    # the write this process made is added to the cached count; at the limit it is counted again
    adm.note_written("u1", WriteReport(user_id="u1", items=[WriteItem(message_id="x", action="add")]))
    with pytest.raises(errors.LimitExceeded, match="has 2 memories, the limit is 2"):
        adm.check_limits("u1")
    adm.check_limits("u2")  # another user's count is their own


def test_rate_in_error_mode_refuses_with_retry_after_and_counts_it(tmp_path, store):
    adm = _admission(tmp_path, store, user_rate=0.5, user_burst=2, on_exceed="error")
    assert adm.delay_for("u1") == 0.0 and adm.delay_for("u1") == 0.0
    with pytest.raises(errors.RateLimited) as info:
        adm.delay_for("u1")
    assert 0 < info.value.retry_after <= 2.0
    assert store.counters("u1").get("writes_rate_limited") == 1
    assert adm.delay_for("u2") == 0.0  # per user


def test_rate_in_queue_mode_defers_in_order(tmp_path, store):
    adm = _admission(tmp_path, store, user_rate=1.0, user_burst=1, on_exceed="queue")
    delays = [adm.delay_for("u1") for _ in range(4)]
    assert delays[0] == 0.0
    assert delays[1] < delays[2] < delays[3]  # each waits for the one before it
