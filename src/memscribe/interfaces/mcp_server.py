"""memscribe as an MCP server (official ``mcp`` SDK, 2.x ``MCPServer``).

Tools: ``remember``, ``recall``, ``get_context``, ``forget_memory``, ``memory_history`` — each with MCP tool
annotations (``title``, ``readOnlyHint``, ``destructiveHint``, ``idempotentHint``, ``openWorldHint``) so a
client can tell the three read-only tools from the two that change the store.
Resources: the template ``memscribe://users/{user_id}/profile`` (a user's semantic / profile / preference
memories) and, when the server has a user (``--user``), that user's profile as a listed resource.
Prompt: ``memory_context(query)`` — the relevant memories as a ready-made user message.

Every memscribe error a tool raises reaches the client as an MCP tool error (``isError: true``) whose text
starts with the error's type, e.g. ``InputError: query is empty``; the server keeps serving.

Transports:
    * stdio — ``memscribe mcp [--home PATH] [--user ID [--allow-any-user]]`` (see :func:`run_stdio`);
      without ``--home`` (or ``MEMSCRIBE_HOME``) the store is the user's data directory (``platformdirs``), never the
      directory the client happened to start the server in;
    * streamable HTTP — ``create_mcp_server(mem).streamable_http_app(...)`` is a Starlette ASGI app; when it
      is mounted inside another app, that app's lifespan must run ``server.session_manager.run()``.

User scope: each tool takes an optional ``user_id``; without one the server's ``default_user_id`` applies
(``--user`` on the command line). A server with a default user is *locked* to it: a call naming another
user is refused with ``ScopeLockedError`` (a tool error) unless it was built with ``allow_any_user=True``
(``--allow-any-user``). ``forget_memory`` and ``memory_history`` refuse (as "not found") a memory of another
user when a user id is in force, so one user's client cannot read or delete another's memories by guessing
ids.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import quote

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, ToolAnnotations
from pydantic import BaseModel, Field

from memscribe.aio import AsyncMemory
from memscribe.config import Settings
from memscribe.errors import InputError, MemscribeError, MissingScopeError, NotFoundError, ScopeLockedError
from memscribe.models import Kind, Layer, MemoryRecord, WriteItem

__all__ = ["MemscribeMCPServer", "create_mcp_server", "default_home", "run_stdio"]

PROFILE_URI = "memscribe://users/{user_id}/profile"

# what each tool does to the store, for clients that ask before running a tool that changes things.
# remember only adds versions (an older value is superseded, kept in history): not destructive; forgetting
# the same id twice leaves the store as the first call did: idempotent. Nothing reaches outside the store.
_READ_ONLY = {
    "read_only_hint": True,
    "destructive_hint": False,
    "idempotent_hint": True,
    "open_world_hint": False,
}
_ANNOTATIONS = {
    "remember": ToolAnnotations(
        title="Remember what was said",
        read_only_hint=False,
        destructive_hint=False,
        idempotent_hint=False,
        open_world_hint=False,
    ),
    "recall": ToolAnnotations(title="Search memories", **_READ_ONLY),
    "get_context": ToolAnnotations(title="Memories for a prompt", **_READ_ONLY),
    "forget_memory": ToolAnnotations(
        title="Forget a memory",
        read_only_hint=False,
        destructive_hint=True,
        idempotent_hint=True,
        open_world_hint=False,
    ),
    "memory_history": ToolAnnotations(title="Versions of a memory", **_READ_ONLY),
    # reads only, but what it reads is the sealed value itself: offered only when the operator allows it
    "reveal_memory": ToolAnnotations(title="Reveal a memory's sealed values", **_READ_ONLY),
}
_PROFILE_KINDS = {Kind.profile, Kind.preference}

T = TypeVar("T")


# ---------------------------------------------------------------------------------------------- schemas
class ChatMessage(BaseModel):
    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: str
    name: str | None = Field(default=None, description="Speaker name")
    id: str | None = Field(default=None, description="Your message id (kept in the memory's sources)")


class WriteOutcome(BaseModel):
    message_id: str
    action: str = Field(
        description="add | update | supersede | merge | link | noop | drop | working | review"
    )
    memory_id: str | None = None
    text: str | None = None
    reasons: list[str] = Field(default_factory=list)
    encoder: str | None = Field(default=None, description="'rules' or 'llm' (None for a dropped message)")
    fallback: str | None = Field(
        default=None, description="why the configured LLM encoder was not used (its error), if it failed"
    )


class RememberResult(BaseModel):
    user_id: str
    stored: list[str] = Field(description="ids of new memories")
    changed: list[str] = Field(description="ids of memories updated, superseded by, merged or linked")
    items: list[WriteOutcome] = Field(
        description=(
            "every decision of this write, in order (a dropped message has action 'drop' and its reasons)"
        )
    )
    counts: dict[str, int] = Field(description="how many items per action")


class RecalledMemory(BaseModel):
    id: str
    text: str
    score: float
    kind: str
    layer: str
    time_start: datetime | None = None
    time_end: datetime | None = None
    created_at: datetime
    updated_at: datetime


class RecallResult(BaseModel):
    user_id: str
    query: str
    memories: list[RecalledMemory]


class ForgetResult(BaseModel):
    memory_id: str
    deleted: bool
    status: str
    version: int


class VersionEntry(BaseModel):
    memory_id: str
    version: int
    text: str
    status: str
    reason: str
    actor: str
    created_at: datetime


class RevealResult(BaseModel):
    memory_id: str
    values: dict[str, str] = Field(description="placeholder in the memory's text -> the sealed value")


class HistoryResult(BaseModel):
    memory_id: str
    versions: list[VersionEntry] = Field(
        description="oldest first; versions of the memories this one superseded come before its own"
    )


def _outcome(item: WriteItem) -> WriteOutcome:
    return WriteOutcome.model_validate(item.model_dump())


# ---------------------------------------------------------------------------------------------- server
class MemscribeMCPServer(MCPServer):
    """An ``MCPServer`` that knows the memory it serves (``.memory``) and whether it owns it."""

    memory: AsyncMemory
    owns_memory: bool
    default_user_id: str | None
    allow_any_user: bool

    async def aclose(self) -> None:
        """Close the memory if this server opened it (``create_mcp_server`` without ``memory``)."""
        if self.owns_memory:
            await self.memory.close()

    def close(self) -> None:
        if self.owns_memory:
            self.memory.sync.close()


def create_mcp_server(
    memory: AsyncMemory | None = None,
    *,
    settings: Settings | None = None,
    default_user_id: str | None = None,
    allow_any_user: bool = False,
    allow_reveal: bool = False,
    name: str = "memscribe",
) -> MemscribeMCPServer:
    """Build the memscribe MCP server over ``memory`` (or a new ``AsyncMemory(settings=settings)``).

    With ``default_user_id`` the server is locked to that user (a call naming another one is a
    ``ScopeLockedError`` tool error) unless ``allow_any_user``; the user's profile is then a listed resource.
    ``allow_reveal`` adds the ``reveal_memory`` tool (the sealed values of a memory, each call audited);
    without it no tool returns a vaulted value.
    The returned server runs over stdio (``await server.run_stdio_async()``) or streamable HTTP
    (``server.streamable_http_app()``, an ASGI app). Close a memory the server opened with ``server.close()``.
    """
    owns = memory is None
    mem = memory if memory is not None else AsyncMemory(settings=settings)
    server = MemscribeMCPServer(
        name,
        version=_version(),
        instructions=(
            "Long-term memory for this user. Call get_context before answering to see what is known; call "
            "remember with what the user said that is worth keeping. Memories are scoped by user_id."
        ),
        log_level="WARNING",
    )
    server.memory = mem
    server.owns_memory = owns
    server.default_user_id = default_user_id
    server.allow_any_user = allow_any_user
    locked = default_user_id is not None and not allow_any_user

    def in_scope(user_id: str | None) -> str | None:
        """The user a call acts for: its own ``user_id`` or the default; refused outside a locked scope."""
        if locked and user_id is not None and user_id != default_user_id:
            raise ScopeLockedError(
                f"this MCP server serves user {default_user_id!r} only (started with --user); "
                f"it cannot act for {user_id!r} — start it with --allow-any-user to serve every user"
            )
        return user_id if user_id is not None else default_user_id

    def user_for(user_id: str | None) -> str:
        uid = in_scope(user_id)
        if uid is None:
            raise MissingScopeError("user_id is required (this server has no default user)")
        return uid

    def scope(user_id: str | None) -> str:
        try:
            return user_for(user_id)
        except InputError as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc

    async def call(op: Callable[[], Awaitable[T]]) -> T:
        """Run a memscribe call; its typed errors become MCP tool errors naming the error type."""
        try:
            return await op()
        except MemscribeError as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc

    async def owned(memory_id: str, user_id: str | None) -> MemoryRecord:
        uid = in_scope(user_id)
        if uid is None:
            return await mem.get(memory_id)
        # another user's memory gets the same answer as an unknown id: its existence is not confirmed
        missing = NotFoundError(f"no memory {memory_id!r} for user {uid!r}")
        try:
            rec = await mem.get(memory_id)
        except NotFoundError:
            raise missing from None
        if rec.user_id != uid:
            raise missing
        return rec

    @server.tool(
        annotations=_ANNOTATIONS["remember"],
        description=(
            "Remember what was said. Give `text` (one user message) or `messages` (a list of "
            "{role, content} turns). memscribe decides what is worth keeping: returns what was stored, "
            "which existing memories were updated/superseded/merged, and what was dropped and why."
        ),
    )
    async def remember(
        text: str | None = None,
        messages: list[ChatMessage] | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
        at: Annotated[str | None, Field(description="ISO 8601 time of the messages (default: now)")] = None,
    ) -> RememberResult:
        uid = scope(user_id)
        if (text is None) == (messages is None):
            raise ToolError("InputError: give exactly one of `text` or `messages`")
        payload: Any = text if text is not None else [m.model_dump(exclude_none=True) for m in messages or []]
        rep = await call(lambda: mem.add(payload, user_id=uid, session_id=session_id, at=at))
        return RememberResult(
            user_id=rep.user_id,
            stored=rep.added,
            changed=rep.changed,
            items=[_outcome(i) for i in rep.items],
            counts=rep.counts(),
        )

    @server.tool(
        annotations=_ANNOTATIONS["recall"],
        description="Search a user's memories (hybrid: meaning + keywords + time), best first.",
    )
    async def recall(
        query: str,
        user_id: str | None = None,
        limit: Annotated[int, Field(description="how many memories at most (1-1000)")] = 5,
    ) -> RecallResult:
        uid = scope(user_id)
        hits = await call(lambda: mem.search(query, user_id=uid, limit=limit))
        return RecallResult(
            user_id=uid,
            query=query,
            memories=[
                RecalledMemory(
                    id=h.memory.id,
                    text=h.memory.text,
                    score=round(h.score, 4),
                    kind=h.memory.kind.value,
                    layer=h.memory.layer.value,
                    time_start=h.memory.time_start,
                    time_end=h.memory.time_end,
                    created_at=h.memory.created_at,
                    updated_at=h.memory.updated_at,
                )
                for h in hits
            ],
        )

    @server.tool(
        annotations=_ANNOTATIONS["get_context"],
        description=(
            "The memories relevant to `query`, packed into at most `budget_tokens` tokens, ready to put "
            "into a prompt. Empty when nothing relevant is known."
        ),
    )
    async def get_context(
        query: str,
        user_id: str | None = None,
        budget_tokens: int = 800,
        session_id: str | None = None,
    ) -> str:
        uid = scope(user_id)
        ctx = await call(
            lambda: mem.context(query, user_id=uid, session_id=session_id, budget_tokens=budget_tokens)
        )
        return ctx.text

    @server.tool(
        annotations=_ANNOTATIONS["forget_memory"],
        description=(
            "Delete one memory by id (a new version with status 'deleted'; it is no longer recalled). "
            "With a user_id in force, a memory of another user is refused as not found."
        ),
    )
    async def forget_memory(
        memory_id: str,
        user_id: str | None = None,
        reason: str = "deleted by request (MCP)",
    ) -> ForgetResult:
        async def op() -> MemoryRecord:
            await owned(memory_id, user_id)
            return await mem.delete(memory_id, reason=reason)

        rec = await call(op)
        return ForgetResult(memory_id=rec.id, deleted=True, status=rec.status.value, version=rec.version)

    if allow_reveal:

        @server.tool(
            annotations=_ANNOTATIONS["reveal_memory"],
            description=(
                "The sealed values (addresses, card and account numbers, ids) behind a memory's placeholders, "
                "for a task that needs them (e.g. filling in a delivery address). Say why in 'reason': every "
                "reveal is audited (who, why, which placeholders; never the values)."
            ),
        )
        async def reveal_memory(memory_id: str, reason: str, user_id: str | None = None) -> RevealResult:
            async def op() -> dict[str, str]:
                await owned(memory_id, user_id)
                return await mem.reveal(memory_id, actor="mcp", reason=reason)

            return RevealResult(memory_id=memory_id, values=await call(op))

    @server.tool(
        annotations=_ANNOTATIONS["memory_history"],
        description=(
            "Every version of a memory, oldest first, including the memories it superseded "
            "(e.g. 'lives in Beijing' before 'moved to Shanghai')."
        ),
    )
    async def memory_history(memory_id: str, user_id: str | None = None) -> HistoryResult:
        async def op() -> list[Any]:
            await owned(memory_id, user_id)
            return await mem.history(memory_id)

        versions = await call(op)
        return HistoryResult(
            memory_id=memory_id,
            versions=[
                VersionEntry(
                    memory_id=v.memory_id,
                    version=v.version,
                    text=v.record.text,
                    status=v.record.status.value,
                    reason=v.reason,
                    actor=v.actor,
                    created_at=v.created_at,
                )
                for v in versions
            ],
        )

    async def profile_json(user_id: str) -> str:
        try:
            in_scope(user_id)
            recs = await mem.list(user_id=user_id, status="active")
        except InputError as exc:  # the caller's mistake: invalid params, not a server failure
            raise MCPError(code=INVALID_PARAMS, message=f"{type(exc).__name__}: {exc}") from exc
        except NotFoundError as exc:
            raise ResourceNotFoundError(f"{type(exc).__name__}: {exc}") from exc
        except MemscribeError as exc:
            raise ResourceError(f"{type(exc).__name__}: {exc}") from exc
        keep = [r for r in recs if r.layer == Layer.semantic or r.kind in _PROFILE_KINDS]
        keep.sort(key=lambda r: (r.kind.value, r.updated_at))
        body = {
            "user_id": user_id,
            "memories": [
                {
                    "id": r.id,
                    "text": r.text,
                    "kind": r.kind.value,
                    "layer": r.layer.value,
                    "updated_at": r.updated_at.isoformat(),
                }
                for r in keep
            ],
        }
        return json.dumps(body, ensure_ascii=False)

    profile_about = "What memscribe knows about the user: active semantic, profile and preference memories."

    @server.resource(
        PROFILE_URI,
        name="profile",
        title="User profile",
        description=profile_about,
        mime_type="application/json",
    )
    async def profile(user_id: str) -> str:
        return await profile_json(user_id)

    if default_user_id is not None:
        # the server's own user: listed in resources/list, so a client can attach it without knowing the id
        own_uri = PROFILE_URI.replace("{user_id}", quote(default_user_id, safe=""))

        @server.resource(
            own_uri,
            name=f"profile of {default_user_id}",
            title=f"Profile of {default_user_id}",
            description=profile_about,
            mime_type="application/json",
        )
        async def own_profile() -> str:
            return await profile_json(default_user_id)

    @server.prompt(
        name="memory_context",
        title="Memory context",
        description=(
            "What memscribe remembers that is relevant to `query` (at most `budget_tokens` tokens), as a "
            "user message to put before the question. Arguments are strings."
        ),
    )
    async def memory_context(
        query: str, user_id: str | None = None, budget_tokens: str = "800"
    ) -> UserMessage:
        try:
            try:
                budget = int(budget_tokens)
            except ValueError:
                raise InputError(f"budget_tokens must be an integer, got {budget_tokens!r}") from None
            ctx = await mem.context(query, user_id=user_for(user_id), budget_tokens=budget)
        except InputError as exc:  # prompts have no tool-error channel: the request's params are invalid
            raise MCPError(code=INVALID_PARAMS, message=f"{type(exc).__name__}: {exc}") from exc
        except MemscribeError as exc:
            raise MCPError(code=INTERNAL_ERROR, message=f"{type(exc).__name__}: {exc}") from exc
        known = ctx.text.strip() or "(nothing relevant is remembered)"
        return UserMessage(
            f"What you remember about me that may matter here:\n{known}\n\nMy question: {query}"
        )

    return server


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("memscribe")
    except Exception:  # not installed (e.g. running from a source tree)
        return "0"


def default_home() -> Path:
    """Where ``memscribe mcp`` keeps its store without ``--home``: ``$MEMSCRIBE_HOME``, else the user's data
    directory (``~/.local/share/memscribe`` on Linux, ``~/Library/Application Support/memscribe`` on macOS,
    ``%LOCALAPPDATA%\\memscribe`` on Windows). An MCP client starts servers in a directory of its choosing, so a
    store relative to the working directory would land somewhere different each time."""
    env = os.environ.get("MEMSCRIBE_HOME")
    if env:
        return Path(env)
    from platformdirs import user_data_path

    return user_data_path("memscribe", appauthor=False)


def run_stdio(
    home: str | Path | None = None,
    *,
    default_user_id: str | None = None,
    allow_any_user: bool = False,
    allow_reveal: bool = False,
) -> None:
    """Serve memscribe over stdio until the client disconnects (what ``memscribe mcp`` runs)."""
    import anyio

    if default_user_id is not None and not default_user_id.strip():
        raise MissingScopeError("--user must not be empty")
    if allow_any_user and default_user_id is None:
        raise InputError(
            "--allow-any-user only makes sense with --user (without --user every user is served)"
        )
    server = create_mcp_server(
        AsyncMemory(home if home is not None else default_home()),
        default_user_id=default_user_id,
        allow_any_user=allow_any_user,
        allow_reveal=allow_reveal,
    )
    server.owns_memory = True
    try:
        anyio.run(server.run_stdio_async)
    finally:
        server.close()
