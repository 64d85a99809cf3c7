"""The /v1 routes: parse the request, call the tenant's scoped AsyncMemory, return its models."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from pydantic import TypeAdapter, ValidationError

from memscribe.errors import InputError
from memscribe.interfaces.server.auth import Principal, scoped
from memscribe.interfaces.server.paging import CURSOR_PATTERN, decode_cursor, encode_cursor, query_digest
from memscribe.interfaces.server.schemas import (
    AddRequest,
    ApproveRequest,
    ContextRequest,
    ErrorBody,
    ForgetResponse,
    IdText,
    MaintainRequest,
    MaintainResponse,
    MemoryIdText,
    MemoryList,
    Metadata,
    ReasonRequest,
    ReasonText,
    RejectRequest,
    RevealResponse,
    RollbackRequest,
    SearchRequest,
    SearchResponse,
    UpdateRequest,
)
from memscribe.interfaces.server.strict_query import refuse_unknown_query
from memscribe.models import AuditEvent, Context, Kind, Layer, MemoryRecord, Status, Version, WriteReport

__all__ = ["router"]

_errors: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": desc}
    for code, desc in {
        400: "Malformed request body",
        401: "Missing or invalid API key",
        403: "The key lacks the scope this route needs",
        404: "No such memory in this tenant",
        413: "Request body too large",
        422: "Invalid input",
        429: "Rate limited (see Retry-After)",
    }.items()
}


# ?metadata= is a JSON object under the same rules as a memory's metadata; the schema states them
_METADATA = TypeAdapter(Metadata)
_METADATA_SCHEMA = _METADATA.json_schema(ref_template="#/components/schemas/{model}")  # $defs: app.py

router = APIRouter(
    prefix="/v1",
    responses=_errors,
    dependencies=[Depends(refuse_unknown_query)],
)
Reader = Annotated[Principal, Depends(scoped("read"))]
Writer = Annotated[Principal, Depends(scoped("write"))]
Revealer = Annotated[Principal, Depends(scoped("reveal"))]
MemoryId = Annotated[MemoryIdText, Path(description="A memory id")]
UserQuery = Annotated[IdText, Query(description="Whose memory")]


@router.post("/memories", response_model=WriteReport, tags=["memories"], summary="Add messages")
async def add_memories(body: AddRequest, p: Writer) -> WriteReport:
    """Run the write pipeline over the messages (like ``Memory.add``): what was kept, merged, dropped, why."""
    return await p.scope.add(
        body.messages_for_memory(),
        user_id=body.user_id,
        agent_id=body.agent_id,
        session_id=body.session_id,
        at=body.at,
        metadata=body.metadata,
        verbatim=body.verbatim,
    )


@router.get("/memories", response_model=MemoryList, tags=["memories"], summary="List a user's memories")
async def list_memories(
    p: Reader,
    user_id: UserQuery,
    status: Annotated[Status | None, Query(description="Default: active")] = Status.active,
    all_statuses: Annotated[bool, Query(alias="all", description="Every status")] = False,
    kind: Kind | None = None,
    layer: Layer | None = None,
    agent_id: Annotated[IdText | None, Query()] = None,
    session_id: Annotated[IdText | None, Query()] = None,
    metadata: Annotated[
        str | None,
        Query(
            max_length=16_384,
            description='JSON object of metadata values to match, e.g. {"topic": "food"}',
            json_schema_extra={"contentMediaType": "application/json", "contentSchema": _METADATA_SCHEMA},
        ),
    ] = None,
    entities: Annotated[list[IdText] | None, Query(max_length=64, description="Repeat for several")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    cursor: Annotated[
        str | None,
        Query(max_length=512, pattern=CURSOR_PATTERN, description="`next_cursor` of the page before"),
    ] = None,
) -> MemoryList:
    """A page of memories, oldest first, with the ``total`` that match and a ``next_cursor``."""
    filters = _list_filters(agent_id=agent_id, session_id=session_id, metadata=metadata, entities=entities)
    statuses = None if all_statuses else (status.value if status else "active")
    query = {"user_id": user_id, "status": statuses, "kind": kind, "layer": layer, "filters": filters}
    digest = query_digest(query)
    start = decode_cursor(cursor, digest) if cursor is not None else offset
    recs = await p.scope.list(
        user_id=user_id,
        status=statuses,
        kind=kind.value if kind else None,
        layer=layer.value if layer else None,
        filters=filters,
    )
    page = recs[start : start + limit]
    more = start + limit < len(recs)
    return MemoryList(
        items=page,
        count=len(page),
        total=len(recs),
        next_cursor=encode_cursor(start + limit, digest) if more else None,
    )


def _list_filters(
    *, agent_id: str | None, session_id: str | None, metadata: str | None, entities: list[str] | None
) -> dict[str, Any] | None:
    f: dict[str, Any] = {}
    if agent_id is not None:
        f["agent_id"] = agent_id
    if session_id is not None:
        f["session_id"] = session_id
    if metadata is not None:
        try:
            f["metadata"] = _METADATA.validate_json(metadata)
        except ValidationError as exc:
            raise InputError(
                f"metadata must be a JSON object of metadata values: {exc.errors()[0]['msg']}"
            ) from exc
    if entities:
        f["entities"] = entities
    return f or None


@router.get("/memories/{memory_id}", response_model=MemoryRecord, tags=["memories"])
async def get_memory(memory_id: MemoryId, p: Reader) -> MemoryRecord:
    return await p.scope.get(memory_id)


@router.patch("/memories/{memory_id}", response_model=MemoryRecord, tags=["memories"], summary="Edit")
async def update_memory(memory_id: MemoryId, body: UpdateRequest, p: Writer) -> MemoryRecord:
    """Edit text or fields; the old version is kept (see history) and can be rolled back."""
    return await p.scope.update(memory_id, text=body.text, reason=body.reason, actor="api", **body.fields())


@router.delete("/memories/{memory_id}", response_model=MemoryRecord, tags=["memories"])
async def delete_memory(
    memory_id: MemoryId, p: Writer, reason: Annotated[ReasonText, Query()] = "deleted through the API"
) -> MemoryRecord:
    """Soft delete: status ``deleted``, kept in history. ``DELETE /v1/users/{id}`` erases for real."""
    return await p.scope.delete(memory_id, reason=reason)


@router.post("/memories/{memory_id}/archive", response_model=MemoryRecord, tags=["memories"])
async def archive_memory(memory_id: MemoryId, p: Writer, body: ReasonRequest | None = None) -> MemoryRecord:
    """Retire from default recall (still found with ``deep``); undo with restore."""
    reason = (body.reason if body else None) or "archived through the API"
    return await p.scope.update(memory_id, status="archived", reason=reason, actor="api")


@router.post("/memories/{memory_id}/restore", response_model=MemoryRecord, tags=["memories"])
async def restore_memory(memory_id: MemoryId, p: Writer, body: ReasonRequest | None = None) -> MemoryRecord:
    return await p.scope.restore(
        memory_id, reason=(body.reason if body else None) or "restored through the API"
    )


@router.get("/memories/{memory_id}/history", response_model=list[Version], tags=["memories"])
async def memory_history(memory_id: MemoryId, p: Reader) -> list[Version]:
    return await p.scope.history(memory_id)


@router.post("/memories/{memory_id}/rollback", response_model=MemoryRecord, tags=["memories"])
async def rollback_memory(memory_id: MemoryId, body: RollbackRequest, p: Writer) -> MemoryRecord:
    return await p.scope.rollback(memory_id, body.version, reason=body.reason)


@router.get("/memories/{memory_id}/explain", response_model=list[AuditEvent], tags=["memories"])
async def explain_memory(memory_id: MemoryId, p: Reader) -> list[AuditEvent]:
    """Why is this remembered: every stage decision about the memory and its source messages."""
    return await p.scope.explain(memory_id)


@router.post(
    "/memories/{memory_id}/reveal",
    response_model=RevealResponse,
    tags=["memories"],
    summary="Reveal vaulted values",
)
async def reveal_memory(
    memory_id: MemoryId, p: Revealer, body: ReasonRequest | None = None
) -> RevealResponse:
    """The values the privacy filter sealed in the vault (a delivery address, an account number), by
    placeholder. Needs a key with the ``reveal`` scope; every call is audited (who, why, which
    placeholders; never the values), see ``/explain``."""
    reason = (body.reason if body else None) or "revealed through the API"
    values = await p.scope.reveal(memory_id, actor=f"api key {p.key.id}", reason=reason)
    return RevealResponse(memory_id=memory_id, values=values)


@router.post("/search", response_model=SearchResponse, tags=["recall"])
async def search(body: SearchRequest, p: Reader) -> SearchResponse:
    hits = await p.scope.search(
        body.query,
        user_id=body.user_id,
        limit=body.limit,
        filters=body.filters.as_dict() if body.filters else None,
        deep=body.deep,
        session_id=body.session_id,
    )
    return SearchResponse(hits=hits)


@router.post("/context", response_model=Context, tags=["recall"])
async def context(body: ContextRequest, p: Reader) -> Context:
    """The token-budgeted context for a query (never over ``budget_tokens``)."""
    return await p.scope.context(
        body.query,
        user_id=body.user_id,
        session_id=body.session_id,
        budget_tokens=body.budget_tokens,
        max_items=body.max_items,
        filters=body.filters.as_dict() if body.filters else None,
    )


@router.delete(
    "/users/{user_id:path}", response_model=ForgetResponse, tags=["users"], summary="Forget a user"
)
async def forget_user(
    user_id: Annotated[IdText, Path(description="May hold '/'")], p: Writer
) -> ForgetResponse:
    """Hard erase of everything of this user: memories, versions, audit, sessions. Cannot be undone."""
    return ForgetResponse(user_id=user_id, erased=await p.scope.forget(user_id))


@router.get("/users", response_model=list[str], tags=["users"])
async def list_users(p: Reader) -> list[str]:
    return await p.scope.users()


@router.post("/maintain", response_model=MaintainResponse, tags=["lifecycle"])
async def maintain(p: Writer, body: MaintainRequest | None = None) -> MaintainResponse:
    """Expire, archive cold memories, merge near-duplicates, consolidate episodes (all versioned)."""
    body = body or MaintainRequest()
    reports = await p.scope.maintain(user_id=body.user_id, dry_run=body.dry_run)
    out = MaintainResponse(dry_run=body.dry_run, users=[])
    counted = ("expired", "archived", "consolidated", "reinforced", "merged", "confidence_decayed")
    for r in reports:
        for f in (*counted, "working_items_expired", "skipped"):
            setattr(out, f, getattr(out, f) + getattr(r, f))
        out.growth_rate += r.growth_rate
        out.users += [p.scope.ext(u) for u in r.users]
        out.actions += [
            {
                "user_id": p.scope.ext(a.user_id),
                "memory_id": a.memory_id,
                "action": a.action,
                "reason": a.reason,
            }
            for a in r.actions
        ]
    return out


@router.get("/stats", tags=["lifecycle"])
async def stats(p: Reader, user_id: Annotated[IdText | None, Query()] = None) -> dict[str, Any]:
    return await p.scope.stats(user_id=user_id)


@router.get("/review", response_model=MemoryList, tags=["review"], summary="Pending review queue")
async def review_queue(p: Reader, user_id: Annotated[IdText | None, Query()] = None) -> MemoryList:
    """Memories waiting for a person (status ``pending_review``): recall does not use them until approved."""
    recs = await p.scope.review_queue(user_id=user_id)
    return MemoryList(items=recs, count=len(recs))


@router.post("/review/{memory_id}/approve", response_model=MemoryRecord, tags=["review"])
async def approve(memory_id: MemoryId, p: Writer, body: ApproveRequest | None = None) -> MemoryRecord:
    """Approve (optionally with corrected text first): the memory becomes active."""
    if body is not None and body.text is not None:
        await p.scope.update(memory_id, text=body.text, reason="edited in review", actor="api")
    return await p.scope.approve(memory_id)


@router.post("/review/{memory_id}/reject", response_model=MemoryRecord, tags=["review"])
async def reject(memory_id: MemoryId, p: Writer, body: RejectRequest | None = None) -> MemoryRecord:
    return await p.scope.reject(memory_id, reason=body.reason if body else None)
