"""How ``memscribe serve`` runs the app under uvicorn (one place, so the tests run the same server).

uvicorn's own limits bound what the body guard cannot see: at most ``server.max_connections``
connections and requests at once (more get 503 before anything is read), request heads of at most 16 KB,
and idle keep-alive connections closed after 5 s. With the guard's per-request cap and read deadline
(``BodyGuard``), what slow or stalled clients can make the server hold is bounded.
"""

from __future__ import annotations

from typing import Any

from memscribe.config import Settings

__all__ = ["HEAD_MAX_BYTES", "KEEP_ALIVE_S", "uvicorn_config"]

HEAD_MAX_BYTES = 16 * 1024
KEEP_ALIVE_S = 5


def uvicorn_config(app: Any, settings: Settings, *, host: str, port: int, log_level: str = "info") -> Any:
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        limit_concurrency=settings.server.max_connections,
        h11_max_incomplete_event_size=HEAD_MAX_BYTES,
        timeout_keep_alive=KEEP_ALIVE_S,
    )
