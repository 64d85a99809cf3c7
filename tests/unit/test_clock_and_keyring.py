"""An injected clock is where Memory reads "now"; the key ring finishes a rotation a crash interrupted."""

from __future__ import annotations

import base64
import os
from datetime import UTC, datetime, timedelta

import pytest

from memscribe import Memory
from memscribe.clock import ManualClock
from memscribe.keyring import KeyRing
from memscribe.vault import KEY_FILE, Vault, load_or_create_key

T0 = datetime(2031, 5, 4, 8, 0, tzinfo=UTC)  # far from the wall clock


def test_writes_reads_and_edits_follow_the_injected_clock(tmp_path):
    clock = ManualClock(T0)
    with Memory(home=tmp_path, clock=clock) as mem:
        rep = mem.add("I'm allergic to peanuts.", user_id="u1")  # no ``at``: the clock's now
        rec = mem.get(rep.added[0])
        assert rec.created_at == T0 and rec.sources[0].at == T0
        clock.advance(timedelta(days=3))
        assert mem.search("peanut allergy", user_id="u1")
        mem.flush()
        assert mem.get(rec.id).last_accessed_at == T0 + timedelta(days=3)
        clock.advance(timedelta(hours=1))
        edited = mem.update(rec.id, importance=0.9)
        assert edited.updated_at == T0 + timedelta(days=3, hours=1)
        assert mem.history(rec.id)[-1].created_at == edited.updated_at


def test_manual_clock_refuses_naive_times():
    with pytest.raises(ValueError):
        ManualClock(datetime(2030, 1, 1))


def _seal_one(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add("以后下单都寄这个地址：北京市朝阳区建国路88号", user_id="u1")
        rec = mem.list(user_id="u1")[0]
        return rec, mem._store.secrets_for(rec.id)[0]


def test_an_interrupted_rotation_keeps_the_key_the_rows_were_sealed_with(tmp_path):
    rec, secret = _seal_one(tmp_path)
    old_id = secret.key_id
    # crash after the new key was written but before the commit: the rows still use the old key
    (tmp_path / (KEY_FILE + ".next")).write_text(base64.urlsafe_b64encode(os.urandom(32)).decode() + "\n")
    with Memory(home=tmp_path) as mem:
        assert "建国路88号" in mem.reveal(rec.id)["[地址#1]"]
    assert not (tmp_path / (KEY_FILE + ".next")).exists()
    assert Vault(load_or_create_key(tmp_path, None)).key_id == old_id


def test_an_interrupted_rotation_after_the_commit_installs_the_new_key(tmp_path):
    rec, secret = _seal_one(tmp_path)
    with Memory(home=tmp_path) as mem:
        old = mem._vault()
        new_key = os.urandom(32)
        new = Vault(new_key)
        blob = old.rotate([(secret.ciphertext, f"u1:{rec.id}")], new)[0]
        with mem._store.atomic():
            mem._store.replace_secret(secret.id, blob, new.key_id)
    # crash after the commit, before the rename: the rows use the pending key
    (tmp_path / (KEY_FILE + ".next")).write_text(base64.urlsafe_b64encode(new_key).decode() + "\n")
    with Memory(home=tmp_path) as mem:
        assert "建国路88号" in mem.reveal(rec.id)["[地址#1]"]
    assert Vault(load_or_create_key(tmp_path, None)).key_id == new.key_id


def test_keyring_with_an_environment_key_returns_the_new_key_once(tmp_path):
    from memscribe.store.sqlite import SQLiteStore

    env = base64.urlsafe_b64encode(os.urandom(32)).decode()
    store = SQLiteStore(tmp_path / "m.db")
    try:
        ring = KeyRing(tmp_path, store, env_key=env)
        first = ring.vault().key_id
        new = ring.rotate()
        assert new and new != env and ring.vault().key_id != first
        assert not (tmp_path / KEY_FILE).exists()  # nothing written next to the store
    finally:
        store.close()
