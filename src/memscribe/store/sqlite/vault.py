"""Vault rows on SQLite: ciphertexts of a memory's vaulted values, sealed outside the store."""

from __future__ import annotations

from memscribe.store.codec import SECRET_COLUMNS, decode_secret
from memscribe.store.rows import SecretRow
from memscribe.store.sqlite.connection import SQLiteConnection

__all__ = ["SQLiteVault"]

_SELECT = f"SELECT {', '.join(SECRET_COLUMNS)} FROM vault"


class SQLiteVault(SQLiteConnection):
    def put_secret(
        self, user_id: str, memory_id: str, label: str, kind: str, blob: bytes, key_id: str
    ) -> None:
        self._exec(
            "INSERT INTO vault (user_id, memory_id, label, kind, ciphertext, key_id) VALUES (?, ?, ?, ?, ?, ?)",
            (user_id, memory_id, label, kind, blob, key_id),
        )

    def secrets_for(self, memory_id: str) -> list[SecretRow]:
        return [
            decode_secret(r) for r in self._exec(f"{_SELECT} WHERE memory_id=? ORDER BY id", (memory_id,))
        ]

    def all_secrets(self) -> list[SecretRow]:
        return [decode_secret(r) for r in self._exec(f"{_SELECT} ORDER BY id")]

    def replace_secret(self, secret_id: int, blob: bytes, key_id: str) -> None:
        self._exec("UPDATE vault SET ciphertext=?, key_id=? WHERE id=?", (blob, key_id, secret_id))
