"""Request and response bodies of the REST API (pydantic; they are the OpenAPI schema).

Records, hits, versions and audit events are the library's own models (``memscribe.models``): the API
returns exactly what the Python API returns. Requests are strict (unknown fields are refused) so a typo
fails loudly instead of being ignored.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    StrictBool,
    StrictFloat,
)
from typing_extensions import TypeAliasType

from memscribe.models import Hit, Kind, Layer, MemoryRecord, Status
from memscribe.text_rules import (
    ID_MAX_CHARS,
    ID_PATTERN,
    KEY_PATTERN,
    NAME_MAX_CHARS,
    REASON_MAX_CHARS,
    STRING_PATTERN,
    TEXT_MAX_CHARS,
    TEXT_PATTERN,
    bad_id,
    bad_label,
    bad_string,
    bad_text,
)

__all__ = [
    "AddRequest",
    "ApproveRequest",
    "ContextRequest",
    "ErrorBody",
    "Filters",
    "ForgetResponse",
    "Health",
    "IdText",
    "MaintainRequest",
    "MaintainResponse",
    "MemoryIdText",
    "MemoryList",
    "MessageIn",
    "ReasonRequest",
    "ReasonText",
    "RejectRequest",
    "RevealResponse",
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


def _rule(why: Any, **kw: Any) -> AfterValidator:
    """A check of :mod:`memscribe.text_rules` as a pydantic validator (a ValueError becomes a 422)."""

    def check(v: str) -> str:
        reason = why(v, **kw)
        if reason:
            raise ValueError(reason)
        return v

    return AfterValidator(check)


def _pattern(p: str) -> dict[str, Any]:
    # the schema states the rule's pattern; the rule's Python check validates (it also refuses lone
    # surrogates, which a JSON Schema string cannot hold and its pattern cannot name)
    return {"pattern": p}


# What each kind of string may hold (memscribe.text_rules): the schema says exactly what the checks take
IdText = Annotated[
    str,
    Field(min_length=1, max_length=ID_MAX_CHARS, json_schema_extra=_pattern(ID_PATTERN)),
    _rule(bad_id),
]
Text = Annotated[
    str,
    Field(min_length=1, max_length=TEXT_MAX_CHARS, json_schema_extra=_pattern(TEXT_PATTERN)),
    _rule(bad_text),
]
Query = Annotated[
    str,
    Field(min_length=1, max_length=MAX_QUERY_CHARS, json_schema_extra=_pattern(TEXT_PATTERN)),
    _rule(bad_text, max_chars=MAX_QUERY_CHARS),
]
ReasonText = Annotated[
    str,
    Field(max_length=REASON_MAX_CHARS, json_schema_extra=_pattern(STRING_PATTERN)),
    _rule(bad_text, max_chars=REASON_MAX_CHARS, blank_ok=True),
]
NameText = Annotated[
    str,
    Field(max_length=NAME_MAX_CHARS, json_schema_extra=_pattern(KEY_PATTERN)),
    _rule(bad_label, max_chars=NAME_MAX_CHARS),
]
MessageIdText = Annotated[
    str,
    Field(max_length=ID_MAX_CHARS, json_schema_extra=_pattern(KEY_PATTERN)),
    _rule(bad_label, max_chars=ID_MAX_CHARS),
]
MemoryIdText = Annotated[
    str, Field(min_length=1, max_length=128, json_schema_extra=_pattern(KEY_PATTERN)), _rule(bad_label)
]
_MetaKey = Annotated[str, Field(json_schema_extra=_pattern(KEY_PATTERN)), _rule(bad_label)]
_MetaString = Annotated[str, Field(json_schema_extra=_pattern(STRING_PATTERN)), _rule(bad_string)]


def _whole(v: Any) -> Any:
    """JSON Schema counts 3.0 as an integer; so does the API (3.5 and true stay refused)."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


Whole = Annotated[int, Strict(), BeforeValidator(_whole)]


def whole(ge: int, le: int | None = None) -> Any:
    """An integer in [ge, le] (the bounds before the validator, or the schema loses them)."""
    return Annotated[int, Strict(), Field(ge=ge, le=le), BeforeValidator(_whole)]


def _property_names(schema: dict[str, Any]) -> None:
    """pydantic states a key pattern as ``patternProperties``, which leaves other keys allowed; the rule is
    that every key matches: ``propertyNames``, with the value schema for all of them."""
    pp = schema.pop("patternProperties", None)
    if pp:
        ((pattern, value),) = pp.items()
        schema["propertyNames"] = {"pattern": pattern}
        schema["additionalProperties"] = value


MetaValue = TypeAliasType(
    "MetaValue",
    "_MetaString | Whole | StrictFloat | StrictBool | list[MetaValue]"
    " | Annotated[dict[_MetaKey, MetaValue], Field(json_schema_extra=_property_names)] | None",
)
Metadata = Annotated[
    dict[_MetaKey, MetaValue],
    Field(
        description="A JSON object: at most 32 levels deep and 16 KB as JSON",
        json_schema_extra=_property_names,
    ),
]

UserId = Field(description="Whose memory: the scope inside your tenant")


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MessageIn(_In):
    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: Text
    name: NameText | None = Field(default=None, description="Speaker name (blank: none)")
    id: MessageIdText | None = Field(
        default=None, description="Your message id, kept in sources (blank: none)"
    )
    at: Time | None = None


class AddRequest(_In):
    messages: Text | MessageIn | Annotated[list[MessageIn], Field(min_length=1)] = Field(
        description="A string, one message, or a list of messages (like Memory.add)"
    )
    user_id: IdText = UserId
    agent_id: IdText | None = None
    session_id: IdText | None = None
    at: Time | None = Field(default=None, description="When the messages were said (ISO 8601)")
    metadata: Metadata | None = None
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
    session_id: IdText | None = None
    agent_id: IdText | None = None
    time_from: Time | None = None
    time_to: Time | None = None
    metadata: Metadata | None = Field(default=None, description="Each key must equal this value")
    entities: IdText | list[IdText] | None = Field(
        default=None, description="Any of these entities (or in text)"
    )

    def as_dict(self) -> dict[str, Any] | None:
        d = self.model_dump(mode="json", exclude_none=True)
        return d or None


class SearchRequest(_In):
    query: Query
    user_id: IdText = UserId
    limit: whole(1, 1000) = 10
    filters: Filters | None = None
    deep: StrictBool = Field(default=False, description="Include archived and low-value memories")
    session_id: IdText | None = None


class SearchResponse(BaseModel):
    hits: list[Hit]


class ContextRequest(_In):
    query: Query
    user_id: IdText = UserId
    session_id: IdText | None = None
    budget_tokens: whole(1, 200_000) = 1000
    max_items: whole(1, 1000) | None = None
    filters: Filters | None = None


class MemoryList(BaseModel):
    items: list[MemoryRecord]
    count: int = Field(description="Memories on this page")
    total: int | None = Field(default=None, description="Memories matching the query, on every page")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page")


class UpdateRequest(_In):
    text: Text | None = None
    kind: Kind | None = None
    layer: Layer | None = None
    importance: float | None = Field(default=None, ge=0, le=1)
    confidence: float | None = Field(default=None, ge=0, le=1)
    entities: list[IdText] | None = Field(default=None, max_length=256)
    reason: ReasonText = "edited through the API"

    def fields(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True, exclude={"text", "reason"})


class RollbackRequest(_In):
    version: whole(1)
    reason: ReasonText | None = None


class ReasonRequest(_In):
    reason: ReasonText | None = None


class ApproveRequest(_In):
    text: Text | None = Field(default=None, description="Edit, then approve")


class RejectRequest(_In):
    reason: ReasonText | None = None


class MaintainRequest(_In):
    user_id: IdText | None = None
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


class RevealResponse(BaseModel):
    memory_id: str
    values: dict[str, str] = Field(description="Placeholder in the memory's text -> the sealed value")


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
