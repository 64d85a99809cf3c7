"""Encryption of the sensitive values a user explicitly wants kept (e.g. a delivery address).

AES-256-GCM via ``cryptography``. A blob is ``b"v1" + nonce(12) + ciphertext||tag``; the caller's
``aad`` (e.g. the memory id) is authenticated, so a blob cannot be moved to another record.
The key is never printed or logged; only :attr:`Vault.key_id` (a short hash) may be stored.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

try:
    from memscribe.errors import VaultError
except ImportError:  # pragma: no cover - only while the package is assembled

    class VaultError(Exception):  # type: ignore[no-redef]
        """Missing/wrong vault key, corrupted ciphertext."""


__all__ = ["KEY_FILE", "Vault", "VaultError", "VaultKeyError", "load_or_create_key"]

KEY_FILE = "vault.key"
_MAGIC = b"v1"
_NONCE = 12
_TAG = 16
_KEY_LEN = 32
_HEX64 = re.compile(r"[0-9a-fA-F]{64}")
_DECRYPT_FAILED = "cannot decrypt: wrong key or corrupted value"


class VaultKeyError(VaultError):
    """The vault key is missing, malformed or of the wrong length."""


def _decode_key(value: str, source: str) -> bytes:
    s = value.strip()
    if _HEX64.fullmatch(s):
        return bytes.fromhex(s)
    try:
        raw = base64.b64decode(s + "=" * (-len(s) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != _KEY_LEN:
        raise VaultKeyError(
            f"invalid vault key from {source}: expected url-safe base64 of 32 bytes or 64 hex characters"
        )
    return raw


def load_or_create_key(home: Path, env_value: str | None) -> bytes:
    """The 32-byte AES key.

    ``env_value`` (from MEMSCRIBE_VAULT_KEY) wins when set and non-blank: url-safe base64 of 32 bytes or
    64 hex chars, anything else raises :class:`VaultKeyError`. Otherwise ``home/vault.key`` (url-safe
    base64) is read, or created with mode 0o600 on first use (``home`` is created if missing).
    """
    if env_value is not None and env_value.strip():
        return _decode_key(env_value, "MEMSCRIBE_VAULT_KEY")
    home = Path(home)
    path = home / KEY_FILE
    try:
        return _decode_key(path.read_text(encoding="ascii"), str(path))
    except FileNotFoundError:
        pass
    except (UnicodeDecodeError, OSError) as e:
        raise VaultKeyError(f"cannot read vault key file {path}: {type(e).__name__}") from None
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = AESGCM.generate_key(bit_length=256)
    data = base64.urlsafe_b64encode(key) + b"\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first: use theirs
        return _decode_key(path.read_text(encoding="ascii"), str(path))
    try:
        os.fchmod(fd, 0o600)  # independent of the umask
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    os.close(fd)
    return key


class Vault:
    """AES-GCM encryption of short sensitive strings bound to an ``aad`` context."""

    __slots__ = ("_aes", "_key_id")

    def __init__(self, key: bytes) -> None:
        if not isinstance(key, bytes | bytearray) or len(key) != _KEY_LEN:
            raise VaultKeyError("vault key must be exactly 32 bytes")
        self._aes = AESGCM(bytes(key))
        self._key_id = hashlib.sha256(bytes(key)).hexdigest()[:8]

    def __repr__(self) -> str:
        return f"Vault(key_id={self._key_id!r})"

    @property
    def key_id(self) -> str:
        """First 8 hex chars of sha256(key): safe to store, used to detect a key change."""
        return self._key_id

    def encrypt(self, plaintext: str, *, aad: str) -> bytes:
        nonce = os.urandom(_NONCE)
        return _MAGIC + nonce + self._aes.encrypt(nonce, plaintext.encode("utf-8"), aad.encode("utf-8"))

    def decrypt(self, blob: bytes, *, aad: str) -> str:
        blob = bytes(blob)
        if len(blob) < len(_MAGIC) + _NONCE + _TAG or not blob.startswith(_MAGIC):
            raise VaultError(_DECRYPT_FAILED)
        nonce = blob[len(_MAGIC) : len(_MAGIC) + _NONCE]
        try:
            plain = self._aes.decrypt(nonce, blob[len(_MAGIC) + _NONCE :], aad.encode("utf-8"))
            return plain.decode("utf-8")
        except (InvalidTag, UnicodeDecodeError):
            raise VaultError(_DECRYPT_FAILED) from None

    def rotate(self, blobs: Iterable[tuple[bytes, str]], new: Vault) -> list[bytes]:
        """Re-encrypt ``(blob, aad)`` pairs under ``new``. All-or-nothing: any undecryptable blob raises
        :class:`VaultError` before a single re-encrypted blob is returned."""
        plain = [(self.decrypt(blob, aad=aad), aad) for blob, aad in blobs]
        return [new.encrypt(text, aad=aad) for text, aad in plain]
