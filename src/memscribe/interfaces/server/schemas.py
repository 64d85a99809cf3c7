"""Request and response bodies of the REST API (pydantic; they are the OpenAPI schema).

Records, hits, versions and audit events are the library's own models (``memscribe.models``): the API
returns exactly what the Python API returns. Requests are strict (unknown fields are refused) so a typo
fails loudly instead of being ignored.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt

from memscribe.models import Hit, Kind, Layer, MemoryRecord, Status

__all__ = [
    "AddRequest",
    "ApproveRequest",
    "ContextRequest",
    "ErrorBody",
    "Filters",
    "ForgetResponse",
    "Health",
    "MaintainRequest",
    "MaintainResponse",
    "MemoryList",
    "MessageIn",
    "ReasonRequest",
    "RejectRequest",
    "RollbackRequest",
    "SearchRequest",
    "SearchResponse",
    "UpdateRequest",
]

# A query is a question, not a document; embedding cost grows with length (about 0.5 ms per character
# with the bundled embedder), so a long "query" would hold a worker thread for seconds.
MAX_QUERY_CHARS = 2000


def _iso_time(v: Any) -> Any:
    if isinstance(v, str | datetime):
        return v
    raise ValueError("a time must be an ISO 8601 string")


# times are ISO 8601 strings only (pydantic would also take a number as a Unix time: too easy a mistake)
Time = Annotated[datetime, BeforeValidator(_iso_time)]

UserId = Field(min_length=1, max_length=256, description="Whose memory: the scope inside your tenant")


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MessageIn(_In):
    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: str = Field(min_length=1, max_length=1_000_000)
    name: str | None = Field(default=None, max_length=256, description="Speaker name")
    id: str | None = Field(default=None, max_length=256, description="Your message id (kept in sources)")
    at: Time | None = None


class AddRequest(_In):
    messages: (
        Annotated[str, Field(min_length=1)] | MessageIn | Annotated[list[MessageIn], Field(min_length=1)]
    ) = Field(description="A string, one message, or a list of messages (like Memory.add)")
    user_id: str = UserId
    agent_id: str | None = Field(default=None, max_length=256)
    session_id: str | None = Field(default=None, max_length=256)
    at: Time | None = Field(default=None, description="When the messages were said (ISO 8601)")
    metadata: dict[str, Any] | None = None
    verbatim: StrictBool = Field(default=False, description="Keep each message as one memory, as given")

    def messages_for_memory(self) -> Any:
        if isinstance(self.messages, str):
            return self.messages
        if isinstance(self.messages, MessageIn):
            return self.messages.model_dump(exclude_none=True)
        return [m.model_dump(exclude_none=True) for m in self.messages]


class Filters(_In):
    kind: Kind | list[Kind] | None = None
    layer: Layer | list[Layer] | None = None
    status: Status | list[Status] | None = None
    session_id: str | None = None
    agent_id: str | None = None
    time_from: Time | None = None
    time_to: Time | None = None
    metadata: dict[str, Any] | None = Field(default=None, description="Each key must equal this value")
    entities: str | list[str] | None = Field(default=None, description="Any of these entities (or in text)")

    def as_dict(self) -> dict[str, Any] | None:
        d = self.model_dump(mode="json", exclude_none=True)
        return d or None


class SearchRequest(_In):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    user_id: str = UserId
    limit: StrictInt = Field(default=10, ge=1, le=1000)
    filters: Filters | None = None
    deep: StrictBool = Field(default=False, description="Include archived and low-value memories")
    session_id: str | None = Field(default=None, max_length=256)


class SearchResponse(BaseModel):
    hits: list[Hit]


class ContextRequest(_In):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    user_id: str = UserId
    session_id: str | None = Field(default=None, max_length=256)
    budget_tokens: StrictInt = Field(default=1000, ge=1, le=200_000)
    max_items: StrictInt | None = Field(default=None, ge=1, le=1000)
    filters: Filters | None = None


class MemoryList(BaseModel):
    items: list[MemoryRecord]
    count: int = Field(description="Memories on this page")
    total: int | None = Field(default=None, description="Memories matching the query, on every page")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page")


class UpdateRequest(_In):
    text: str | None = Field(default=None, min_length=1, max_length=32_768)
    kind: Kind | None = None
    layer: Layer | None = None
    importance: float | None = Field(default=None, ge=0, le=1)
    confidence: float | None = Field(default=None, ge=0, le=1)
    entities: list[str] | None = Field(default=None, max_length=256)
    reason: str = Field(default="edited through the API", max_length=1000)

    def fields(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True, exclude={"text", "reason"})


class RollbackRequest(_In):
    version: StrictInt = Field(ge=1)
    reason: str | None = Field(default=None, max_length=1000)


class ReasonRequest(_In):
    reason: str | None = Field(default=None, max_length=1000)


class ApproveRequest(_In):
    text: str | None = Field(default=None, min_length=1, max_length=32_768, description="Edit, then approve")


class RejectRequest(_In):
    reason: str | None = Field(default=None, max_length=1000)


class MaintainRequest(_In):
    user_id: str | None = Field(default=None, min_length=1, max_length=256)
    dry_run: StrictBool = False


class MaintainResponse(BaseModel):
    dry_run: bool
    users: list[str]
    expired: int = 0
    archived: int = 0
    consolidated: int = 0
    reinforced: int = 0
    merged: int = 0
    confidence_decayed: int = 0
    working_items_expired: int = 0
    skipped: int = 0
    growth_rate: float = 0.0
    actions: list[dict[str, str]] = Field(default_factory=list)


class ForgetResponse(BaseModel):
    user_id: str
    erased: int


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str


class ErrorDetail(BaseModel):
    type: str
    message: str
    status: int
    retry_after: int | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail
