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
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, model_validator

from memscribe.errors import NotFoundError
from memscribe.interfaces.server.auth import Principal, scoped
from memscribe.interfaces.server.schemas import (
    ErrorBody,
    IdText,
    MemoryIdText,
    Metadata,
    NameText,
    Text,
    whole,
)
from memscribe.interfaces.server.schemas import Query as QueryText
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
# the same string rules as /v1 (schemas.py): ids without control characters, one text cap
MemoryId = Annotated[MemoryIdText, Path()]
StrictNumber = Annotated[float, BeforeValidator(lambda v: _no_bool(v))]
EntityId = Annotated[IdText | None, Query()]


_ONE_ID = {
    "anyOf": [
        {"required": [k], "properties": {k: {"type": "string"}}} for k in ("user_id", "agent_id", "run_id")
    ]
}


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Mem0Message(_In):
    role: Literal["user", "assistant", "system", "tool"] = Field(description="Role of the message")
    content: Text
    name: NameText | None = None


class MemoryCreate(_In):
    # Mem0 scopes every call by at least one of the three ids; the schema says so
    model_config = ConfigDict(extra="forbid", json_schema_extra=_ONE_ID)

    messages: list[Mem0Message] = Field(min_length=1, description="List of messages to store")
    user_id: IdText | None = None
    agent_id: IdText | None = None
    run_id: IdText | None = None
    metadata: Metadata | None = None
    infer: StrictBool = Field(default=True, description="False: store each message as given")

    @model_validator(mode="after")
    def _one_id(self):  # type: ignore[no-untyped-def]
        if self.user_id is None and self.agent_id is None and self.run_id is None:
            raise ValueError("give at least one of user_id, agent_id, run_id")
        return self


class SearchRequest(_In):
    # the ids may also come inside ``filters`` (Mem0 2.x): memscribe.compat.mem0_filters checks them

    query: QueryText
    user_id: IdText | None = None
    agent_id: IdText | None = None
    run_id: IdText | None = None
    filters: dict[str, Any] | None = None  # Mem0's filter language: memscribe.compat.mem0_filters
    top_k: whole(1, 1000) | None = None  # type: ignore[valid-type]
    limit: whole(1, 1000) | None = None  # type: ignore[valid-type]
    threshold: StrictNumber | None = None


class MemoryUpdate(_In):
    # Mem0's body is {"text": ...} (or "data"): one of the two, as the schema says
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "anyOf": [
                {"required": ["text"], "properties": {"text": {"type": "string"}}},
                {"required": ["data"], "properties": {"data": {"type": "string"}}},
            ]
        },
    )

    text: Text | None = None
    data: Text | None = Field(default=None, description="Alias of text")
    metadata: Metadata | None = None

    @model_validator(mode="after")
    def _text_or_data(self) -> MemoryUpdate:
        if self.text is None and self.data is None:
            raise ValueError("give the new text as 'text' (or 'data')")
        return self


def _no_bool(v: Any) -> Any:
    if isinstance(v, bool):  # JSON true is not a number (pydantic would take it as 1.0)
        raise ValueError("a number is required")
    return v


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
