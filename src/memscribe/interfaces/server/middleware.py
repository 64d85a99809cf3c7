"""ASGI middleware: the request body guard (413, 408) and HTTP metrics (Prometheus + per-tenant latency).

Both are plain ASGI so they see every request, including ones that fail before routing.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict, deque
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram

from memscribe.interfaces.server.errors import error_body

__all__ = ["ANONYMOUS_BODY_BYTES", "BodyGuard", "BodyStats", "HttpMetrics", "LatencyLog"]

# what a caller without a valid key or UI session may send: a login form, or a request that gets 401 anyway
ANONYMOUS_BODY_BYTES = 16 * 1024
# routes that answer only to an API key: /v1, MCP, and Mem0's compatibility routes (mem0_routes.py)
KEY_PATHS = ("/v1/", "/mcp", "/memories", "/search", "/reset")

Scope = dict[str, Any]


async def _send_json(send: Any, status: int, body: dict[str, Any], *, close: bool = False) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    if close:  # the rest of the body is not read: the connection cannot carry another request
        headers.append((b"connection", b"close"))
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="memscribe"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


class BodyStats:
    """Bytes of request bodies the guard holds while they arrive, now and at most: what slow or stalled
    clients make the server keep."""

    def __init__(self) -> None:
        self.buffered = 0
        self.peak = 0

    def add(self, n: int) -> None:
        self.buffered += n
        self.peak = max(self.peak, self.buffered)


class BodyGuard:
    """Bounds what one request can make the server hold, and for how long.

    - **cap** — ``max_bytes`` for a caller with a valid API key (any ``Authorization`` scheme, or
      ``X-API-Key``) or UI session; :data:`ANONYMOUS_BODY_BYTES` for anyone else. A declared
      Content-Length over the cap is refused with 413 before a byte is read (401 on routes that need a
      key the caller does not have); a chunked body is refused the moment it passes the cap.
    - **deadline** — the whole body must arrive within ``timeout_s`` of the request's start; a client
      that sends headers and then trickles (or stalls) gets 408 and the connection is closed.

    The body is read here (at most the cap), then handed to the app. ``is_known(scope)`` says whether the
    request carries valid credentials; it only hashes the presented key, reading nothing.
    """

    def __init__(
        self,
        app: Any,
        max_bytes: int,
        *,
        timeout_s: float = 10.0,
        is_known: Any = None,
        stats: BodyStats | None = None,
    ) -> None:
        self.app, self.max_bytes, self.timeout_s = app, max_bytes, timeout_s
        self.is_known = is_known or (lambda scope: True)
        self.stats = stats or BodyStats()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        known = self.is_known(scope)
        cap = self.max_bytes if known else min(self.max_bytes, ANONYMOUS_BODY_BYTES)
        too_big = error_body(413, "payload_too_large", f"request body is larger than {cap} bytes")
        if not known and str(scope.get("path", "")).startswith(KEY_PATHS):
            # the route needs a key it will not get: say so (401) rather than that the body is too large
            too_big = error_body(401, "unauthorized", "a valid API key is required")
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                n = int(declared)
            except ValueError:
                return await _send_json(
                    send, 400, error_body(400, "bad_request", "invalid Content-Length"), close=True
                )
            if n > cap:
                return await _send_json(send, too_big["error"]["status"], too_big, close=True)
        if scope.get("method") not in ("POST", "PUT", "PATCH", "DELETE"):
            return await self.app(scope, receive, send)
        chunks: list[bytes] = []
        size, refused = 0, None
        try:
            async with asyncio.timeout(self.timeout_s):
                more = True
                while more:
                    msg = await receive()
                    if msg["type"] == "http.disconnect":
                        return None
                    chunk = msg.get("body", b"")
                    if size + len(chunk) > cap:
                        refused = too_big
                        break
                    size += len(chunk)
                    self.stats.add(len(chunk))
                    chunks.append(chunk)
                    more = msg.get("more_body", False)
        except TimeoutError:
            refused = error_body(
                408, "request_timeout", f"the request body took longer than {self.timeout_s:g} s to arrive"
            )
        finally:
            self.stats.add(-size)  # counted while it arrives: the time a slow client chooses
        if refused is not None:
            return await _send_json(send, refused["error"]["status"], refused, close=True)
        body = b"".join(chunks)
        del chunks
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


class LatencyLog:
    """The last few hundred latencies (ms) per tenant and operation, for the UI's stats page."""

    def __init__(self, keep: int = 500) -> None:
        self._d: dict[str, dict[str, deque[float]]] = defaultdict(
            lambda: defaultdict(lambda: deque(maxlen=keep))
        )

    def record(self, tenant: str, op: str, ms: float) -> None:
        self._d[tenant][op].append(ms)

    def summary(self, tenant: str) -> dict[str, dict[str, float]]:
        out = {}
        for op, xs in sorted(self._d.get(tenant, {}).items()):
            s = sorted(xs)
            if s:
                out[op] = {
                    "n": float(len(s)),
                    "p50": s[len(s) // 2],
                    "p95": s[min(len(s) - 1, int(len(s) * 0.95))],
                    "max": s[-1],
                }
        return out


# the operations the stats page charts: (method, route) -> name
_OPS = {
    ("POST", "/v1/memories"): "add",
    ("POST", "/v1/search"): "search",
    ("POST", "/v1/context"): "context",
    ("GET", "/v1/memories"): "list",
    ("GET", "/ui/users/{user_id}"): "browse",
}


class HttpMetrics:
    """Request counts and latency by method, route template and status (no tenant or user labels)."""

    def __init__(self, app: Any, registry: CollectorRegistry, latency: LatencyLog) -> None:
        self.app, self.latency = app, latency
        self.requests = Counter(
            "memscribe_http_requests",
            "HTTP requests by method, route template and status",
            ["method", "route", "status"],
            registry=registry,
        )
        self.duration = Histogram(
            "memscribe_http_request_duration_seconds",
            "HTTP request latency by method and route template",
            ["method", "route"],
            registry=registry,
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        t0 = time.perf_counter()
        status = 500

        async def send_wrapped(msg: dict[str, Any]) -> None:
            nonlocal status
            if msg["type"] == "http.response.start":
                status = msg["status"]
            await send(msg)

        try:
            await self.app(scope, receive, send_wrapped)
        finally:
            dt = time.perf_counter() - t0
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            method = scope.get("method", "")
            self.requests.labels(method, route, str(status)).inc()
            self.duration.labels(method, route).observe(dt)
            op = _OPS.get((method, route))
            tenant = (scope.get("state") or {}).get("tenant")
            if op and tenant and status < 400:
                self.latency.record(tenant, op, dt * 1000)
