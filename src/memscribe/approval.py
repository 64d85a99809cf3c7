"""A person's verdict on a memory the review gate held back (:mod:`memscribe.write.review`).

Approve: the memory becomes active, and the change it stood for (superseding the older value of its slot, or closing the plan it reports done)
happens now, under the user's write lock and in the same transaction. Reject: it is deleted — kept in its
history with the reason — and nothing it implied happens. Either way the verdict is a version through the
ledger, audited as stage ``edit`` with the reviewer as actor. A memory not pending review is an
:class:`InputError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memscribe.errors import InputError
from memscribe.facts import Reviewed
from memscribe.models import Link, MemoryRecord, Status

if TYPE_CHECKING:
    from memscribe.clock import Clock
    from memscribe.editing import Editor
    from memscribe.ledger import Ledger
    from memscribe.store.base import Store
    from memscribe.write.pipeline import UserLocks

__all__ = ["Approval"]


class Approval:
    def __init__(
        self, store: Store, ledger: Ledger, editor: Editor, locks: UserLocks, *, clock: Clock
    ) -> None:
        self._store = store
        self._ledger = ledger
        self._editor = editor
        self._locks = locks
        self._clock = clock

    def _pending(self, memory_id: str) -> MemoryRecord:
        rec = self._editor.get(memory_id)
        if rec.status != Status.pending_review:
            raise InputError(f"memory {memory_id!r} is {rec.status.value}, not pending review")
        return rec

    def approve(self, memory_id: str, *, actor: str, reason: str | None) -> MemoryRecord:
        rec = self._pending(memory_id)
        now = self._clock()
        pending = rec.state.pending
        links = list(rec.links)
        with self._locks.hold(rec.user_id), self._store.atomic():
            if pending is not None and pending.decision == "supersede" and pending.target:
                old = self._store.get_memory(pending.target)
                if old is not None and old.status == Status.active:
                    links.append(Link(type="supersedes", target=old.id))
                    self._ledger.supersede(old, by=rec.id, why=pending.why or "approved change", at=now)
            if pending is not None and pending.decision == "close" and pending.target:
                plan = self._store.get_memory(pending.target)
                if plan is not None and plan.status == Status.active:
                    links.append(Link(type="closes", target=plan.id))
                    self._ledger.close(plan, by=rec.id, why=pending.why or "approved report", at=now)
            reviewed = Reviewed(by=actor, at=now.isoformat(), topics=pending.topics if pending else ())
            changed = rec.model_copy(
                update={
                    "status": Status.active,
                    "state": rec.state.model_copy(update={"pending": None, "reviewed": reviewed}),
                    "links": links,
                }
            )
            return self._editor.revise(
                changed, reason=reason or "approved in review", actor=actor, action="approve", reembed=False
            )

    def reject(self, memory_id: str, *, actor: str, reason: str | None) -> MemoryRecord:
        changed = self._pending(memory_id).model_copy(update={"status": Status.deleted})
        return self._editor.revise(
            changed, reason=reason or "rejected in review", actor=actor, action="reject", reembed=False
        )
