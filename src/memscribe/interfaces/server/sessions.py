"""Web UI sessions, kept on the server: the browser holds a random session id, never the API key.

- **login** — ``GET /ui/login`` gives the browser a random *pre-session* id (its own cookie) and a form
  token derived from it with this server's secret. ``POST /ui/login`` needs both (and a same-origin
  request): a page of another site can neither read the token nor set the cookie, so it cannot log the
  browser in with the attacker's key (login CSRF).
- **session** — a successful login gets a fresh random id (no fixation) mapped here to the key's *id*;
  each request re-checks that the key is still active, so revoking the key ends its sessions. A session
  ends after ``server.session_ttl_s`` or at logout (revoked here, not only forgotten by the browser).
- **form tokens** — every UI form carries ``csrf(session id)``.

Only a SHA-256 digest of each id is kept (a memory dump does not hand out live sessions). Sessions live
in this process: a restart logs everyone out, which for an operators' UI is the safe side.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["LOGIN_COOKIE", "SESSION_COOKIE", "Session", "SessionStore"]

SESSION_COOKIE = "memscribe_session"
LOGIN_COOKIE = "memscribe_login"
MAX_SESSIONS = 10_000  # beyond it the oldest go first: a flood of logins cannot grow memory without end


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Session:
    key_id: str
    expires_at: float  # monotonic seconds


class SessionStore:
    def __init__(self, ttl_s: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._secret = secrets.token_bytes(32)
        self._by_digest: dict[str, Session] = {}

    # ------------------------------------------------------------------ login (before a session)
    @staticmethod
    def new_pre_session() -> str:
        return secrets.token_urlsafe(32)

    def login_token(self, pre_session: str) -> str:
        """The login form's token, bound to the browser's pre-session cookie."""
        return self._mac(b"login\x00", pre_session)

    def login_token_ok(self, pre_session: str | None, token: str | None) -> bool:
        if not pre_session or not token:
            return False
        return hmac.compare_digest(self.login_token(pre_session), token)

    # ------------------------------------------------------------------ sessions
    def create(self, key_id: str) -> str:
        """A new session for this key; the id is returned once (for the cookie), only its digest is kept."""
        self._prune()
        sid = secrets.token_urlsafe(32)
        self._by_digest[_digest(sid)] = Session(key_id=key_id, expires_at=self._clock() + self.ttl_s)
        return sid

    def get(self, sid: str | None) -> Session | None:
        if not sid:
            return None
        d = _digest(sid)
        s = self._by_digest.get(d)
        if s is not None and s.expires_at <= self._clock():
            del self._by_digest[d]
            return None
        return s

    def revoke(self, sid: str | None) -> None:
        if sid:
            self._by_digest.pop(_digest(sid), None)

    def csrf(self, sid: str) -> str:
        """The token every form of this session carries."""
        return self._mac(b"form\x00", sid)

    def __len__(self) -> int:
        return len(self._by_digest)

    # ------------------------------------------------------------------ internals
    def _mac(self, purpose: bytes, value: str) -> str:
        msg = purpose + value.encode("utf-8", "surrogatepass")
        return hmac.new(self._secret, msg, hashlib.sha256).hexdigest()[:32]

    def _prune(self) -> None:
        now = self._clock()
        for d in [d for d, s in self._by_digest.items() if s.expires_at <= now]:
            del self._by_digest[d]
        while len(self._by_digest) >= MAX_SESSIONS:  # dicts keep insertion order: the oldest first
            del self._by_digest[next(iter(self._by_digest))]
