"""The ledger: the one owner of record changes.

Every creation, revision, retirement, re-index, import and erasure of a memory record goes through here, and
each writes the row, its vector and keyword entry (when they change), a version (when the record changes)
and an audit event in one ``store.atomic()`` block — nested calls become savepoints, so a caller may group
several ledger operations (supersede = create the new record + retire the old one) into one transaction.
A test checks that no other module calls the store's record-writing methods.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from memscribe.errors import ConcurrencyError, NotFoundError
from memscribe.index import keyword_text_for
from memscribe.models import AuditEvent, MemoryRecord, Status, Version
from memscribe.providers.embedders import Embedder
from memscribe.store.base import Store

__all__ = ["Ledger", "SealedSecret"]


@dataclass(frozen=True)
class SealedSecret:
    """A vaulted value, already encrypted, stored with the memory that references its placeholder."""

    label: str
    kind: str
    blob: bytes
    key_id: str


def _utcnow() -> datetime:
    return datetime.now(UTC)


class Ledger:
    def __init__(self, store: Store, embedder: Embedder, *, clock: Callable[[], datetime] = _utcnow) -> None:
        self._store = store
        self._embedder = embedder
        self._clock = clock

    # ------------------------------------------------------------------ helpers
    def _event(
        self, rec: MemoryRecord, stage: str, action: str, reason: str, at: datetime, **extra: object
    ) -> AuditEvent:
        return AuditEvent(
            ts=at, user_id=rec.user_id, memory_id=rec.id, stage=stage, action=action, reason=reason, **extra
        )  # type: ignore[arg-type]

    def _current(self, rec: MemoryRecord) -> MemoryRecord:
        stored = self._store.get_memory(rec.id)
        if stored is None:
            raise NotFoundError(f"no memory {rec.id!r}")
        if stored.version != rec.version:
            # someone changed it since the caller read it: a revision of a stale copy would undo their change
            raise ConcurrencyError(
                f"memory {rec.id!r} is at version {stored.version}, the change was made to version {rec.version}"
            )
        return stored

    def embed(self, rec: MemoryRecord) -> np.ndarray:
        return self._embedder.embed_passages([rec.text])[0]

    # ------------------------------------------------------------------ operations
    def create(
        self,
        rec: MemoryRecord,
        *,
        vector: np.ndarray,
        reason: str,
        actor: str,
        events: Sequence[AuditEvent] = (),
        secrets: Sequence[SealedSecret] = (),
        at: datetime | None = None,
    ) -> MemoryRecord:
        """A new record: row + vector + keyword entry + version 1 + its vaulted values + audit events."""
        at = at or self._clock()
        with self._store.atomic():
            self._store.put_memory(rec, vector=vector, keyword_text=keyword_text_for(rec))
            self._store.add_version(rec, reason=reason, actor=actor, at=at)
            for s in secrets:
                self._store.put_secret(rec.user_id, rec.id, s.label, s.kind, s.blob, s.key_id)
            self._store.add_audit(events)
        return rec

    def revise(
        self,
        changed: MemoryRecord,
        *,
        reason: str,
        actor: str,
        stage: str,
        action: str,
        vector: np.ndarray | None = None,
        reembed: bool = False,
        events: Sequence[AuditEvent] = (),
        audit: bool = True,
        at: datetime | None = None,
    ) -> MemoryRecord:
        """A new version of a record: ``changed`` is the caller's edited copy of the stored version (its
        ``version`` unchanged); the ledger numbers the new version and stamps it. With a new ``vector`` (or
        ``reembed``) the vector and keyword entry are rewritten too."""
        at = at or self._clock()
        if reembed and vector is None:
            vector = self.embed(changed)  # before the transaction: embedding is the slow part
        with self._store.atomic():
            self._current(changed)
            new = changed.model_copy(update={"version": changed.version + 1, "updated_at": at})
            keyword = keyword_text_for(new) if vector is not None else None
            self._store.put_memory(new, vector=vector, keyword_text=keyword)
            self._store.add_version(new, reason=reason, actor=actor, at=at)
            extra = [self._event(new, stage, action, reason, at)] if audit else []
            self._store.add_audit([*events, *extra])
        return new

    def supersede(self, old: MemoryRecord, *, by: str, why: str, at: datetime | None = None) -> MemoryRecord:
        """The merge stage's retirement of an older memory by its successor ``by`` (a change applied at write
        time, or a held change approved later)."""
        return self.retire(
            old,
            status=Status.superseded,
            superseded_by=by,
            reason=f"superseded: {why}",
            actor="pipeline",
            stage="merge",
            at=at,
        )

    def close(self, plan: MemoryRecord, *, by: str, why: str, at: datetime | None = None) -> MemoryRecord:
        """A pending plan or task reported done by the memory ``by``: it stays active (it is what took place),
        its status becomes ``done`` in a new version, so a rollback reopens it."""
        return self.revise(
            plan.model_copy(update={"facts": plan.facts.model_copy(update={"status": "done"})}),
            reason=f"closed: {why} (reported by {by})",
            actor="pipeline",
            stage="merge",
            action="close",
            at=at,
        )

    def retire(
        self,
        rec: MemoryRecord,
        *,
        status: Status,
        reason: str,
        actor: str,
        stage: str,
        superseded_by: str | None = None,
        audit: bool = False,
        at: datetime | None = None,
    ) -> MemoryRecord:
        """Out of recall, kept with its history: superseded (pointing to its successor), deleted, archived,
        expired."""
        update: dict[str, object] = {"status": status}
        if superseded_by is not None:
            update["superseded_by"] = superseded_by
        return self.revise(
            rec.model_copy(update=update),
            reason=reason,
            actor=actor,
            stage=stage,
            action=status.value,
            audit=audit,
            at=at,
        )

    def annotate(
        self,
        changed: MemoryRecord,
        *,
        vector: np.ndarray | None = None,
        events: Sequence[AuditEvent] = (),
    ) -> MemoryRecord:
        """Bookkeeping that is not a new version of what the memory says (a reindex flag, re-encoded index
        entries): the row is rewritten in place, with its events."""
        with self._store.atomic():
            self._current(changed)
            keyword = keyword_text_for(changed) if vector is not None else None
            self._store.put_memory(changed, vector=vector, keyword_text=keyword)
            self._store.add_audit(events)
        return changed

    def apply_planned(
        self,
        rec: MemoryRecord,
        *,
        new: bool,
        reason: str,
        actor: str,
        at: datetime,
        vector: np.ndarray | None = None,
        reindex_keywords: bool = False,
    ) -> MemoryRecord:
        """A version computed ahead by a planner (maintenance plans several steps of one record in a run):
        written as planned once the stored record is the one it was planned from (``rec.version - 1``)."""
        with self._store.atomic():
            if new:
                self._store.put_memory(rec, vector=vector, keyword_text=keyword_text_for(rec))
            else:
                self._current(rec.model_copy(update={"version": rec.version - 1}))
                keyword = keyword_text_for(rec) if reindex_keywords or vector is not None else None
                self._store.put_memory(rec, vector=vector, keyword_text=keyword)
            self._store.add_version(rec, reason=reason, actor=actor, at=at)
        return rec

    def reindex(self, records: Sequence[MemoryRecord], vectors: Sequence[np.ndarray]) -> int:
        """Derived index entries rebuilt (a new embedder, a changed keyword rule): no version, no audit."""
        self._store.put_memories(
            [(rec, vec, keyword_text_for(rec)) for rec, vec in zip(records, vectors, strict=True)]
        )
        return len(records)

    def restore_imported(
        self,
        rec: MemoryRecord,
        *,
        vector: np.ndarray | None,
        versions: Sequence[Version],
        secrets: Sequence[SealedSecret] = (),
    ) -> MemoryRecord:
        """A record from an export, as it was: its own version numbers and history, its sealed values.
        ``vector=None`` keeps the vector the record already has (an update whose text did not change)."""
        with self._store.atomic():
            self._store.put_memory(rec, vector=vector, keyword_text=keyword_text_for(rec))
            for v in versions:
                self._store.add_version(v.record, reason=v.reason, actor=v.actor, at=v.created_at)
            if not versions:
                self._store.add_version(rec, reason="imported", actor="import", at=self._clock())
            if secrets:
                have = {row.label for row in self._store.secrets_for(rec.id)}
                for s in secrets:
                    if s.label not in have:
                        self._store.put_secret(rec.user_id, rec.id, s.label, s.kind, s.blob, s.key_id)
        return rec

    def erase_user(self, user_id: str) -> int:
        """Hard erase: every record, vector, keyword entry, version, audit event, session and secret."""
        return self._store.forget_user(user_id)
