"""Typed decisions of the write pipeline's stages. Each carries its reasons; the audit log is built
from them, so "why was this kept / dropped / merged" always has an answer."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memscribe.facts import Facts, Provenance
from memscribe.models import Kind, Layer

__all__ = [
    "Add",
    "Candidate",
    "Close",
    "FilterDecision",
    "Link",
    "Merge",
    "MergeDecision",
    "Noop",
    "PrivacyDecision",
    "Supersede",
    "TriggerResult",
    "Update",
    "VerifyResult",
]


class _Decision(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)


class TriggerResult(_Decision):
    fire: bool
    strength: float  # 0..1: how strongly this message asks to be written
    reasons: tuple[str, ...] = ()
    signals: frozenset[str] = frozenset()  # e.g. {"explicit", "milestone", "entity:time", "negative"}


class PrivacyDecision(_Decision):
    clean_text: str  # text with every sensitive value replaced by a placeholder
    vaulted: tuple[tuple[str, str, str], ...] = ()  # (placeholder, kind, value) kept encrypted; never logged
    dropped_kinds: tuple[str, ...] = ()
    risk: float = 0.0

    def __repr__(self) -> str:  # values never reach a log line, not even through repr()
        return f"PrivacyDecision(risk={self.risk}, vaulted={len(self.vaulted)}, dropped={self.dropped_kinds})"

    __str__ = __repr__


class FilterDecision(_Decision):
    route: Literal["long", "working", "drop"]
    importance: float
    timeliness: float
    privacy_risk: float
    reasons: tuple[str, ...] = ()


class Candidate(_Decision):
    """An encoded memory before it is reconciled with the store."""

    text: str
    raw: str
    kind: Kind
    layer: Layer
    facts: Facts = Field(default_factory=Facts)
    provenance: Provenance = Field(default_factory=Provenance)
    entities: tuple[str, ...] = ()
    time_start: datetime | None = None
    time_end: datetime | None = None
    importance: float = 0.5
    timeliness: float = 0.0
    confidence: float = 1.0
    change: bool = False  # says a previous fact changed (改签, moved to, no longer, rescheduled ...)
    exception: bool = False  # an exception to an existing rule (但周六上午可以, except ...)
    encoder: str = "rules"
    fallback: str | None = None  # the LLM encoder's error when the rule encoder stood in for it
    reasons: tuple[str, ...] = ()
    episode: bool = False  # several turns joined: the lead's slot is kept in the facts, not used as identity

    @property
    def subject(self) -> str:
        return self.facts.subject or "user"

    @property
    def slot(self) -> str | None:
        """e.g. "Caroline|residence": a newer value of the same slot supersedes."""
        return None if self.episode else self.facts.slot

    @property
    def negated(self) -> bool:
        return self.facts.negated


class Add(_Decision):
    action: Literal["add"] = "add"
    why: str = "new information"


class Noop(_Decision):
    action: Literal["noop"] = "noop"
    target: str
    why: str


class Merge(_Decision):
    """Same fact said again: the existing memory gains the new sources (and a version)."""

    action: Literal["merge"] = "merge"
    target: str
    why: str
    similarity: float


class Update(_Decision):
    """The existing memory is rewritten in place (new version) — e.g. a richer paraphrase."""

    action: Literal["update"] = "update"
    target: str
    why: str


class Supersede(_Decision):
    """A newer value of the same slot: the old memory stays, status superseded, pointing to the new one."""

    action: Literal["supersede"] = "supersede"
    target: str
    why: str
    # the new memory calls the superseded plan off ("桂林不去了", read as no plan itself): it carries that status
    cancels: bool = False


class Close(_Decision):
    """The new memory reports that a pending plan or task happened. A done plan is no outdated value: it is
    what took place, with its ids, people and place, so it stays active and only its status changes (a new
    version, ``done``); the report is added beside it with a ``closes`` link. A cancelled plan is void and is
    superseded by its cancellation instead."""

    action: Literal["close"] = "close"
    target: str
    why: str


class Link(_Decision):
    action: Literal["link"] = "link"
    target: str
    type: Literal["supplements", "contradicts", "related"]
    why: str


MergeDecision = Add | Noop | Merge | Update | Supersede | Close | Link


class VerifyResult(_Decision):
    memory_id: str
    version: int  # the version that was checked: a result about an older version is not acted on
    ok: bool
    rank: int | None
    reason: str
