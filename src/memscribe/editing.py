"""Edits of a person's: update, delete, restore and rollback of one memory, each a new version through
the ledger (with the vector and keyword entry rewritten when the text changes), audited as stage ``edit``.

The record to edit is looked up by a validated id (:class:`NotFoundError` when there is none); an edit
of text passes the privacy filter first, so an edit never stores what a write would have removed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from memscribe import boundary
from memscribe.errors import InputError, NotFoundError
from memscribe.models import MemoryRecord, Status
from memscribe.write.protect import protect

if TYPE_CHECKING:
    from memscribe.ledger import Ledger
    from memscribe.store.base import Store

__all__ = ["Editor"]


def _first_errors(exc: ValidationError) -> str:
    """The first few field errors of a rejected edit, without the input values (they may be long)."""
    return "; ".join(
        f"{'.'.join(str(x) for x in e.get('loc', ())) or 'value'}: {e.get('msg', '')}"
        for e in exc.errors()[:3]
    )


class Editor:
    def __init__(self, store: Store, ledger: Ledger) -> None:
        self._store = store
        self._ledger = ledger

    def get(self, memory_id: str) -> MemoryRecord:
        """The stored record (raises :class:`InputError` for a malformed id, :class:`NotFoundError`)."""
        rec = self._store.get_memory(boundary.memory_id(memory_id))
        if rec is None:
            raise NotFoundError(f"no memory {memory_id!r}")
        return rec

    def revise(
        self, changed: MemoryRecord, *, reason: str, actor: str, action: str, reembed: bool
    ) -> MemoryRecord:
        """An edit of a person's (or a reviewer's): a new version through the ledger, with the vector and
        keyword entry rewritten when the text changed."""
        return self._ledger.revise(
            changed, reason=reason, actor=actor, stage="edit", action=action, reembed=reembed
        )

    def update(
        self, memory_id: str, *, text: str | None, reason: str, actor: str, **fields: Any
    ) -> MemoryRecord:
        rec = self.get(memory_id)
        boundary.check_editable(fields)
        reason, actor = boundary.reason(reason), boundary.reason(actor, "actor")
        changes = dict(fields)
        if text is not None:
            # an edit never smuggles a secret past the filter
            changes["text"] = protect(boundary.edit_text(text)).clean_text
        for name in ("metadata", "structured"):  # JSON objects: the same rules for keys and strings
            if changes.get(name) is not None:
                changes[name] = boundary.metadata(changes[name], what=name)
        for e in changes.get("entities") or ():
            boundary.check_id(e, "an entity")
        data = rec.model_dump()
        data.update(changes)
        try:
            changed = MemoryRecord.model_validate(data)
        except ValidationError as exc:
            raise InputError(f"invalid edit: {_first_errors(exc)}") from None
        return self.revise(
            changed,
            reason=reason,
            actor=actor,
            action="update",
            reembed="text" in changes or "entities" in changes,
        )

    def set_status(self, memory_id: str, status: Status, *, reason: str, action: str) -> MemoryRecord:
        """Delete (``Status.deleted``) or restore (``Status.active``): the record kept, its status changed."""
        reason = boundary.reason(reason)
        changed = self.get(memory_id).model_copy(update={"status": status})
        return self.revise(changed, reason=reason, actor="user", action=action, reembed=False)

    def rollback(self, memory_id: str, version: int, *, reason: str | None) -> MemoryRecord:
        """A new version with the content of an old one (access statistics stay as they are now)."""
        rec = self.get(memory_id)
        if isinstance(version, bool) or not isinstance(version, int):
            raise InputError("version must be an integer")
        if reason is not None:
            reason = boundary.reason(reason)
        target = next((v for v in self._store.versions(memory_id) if v.version == version), None)
        if target is None:
            raise NotFoundError(f"memory {memory_id!r} has no version {version}")
        data = target.record.model_dump()
        data.update(
            {
                "version": rec.version,
                "access_count": rec.access_count,
                "last_accessed_at": rec.last_accessed_at,
            }
        )
        restored = self.revise(
            MemoryRecord.model_validate(data),
            reason=reason or f"rollback to version {version}",
            actor="user",
            action="rollback",
            reembed=True,
        )
        self._retire_successor(rec, restored)
        return restored

    def _retire_successor(self, before: MemoryRecord, restored: MemoryRecord) -> None:
        """Rolling a superseded memory back to an active version says its older value holds: the memory that
        had replaced it is retired in turn (superseded by the restored one, with the reason in its history),
        so the two values are never both active (issue #15 item 8)."""
        if before.status != Status.superseded or restored.status != Status.active or not before.superseded_by:
            return
        newer = self._store.get_memory(before.superseded_by)
        if newer is None or newer.status != Status.active:
            return
        self._ledger.retire(
            newer,
            status=Status.superseded,
            superseded_by=restored.id,
            reason=f"superseded: a rollback of {restored.id} restored the older value it had replaced",
            actor="user",
            stage="edit",
        )
