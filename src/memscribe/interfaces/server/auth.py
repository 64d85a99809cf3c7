"""Who is calling, and may they: API key -> tenant scope, then the key's rate limit.

The API takes the key as ``Authorization: Bearer <key>``, ``Authorization: Token <key>`` (how Mem0's
platform clients send it) or ``X-API-Key: <key>``. The web UI takes it
from its HttpOnly cookie only (never the API: a cookie rides along on cross-site requests, a header does
not). Every key has its own token bucket (``server.rate_per_s``, ``server.rate_burst``); over it, 429 with
``Retry-After``.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from fastapi import Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from memscribe.interfaces.server.errors import ApiError
from memscribe.interfaces.server.keys import ApiKey
from memscribe.interfaces.server.tenants import TenantScope

__all__ = ["COOKIE", "Principal", "api_principal", "csrf_token", "principal_for_token"]

COOKIE = "memscribe_key"

_bearer = HTTPBearer(auto_error=False, description="A tenant API key from `memscribe keys create`")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="The same key, as a header")
_token = APIKeyHeader(
    name="Authorization", scheme_name="Token", auto_error=False, description="`Token <key>` (Mem0 clients)"
)


@dataclass(frozen=True)
class Principal:
    key: ApiKey
    scope: TenantScope
    token: str

    @property
    def tenant(self) -> str:
        return self.key.tenant


def csrf_token(token: str) -> str:
    """The UI's form token: derived from the key, so a page of another site cannot know it."""
    return hmac.new(token.encode(), b"memscribe-ui-csrf", hashlib.sha256).hexdigest()[:32]


async def principal_for_token(request: Request, token: str | None) -> Principal:
    state = request.app.state.memscribe
    key = state.keys.verify(token) if token else None
    if key is None:
        raise ApiError(401, "unauthorized", "a valid API key is required" if token else "missing API key")
    wait = state.buckets.get(key.id).acquire(1)
    if wait > 0:
        raise ApiError(429, "rate_limited", "too many requests for this API key", retry_after=wait)
    request.state.tenant = key.tenant
    return Principal(key=key, scope=await state.registry.scope(key.tenant), token=token or "")


async def api_principal(
    request: Request,
    cred: HTTPAuthorizationCredentials | None = Security(_bearer),
    header: str | None = Security(_header),
    authorization: str | None = Security(_token),
) -> Principal:
    """FastAPI dependency of every /v1 route (and of the Mem0-compatible routes)."""
    token = cred.credentials if cred is not None else header
    if token is None and authorization is not None:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() == "token" and value.strip():
            token = value.strip()
    return await principal_for_token(request, token)
