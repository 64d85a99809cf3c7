"""One row codec for both engines: records and rows to column values and back.

The engines differ only in what they bind for an instant (SQLite: epoch seconds in ``*_ts`` REAL columns;
PostgreSQL: the datetime itself, a TIMESTAMPTZ) and in text hygiene (PostgreSQL text holds no NUL), so
both are parameters here; column lists, JSON fields, ISO timestamps and the slot keys live only here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from memscribe.models import AuditEvent, MemoryRecord, Version
from memscribe.store.rows import JobRow, SecretRow, SessionMessageRow, SessionRow, WorkingItemRow

__all__ = [
    "AUDIT_COLUMNS",
    "JOB_COLUMNS",
    "MEMORY_COLUMNS",
    "MEMORY_SELECT",
    "MEMORY_WRITE_COLUMNS",
    "SECRET_COLUMNS",
    "SESSION_COLUMNS",
    "SESSION_MESSAGE_COLUMNS",
    "VERSION_COLUMNS",
    "WORKING_COLUMNS",
    "clip_error",
    "decode_audit",
    "decode_job",
    "decode_memories",
    "decode_memory",
    "decode_secret",
    "decode_session",
    "decode_session_message",
    "decode_version",
    "decode_working_item",
    "encode_audit",
    "encode_json",
    "encode_memory",
    "encode_version",
    "epoch",
    "iso",
    "now",
    "parse_time",
    "scope_token",
    "slot_keys",
]

# The memory columns read back, in MemoryRecord field order.
MEMORY_COLUMNS = (
    "id",
    "user_id",
    "agent_id",
    "session_id",
    "layer",
    "kind",
    "status",
    "text",
    "raw",
    "structured",
    "entities",
    "links",
    "sources",
    "metadata",
    "time_start",
    "time_end",
    "importance",
    "timeliness",
    "confidence",
    "superseded_by",
    "created_at",
    "updated_at",
    "last_accessed_at",
    "access_count",
    "expire_at",
    "version",
)
MEMORY_SELECT = ", ".join(MEMORY_COLUMNS)
# Written besides them: instants for range queries, and the (subject, slot) identity merge looks up.
MEMORY_WRITE_COLUMNS = (
    *MEMORY_COLUMNS,
    "time_start_ts",
    "time_end_ts",
    "created_ts",
    "subject_key",
    "slot_key",
    "origin_message",
)
_JSON_FIELDS = frozenset({"structured", "entities", "links", "sources", "metadata"})

AUDIT_COLUMNS = ("ts", "user_id", "memory_id", "message_id", "stage", "action", "reason", "scores", "detail")
VERSION_COLUMNS = ("memory_id", "version", "record", "reason", "actor", "created_at", "user_id")
JOB_COLUMNS = ("id", "kind", "payload", "attempts", "status", "error", "created_at")
SECRET_COLUMNS = ("id", "user_id", "memory_id", "label", "kind", "ciphertext", "key_id")
SESSION_COLUMNS = ("session_id", "user_id", "summary", "summarized_upto", "updated_at")
SESSION_MESSAGE_COLUMNS = ("seq", "role", "name", "content", "message_id", "at")
WORKING_COLUMNS = ("task_id", "key", "value", "kind", "expire_at", "updated_at")

_JOB_ERROR_MAX = 500  # a failure reason is a diagnosis, not a log: a traceback is cut here

Clean = Callable[[str], str]


def _same(text: str) -> str:
    return text


# ------------------------------------------------------------------ scalars
def now() -> datetime:
    return datetime.now(UTC)


def iso(dt: datetime | None) -> str | None:
    return dt.isoformat() if dt is not None else None


def epoch(dt: datetime | None) -> float | None:
    return dt.timestamp() if dt is not None else None


def parse_time(value: str | datetime | None) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(value)


def encode_json(value: Any, clean: Clean = _same) -> str:
    return clean(json.dumps(value, ensure_ascii=False, default=str))


def _json(value: Any) -> Any:
    """A JSON column as a Python value: SQLite returns text, PostgreSQL's json/jsonb come back parsed."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def scope_token(user_id: str) -> str:
    """A keyword-index token standing for one user: both engines intersect a query with it in the index."""
    return "s" + hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def slot_keys(structured: dict[str, Any]) -> tuple[str | None, str | None]:
    """The (subject, slot) identity of a record as stored for lookup: string values only."""
    subject, slot = structured.get("subject"), structured.get("slot")
    return (subject if isinstance(subject, str) else None, slot if isinstance(slot, str) else None)


def origin_message(rec: MemoryRecord) -> str | None:
    """The message a memory was first said in: its statements are siblings (read together at recall)."""
    return rec.sources[0].message_id if rec.sources else None


def clip_error(error: str, clean: Clean = _same) -> str:
    return clean(error[:_JOB_ERROR_MAX])


# ------------------------------------------------------------------ memories
def encode_memory(
    rec: MemoryRecord, *, instant: Callable[[datetime | None], Any], clean: Clean = _same
) -> tuple[Any, ...]:
    """Column values in ``MEMORY_WRITE_COLUMNS`` order. ``instant`` binds a datetime for the engine."""
    dumped = rec.model_dump(mode="json", include=_JSON_FIELDS)
    subject_key, slot_key = slot_keys(rec.structured)
    return (
        rec.id,
        rec.user_id,
        rec.agent_id,
        rec.session_id,
        rec.layer.value,
        rec.kind.value,
        rec.status.value,
        clean(rec.text),
        clean(rec.raw),
        *(encode_json(dumped[f], clean) for f in ("structured", "entities", "links", "sources", "metadata")),
        iso(rec.time_start),
        iso(rec.time_end),
        rec.importance,
        rec.timeliness,
        rec.confidence,
        rec.superseded_by,
        iso(rec.created_at),
        iso(rec.updated_at),
        iso(rec.last_accessed_at),
        rec.access_count,
        iso(rec.expire_at),
        rec.version,
        instant(rec.time_start),
        instant(rec.time_end),
        instant(rec.created_at),
        None if subject_key is None else clean(subject_key),
        None if slot_key is None else clean(slot_key),
        None if (origin := origin_message(rec)) is None else clean(origin),
    )


def decode_memory(row: Sequence[Any]) -> MemoryRecord:
    """A row of ``MEMORY_SELECT`` as a record."""
    data = dict(zip(MEMORY_COLUMNS, row, strict=True))
    for f in _JSON_FIELDS:
        data[f] = _json(data[f])
    return MemoryRecord.model_validate(data)


def decode_memories(rows: Sequence[Sequence[Any]]) -> list[MemoryRecord]:
    return [decode_memory(r) for r in rows]


def encode_version(
    rec: MemoryRecord, *, reason: str, actor: str, at: datetime, clean: Clean = _same
) -> tuple:
    """Column values in ``VERSION_COLUMNS`` order: the whole record as of this version, as JSON."""
    return (
        rec.id,
        rec.version,
        clean(rec.model_dump_json()),
        clean(reason),
        actor,
        at.isoformat(),
        rec.user_id,
    )


def decode_version(row: Sequence[Any]) -> Version:
    """A row of ``VERSION_COLUMNS`` (user_id may be left out)."""
    return Version(
        memory_id=row[0],
        version=row[1],
        record=MemoryRecord.model_validate_json(row[2]),
        reason=row[3],
        actor=row[4],
        created_at=row[5],
    )


# ------------------------------------------------------------------ audit
def encode_audit(e: AuditEvent, clean: Clean = _same) -> tuple:
    """Column values in ``AUDIT_COLUMNS`` order."""
    return (
        e.ts.isoformat(),
        e.user_id,
        e.memory_id,
        e.message_id,
        e.stage,
        e.action,
        clean(e.reason),
        json.dumps(e.scores),
        encode_json(e.detail, clean),
    )


def decode_audit(row: Sequence[Any]) -> AuditEvent:
    """A row of ``id`` + ``AUDIT_COLUMNS``."""
    return AuditEvent(
        id=row[0],
        ts=row[1],
        user_id=row[2],
        memory_id=row[3],
        message_id=row[4],
        stage=row[5],
        action=row[6],
        reason=row[7],
        scores=_json(row[8]),
        detail=_json(row[9]),
    )


# ------------------------------------------------------------------ other rows
def decode_job(row: Sequence[Any]) -> JobRow:
    """A row of ``JOB_COLUMNS``."""
    return JobRow(
        id=int(row[0]),
        kind=row[1],
        payload=_json(row[2]),
        attempts=int(row[3]),
        status=row[4],
        error=row[5],
        created_at=parse_time(row[6]),  # type: ignore[arg-type]
    )


def decode_secret(row: Sequence[Any]) -> SecretRow:
    """A row of ``SECRET_COLUMNS``."""
    return SecretRow(
        id=int(row[0]),
        user_id=row[1],
        memory_id=row[2],
        label=row[3],
        kind=row[4],
        ciphertext=bytes(row[5]),
        key_id=row[6],
    )


def decode_session(row: Sequence[Any]) -> SessionRow:
    """A row of ``SESSION_COLUMNS``."""
    return SessionRow(
        session_id=row[0],
        user_id=row[1],
        summary=row[2],
        summarized_upto=int(row[3]),
        updated_at=parse_time(row[4]),  # type: ignore[arg-type]
    )


def decode_session_message(row: Sequence[Any]) -> SessionMessageRow:
    """A row of ``SESSION_MESSAGE_COLUMNS``."""
    return SessionMessageRow(
        seq=int(row[0]), role=row[1], name=row[2], content=row[3], message_id=row[4], at=parse_time(row[5])
    )


def decode_working_item(row: Sequence[Any]) -> WorkingItemRow:
    """A row of ``WORKING_COLUMNS``."""
    return WorkingItemRow(
        task_id=row[0],
        key=row[1],
        value=_json(row[2]),
        kind=row[3],
        expire_at=parse_time(row[4]),
        updated_at=parse_time(row[5]),  # type: ignore[arg-type]
    )
