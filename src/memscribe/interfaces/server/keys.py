"""Tenant API keys: created once, shown once, kept only as a SHA-256 digest.

A key is ``msk_<id>_<secret>``: ``id`` (12 hex chars) names the key in listings and revocations, ``secret``
is 32 random bytes (url-safe base64). Only ``sha256(key)`` is stored. A slow password hash (scrypt,
argon2) protects *low-entropy* secrets against guessing; a 256-bit random secret cannot be guessed, so a
fast digest is as strong and costs microseconds per request instead of tens of milliseconds (the same
choice GitHub and Stripe make for their tokens). Digests are compared in constant time.

Every key has **scopes**: ``read`` (recall, list, history, stats), ``write`` (add, edit, delete, review,
maintain, forget), ``reveal`` (the vaulted values of a memory, audited) and ``admin`` (``/metrics`` of its
own tenant). A key written before scopes existed has ``read`` and ``write``: exactly what it could do then.
New keys get the same unless ``--scope`` says otherwise.

The file (``<home>/server/keys.json`` by default, mode 0600) is rewritten atomically under an advisory
lock, and a running server notices changes by its modification time, so ``memscribe keys revoke`` takes
effect on the next request without a restart.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from memscribe.config import Settings
from memscribe.errors import InputError, NotFoundError
from memscribe.store.private import private_file, private_folder

__all__ = ["DEFAULT_SCOPES", "SCOPES", "TENANT_RE", "ApiKey", "KeyStore", "check_scopes", "keys_path"]

SCOPES = ("read", "write", "reveal", "admin")
DEFAULT_SCOPES = ("read", "write")

TENANT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")
_KEY_RE = re.compile(r"^msk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")


def keys_path(settings: Settings) -> Path:
    return settings.server.keys_path or Path(settings.home) / "server" / "keys.json"


def check_scopes(scopes: object) -> tuple[str, ...]:
    """Known scope names, deduplicated in the canonical order (InputError otherwise)."""
    if isinstance(scopes, str) or not all(isinstance(x, str) for x in scopes):  # type: ignore[union-attr]
        raise InputError("scopes must be a list of names")
    names = set(scopes)  # type: ignore[arg-type]
    unknown = names - set(SCOPES)
    if unknown or not names:
        raise InputError(f"unknown or no scopes {sorted(unknown)}; use some of {list(SCOPES)}")
    return tuple(x for x in SCOPES if x in names)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ApiKey:
    id: str
    tenant: str
    name: str
    sha256: str
    created_at: str
    revoked_at: str | None = None
    scopes: tuple[str, ...] = DEFAULT_SCOPES  # a key file of before scopes: what those keys could do

    def __post_init__(self) -> None:
        object.__setattr__(self, "scopes", check_scopes(self.scopes))  # the file holds a list

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def allows(self, scope: str) -> bool:
        return scope in self.scopes

    def public(self) -> dict[str, str | None]:
        """What listings show: everything but the digest."""
        d = asdict(self)
        d.pop("sha256")
        d["scopes"] = list(self.scopes)
        return d


class KeyStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._mtime: int | None = None
        self._by_id: dict[str, ApiKey] = {}

    # ------------------------------------------------------------------ reading
    def _load(self) -> dict[str, ApiKey]:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._mtime, self._by_id = None, {}
            return self._by_id
        if st.st_mtime_ns != self._mtime:
            data = json.loads(self.path.read_text(encoding="utf-8") or "{}")
            self._by_id = {k["id"]: ApiKey(**k) for k in data.get("keys", [])}
            self._mtime = st.st_mtime_ns
        return self._by_id

    def list(self) -> list[ApiKey]:
        return sorted(self._load().values(), key=lambda k: k.created_at)

    def get(self, key_id: str) -> ApiKey | None:
        """The active key with this id (a UI session holds the id, never the key), or None."""
        key = self._load().get(key_id)
        return key if key is not None and key.active else None

    def verify(self, token: str) -> ApiKey | None:
        """The active key this token is, or None (malformed, unknown, wrong secret or revoked)."""
        m = _KEY_RE.match(token or "")
        if m is None:
            return None
        key = self._load().get(m.group(1))
        if key is None or not hmac.compare_digest(key.sha256, _digest(token)):
            return None
        return key if key.active else None

    # ------------------------------------------------------------------ writing
    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, ApiKey]]:
        private_folder(self.path.parent)
        with open(private_file(self.path.with_suffix(".lock")), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self._mtime = None
            keys = dict(self._load())
            yield keys
            tmp = self.path.with_suffix(".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"keys": [asdict(k) for k in keys.values()]}, fh, indent=1)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            self._mtime = None

    def create(
        self, tenant: str, *, name: str = "", scopes: tuple[str, ...] | list[str] = DEFAULT_SCOPES
    ) -> tuple[ApiKey, str]:
        """A new key for ``tenant`` with ``scopes``: the record, and the token (shown once, never stored)."""
        scopes = check_scopes(scopes)
        if not TENANT_RE.match(tenant or ""):
            raise InputError("tenant must be 1-63 characters: letters, digits, '_', '.', '-' (not first)")
        token = f"msk_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"
        key_id = token.split("_")[1]
        key = ApiKey(
            id=key_id,
            tenant=tenant,
            name=name,
            sha256=_digest(token),
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            scopes=scopes,
        )
        with self._locked() as keys:
            keys[key.id] = key
        return key, token

    def revoke(self, key_id: str) -> ApiKey:
        with self._locked() as keys:
            key = keys.get(key_id)
            if key is None:
                raise NotFoundError(f"no key {key_id!r}")
            if key.active:
                key = keys[key_id] = ApiKey(
                    **{**asdict(key), "revoked_at": datetime.now(UTC).isoformat(timespec="seconds")}
                )
        return key
