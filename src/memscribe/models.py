"""Public records: what goes in (Message), what is kept (MemoryRecord) and what comes out."""

from __future__ import annotations

import enum
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from memscribe.facts import Facts, Provenance, RecordState, split_structured, structured_view

__all__ = [
    "AuditEvent",
    "Context",
    "Hit",
    "Kind",
    "Layer",
    "Link",
    "MemoryRecord",
    "Message",
    "Source",
    "Status",
    "Version",
    "WriteItem",
    "WriteReport",
    "new_memory_id",
]


def new_memory_id() -> str:
    return "mem_" + uuid.uuid4().hex[:20]


class Layer(enum.StrEnum):
    episodic = "episodic"
    semantic = "semantic"
    working = "working"


class Status(enum.StrEnum):
    active = "active"
    superseded = "superseded"
    archived = "archived"
    expired = "expired"
    deleted = "deleted"
    pending_review = "pending_review"


class Kind(enum.StrEnum):
    preference = "preference"
    constraint = "constraint"
    profile = "profile"
    fact = "fact"
    event = "event"
    plan = "plan"
    task = "task"
    complaint = "complaint"
    relation = "relation"
    instruction = "instruction"
    suggestion = "suggestion"  # what the assistant offered the user (status: open / accepted / rejected)


class Message(BaseModel):
    """One conversation message as memscribe sees it (validated by ``memscribe.write.normalize``)."""

    model_config = ConfigDict(frozen=True)

    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: str
    name: str | None = None
    id: str | None = None
    at: datetime | None = None


class Source(BaseModel):
    """Where a memory came from: the caller's message id and its context."""

    message_id: str
    session_id: str | None = None
    role: str = "user"
    name: str | None = None
    at: datetime | None = None


class Link(BaseModel):
    type: Literal["supplements", "contradicts", "derived_from", "related", "supersedes", "closes"]
    target: str


class MemoryRecord(BaseModel):
    id: str
    user_id: str
    agent_id: str | None = None
    session_id: str | None = None
    layer: Layer = Layer.episodic
    kind: Kind = Kind.fact
    text: str
    raw: str = ""
    # typed contents (memscribe.facts); ``structured`` below is their public view and what is persisted
    facts: Facts = Field(default_factory=Facts, exclude=True, repr=False)
    state: RecordState = Field(default_factory=RecordState, exclude=True, repr=False)
    provenance: Provenance = Field(default_factory=Provenance, exclude=True, repr=False)
    entities: list[str] = Field(default_factory=list)
    time_start: datetime | None = None
    time_end: datetime | None = None
    importance: float = 0.5
    timeliness: float = 0.0
    confidence: float = 1.0
    status: Status = Status.active
    superseded_by: str | None = None
    links: list[Link] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime
    updated_at: datetime
    last_accessed_at: datetime | None = None
    access_count: int = 0
    expire_at: datetime | None = None
    version: int = 1

    @model_validator(mode="before")
    @classmethod
    def _typed_from_view(cls, data: Any) -> Any:
        # A ``structured`` dict (a dump, an export, an older store's row, an operator's edit) becomes the
        # typed models; given both, the typed models win (the view is derived from them).
        if isinstance(data, dict) and "structured" in data:
            data = dict(data)
            view = data.pop("structured")
            if not any(k in data for k in ("facts", "state", "provenance")):
                if view is not None and not isinstance(view, dict):
                    raise ValueError("structured must be a dict")
                data["facts"], data["state"], data["provenance"] = split_structured(view)
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def structured(self) -> dict[str, Any]:
        """The typed facts, state and provenance as one flat, JSON-ready dict (read-only: change a record
        with ``model_copy(update={"facts": …})``)."""
        return structured_view(self.kind.value, self.facts, self.state, self.provenance)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> MemoryRecord:
        # ``structured`` is a view: an update of it is an update of the typed models (never silently lost)
        if update and "structured" in update:
            update = dict(update)
            facts, state, prov = split_structured(update.pop("structured"))
            update.setdefault("facts", facts)
            update.setdefault("state", state)
            update.setdefault("provenance", prov)
        return super().model_copy(update=update, deep=deep)

    @property
    def source_ids(self) -> list[str]:
        return [s.message_id for s in self.sources]


class Hit(BaseModel):
    memory: MemoryRecord
    score: float
    why: dict[str, float | str] = Field(default_factory=dict)


class Context(BaseModel):
    text: str
    items: list[Hit] = Field(default_factory=list)
    tokens: int = 0
    budget_tokens: int = 0
    blocks: dict[str, str] = Field(default_factory=dict)

    def __str__(self) -> str:
        return self.text


class Version(BaseModel):
    memory_id: str
    version: int
    record: MemoryRecord
    reason: str
    actor: str = "memscribe"
    created_at: datetime


class AuditEvent(BaseModel):
    id: int | None = None
    ts: datetime
    user_id: str
    memory_id: str | None = None
    message_id: str | None = None
    stage: str
    action: str
    reason: str
    scores: dict[str, float] = Field(default_factory=dict)
    detail: dict[str, Any] = Field(default_factory=dict)


class WriteItem(BaseModel):
    """What happened to one message (or one candidate memory) during add()."""

    message_id: str
    action: Literal[
        "add",
        "update",
        "supersede",
        "close",
        "merge",
        "link",
        "noop",
        "drop",
        "working",
        "review",
        "deferred",
    ]
    memory_id: str | None = None
    text: str | None = None
    reasons: list[str] = Field(default_factory=list)
    encoder: str | None = Field(
        default=None, description="what wrote the memory's text and fields: 'rules' or 'llm' (None: dropped)"
    )
    fallback: str | None = Field(
        default=None, description="why the configured LLM encoder was not used (its error), when it failed"
    )


class WriteReport(BaseModel):
    user_id: str
    items: list[WriteItem] = Field(default_factory=list)

    def _ids(self, *actions: str) -> list[str]:
        return [i.memory_id for i in self.items if i.action in actions and i.memory_id]

    @property
    def added(self) -> list[str]:
        return self._ids("add")

    @property
    def changed(self) -> list[str]:
        return self._ids("update", "supersede", "close", "merge", "link")

    @property
    def pending_review(self) -> list[str]:
        return self._ids("review")

    @property
    def deferred(self) -> bool:
        """The write was over the rate limit and waits, sealed, in the durable queue."""
        return any(i.action == "deferred" for i in self.items)

    @property
    def dropped(self) -> list[WriteItem]:
        return [i for i in self.items if i.action == "drop"]

    @property
    def fallbacks(self) -> list[WriteItem]:
        """Items the rule encoder wrote because the configured LLM failed (each with its reason)."""
        return [i for i in self.items if i.fallback]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for i in self.items:
            out[i.action] = out.get(i.action, 0) + 1
        return out
