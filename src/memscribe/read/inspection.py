"""Reading a memory's story: its versions back through what it superseded, the audit decisions behind it,
and the records waiting for review. Reads only."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from memscribe.models import AuditEvent, MemoryRecord, Status, Version

if TYPE_CHECKING:
    from memscribe.store.base import Store

__all__ = ["decisions_about", "pending_review", "version_history"]


def version_history(store: Store, rec: MemoryRecord) -> list[Version]:
    """Versions of ``rec``, preceded by those of the memories it superseded (the fact's whole story)."""
    chain: list[Version] = []
    seen = {rec.id}
    pending = [link.target for link in rec.links if link.type == "supersedes"]
    while pending:
        prev = pending.pop()
        if prev in seen:
            continue
        seen.add(prev)
        chain = store.versions(prev) + chain
        old = store.get_memory(prev)
        if old is not None:
            pending.extend(link.target for link in old.links if link.type == "supersedes")
    return chain + store.versions(rec.id)


def decisions_about(store: Store, rec: MemoryRecord) -> list[AuditEvent]:
    """Every stage decision about ``rec`` and about the source messages it came from, in order."""
    events = store.audit_for(memory_id=rec.id)
    ids = {s.message_id for s in rec.sources}
    seen = {e.id for e in events}
    for e in store.audit_for(user_id=rec.user_id):
        if e.message_id in ids and e.id not in seen and e.memory_id is None:
            events.append(e)
    return sorted(events, key=lambda e: e.id or 0)


def pending_review(store: Store, users: Iterable[str], *, limit: int | None = None) -> list[MemoryRecord]:
    """The memories of ``users`` waiting for a person's approval, oldest first."""
    out: list[MemoryRecord] = []
    for u in users:
        out.extend(store.list_memories(u, statuses=(Status.pending_review.value,)))
    out.sort(key=lambda r: (r.updated_at, r.id))
    return out[:limit] if limit is not None else out
