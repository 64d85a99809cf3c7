"""Typed rows a store hands back for everything that is not a memory (memories are ``MemoryRecord``,
versions ``Version``, audit rows ``AuditEvent``). Frozen: a row is what the store held when it was read.

Times are timezone-aware datetimes (the caller's UTC offset kept where it was given); payloads and working
values are the JSON values that were stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = [
    "JOB_STATUSES",
    "JobRow",
    "SecretRow",
    "SessionMessageRow",
    "SessionRow",
    "WorkingItemRow",
]

# A job is 'pending' (waiting for its run_after), 'running' (claimed) or 'failed' (out of retries, kept
# with its error). A finished job is deleted, so it has no status.
JOB_STATUSES = ("pending", "running", "failed")


@dataclass(frozen=True, slots=True)
class JobRow:
    """A queued job. ``attempts`` counts claims, the current one included; ``error`` is the reason the
    last attempt gave for failing (None before any failure)."""

    id: int
    kind: str
    payload: dict[str, Any]
    attempts: int
    status: str
    error: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class SecretRow:
    """A vaulted value: the ciphertext of one placeholder (``label``) of one memory."""

    id: int
    user_id: str
    memory_id: str
    label: str
    kind: str
    ciphertext: bytes
    key_id: str


@dataclass(frozen=True, slots=True)
class SessionMessageRow:
    """One turn of a session's window, in arrival order (``seq`` grows across the whole store)."""

    seq: int
    role: str
    name: str | None
    content: str
    message_id: str | None
    at: datetime | None


@dataclass(frozen=True, slots=True)
class SessionRow:
    """A session's rolling summary of the turns up to ``summarized_upto`` (a message ``seq``)."""

    session_id: str
    user_id: str
    summary: str
    summarized_upto: int
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class WorkingItemRow:
    """One key of a task's scratch state."""

    task_id: str
    key: str
    value: Any
    kind: str
    expire_at: datetime | None
    updated_at: datetime
