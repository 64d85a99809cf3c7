"""The vault key of one store: loading it, finishing a rotation a crash interrupted, and rotating it.

The key comes from ``MEMSCRIBE_VAULT_KEY`` (``Settings.vault_key``) when that is set, otherwise from
``<home>/vault.key`` (mode 0600, created on first use). A rotation writes the new key to
``vault.key.next`` before any row is re-encrypted, commits the re-encrypted rows in one transaction, and
only then renames the file into place; a process that died in between is repaired on the next load by
the key id the stored rows carry.
"""

from __future__ import annotations

import base64
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memscribe.vault import KEY_FILE, Vault, load_or_create_key

if TYPE_CHECKING:
    from memscribe.models import MemoryRecord
    from memscribe.store.base import Store

__all__ = ["KeyRing", "secret_aad"]

_PENDING = KEY_FILE + ".next"


def secret_aad(user_id: str, memory_id: str) -> str:
    """The authenticated context of a vaulted value: it opens only on the record it was sealed for."""
    return f"{user_id}:{memory_id}"


class KeyRing:
    """Owns the :class:`~memscribe.vault.Vault` of one store; loaded lazily, replaced by :meth:`rotate`."""

    def __init__(self, home: str | Path, store: Store, *, env_key: str | None = None) -> None:
        self._home = Path(home)
        self._store = store
        self._env_key = env_key
        self._vault: Vault | None = None

    def vault(self) -> Vault:
        """The current vault (the first call reads or creates the key)."""
        if self._vault is None:
            if not self._env_key:
                self._finish_interrupted_rotation()
            self._vault = Vault(load_or_create_key(self._home, self._env_key))
        return self._vault

    def _finish_interrupted_rotation(self) -> None:
        pending = self._home / _PENDING
        if not pending.exists():
            return
        # keep whichever key the stored rows were sealed with: the commit either happened or it did not
        candidate = Vault(load_or_create_key(self._home, pending.read_text().strip()))
        used = {r.key_id for r in self._store.all_secrets()}
        if candidate.key_id in used:
            os.replace(pending, self._home / KEY_FILE)
        else:
            pending.unlink()

    def reveal(self, rec: MemoryRecord, *, actor: str, reason: str | None, at: datetime) -> dict[str, str]:
        """The vaulted values of one memory (placeholder label -> plaintext), and an audit event saying who
        saw which placeholders and why (never the values)."""
        from memscribe import boundary
        from memscribe.models import AuditEvent

        actor = boundary.reason(actor, "actor")
        reason = boundary.reason(reason) if reason is not None else None
        vault = self.vault()
        values = {
            s.label: vault.decrypt(s.ciphertext, aad=secret_aad(rec.user_id, rec.id))
            for s in self._store.secrets_for(rec.id)
        }
        event = AuditEvent(
            ts=at,
            user_id=rec.user_id,
            memory_id=rec.id,
            stage="vault",
            action="reveal",
            reason=reason or "vaulted values revealed",
            detail={"actor": actor, "labels": sorted(values)},
        )
        with self._store.atomic():
            self._store.add_audit([event])
        return values

    def rotate(self) -> str | None:
        """Re-encrypt every vaulted value under a fresh key; the old key stops working.

        With a key file the new key replaces it atomically and None is returned. With an environment key
        the new key is returned once (url-safe base64): the caller must set it before restarting. Work
        sealed with the old key outside the vault table (deferred writes) must be drained first.
        """
        old = self.vault()
        new_key = os.urandom(32)
        new = Vault(new_key)
        rows = self._store.all_secrets()
        aads = {}
        for r in rows:
            rec = self._store.get_memory(r.memory_id)
            aads[r.id] = secret_aad(rec.user_id, rec.id) if rec is not None else ""
        blobs = old.rotate([(r.ciphertext, aads[r.id]) for r in rows], new)
        encoded = base64.urlsafe_b64encode(new_key).decode()
        path = self._home / KEY_FILE
        pending = self._home / _PENDING
        if not self._env_key:
            # the new key is on disk before any row uses it; renamed into place only after the commit
            fd = os.open(pending, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(encoded + "\n")
                fh.flush()
                os.fsync(fh.fileno())
        with self._store.atomic():
            for r, blob in zip(rows, blobs, strict=True):
                self._store.replace_secret(r.id, blob, new.key_id)
        if not self._env_key:
            os.replace(pending, path)
        self._vault = new
        return None if not self._env_key else encoded
