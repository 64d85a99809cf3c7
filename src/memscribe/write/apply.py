"""Apply a merge decision: one ``match`` arm per decision type, every record change through the ledger.

The decision was made by ``write/merge.py`` (pure); this module turns it into records, versions, audit events,
vaulted values and queued verification — each arm in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np

from memscribe.config import Settings
from memscribe.decisions import Candidate, Close, Link, Merge, MergeDecision, Noop, Supersede, Update
from memscribe.facts import PendingChange
from memscribe.ledger import Ledger, SealedSecret
from memscribe.models import Layer, MemoryRecord, Source, Status, WriteItem, new_memory_id
from memscribe.models import Link as RecordLink
from memscribe.store.base import Store
from memscribe.write.request import AuditTrail, WriteRequest
from memscribe.write.review import ReviewDecision
from memscribe.write.verbatim import ENCODER as VERBATIM_ENCODER

__all__ = ["Applier", "UnitToWrite"]


@dataclass(frozen=True)
class UnitToWrite:
    """One candidate memory with what it came from."""

    candidate: Candidate
    vector: np.ndarray
    sources: Sequence[Source]
    message_ids: Sequence[str]
    lead_message_id: str
    vaulted: Sequence[tuple[str, str, str]]  # (placeholder, kind, value): sealed only when stored


class Applier:
    def __init__(
        self, store: Store, ledger: Ledger, settings: Settings, vault_factory: Callable[[], Any]
    ) -> None:
        self._store = store
        self._ledger = ledger
        self._settings = settings
        self._vault_factory = vault_factory

    def apply(
        self,
        decision: MergeDecision,
        unit: UnitToWrite,
        req: WriteRequest,
        trail: AuditTrail,
        *,
        review: ReviewDecision | None,
        first: Callable[[], None] | None,
    ) -> WriteItem:
        """``first`` (the write's bookkeeping: session window, drop counter) commits with the first unit."""
        with self._store.atomic():
            if first is not None:
                first()
            match decision:
                case Noop():
                    return self._noop(decision, unit, trail)
                case Update() if review is None:
                    return self._update(decision, unit, req, trail)
                case Merge():
                    return self._merge(decision, unit, req, trail)
                case _:
                    return self._add(decision, unit, req, trail, review)

    # ------------------------------------------------------------------ arms
    def _noop(self, d: Noop, unit: UnitToWrite, trail: AuditTrail) -> WriteItem:
        # the same message ids again (a client retry): nothing changes, no version, no confidence gain
        self._store.add_audit(
            [*trail.take(), trail.event("merge", "noop", d.why, unit.lead_message_id, memory_id=d.target)]
        )
        return WriteItem(message_id=unit.lead_message_id, action="noop", memory_id=d.target, reasons=[d.why])

    def _target(self, memory_id: str) -> MemoryRecord:
        target = self._store.get_memory(memory_id)
        assert target is not None  # came from this scope's search a moment ago, under the user's lock
        return target

    @staticmethod
    def _more_sources(target: MemoryRecord, sources: Sequence[Source]) -> list[Source]:
        have = {s.message_id for s in target.sources}
        return [*target.sources, *[s for s in sources if s.message_id not in have]]

    def _update(self, d: Update, unit: UnitToWrite, req: WriteRequest, trail: AuditTrail) -> WriteItem:
        """A richer restatement: the memory is rewritten in place (new version, re-embedded)."""
        target = self._target(d.target)
        cand = unit.candidate
        facts = target.facts.model_copy(update=cand.facts.model_dump(exclude_defaults=True))
        provenance = target.provenance.model_copy(update=cand.provenance.model_dump(exclude_defaults=True))
        changed = target.model_copy(
            update={
                "text": cand.text,
                "raw": cand.raw,
                "facts": facts,
                "provenance": provenance,
                "state": target.state.model_copy(update={"mentions": target.state.mentions + 1}),
                "entities": list(dict.fromkeys([*target.entities, *cand.entities])),
                "time_start": cand.time_start or target.time_start,
                "time_end": cand.time_end or target.time_end,
                "sources": self._more_sources(target, unit.sources),
                "importance": max(target.importance, cand.importance),
                "confidence": round(min(1.0, target.confidence + 0.1), 3),
            }
        )
        event = trail.event(
            "merge",
            "update",
            d.why,
            unit.lead_message_id,
            memory_id=target.id,
            detail={"message_ids": list(unit.message_ids)},
        )
        new = self._ledger.revise(
            changed,
            reason=f"update: {d.why}",
            actor="pipeline",
            stage="merge",
            action="update",
            vector=unit.vector,
            events=[*trail.take(), event],
            audit=False,
            at=req.now,
        )
        self._queue_verify(new)
        return WriteItem(
            message_id=unit.lead_message_id, action="update", memory_id=new.id, text=new.text, reasons=[d.why]
        )

    def _merge(self, d: Merge, unit: UnitToWrite, req: WriteRequest, trail: AuditTrail) -> WriteItem:
        """Same fact said again: the existing memory gains the new sources (and a version)."""
        target = self._target(d.target)
        changed = target.model_copy(
            update={
                "sources": self._more_sources(target, unit.sources),
                "confidence": round(min(1.0, target.confidence + 0.1), 3),
                "importance": max(target.importance, unit.candidate.importance),
                "state": target.state.model_copy(update={"mentions": target.state.mentions + 1}),
            }
        )
        event = trail.event(
            "merge",
            "merge",
            d.why,
            unit.lead_message_id,
            memory_id=target.id,
            scores={"similarity": d.similarity},
            detail={"message_ids": list(unit.message_ids)},
        )
        new = self._ledger.revise(
            changed,
            reason=f"merge: {d.why}",
            actor="pipeline",
            stage="merge",
            action="merge",
            events=[*trail.take(), event],
            audit=False,
            at=req.now,
        )
        return WriteItem(
            message_id=unit.lead_message_id, action="merge", memory_id=new.id, text=new.text, reasons=[d.why]
        )

    def _add(
        self,
        d: MergeDecision,
        unit: UnitToWrite,
        req: WriteRequest,
        trail: AuditTrail,
        review: ReviewDecision | None,
    ) -> WriteItem:
        """A new record — held for review, superseding an older one, closing a plan, linked to one, or simply
        added."""
        cand = unit.candidate
        rec = self._new_record(cand, unit, req)
        action = "add" if cand.layer != Layer.working else "working"
        why = "new information" if action == "add" else "kept in working memory until it expires"
        links: list[RecordLink] = []
        if review is not None:
            # held back: stored and versioned, but the change it implies (superseding an older value)
            # happens only when a person approves it
            pending = PendingChange(
                # a richer restatement under review replaces the older memory once approved
                decision="supersede" if isinstance(d, Update) else d.action,  # type: ignore[arg-type]
                target=getattr(d, "target", None),
                link_type=d.type if isinstance(d, Link) else None,
                topics=tuple(review.topics),
                reasons=tuple(review.reasons),
                why=d.why,
            )
            rec = rec.model_copy(
                update={
                    "status": Status.pending_review,
                    "state": rec.state.model_copy(update={"pending": pending}),
                }
            )
            if isinstance(d, Link):
                links.append(RecordLink(type=d.type, target=d.target))
            action, why = "review", "; ".join(review.reasons)
        elif isinstance(d, Supersede):
            if d.cancels and rec.facts.status != "cancelled":
                rec = rec.model_copy(update={"facts": rec.facts.model_copy(update={"status": "cancelled"})})
            old = self._store.get_memory(d.target)
            if old is not None:
                links.append(RecordLink(type="supersedes", target=old.id))
                self._ledger.supersede(old, by=rec.id, why=d.why, at=req.now)
            action, why = "supersede", d.why
        elif isinstance(d, Close):
            plan = self._store.get_memory(d.target)
            if plan is not None:
                links.append(RecordLink(type="closes", target=plan.id))
                self._ledger.close(plan, by=rec.id, why=d.why, at=req.now)
            action, why = "close", d.why
        elif isinstance(d, Link):
            links.append(RecordLink(type=d.type, target=d.target))
            action, why = "link", d.why
        if links:
            rec = rec.model_copy(update={"links": [*rec.links, *links]})
        events = [
            *trail.take(),
            trail.event(
                "encode",
                cand.encoder,
                "; ".join(
                    [f"{cand.kind.value} in {cand.layer.value} memory"]
                    + [r for r in cand.reasons if r.startswith("llm")]
                ),
                unit.lead_message_id,
                memory_id=rec.id,
                scores={"importance": cand.importance},
                detail={"message_ids": list(unit.message_ids)},
            ),
            trail.event("merge", action, why, unit.lead_message_id, memory_id=rec.id),
        ]
        self._ledger.create(
            rec,
            vector=unit.vector,
            reason=f"{action}: {why}",
            actor="pipeline",
            events=events,
            secrets=self._seal(rec, unit.vaulted),
            at=req.now,
        )
        if cand.layer != Layer.working and cand.encoder != VERBATIM_ENCODER:
            # a verbatim memory has no encoding to redo: verification could only drop what the caller kept
            self._queue_verify(rec)
        return WriteItem(
            message_id=unit.lead_message_id,
            action=action,  # type: ignore[arg-type]
            memory_id=rec.id,
            text=rec.text,
            reasons=[why],
        )

    # ------------------------------------------------------------------ pieces
    def _seal(self, rec: MemoryRecord, vaulted: Sequence[tuple[str, str, str]]) -> list[SealedSecret]:
        if not vaulted:
            return []
        vault = self._vault_factory()
        return [
            SealedSecret(
                label=placeholder,
                kind=kind,
                blob=vault.encrypt(value, aad=f"{rec.user_id}:{rec.id}"),
                key_id=vault.key_id,
            )
            for placeholder, kind, value in vaulted
        ]

    def _queue_verify(self, rec: MemoryRecord) -> None:
        if self._settings.write.verify == "queue":
            self._store.enqueue("verify", {"memory_id": rec.id, "user_id": rec.user_id, "attempt": 1})

    def _new_record(self, cand: Candidate, unit: UnitToWrite, req: WriteRequest) -> MemoryRecord:
        cfg = self._settings.write
        expire_at = req.at + timedelta(hours=cfg.working_ttl_hours) if cand.layer == Layer.working else None
        return MemoryRecord(
            id=new_memory_id(),
            user_id=req.user_id,
            agent_id=req.agent_id,
            session_id=req.session_id,
            layer=cand.layer,
            kind=cand.kind,
            text=cand.text,
            raw=cand.raw,
            facts=cand.facts,
            provenance=cand.provenance,
            entities=list(cand.entities),
            time_start=cand.time_start,
            time_end=cand.time_end,
            importance=cand.importance,
            timeliness=cand.timeliness,
            confidence=cand.confidence,
            status=Status.active,
            sources=list(unit.sources),
            metadata=dict(req.metadata),
            created_at=req.at,
            updated_at=req.now,
            expire_at=expire_at,
            version=1,
        )
