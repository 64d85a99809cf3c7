"""The routes of Mem0's OSS REST server, over :mod:`memscribe.compat.mem0`: a Mem0 HTTP client points at
memscribe and keeps working.

``POST/GET/DELETE /memories``, ``GET/PUT/DELETE /memories/{id}``, ``GET /memories/{id}/history``,
``POST /search``, ``POST /reset`` — the bodies and answers of Mem0's server (``{"results": [...]}``,
``{"message": ...}``). Unlike it, every route needs a tenant key (``Authorization: Token <key>``, as
Mem0's clients send it, or Bearer / ``X-API-Key``) and sees only that tenant; errors are memscribe's JSON
errors (a missing id is 422, an unknown memory 404). ``POST /configure`` is not served: the operator
configures the server. ``POST /reset`` erases the tenant's memories, as Mem0's does the server's.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from memscribe.errors import NotFoundError
from memscribe.interfaces.server.auth import Principal, scoped
from memscribe.interfaces.server.schemas import MAX_QUERY_CHARS, ErrorBody
from memscribe.interfaces.server.strict_query import refuse_unknown_query

__all__ = ["router"]

router = APIRouter(
    tags=["mem0 compatibility"],
    dependencies=[Depends(refuse_unknown_query)],
    responses={c: {"model": ErrorBody} for c in (400, 401, 404, 413, 422, 429)},
)
# the same key scopes as /v1 (keys.py): reading needs "read", any change "write"
Reader = Annotated[Principal, Depends(scoped("read"))]
Writer = Annotated[Principal, Depends(scoped("write"))]
MemoryId = Annotated[str, Path(min_length=1, max_length=128)]
EntityId = Annotated[str | None, Query(min_length=1, max_length=256)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Mem0Message(_In):
    role: Literal["user", "assistant", "system", "tool"] = Field(description="Role of the message")
    content: str = Field(min_length=1, max_length=1_000_000)
    name: str | None = Field(default=None, max_length=256)


class MemoryCreate(_In):
    messages: list[Mem0Message] = Field(min_length=1, description="List of messages to store")
    user_id: str | None = Field(default=None, max_length=256)
    agent_id: str | None = Field(default=None, max_length=256)
    run_id: str | None = Field(default=None, max_length=256)
    metadata: dict[str, Any] | None = None
    infer: StrictBool = Field(default=True, description="False: store each message as given")


class SearchRequest(_In):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    user_id: str | None = Field(default=None, max_length=256)
    agent_id: str | None = Field(default=None, max_length=256)
    run_id: str | None = Field(default=None, max_length=256)
    filters: dict[str, Any] | None = None
    top_k: StrictInt | None = Field(default=None, ge=1, le=1000)
    limit: StrictInt | None = Field(default=None, ge=1, le=1000)
    threshold: float | None = None


class MemoryUpdate(_In):
    text: str | None = Field(default=None, min_length=1, max_length=32_768)
    data: str | None = Field(default=None, min_length=1, max_length=32_768, description="Alias of text")
    metadata: dict[str, Any] | None = None


def _ids(**ids: str | None) -> dict[str, str]:
    return {k: v for k, v in ids.items() if v is not None}


async def _run(p: Principal, method: str, *args: Any, **kwargs: Any) -> Any:
    mem0 = p.scope.mem0()
    return await asyncio.to_thread(getattr(mem0, method), *args, **kwargs)


@router.post("/memories", summary="Create memories")
async def add_memory(body: MemoryCreate, p: Writer) -> dict[str, Any]:
    messages = [m.model_dump(exclude_none=True) for m in body.messages]
    ids = _ids(user_id=body.user_id, agent_id=body.agent_id, run_id=body.run_id)
    return await _run(p, "add", messages, metadata=body.metadata, infer=body.infer, **ids)


@router.get("/memories", summary="Get memories")
async def get_all_memories(
    p: Reader,
    user_id: EntityId = None,
    run_id: EntityId = None,
    agent_id: EntityId = None,
    top_k: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    return await _run(p, "get_all", top_k=top_k, **_ids(user_id=user_id, agent_id=agent_id, run_id=run_id))


@router.get("/memories/{memory_id}", summary="Get a memory")
async def get_memory(memory_id: MemoryId, p: Reader) -> dict[str, Any]:
    item = await _run(p, "get", memory_id)
    if item is None:
        raise NotFoundError(f"no memory {memory_id!r}")
    return item


@router.post("/search", summary="Search memories")
async def search_memories(body: SearchRequest, p: Reader) -> dict[str, Any]:
    kw = body.model_dump(exclude_none=True, exclude={"query"})
    return await _run(p, "search", body.query, **kw)


@router.put("/memories/{memory_id}", summary="Update a memory")
async def update_memory(memory_id: MemoryId, body: MemoryUpdate, p: Writer) -> dict[str, str]:
    return await _run(p, "update", memory_id, text=body.text or body.data, metadata=body.metadata)


@router.get("/memories/{memory_id}/history", summary="Get memory history")
async def memory_history(memory_id: MemoryId, p: Reader) -> list[dict[str, Any]]:
    return await _run(p, "history", memory_id)


@router.delete("/memories/{memory_id}", summary="Delete a memory")
async def delete_memory(memory_id: MemoryId, p: Writer) -> dict[str, str]:
    await _run(p, "delete", memory_id)
    return {"message": "Memory deleted successfully"}


@router.delete("/memories", summary="Delete all memories")
async def delete_all_memories(
    p: Writer, user_id: EntityId = None, run_id: EntityId = None, agent_id: EntityId = None
) -> dict[str, str]:
    """Soft: each memory is kept as ``deleted`` and can be restored (``POST /v1/memories/{id}/restore``)."""
    await _run(p, "delete_all", **_ids(user_id=user_id, agent_id=agent_id, run_id=run_id))
    return {"message": "All relevant memories deleted"}


@router.post("/reset", summary="Reset all memories")
async def reset_memory(p: Writer) -> dict[str, str]:
    """Erases every memory of this tenant (hard, like Mem0's reset)."""
    await _run(p, "reset")
    return {"message": "All memories reset"}
