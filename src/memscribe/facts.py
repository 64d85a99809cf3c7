"""Typed contents of a memory record, in place of a free ``structured`` dict.

- :class:`Facts` — what the encoder found in the text (subject, slot, value, times, entities, negation, status).
- :class:`RecordState` — what the pipeline and maintenance keep about the record (mentions, a change held for
  review, reindex flags, decay bookkeeping).
- :class:`Provenance` — which encoder, LLM model and prompt versions produced it.

``MemoryRecord.structured`` stays the public, JSON-ready *view* of the three (callers, exports, the REST API
and the scenario judge read it), and is what the stores persist: :func:`split_structured` turns a view (or a
``structured`` dict written by an older memscribe) back into the typed models, :func:`structured_view` builds
it. The two are inverse, so a record survives ``model_dump`` → ``model_validate`` unchanged.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Facts",
    "PendingChange",
    "Provenance",
    "RecordState",
    "Reviewed",
    "split_structured",
    "structured_view",
]


class _Typed(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Facts(_Typed):
    """What a statement says, as the encoder read it."""

    subject: str | None = None  # whom it is about: 用户 / the user, a speaker's name, a third party
    lang: str | None = None
    slot: str | None = None  # the attribute it fills (e.g. "the user|residence"); identity = (subject, slot)
    value: str | None = None  # the slot's value
    negated: bool = False
    status: str | None = None  # of a plan or task: pending, done, cancelled …
    time: str | None = None  # ISO date/time of the primary time, at its grain
    time_text: str | None = None  # the expression as said
    grain: str | None = None  # minute | hour | day | week | month | quarter | year
    recurrence: str | None = None  # an RFC 5545 RRULE for standing rules ("every Thursday")
    about: str | None = None  # the LLM encoder's note that the statement is about someone else
    priority: str | None = None
    inferred: bool | None = None
    confirmed: bool | None = None
    ids: tuple[str, ...] = ()
    amounts: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    people: tuple[str, ...] = ()
    orgs: tuple[str, ...] = ()
    participants: tuple[str, ...] = ()
    # the other speaker's question this statement replied to ("Do you have any pets?" before "Yup, Oscar, my
    # guinea pig"): the words a fact is later asked for with are often the question's, not the reply's; the
    # keyword index and the recall ranker read them, the memory's text does not carry them
    replies_to: str | None = None
    # keys nobody here owns (an operator's edit, an imported record): kept and shown, never interpreted
    extra: dict[str, Any] = Field(default_factory=dict)

    def anchors(self) -> set[str]:
        """Who, where and which: named people, places, organisations, ids and the slot's value."""
        out: set[str] = set()
        for k in ("ids", "places", "orgs", "people"):
            out |= set(getattr(self, k))
        if self.value:
            out.add(self.value)
        return out


class PendingChange(_Typed):
    """A change held for review: what approving the memory will do, and to which record."""

    decision: Literal["add", "supersede", "close", "link", "update", "merge"] = "add"
    target: str | None = None
    link_type: Literal["supplements", "contradicts", "related"] | None = None
    topics: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    why: str = ""


class Reviewed(_Typed):
    by: str
    at: str
    topics: tuple[str, ...] = ()


class RecordState(_Typed):
    """The pipeline's and maintenance's bookkeeping about a record."""

    mentions: int = 1
    needs_reindex: bool = False
    confidence_decayed_at: str | None = None
    consolidated_from: int | None = None
    pending: PendingChange | None = None
    reviewed: Reviewed | None = None


class Provenance(_Typed):
    llm_model: str | None = None
    prompt_versions: dict[str, str] | None = None
    llm_kind_rejected: str | None = None


_FACT_KEYS = frozenset(Facts.model_fields) - {"extra"}
_LIST_KEYS = frozenset({"ids", "amounts", "places", "people", "orgs", "participants"})
_STATE_KEYS = {
    "mentions": "mentions",
    "needs_reindex": "needs_reindex",
    "confidence_decayed_at": "confidence_decayed_at",
    "consolidated_from": "consolidated_from",
    "review": "pending",
    "reviewed": "reviewed",
}
_PROVENANCE_KEYS = frozenset(Provenance.model_fields)
# "kind" in a view is the record's own kind; an older memscribe also wrote it here
_RECORD_KEYS = frozenset({"kind"})


_UNTYPED = object()
_BOOL_KEYS = frozenset({"negated", "inferred", "confirmed"})


def _as_fact(key: str, value: Any) -> Any:
    if key in _LIST_KEYS:
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return tuple(value)
        return _UNTYPED
    if key in _BOOL_KEYS:
        if value is None and key != "negated":
            return None
        return bool(value) if isinstance(value, bool) else _UNTYPED
    return value if value is None or isinstance(value, str) else _UNTYPED


def split_structured(view: dict[str, Any] | None) -> tuple[Facts, RecordState, Provenance]:
    """The typed models of a ``structured`` view (the inverse of :func:`structured_view`)."""
    facts: dict[str, Any] = {}
    state: dict[str, Any] = {}
    prov: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in (view or {}).items():
        if key in _RECORD_KEYS:
            continue
        if key in _FACT_KEYS:
            typed = _as_fact(key, value)
            if typed is _UNTYPED:
                extra[key] = value  # a value of another type (an operator's edit): kept as given
            else:
                facts[key] = typed
        elif key in _STATE_KEYS:
            state[_STATE_KEYS[key]] = value
        elif key in _PROVENANCE_KEYS:
            prov[key] = value
        else:
            extra[key] = value
    if extra:
        facts["extra"] = extra
    return Facts(**facts), RecordState(**state), Provenance(**prov)


def structured_view(kind: str | None, facts: Facts, state: RecordState, prov: Provenance) -> dict[str, Any]:
    """The JSON-ready ``structured`` dict of a record: the non-default typed values, flat."""
    out: dict[str, Any] = {}
    if facts.subject is not None:
        out["subject"] = facts.subject
    if kind is not None:
        out["kind"] = kind
    for key, value in facts.model_dump(exclude={"subject", "extra"}, exclude_defaults=True).items():
        out[key] = list(value) if key in _LIST_KEYS else value
    out.update(facts.extra)
    for key, name in _STATE_KEYS.items():
        value = getattr(state, name)
        if value != RecordState.model_fields[name].default:
            out[key] = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    out.update(prov.model_dump(exclude_defaults=True))
    return out
