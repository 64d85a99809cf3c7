"""One table from memscribe errors to HTTP, and the handlers that apply it.

Every error a client sees is JSON ``{"error": {"type", "message", "status"}}`` (plus ``retry_after`` for
429). Unexpected exceptions are logged with their traceback and answered with a bare ``internal`` error:
no stack trace, path or SQL ever reaches a client. Web UI paths get the same decision rendered as HTML
by the page renderer the app hands in (this module imports nothing of the UI: the UI imports it).
"""

from __future__ import annotations

import logging
import math
import uuid
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from memscribe.errors import (
    ConcurrencyError,
    EmbedderMismatch,
    InputError,
    LimitExceeded,
    MemscribeError,
    MessageTooLargeError,
    MigrationError,
    NotFoundError,
    ProviderError,
    ProviderTimeout,
    RateLimited,
    StoreError,
    VaultError,
)

__all__ = ["ApiError", "ErrorPage", "error_body", "install_error_handlers", "status_for"]

log = logging.getLogger("memscribe.server")

# most specific first: the first class the error is an instance of decides
_TABLE: list[tuple[type[BaseException], int, str]] = [
    (MessageTooLargeError, 413, "message_too_large"),
    (InputError, 422, "invalid_input"),
    (NotFoundError, 404, "not_found"),
    (RateLimited, 429, "rate_limited"),
    (LimitExceeded, 409, "limit_exceeded"),
    (ConcurrencyError, 503, "busy"),
    (EmbedderMismatch, 503, "embedder_mismatch"),
    (MigrationError, 503, "migration_failed"),
    (StoreError, 503, "store_unavailable"),
    (VaultError, 503, "vault_unavailable"),
    (ProviderTimeout, 504, "provider_timeout"),
    (ProviderError, 502, "provider_failed"),
    (MemscribeError, 500, "memscribe_error"),
]


# (request, status, type, message, headers) -> the HTML answer of a refused UI request
ErrorPage = Callable[[Request, int, str, str, dict[str, str]], Response]


class ApiError(Exception):
    """An HTTP-level refusal raised by the server itself (auth, body size, rate)."""

    def __init__(self, status: int, type_: str, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status, self.type, self.message, self.retry_after = status, type_, message, retry_after


def status_for(exc: BaseException) -> tuple[int, str]:
    for cls, status, name in _TABLE:
        if isinstance(exc, cls):
            return status, name
    return 500, "internal"


def error_body(status: int, type_: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"type": type_, "message": message, "status": status, **extra}}


def _headers(status: int, retry_after: float | None) -> dict[str, str]:
    h: dict[str, str] = {}
    if retry_after is not None:
        h["Retry-After"] = str(max(1, math.ceil(retry_after)))
    if status == 401:
        h["WWW-Authenticate"] = 'Bearer realm="memscribe"'
    return h


def _respond(
    request: Request,
    page: ErrorPage | None,
    status: int,
    type_: str,
    message: str,
    retry_after: float | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response:
    if retry_after is not None:
        extra["retry_after"] = max(1, math.ceil(retry_after))
    headers = {**(headers or {}), **_headers(status, retry_after)}
    if page is not None and request.url.path.startswith("/ui"):
        return page(request, status, type_, message, headers)
    return JSONResponse(error_body(status, type_, message, **extra), status_code=status, headers=headers)


def _allowed(request: Request) -> str:
    """Every method some route takes at this path (Starlette names only the first route's)."""
    methods: set[str] = set()
    for route in request.app.routes:
        match, _ = route.matches({**request.scope, "method": "__none__"})
        if match != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return ", ".join(sorted(methods))


def install_error_handlers(app: FastAPI, *, html_page: ErrorPage | None = None) -> None:
    """Answer every error as JSON, or with ``html_page`` under ``/ui`` (the web UI's error page)."""

    @app.exception_handler(ApiError)
    async def _api(request: Request, exc: ApiError) -> Response:
        return _respond(request, html_page, exc.status, exc.type, exc.message, exc.retry_after)

    @app.exception_handler(MemscribeError)
    async def _mem(request: Request, exc: MemscribeError) -> Response:
        status, name = status_for(exc)
        if status >= 500:
            log.error("memscribe error on %s %s: %r", request.method, request.url.path, exc)
        retry = getattr(exc, "retry_after", None)
        if isinstance(exc, ConcurrencyError):
            retry = 1.0
        return _respond(request, html_page, status, name, str(exc), retry)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        details = [
            {"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg", ""))} for e in exc.errors()
        ]
        msg = "; ".join(f"{'.'.join(d['loc'])}: {d['msg']}" for d in details[:5]) or "invalid request"
        return _respond(request, html_page, 422, "invalid_request", msg, details=details)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        name = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized"}.get(exc.status_code, "http")
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = _allowed(request)
        return _respond(request, html_page, exc.status_code, name, str(exc.detail), headers=headers)

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> Response:
        ref = uuid.uuid4().hex[:12]
        log.exception("unhandled error %s on %s %s", ref, request.method, request.url.path)
        return _respond(request, html_page, 500, "internal", f"internal error (reference {ref})")
