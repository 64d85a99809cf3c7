"""Vault rows on PostgreSQL: ciphertexts of a memory's vaulted values, sealed outside the store."""

from __future__ import annotations

from memscribe.store.codec import SECRET_COLUMNS, decode_secret
from memscribe.store.postgres.connection import PostgresConnection
from memscribe.store.rows import SecretRow

__all__ = ["PostgresVault"]

_SELECT = f"SELECT {', '.join(SECRET_COLUMNS)} FROM vault"


class PostgresVault(PostgresConnection):
    def put_secret(
        self, user_id: str, memory_id: str, label: str, kind: str, blob: bytes, key_id: str
    ) -> None:
        self._all(
            "INSERT INTO vault (user_id, memory_id, label, kind, ciphertext, key_id) VALUES (%s, %s, %s, %s, %s, %s)",
            (user_id, memory_id, label, kind, bytes(blob), key_id),
        )

    def secrets_for(self, memory_id: str) -> list[SecretRow]:
        return [
            decode_secret(r) for r in self._all(f"{_SELECT} WHERE memory_id=%s ORDER BY id", (memory_id,))
        ]

    def all_secrets(self) -> list[SecretRow]:
        return [decode_secret(r) for r in self._all(f"{_SELECT} ORDER BY id")]

    def replace_secret(self, secret_id: int, blob: bytes, key_id: str) -> None:
        self._all("UPDATE vault SET ciphertext=%s, key_id=%s WHERE id=%s", (bytes(blob), key_id, secret_id))
