"""Who is calling, and may they: API key -> tenant scope, then the key's rate limit.

The API takes the key as ``Authorization: Bearer <key>``, ``Authorization: Token <key>`` (how Mem0's
platform clients send it) or ``X-API-Key: <key>``, never from a cookie (a
cookie rides along on cross-site requests, a header does not); the web UI's cookie is a session id
(``sessions.py``). Every key has its own token bucket (``server.rate_per_s``, ``server.rate_burst``); over it, 429 with
``Retry-After``. Each route names the scope it needs (``scoped("read")`` ...); a key without it gets 403.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from memscribe.interfaces.server.errors import ApiError
from memscribe.interfaces.server.keys import ApiKey
from memscribe.interfaces.server.tenants import TenantScope

__all__ = [
    "Principal",
    "api_principal",
    "principal_for_key",
    "principal_for_token",
    "require_scope",
    "scoped",
]

_bearer = HTTPBearer(auto_error=False, description="A tenant API key from `memscribe keys create`")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="The same key, as a header")
_token = APIKeyHeader(
    name="Authorization", scheme_name="Token", auto_error=False, description="`Token <key>` (Mem0 clients)"
)


@dataclass(frozen=True)
class Principal:
    key: ApiKey
    scope: TenantScope
    token: str  # the credential of this request: the API key, or the UI's session id

    @property
    def tenant(self) -> str:
        return self.key.tenant


async def principal_for_token(request: Request, token: str | None) -> Principal:
    state = request.app.state.memscribe
    key = state.keys.verify(token) if token else None
    if key is None:
        raise ApiError(401, "unauthorized", "a valid API key is required" if token else "missing API key")
    return await principal_for_key(request, key, token=token or "")


async def principal_for_key(request: Request, key: ApiKey, *, token: str = "") -> Principal:
    """The caller of a verified key (from a header, or a UI session), after the key's rate limit."""
    state = request.app.state.memscribe
    wait = state.buckets.get(key.id).acquire(1)
    if wait > 0:
        raise ApiError(429, "rate_limited", "too many requests for this API key", retry_after=wait)
    request.state.tenant = key.tenant
    return Principal(key=key, scope=await state.registry.scope(key.tenant), token=token)


def require_scope(p: Principal, scope: str) -> Principal:
    if not p.key.allows(scope):
        raise ApiError(
            403, "forbidden", f"this API key lacks the {scope!r} scope (it has {list(p.key.scopes)})"
        )
    return p


def scoped(scope: str) -> Callable[..., Awaitable[Principal]]:
    """The dependency of a /v1 route that needs ``scope``: the caller, or 401 / 403 / 429."""

    async def dependency(p: Principal = Depends(api_principal)) -> Principal:
        return require_scope(p, scope)

    return dependency


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
