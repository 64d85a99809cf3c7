"""Query parameters mean exactly what the route declares (422 otherwise, never silently ignored):

* an unknown parameter: ``GET /v1/memories?agent_id=x`` on a route that has no ``agent_id`` would otherwise
  answer as if the filter had been applied;
* a repeated one: ``?user_id=a&user_id=b`` would be read as its last value — except a parameter the route
  declares as a list (``?entities=a&entities=b``).

A router-level dependency: it reads the matched route's declared query parameters (its own and those of
its dependencies) once per route and refuses any other use.
"""

from __future__ import annotations

from fastapi import Request
from fastapi._compat import field_annotation_is_sequence
from fastapi.dependencies.models import Dependant

from memscribe.interfaces.server.errors import ApiError

__all__ = ["declared_query", "refuse_unknown_query"]

# route -> (every declared name, the names declared as lists)
_DECLARED: dict[int, tuple[frozenset[str], frozenset[str]]] = {}


def declared_query(dependant: Dependant) -> tuple[frozenset[str], frozenset[str]]:
    """Every query parameter name (alias) a route's dependency tree declares, and those that are lists."""
    names = {p.alias for p in dependant.query_params}
    lists = {p.alias for p in dependant.query_params if field_annotation_is_sequence(p.field_info.annotation)}
    for sub in dependant.dependencies:
        more, more_lists = declared_query(sub)
        names |= more
        lists |= more_lists
    return frozenset(names), frozenset(lists)


async def refuse_unknown_query(request: Request) -> None:
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    declared = _DECLARED.get(id(route))
    if declared is None:
        declared = _DECLARED[id(route)] = declared_query(dependant)
    allowed, lists = declared
    unknown = sorted(set(request.query_params) - allowed)
    if unknown:
        takes = ", ".join(sorted(allowed)) or "none"
        raise ApiError(
            422, "invalid_request", f"unknown query parameters {unknown}; this route takes: {takes}"
        )
    keys = [k for k, _ in request.query_params.multi_items()]
    repeated = sorted({k for k in keys if keys.count(k) > 1 and k not in lists})
    if repeated:
        raise ApiError(422, "invalid_request", f"query parameters given more than once: {repeated}")
