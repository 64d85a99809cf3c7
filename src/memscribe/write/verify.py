"""Verify: after commit, search with the memory's own text; it must come back in the top k of its scope.
A failure flags ``needs_reindex`` and re-encodes once; a second failure drops it, with the reason audited."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memscribe.decisions import VerifyResult
from memscribe.models import AuditEvent, Status
from memscribe.read.recall import hybrid_recall
from memscribe.store.rows import JobRow
from memscribe.write.pipeline import keyword_text_for

if TYPE_CHECKING:
    from memscribe.memory import Memory

__all__ = ["run_verify_job", "verify_memory"]


def verify_memory(mem: Memory, memory_id: str) -> VerifyResult | None:
    rec = mem.store.get_memory(memory_id)
    if rec is None or rec.status != Status.active:
        return None  # superseded or erased meanwhile: nothing to verify
    k = mem.settings.write.verify_top_k
    hits = hybrid_recall(
        mem.store,
        mem.worker_embedder,
        user_id=rec.user_id,
        query=rec.text,
        now=datetime.now(UTC),
        window=None,
        k=max(k, 20),
        cfg=mem.settings.recall,
        life=mem.settings.lifecycle,
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


def run_verify_job(mem: Memory, job: JobRow) -> None:
    payload = job.payload
    result = verify_memory(mem, payload["memory_id"])
    if result is None:
        return
    attempt = int(payload.get("attempt", 1))
    checked = mem.store.get_memory(result.memory_id)
    vec = None
    if checked is not None and not result.ok and attempt == 1:
        vec = mem.worker_embedder.embed_passages([checked.text])[0]  # outside the transaction: slow
    now = datetime.now(UTC)
    with mem.store.atomic():
        # Re-read inside the transaction: the memory may have been merged, superseded or edited while we
        # searched; a verdict about an older version must not overwrite the newer one.
        rec = mem.store.get_memory(result.memory_id)
        if rec is None or rec.status != Status.active or rec.version != result.version:
            return
        audit = AuditEvent(
            ts=now,
            user_id=rec.user_id,
            memory_id=rec.id,
            stage="verify",
            action="ok" if result.ok else "fail",
            reason=result.reason,
            scores={"rank": float(result.rank or 0)},
        )
        if result.ok:
            if rec.structured.get("needs_reindex"):
                cleared = {k: v for k, v in rec.structured.items() if k != "needs_reindex"}
                mem.store.put_memory(rec.model_copy(update={"structured": cleared}))
            mem.store.add_audit([audit])
        elif attempt == 1:
            flagged = rec.model_copy(update={"structured": {**rec.structured, "needs_reindex": True}})
            mem.store.put_memory(flagged, vector=vec, keyword_text=keyword_text_for(flagged))
            mem.store.enqueue("verify", {"memory_id": rec.id, "user_id": rec.user_id, "attempt": 2})
            mem.store.add_audit(
                [audit.model_copy(update={"action": "reindex", "reason": result.reason + "; re-encoded"})]
            )
        else:
            dropped = rec.model_copy(
                update={"status": Status.deleted, "version": rec.version + 1, "updated_at": now}
            )
            mem.store.put_memory(dropped)
            mem.store.add_version(
                dropped, reason="verify: still not retrievable after re-encoding", actor="verify", at=now
            )
            mem.store.add_audit(
                [
                    audit.model_copy(
                        update={"action": "drop", "reason": result.reason + " after re-encoding; dropped"}
                    )
                ]
            )
            mem.store.bump_counter(rec.user_id, "verify_failures", 1)
