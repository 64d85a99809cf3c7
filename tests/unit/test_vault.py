"""Vault: AES-GCM round trips, failure modes, key file handling and rotation."""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from pathlib import Path

import pytest

from memscribe.vault import Vault, VaultError, VaultKeyError, load_or_create_key

KEY_A = bytes(range(32))
KEY_B = bytes(range(1, 33))


def test_vault_error_is_the_project_error() -> None:
    from memscribe import errors

    assert VaultError is errors.VaultError
    assert issubclass(VaultKeyError, errors.VaultError)
    assert issubclass(VaultError, errors.MemscribeError)


@pytest.mark.parametrize(
    "plaintext", ["上海市浦东新区张江路123号5栋201室", "1600 Amphitheatre Parkway", "", "x" * 10_000]
)
def test_round_trip(plaintext: str) -> None:
    v = Vault(KEY_A)
    blob = v.encrypt(plaintext, aad="mem:1")
    assert blob.startswith(b"v1")
    assert len(blob) == 2 + 12 + len(plaintext.encode()) + 16
    assert plaintext.encode() not in blob or plaintext == ""
    assert v.decrypt(blob, aad="mem:1") == plaintext


def test_nonce_is_random() -> None:
    v = Vault(KEY_A)
    a, b = v.encrypt("same", aad="m"), v.encrypt("same", aad="m")
    assert a != b and a[2:14] != b[2:14]


def test_wrong_key_fails() -> None:
    blob = Vault(KEY_A).encrypt("secret address", aad="mem:1")
    with pytest.raises(VaultError, match="cannot decrypt: wrong key or corrupted value"):
        Vault(KEY_B).decrypt(blob, aad="mem:1")


def test_wrong_aad_fails() -> None:
    v = Vault(KEY_A)
    blob = v.encrypt("secret address", aad="mem:1")
    with pytest.raises(VaultError):
        v.decrypt(blob, aad="mem:2")


@pytest.mark.parametrize("where", [0, 1, 2, 13, 14, 20, -1])
def test_tampered_blob_fails(where: int) -> None:
    v = Vault(KEY_A)
    blob = bytearray(v.encrypt("收货地址：北京市朝阳区建国路88号", aad="mem:1"))
    blob[where] ^= 0x01
    with pytest.raises(VaultError, match="cannot decrypt"):
        v.decrypt(bytes(blob), aad="mem:1")


@pytest.mark.parametrize("blob", [b"", b"v1", b"v1" + b"\0" * 27, b"v2" + b"\0" * 40, b"garbage"])
def test_malformed_blob_fails(blob: bytes) -> None:
    with pytest.raises(VaultError):
        Vault(KEY_A).decrypt(blob, aad="x")


@pytest.mark.parametrize("key", [b"", b"\0" * 16, b"\0" * 31, b"\0" * 33, "k" * 32])
def test_vault_key_length_validated(key: object) -> None:
    with pytest.raises(VaultError):
        Vault(key)  # type: ignore[arg-type]


def test_key_id() -> None:
    v = Vault(KEY_A)
    assert v.key_id == hashlib.sha256(KEY_A).hexdigest()[:8]
    assert len(v.key_id) == 8 and int(v.key_id, 16) >= 0
    assert Vault(KEY_B).key_id != v.key_id
    assert KEY_A.hex() not in repr(v) and v.key_id in repr(v)


def test_key_file_created_with_0600(tmp_path: Path) -> None:
    home = tmp_path / "nested" / "home"
    key = load_or_create_key(home, None)
    path = home / "vault.key"
    assert len(key) == 32
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert base64.urlsafe_b64decode(path.read_text().strip()) == key
    assert load_or_create_key(home, None) == key  # reused, not regenerated
    assert load_or_create_key(tmp_path / "other", None) != key


def test_key_file_mode_ignores_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        load_or_create_key(tmp_path, None)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "vault.key").st_mode) == 0o600


def test_corrupted_key_file_raises(tmp_path: Path) -> None:
    (tmp_path / "vault.key").write_text("not-a-key")
    with pytest.raises(VaultError, match="invalid vault key"):
        load_or_create_key(tmp_path, None)


def test_env_key_base64_and_hex(tmp_path: Path) -> None:
    raw = os.urandom(32)
    b64 = base64.urlsafe_b64encode(raw).decode()
    assert load_or_create_key(tmp_path, b64) == raw
    assert load_or_create_key(tmp_path, b64.rstrip("=")) == raw
    assert load_or_create_key(tmp_path, f"  {b64}\n") == raw
    assert load_or_create_key(tmp_path, raw.hex()) == raw
    assert load_or_create_key(tmp_path, raw.hex().upper()) == raw
    assert not (tmp_path / "vault.key").exists()  # env key: no file written


@pytest.mark.parametrize(
    "bad",
    [
        "hello",
        base64.urlsafe_b64encode(b"\1" * 31).decode(),
        base64.urlsafe_b64encode(b"\1" * 33).decode(),
        "ab" * 31,
        "zz" * 32,
        "!!!!" * 11,
    ],
)
def test_env_key_invalid(tmp_path: Path, bad: str) -> None:
    with pytest.raises(VaultError, match="MEMSCRIBE_VAULT_KEY") as exc:
        load_or_create_key(tmp_path, bad)
    assert bad not in str(exc.value)


def test_blank_env_falls_back_to_file(tmp_path: Path) -> None:
    key = load_or_create_key(tmp_path, "")
    assert (tmp_path / "vault.key").exists()
    assert load_or_create_key(tmp_path, "   ") == key


def test_env_key_wins_over_file(tmp_path: Path) -> None:
    file_key = load_or_create_key(tmp_path, None)
    raw = os.urandom(32)
    assert load_or_create_key(tmp_path, raw.hex()) == raw != file_key


def test_rotate(tmp_path: Path) -> None:
    old, new = Vault(KEY_A), Vault(load_or_create_key(tmp_path, None))
    pairs = [(old.encrypt(f"value {i} 地址", aad=f"mem:{i}"), f"mem:{i}") for i in range(5)]
    rotated = old.rotate(pairs, new)
    assert len(rotated) == 5
    for blob, (_, aad) in zip(rotated, pairs, strict=True):
        assert new.decrypt(blob, aad=aad).startswith("value ")
        with pytest.raises(VaultError):
            old.decrypt(blob, aad=aad)
    assert [new.decrypt(b, aad=a) for b, (_, a) in zip(rotated, pairs, strict=True)] == [
        old.decrypt(b, aad=a) for b, a in pairs
    ]


def test_rotate_is_all_or_nothing() -> None:
    old, new = Vault(KEY_A), Vault(KEY_B)
    good = (old.encrypt("a", aad="m1"), "m1")
    foreign = (new.encrypt("b", aad="m2"), "m2")
    with pytest.raises(VaultError):
        old.rotate([good, foreign], new)
    assert old.rotate([], new) == []
