"""Unknown query parameters are an error (422), never silently ignored: ``GET /v1/memories?agent_id=x``
on a route that has no ``agent_id`` would otherwise answer as if the filter had been applied.

A router-level dependency: it reads the matched route's declared query parameters (its own and those of
its dependencies) and refuses any other.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.dependencies.models import Dependant

from memscribe.interfaces.server.errors import ApiError

__all__ = ["declared_query", "refuse_unknown_query"]

_ALLOWED: dict[int, frozenset[str]] = {}


def declared_query(dependant: Dependant) -> frozenset[str]:
    """Every query parameter name (alias) a route's dependency tree declares."""
    names = {p.alias for p in dependant.query_params}
    for sub in dependant.dependencies:
        names |= declared_query(sub)
    return frozenset(names)


async def refuse_unknown_query(request: Request) -> None:
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    allowed = _ALLOWED.get(id(route))
    if allowed is None:
        allowed = _ALLOWED[id(route)] = declared_query(dependant)
    unknown = sorted(set(request.query_params) - allowed)
    if unknown:
        takes = ", ".join(sorted(allowed)) or "none"
        raise ApiError(
            422, "invalid_request", f"unknown query parameters {unknown}; this route takes: {takes}"
        )
