"""Verify: after commit, search with the memory's own text; it must come back in the top k of its scope.
A failure flags ``needs_reindex`` and re-encodes once; a second failure drops it, with the reason audited.

:class:`VerifyJob` is the ``verify`` handler of the job runner (``memscribe.jobs``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from memscribe.config import Settings
from memscribe.decisions import VerifyResult
from memscribe.ledger import Ledger
from memscribe.models import AuditEvent, MemoryRecord, Status
from memscribe.providers.embedders import Embedder
from memscribe.read.recall import hybrid_recall
from memscribe.store.base import Store
from memscribe.store.rows import JobRow

__all__ = ["VerifyJob", "verify_memory"]


def verify_memory(
    store: Store, embedder: Embedder, settings: Settings, rec: MemoryRecord, *, now: datetime
) -> VerifyResult:
    """Is ``rec`` in the top ``verify_top_k`` of a search with its own text?"""
    k = settings.write.verify_top_k
    hits = hybrid_recall(
        store,
        embedder,
        user_id=rec.user_id,
        query=rec.text,
        now=now,
        window=None,
        k=max(k, 20),
        cfg=settings.recall,
        life=settings.lifecycle,
        statuses=("active",),
        deep=True,
    )
    ids = [h.record.id for h in hits[:k]]
    if rec.id in ids:
        return VerifyResult(
            memory_id=rec.id,
            version=rec.version,
            ok=True,
            rank=ids.index(rec.id) + 1,
            reason="found by its own text",
        )
    return VerifyResult(
        memory_id=rec.id,
        version=rec.version,
        ok=False,
        rank=None,
        reason=f"not in the top {k} for its own text",
    )


class VerifyJob:
    def __init__(
        self,
        store: Store,
        embedder: Callable[[], Embedder],
        settings: Settings,
        ledger: Ledger,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._embedder = embedder  # the worker's own engine, built on first use
        self._settings = settings
        self._ledger = ledger
        self._clock = clock

    def __call__(self, job: JobRow) -> None:
        payload = job.payload
        rec = self._store.get_memory(payload["memory_id"])
        if rec is None or rec.status != Status.active:
            return  # superseded or erased meanwhile: nothing to verify
        embedder = self._embedder()
        result = verify_memory(self._store, embedder, self._settings, rec, now=self._clock())
        attempt = int(payload.get("attempt", 1))
        vec = embedder.embed_passages([rec.text])[0] if not result.ok and attempt == 1 else None
        now = self._clock()
        with self._store.atomic():
            # Re-read inside the transaction: the memory may have been merged, superseded or edited while we
            # searched; a verdict about an older version must not overwrite the newer one.
            cur = self._store.get_memory(result.memory_id)
            if cur is None or cur.status != Status.active or cur.version != result.version:
                return
            audit = AuditEvent(
                ts=now,
                user_id=cur.user_id,
                memory_id=cur.id,
                stage="verify",
                action="ok" if result.ok else "fail",
                reason=result.reason,
                scores={"rank": float(result.rank or 0)},
            )
            if result.ok:
                if cur.state.needs_reindex:
                    cleared = cur.model_copy(
                        update={"state": cur.state.model_copy(update={"needs_reindex": False})}
                    )
                    self._ledger.annotate(cleared, events=[audit])
                else:
                    self._store.add_audit([audit])
            elif attempt == 1:
                flagged = cur.model_copy(
                    update={"state": cur.state.model_copy(update={"needs_reindex": True})}
                )
                reindexed = audit.model_copy(
                    update={"action": "reindex", "reason": result.reason + "; re-encoded"}
                )
                self._ledger.annotate(flagged, vector=vec, events=[reindexed])
                self._store.enqueue("verify", {"memory_id": cur.id, "user_id": cur.user_id, "attempt": 2})
            else:
                self._ledger.retire(
                    cur,
                    status=Status.deleted,
                    reason="verify: still not retrievable after re-encoding",
                    actor="verify",
                    stage="verify",
                )
                self._store.add_audit(
                    [
                        audit.model_copy(
                            update={"action": "drop", "reason": result.reason + " after re-encoding; dropped"}
                        )
                    ]
                )
                self._store.bump_counter(cur.user_id, "verify_failures", 1)
