"""memscribe's HTTP server: REST API, web UI, metrics. Needs the ``server`` extra (FastAPI, uvicorn)."""

from memscribe.interfaces.server.app import create_app

__all__ = ["create_app"]
