"""The memscribe HTTP server: REST API (/v1), Mem0's REST routes (/memories, /search, …), web UI (/ui),
/healthz, /metrics, OpenAPI (/openapi.json) and its Swagger UI (/docs, assets served from the
``swagger-ui-bundle-v2`` package, Swagger UI 5: the page works with no network).

``create_app(settings)`` builds the ASGI app; ``memscribe serve`` runs it with uvicorn. Tenant memories
are opened lazily and closed on shutdown (the app's lifespan).
"""

from __future__ import annotations

import contextlib
import hmac
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from prometheus_client import CollectorRegistry, generate_latest
from starlette.requests import cookie_parser
from swagger_ui_bundle import swagger_ui_path

from memscribe.config import Settings
from memscribe.interfaces.server.errors import ApiError, install_error_handlers
from memscribe.interfaces.server.keys import KeyStore, keys_path
from memscribe.interfaces.server.middleware import BodyGuard, BodyStats, HttpMetrics, LatencyLog
from memscribe.interfaces.server.schemas import Health
from memscribe.interfaces.server.sessions import SESSION_COOKIE, SessionStore
from memscribe.interfaces.server.tenants import TenantRegistry
from memscribe.lifecycle.ratelimit import KeyedBuckets

__all__ = ["ServerState", "create_app"]

WEB = Path(__file__).resolve().parent.parent / "web"


def _version() -> str:
    try:
        return version("memscribe")
    except PackageNotFoundError:  # pragma: no cover - running from a checkout without install
        return "0+unknown"


@dataclass
class ServerState:
    settings: Settings
    keys: KeyStore
    registry: TenantRegistry
    buckets: KeyedBuckets
    latency: LatencyLog
    prometheus: CollectorRegistry
    sessions: SessionStore
    bodies: BodyStats = field(default_factory=BodyStats)
    extra: dict[str, Any] = field(default_factory=dict)


def create_app(settings: Settings | None = None, *, keys: KeyStore | None = None) -> FastAPI:
    """The server app for ``settings`` (default: ``Settings()`` from env / config file)."""
    s = settings or Settings()
    state = ServerState(
        settings=s,
        keys=keys or KeyStore(keys_path(s)),
        registry=TenantRegistry(s),
        buckets=KeyedBuckets(s.server.rate_per_s, s.server.rate_burst),
        latency=LatencyLog(),
        prometheus=CollectorRegistry(),
        sessions=SessionStore(ttl_s=s.server.session_ttl_s),
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        if state.extra.get("mcp") is not None:
            await state.extra["mcp"].close()
        await state.registry.close()

    app = FastAPI(
        title="memscribe",
        version=_version(),
        description=(
            "Write-first long-term memory for LLM agents. Every /v1 route (and every Mem0-compatible "
            "route) needs a tenant API key (`Authorization: Bearer <key>`, `Authorization: Token <key>` "
            "or `X-API-Key`) and sees only that tenant's memory."
        ),
        lifespan=lifespan,
        docs_url=None,  # FastAPI's own pages load their assets from a CDN: /docs is served below
        redoc_url=None,
    )
    app.state.memscribe = state
    from memscribe.interfaces.server.api import router
    from memscribe.interfaces.server.mem0_routes import router as mem0_router
    from memscribe.interfaces.web.routes import render_error
    from memscribe.interfaces.web.routes import router as ui_router

    install_error_handlers(app, html_page=render_error)

    app.include_router(router)
    app.include_router(mem0_router)
    _json_query_parameters(app)
    app.include_router(ui_router)
    app.mount("/ui/static", StaticFiles(directory=WEB / "static"), name="static")
    app.mount("/docs/static", StaticFiles(directory=swagger_ui_path), name="swagger-ui")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} API",
            swagger_js_url="/docs/static/swagger-ui-bundle.js",
            swagger_css_url="/docs/static/swagger-ui.css",
            swagger_favicon_url="/docs/static/favicon-32x32.png",
        )

    @app.get("/healthz", response_model=Health, tags=["ops"])
    async def healthz() -> Health:
        return Health(version=_version())

    @app.get(
        "/metrics",
        response_class=PlainTextResponse,
        tags=["ops"],
        responses={code: _JSON_ERROR | {"description": why} for code, why in _METRICS_REFUSALS.items()},
    )
    async def metrics(request: Request) -> PlainTextResponse:
        """Prometheus text. With the operator's ``server.metrics_token`` (as a bearer token): HTTP counts and
        latency plus every open tenant's memory metrics (``tenant`` label). With an API key of the
        ``admin`` scope: that key's tenant's memory metrics only. Without either: 401, nothing."""
        tenants = _metrics_view(request, state)
        parts = [generate_latest(state.prometheus).decode()] if tenants is None else []
        texts: list[tuple[str | None, str]] = []
        seen: set[int] = set()
        shared = state.registry.mode == "prefix"
        for tenant in state.registry.open_tenants:
            if tenants is not None and (shared or tenant not in tenants):
                continue  # a tenant's admin sees its own tenant; a shared store counts every tenant
            sc = await state.registry.scope(tenant)
            if id(sc.memory) in seen or not hasattr(sc.memory, "metrics_text"):
                continue
            seen.add(id(sc.memory))
            texts.append((None if shared else tenant, await sc.memory.metrics_text()))
        if texts:
            parts.append(merge_exposition(texts))
        return PlainTextResponse("".join(parts), media_type="text/plain; version=0.0.4; charset=utf-8")

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse("/ui/", status_code=307)

    app.add_middleware(
        BodyGuard,
        max_bytes=s.server.max_body_bytes,
        timeout_s=s.server.body_timeout_s,
        is_known=lambda scope: _has_credentials(scope, state),
        stats=state.bodies,
    )
    app.add_middleware(HttpMetrics, registry=state.prometheus, latency=state.latency)
    _mount_mcp(app, state)
    return app


_JSON_ERROR = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}}
_METRICS_REFUSALS = {401: "No metrics token or API key", 403: "The key lacks the admin scope"}


def _has_credentials(scope: dict[str, Any], state: ServerState) -> bool:
    """Does this request carry a valid API key (any Authorization scheme, or X-API-Key) or UI session?
    Decides how large a body the server reads for it (hashes the presented key; reads no body)."""
    headers = {k.lower(): v for k, v in scope.get("headers") or []}
    auth = headers.get(b"authorization", b"").decode("latin-1").split(None, 1)
    token = auth[1].strip() if len(auth) == 2 else headers.get(b"x-api-key", b"").decode("latin-1")
    if token and state.keys.verify(token) is not None:
        return True
    cookies = cookie_parser(headers.get(b"cookie", b"").decode("latin-1"))
    session = state.sessions.get(cookies.get(SESSION_COOKIE))
    return session is not None and state.keys.get(session.key_id) is not None


def _metrics_view(request: Request, state: ServerState) -> set[str] | None:
    """Who may read /metrics: None for the operator (the metrics token), the key's tenant for an admin key;
    401 without credentials, 403 for a key without the ``admin`` scope."""
    auth = request.headers.get("authorization", "")
    token = auth[7:].strip() if auth[:7].lower() == "bearer " else request.headers.get("x-api-key", "")
    expected = state.settings.server.metrics_token
    if token and expected and hmac.compare_digest(token.encode(), expected.encode()):
        return None
    key = state.keys.verify(token) if token else None
    if key is None:
        raise ApiError(401, "unauthorized", "/metrics needs the metrics token or an admin-scope API key")
    if not key.allows("admin"):
        raise ApiError(403, "forbidden", "this API key lacks the 'admin' scope /metrics needs")
    return {key.tenant}


_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?(\s.*)$")


def merge_exposition(texts: list[tuple[str | None, str]]) -> str:
    """Several Prometheus texts as one: each family's HELP/TYPE once, its samples from every source
    grouped under it, and a ``tenant`` label added to each sample of a tenant's text."""
    families: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for tenant, text in texts:
        current = None
        for line in text.splitlines():
            if not line.strip():
                continue
            if line.startswith("# HELP ") or line.startswith("# TYPE "):
                name = line.split()[2]
                fam = families.get(name)
                if fam is None:
                    fam = families[name] = {"meta": [], "samples": []}
                    order.append(name)
                if line not in fam["meta"]:
                    fam["meta"].append(line)
                current = fam
                continue
            if line.startswith("#"):
                continue
            m = _SAMPLE.match(line)
            if m is None:
                continue
            if tenant is not None:
                label = f'tenant="{tenant}"'
                labels = m.group(2)
                labels = f"{{{label},{labels[1:]}" if labels and labels != "{}" else f"{{{label}}}"
                line = f"{m.group(1)}{labels}{m.group(3)}"
            if current is None:
                current = families.setdefault("", {"meta": [], "samples": []})
                if "" not in order:
                    order.append("")
            current["samples"].append(line)
    out = []
    for name in order:
        out += families[name]["meta"] + families[name]["samples"]
    return "\n".join(out) + "\n"


def _mount_mcp(app: FastAPI, state: ServerState) -> None:
    """MCP over streamable HTTP at /mcp (tenant-scoped by the API key), when the ``mcp`` SDK is installed."""
    try:
        import mcp  # noqa: F401

        import memscribe.interfaces.mcp_server  # noqa: F401
    except ImportError:
        state.extra["mcp"] = None
        return
    from memscribe.interfaces.server.mcp import McpGateway

    gateway = state.extra["mcp"] = McpGateway(state)
    app.add_route("/mcp", gateway, methods=["GET", "POST", "DELETE"], include_in_schema=False)


def _json_query_parameters(app: FastAPI) -> None:
    """A query parameter that carries a JSON object (``?metadata={"topic":"food"}``) is declared in
    OpenAPI as ``content: application/json`` with the object's schema, not as a bare string: clients and
    schemathesis then send JSON objects, and the spec says what the validation accepts. FastAPI takes such
    a parameter only as ``str``; the route marks it with ``contentMediaType`` and this rewrites the spec."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        spec = build()
        for ops in spec.get("paths", {}).values():
            for op in ops.values():
                for param in op.get("parameters", []) if isinstance(op, dict) else []:
                    schema = param.get("schema", {})
                    if param.get("in") == "query" and schema.get("contentMediaType") == "application/json":
                        param.pop("schema")
                        content = dict(schema.get("contentSchema", {}))
                        # its definitions (refs made with #/components/schemas/...) join the components
                        components = spec.setdefault("components", {}).setdefault("schemas", {})
                        components.update(content.pop("$defs", {}))
                        param["content"] = {"application/json": {"schema": content}}
        app.openapi_schema = spec
        return spec

    app.openapi = openapi  # type: ignore[method-assign]
