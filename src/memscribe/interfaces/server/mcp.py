"""MCP over streamable HTTP at ``/mcp``, tenant-scoped by the same API key as the REST API.

Each tenant gets its own MCP server (``memscribe.interfaces.mcp_server.create_mcp_server``) over that
tenant's AsyncMemory, created on the tenant's first MCP request. Its session manager runs in a background
task of the server's event loop until shutdown (an anyio task group must be entered and left in one
task, so it cannot live in a request). Only the ``folders`` tenancy is supported: in ``prefix`` mode the
MCP tools would see the shared store's internal user ids, so /mcp answers 501 there.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from memscribe.interfaces.server.errors import error_body

__all__ = ["McpGateway"]


def _token(scope: dict[str, Any]) -> str | None:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return headers.get("x-api-key")


async def _reply(
    send: Any, status: int, type_: str, message: str, headers: dict[str, str] | None = None
) -> None:
    data = json.dumps(error_body(status, type_, message)).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


class McpGateway:
    """The ASGI app at /mcp: API key -> tenant -> that tenant's streamable-HTTP MCP app."""

    def __init__(self, state: Any) -> None:
        self.state = state
        self._apps: dict[str, Any] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()

    async def _app_for(self, tenant: str) -> Any:
        app = self._apps.get(tenant)
        if app is not None:
            return app
        async with self._lock:
            if tenant in self._apps:
                return self._apps[tenant]
            from memscribe.interfaces.mcp_server import create_mcp_server

            scope = await self.state.registry.scope(tenant)
            server = create_mcp_server(scope.memory, name=f"memscribe ({tenant})")
            app = server.streamable_http_app(
                streamable_http_path="/mcp", host=self.state.settings.server.host
            )
            started = asyncio.Event()

            async def run() -> None:
                async with server.session_manager.run():
                    started.set()
                    await self._stop.wait()

            task = asyncio.create_task(run(), name=f"mcp-sessions-{tenant}")
            self._tasks.append(task)
            waiter = asyncio.create_task(started.wait())
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                waiter.cancel()
                task.result()  # raises what stopped it
            self._apps[tenant] = app
            return app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        token = _token(scope)
        key = self.state.keys.verify(token) if token else None
        if key is None:
            msg = "a valid API key is required" if token else "missing API key"
            return await _reply(
                send, 401, "unauthorized", msg, {"WWW-Authenticate": 'Bearer realm="memscribe"'}
            )
        if not (key.allows("read") and key.allows("write")):
            # the tenant's MCP server offers reading and writing tools alike (remember, forget, ...): a key
            # must hold both scopes, or a read-only key could write through /mcp
            return await _reply(
                send,
                403,
                "forbidden",
                f"/mcp needs the 'read' and 'write' scopes (this key has {list(key.scopes)})",
            )
        wait = self.state.buckets.get(key.id).acquire(1)
        if wait > 0:
            retry = str(max(1, int(wait + 0.999)))
            return await _reply(
                send, 429, "rate_limited", "too many requests for this API key", {"Retry-After": retry}
            )
        if self.state.registry.mode != "folders":
            return await _reply(send, 501, "not_implemented", "MCP over HTTP needs the folders tenancy")
        scope.setdefault("state", {})["tenant"] = key.tenant
        app = await self._app_for(key.tenant)
        await app(scope, receive, send)

    async def close(self) -> None:
        self._stop.set()
        for task in self._tasks:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, timeout=10)
        self._tasks.clear()
        self._apps.clear()
