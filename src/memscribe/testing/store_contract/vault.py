"""Vault rows: typed, bytes kept exactly, per memory and store-wide, replaced in place on key rotation."""

from __future__ import annotations

from memscribe.store.rows import SecretRow

__all__ = ["VaultContract"]


class VaultContract:
    def test_vault_rows(self, store) -> None:  # type: ignore[no-untyped-def]
        store.put_secret("u1", "m1", "[地址#1]", "address", b"v1-ciphertext", "k1")
        store.put_secret("u1", "m1", "[电话#1]", "phone", bytes(range(256)), "k1")
        store.put_secret("u2", "m9", "[卡号#1]", "card", b"other", "k1")
        first, second = store.secrets_for("m1")
        assert isinstance(first, SecretRow)
        assert (first.user_id, first.memory_id, first.label, first.kind, first.ciphertext, first.key_id) == (
            "u1",
            "m1",
            "[地址#1]",
            "address",
            b"v1-ciphertext",
            "k1",
        )
        assert second.ciphertext == bytes(range(256)) and second.id > first.id
        assert store.secrets_for("nope") == []
        assert [s.memory_id for s in store.all_secrets()] == ["m1", "m1", "m9"]

    def test_replace_secret_rewrites_one_row(self, store) -> None:  # type: ignore[no-untyped-def]
        store.put_secret("u1", "m1", "[地址#1]", "address", b"old", "k1")
        store.put_secret("u1", "m2", "[地址#1]", "address", b"keep", "k1")
        target = store.secrets_for("m1")[0]
        store.replace_secret(target.id, b"new", "k2")
        assert [(s.ciphertext, s.key_id) for s in store.all_secrets()] == [(b"new", "k2"), (b"keep", "k1")]
