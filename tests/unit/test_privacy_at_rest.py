"""Nothing leaked: sensitive values never reach the database, WAL, vault key file, logs or API output;
necessary ones are encrypted and come back only through reveal() with the key."""

import json
import logging

import pytest

from memscribe import Memory, errors
from memscribe.config import Settings

SECRETS = {
    "我手机号是13812345678，周末喜欢去钓鱼。": "13812345678",
    "我的身份证号码是11010519491231002X，下周去北京。": "11010519491231002X",
    "My card number is 4111 1111 1111 1111, I usually shop on Fridays.": "4111 1111 1111 1111",
    "Email me at jane.doe@example.com, I love jazz.": "jane.doe@example.com",
    "my ssn is 078-05-1120 and I live in Ohio.": "078-05-1120",
    "staging key sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c and I deploy on Thursdays.": "sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
    "I was diagnosed with diabetes last year and I take metformin, but I still love hiking.": "metformin",
    "我的银行卡号6222021234567890128，工资每月15号到账。": "6222021234567890128",
}


def test_no_sensitive_value_anywhere_at_rest(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    mem = Memory(home=tmp_path)
    outputs = []
    for i, text in enumerate(SECRETS):
        rep = mem.add(
            {"role": "user", "content": text, "id": f"m{i}"},
            user_id="u1",
            session_id="s1",
            at="2026-03-01T10:00:00+08:00",
        )
        outputs.append(rep.model_dump_json())
    mem.flush()
    outputs.append(json.dumps(mem.export(), ensure_ascii=False))
    outputs.append(mem.context("我的爱好", user_id="u1", session_id="s1", budget_tokens=800).text)
    for r in mem.list(user_id="u1"):
        outputs.append(json.dumps([e.model_dump(mode="json") for e in mem.explain(r.id)], ensure_ascii=False))
    mem.close()
    kept = [r for r in Memory(home=tmp_path).list(user_id="u1")]
    assert any("钓鱼" in r.text for r in kept) and any("jazz" in r.text for r in kept)
    for value in SECRETS.values():
        for p in tmp_path.rglob("*"):
            if p.is_file():
                assert value.encode() not in p.read_bytes(), f"{value} leaked into {p.name}"
        assert all(value not in o for o in outputs), f"{value} leaked into API output"
        assert value not in caplog.text, f"{value} leaked into logs"


def test_vaulted_address_is_revealed_only_with_the_key(tmp_path, monkeypatch):
    mem = Memory(home=tmp_path)
    mem.add("以后下单都寄这个地址：上海市浦东新区张江路123号5栋201室", user_id="u1")
    rec = mem.list(user_id="u1")[0]
    assert "张江路" not in rec.text and "[地址#1]" in rec.text
    assert mem.reveal(rec.id) == {"[地址#1]": "上海市浦东新区张江路123号5栋201室"}
    mem.close()
    (tmp_path / "vault.key").unlink()  # the key is gone: a new one is made, the old values stay sealed
    other = Memory(home=tmp_path)
    with pytest.raises(errors.VaultError):
        other.reveal(rec.id)
    other.close()


def test_edits_cannot_smuggle_a_secret_in(mem):
    mem.add("I love jazz.", user_id="u1")
    rec = mem.list(user_id="u1")[0]
    mem.update(rec.id, text="I love jazz, call me at +1 415-555-2671")
    assert "555-2671" not in mem.get(rec.id).text


def test_settings_vault_key_from_env(tmp_path, monkeypatch):
    import base64
    import os

    monkeypatch.setenv("MEMSCRIBE_VAULT_KEY", base64.urlsafe_b64encode(os.urandom(32)).decode())
    mem = Memory(settings=Settings(home=tmp_path))
    mem.add("Ship my orders to 221B Baker Street, London please.", user_id="u1")
    rec = mem.list(user_id="u1")[0]
    assert "221B Baker Street" in "".join(mem.reveal(rec.id).values())
    assert not (tmp_path / "vault.key").exists()
    mem.close()


def test_vault_rotation_reencrypts_and_the_old_key_stops_working(tmp_path):
    from memscribe.vault import Vault, load_or_create_key

    mem = Memory(home=tmp_path)
    mem.add("以后下单都寄这个地址：北京市朝阳区建国路88号", user_id="u1")
    rec = mem.list(user_id="u1")[0]
    old_key = load_or_create_key(tmp_path, None)
    before = mem._store.secrets_for(rec.id)[0].ciphertext
    assert mem.rotate_vault_key() is None
    after = mem._store.secrets_for(rec.id)[0].ciphertext
    assert after != before
    assert "建国路88号" in mem.reveal(rec.id)["[地址#1]"]
    with pytest.raises(errors.VaultError):
        Vault(old_key).decrypt(after, aad=f"u1:{rec.id}")
    mem.close()
    assert "建国路88号" in Memory(home=tmp_path).reveal(rec.id)["[地址#1]"]  # the new key file is in place


def test_backup_is_a_consistent_copy(tmp_path):
    mem = Memory(home=tmp_path / "a")
    mem.add("I live in Boston.", user_id="u1")
    dest = mem.backup(tmp_path / "b" / "backup.db")
    mem.add("I love jazz.", user_id="u1")
    mem.close()
    from memscribe.store.sqlite import SQLiteStore

    copy = SQLiteStore(dest)
    assert copy.integrity_check() == "ok"
    assert [r.text for r in copy.list_memories("u1")] == ["The user lives in Boston."]
    copy.close()
    with pytest.raises(errors.InputError):
        Memory(home=tmp_path / "c").backup(dest)
