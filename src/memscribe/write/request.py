"""Per-call state of one write: the frozen request and the audit trail it accumulates.

Nothing about a call lives on the pipeline object, so two calls (two users, two tenants) can run at once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from memscribe.models import AuditEvent

__all__ = ["AuditTrail", "WriteRequest"]


class WriteRequest(BaseModel):
    """Who writes, in which scope, when: the arguments of one ``add()`` after validation."""

    model_config = ConfigDict(frozen=True)

    user_id: str
    agent_id: str | None = None
    session_id: str | None = None
    at: datetime  # the message time (each message may carry its own)
    now: datetime  # when the write happens (versions and audit events)
    metadata: dict[str, Any] = Field(default_factory=dict)


class AuditTrail:
    """The audit events of one write, handed to the ledger with the first record they belong to."""

    def __init__(self, request: WriteRequest) -> None:
        self._request = request
        self._events: list[AuditEvent] = []

    def record(
        self, stage: str, action: str, reason: str, message_id: str | None, **fields: Any
    ) -> AuditEvent:
        """An event added to the trail (``fields``: scores, detail, memory_id as for :meth:`event`)."""
        event = self.event(stage, action, reason, message_id, **fields)
        self._events.append(event)
        return event

    def event(
        self,
        stage: str,
        action: str,
        reason: str,
        message_id: str | None,
        *,
        scores: dict[str, float] | None = None,
        detail: dict[str, Any] | None = None,
        memory_id: str | None = None,
    ) -> AuditEvent:
        """An event not yet in the trail (returned for the caller to commit with its record)."""
        return AuditEvent(
            ts=self._request.now,
            user_id=self._request.user_id,
            memory_id=memory_id,
            message_id=message_id,
            stage=stage,
            action=action,
            reason=reason,
            scores=scores or {},
            detail=detail or {},
        )

    def take(self) -> list[AuditEvent]:
        """The events recorded so far; the trail is empty afterwards (each is committed once)."""
        events, self._events = self._events, []
        return events
