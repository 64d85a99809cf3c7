"""ASGI middleware: the request body limit (413) and HTTP metrics (Prometheus + per-tenant latency).

Both are plain ASGI so they see every request, including ones that fail before routing.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict, deque
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram

from memscribe.interfaces.server.errors import error_body

__all__ = ["BodyLimit", "HttpMetrics", "LatencyLog"]

Scope = dict[str, Any]


async def _send_json(send: Any, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": data})


class BodyLimit:
    """Refuse bodies over ``max_bytes`` with 413: by Content-Length before reading, or while reading a
    chunked body (it is buffered up to the limit, then replayed to the app)."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        too_big = error_body(413, "payload_too_large", f"request body is larger than {self.max_bytes} bytes")
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                n = int(declared)
            except ValueError:
                return await _send_json(send, 400, error_body(400, "bad_request", "invalid Content-Length"))
            if n > self.max_bytes:
                return await _send_json(send, 413, too_big)
        if scope.get("method") not in ("POST", "PUT", "PATCH", "DELETE"):
            return await self.app(scope, receive, send)
        chunks, size, more = [], 0, True
        while more:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return None
            chunk = msg.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return await _send_json(send, 413, too_big)
            chunks.append(chunk)
            more = msg.get("more_body", False)
        body = b"".join(chunks)
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
