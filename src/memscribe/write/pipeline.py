"""The write pipeline runner: trigger -> filter -> encode -> merge -> store -> (queued) verify.

The stages are pure; this module does the I/O at the edges (embedder, store, vault) and records every
stage's decision in the audit log. Each accepted memory commits in one transaction together with its
vector, keyword entry, version, audit events, vault entries and verify job.
"""

from __future__ import annotations

import hashlib
import logging
import re
import uuid
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from memscribe.config import Settings
from memscribe.decisions import Add, Candidate, Link, Merge, MergeDecision, Noop, Supersede, Update
from memscribe.lang.clauses import split_sentences
from memscribe.lang.entities import extract_entities
from memscribe.lang.text import detect_lang, keyword_terms, segment
from memscribe.lang.timeparse import resolve_times
from memscribe.models import AuditEvent, Layer, MemoryRecord, Message, Source, Status, WriteItem, WriteReport
from memscribe.models import Link as RecordLink
from memscribe.providers.embedders import Embedder
from memscribe.store.base import Store
from memscribe.write.encode_llm import LLMEncoder
from memscribe.write.encode_rules import RuleEncoder
from memscribe.write.filter import score_and_route
from memscribe.write.group import Analysed, Unit, combine, group_units
from memscribe.write.merge import Neighbour, decide_merge
from memscribe.write.protect import protect
from memscribe.write.review import needs_review
from memscribe.write.trigger import trigger

_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memscribe-write")

__all__ = ["WritePipeline", "keyword_text_for", "new_memory_id"]

log = logging.getLogger("memscribe.write")
# a repeat of a memory that waits for review merges into it instead of queueing a second copy
_NEIGHBOUR_STATUSES = ("active", "pending_review")
_WS = re.compile(r"\s+")


def new_memory_id() -> str:
    return "mem_" + uuid.uuid4().hex[:20]


def _redelivered(message_ids: list[str], neighbours: list[Neighbour]) -> Noop | None:
    """A memory already built from exactly these messages: the write is a retry, not new evidence."""
    ids = set(message_ids)
    for n in neighbours:
        if ids and ids <= {s.message_id for s in n.record.sources}:
            return Noop(target=n.record.id, why="these messages are already recorded in this memory")
    return None


# The words people ask a slot's value with ("where do I live", "我住哪") are often not the words it was
# stated with ("moved to Shanghai", "搬到上海"). The keyword index (never the text or the embedding) carries
# these question words for memories that fill a slot.
_SLOT_GLOSS = {
    "residence": "live lives home city address 住 住在 居住 家 城市",
    "employer": "work works job employer company 工作 上班 公司 单位",
    "name": "name called 名字 叫",
    "relationship": "relationship partner married single dating 感情 婚姻 对象 单身",
    "phone_pref": "contact reach 联系",
}


def keyword_text_for(rec: MemoryRecord) -> str:
    """What the keyword index holds for a memory: its canonical text and entities, jieba-segmented, and
    the question words of the slot it fills."""
    parts = [rec.text, " ".join(rec.entities)]
    slot = rec.structured.get("slot")
    if isinstance(slot, str):
        parts.append(_SLOT_GLOSS.get(slot.rsplit("|", 1)[-1], ""))
    return segment(" ".join(p for p in parts if p))


def _fingerprint(text: str) -> str:
    return hashlib.sha1(_WS.sub(" ", text.strip().lower()).encode("utf-8")).hexdigest()[:16]


class WritePipeline:
    def __init__(self, store: Store, embedder: Embedder, settings: Settings, vault_factory) -> None:  # type: ignore[no-untyped-def]
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.cfg = settings.write
        self.encoder: RuleEncoder | LLMEncoder = RuleEncoder()
        if settings.llm.base_url:
            # any OpenAI-compatible endpoint makes encoding better; it is never required, and any failure
            # of it falls back to the rule encoder with the reason in the audit log
            self.encoder = LLMEncoder(settings.llm)
        self._vault_factory = vault_factory
        self._recent: dict[str, deque[str]] = {}  # per session: fingerprints of the last 50 messages

    # ------------------------------------------------------------------ analysis (pure per message)
    def _analyse(
        self,
        msgs: list[Message],
        *,
        session_id: str | None,
        conversational: bool,
        seen: set[str],
        now: datetime,
    ) -> tuple[list[Analysed], list[AuditEvent], dict[int, Any]]:
        items: list[Analysed] = []
        audits: list[AuditEvent] = []
        privacy: dict[int, Any] = {}
        for i, m in enumerate(msgs):
            mid = m.id or f"{session_id or 'msg'}:{uuid.uuid4().hex[:8]}"
            at = m.at or now
            prot = protect(m.content)
            privacy[i] = prot
            clean = prot.clean_text
            if prot.vaulted or prot.dropped_kinds:
                audits.append(
                    self._audit(
                        "privacy",
                        "redact",
                        f"sensitive values removed: {', '.join(sorted({k for _, k, _ in prot.vaulted} | set(prot.dropped_kinds)))}",
                        mid,
                        scores={"privacy_risk": prot.risk},
                        detail={"vaulted": len(prot.vaulted), "dropped": list(prot.dropped_kinds)},
                        now=now,
                    )
                )
            trig = trigger(clean, role=m.role)
            sentences = split_sentences(clean)
            fp = _fingerprint(clean)
            repeat = trig.fire and fp in seen and not conversational
            seen.add(fp)
            has_time = bool(resolve_times(clean, at)) if trig.fire else False
            lang = detect_lang(clean)
            ents = extract_entities(clean, lang) if trig.fire else {}
            has_entity = any(ents.get(k) for k in ("people", "places", "orgs", "other"))
            decision = score_and_route(
                trig,
                sentences,
                has_time=has_time,
                has_entity=has_entity,
                role=m.role,
                conversational=conversational,
                privacy_risk=0.0,
                repeat=repeat,
                cfg=self.cfg,
            )
            if prot.vaulted and m.role == "user" and decision.route != "long":
                # the user asked to keep this value (以后都寄这个地址): with the value cut out the rest may
                # look like too little to remember, but dropping it would lose what was asked for
                decision = decision.model_copy(
                    update={
                        "route": "long",
                        "importance": max(decision.importance, self.cfg.long_term_min),
                        "reasons": (*decision.reasons, "keeps a value the user asked to keep (vaulted)"),
                        "attach": "none",
                    }
                )
            audits.append(
                self._audit(
                    "filter",
                    decision.route,
                    "; ".join(decision.reasons) or "no reason",
                    mid,
                    scores={
                        "importance": decision.importance,
                        "timeliness": decision.timeliness,
                        "trigger": trig.strength,
                        "privacy_risk": prot.risk,
                    },
                    detail={"trigger": list(trig.reasons)},
                    now=now,
                )
            )
            cand: Candidate | None = None
            if decision.route != "drop":
                cand = self.encoder.encode(
                    clean,
                    at=at,
                    speaker=m.name,
                    trig=trig,
                    decision=decision,
                    sentences=sentences,
                    conversational=conversational,
                )
            items.append(Analysed(index=i, message=m, message_id=mid, decision=decision, candidate=cand))
        return items, audits, privacy

    def _audit(
        self,
        stage: str,
        action: str,
        reason: str,
        message_id: str | None,
        *,
        now: datetime,
        scores: dict[str, float] | None = None,
        detail: dict[str, Any] | None = None,
        memory_id: str | None = None,
    ) -> AuditEvent:
        return AuditEvent(
            ts=now,
            user_id=self._user,
            memory_id=memory_id,
            message_id=message_id,
            stage=stage,
            action=action,
            reason=reason,
            scores=scores or {},
            detail=detail or {},
        )

    # ------------------------------------------------------------------ run
    def run(
        self,
        msgs: list[Message],
        *,
        user_id: str,
        agent_id: str | None,
        session_id: str | None,
        at: datetime,
        metadata: dict[str, Any] | None,
        now: datetime,
    ) -> WriteReport:
        self._user = user_id
        names = {m.name for m in msgs if m.name}
        conversational = len(names) >= 2
        seen: set[str] = set()
        if session_id:
            if session_id not in self._recent:
                self._recent[session_id] = deque(
                    (_fingerprint(r.content) for r in self.store.session_messages(session_id, last=50)),
                    maxlen=50,
                )
                while (
                    len(self._recent) > 256
                ):  # bounded: the oldest sessions' fingerprints are re-read if needed
                    self._recent.pop(next(iter(self._recent)))
            seen = set(self._recent[session_id])
        items, audits, privacy = self._analyse(
            msgs, session_id=session_id, conversational=conversational, seen=seen, now=now
        )
        report = WriteReport(user_id=user_id)
        units = group_units(
            items,
            conversational=conversational,
            max_turns=self.cfg.group_max_turns,
            max_tokens=self.cfg.group_max_tokens,
        )
        in_unit = {a.index for u in units for a in (*u.members, *u.attached)}
        for a in items:
            if a.candidate is None and a.index not in in_unit:
                report.items.append(
                    WriteItem(message_id=a.message_id, action="drop", reasons=list(a.decision.reasons))
                )
        dropped = sum(1 for a in items if a.candidate is None)

        def bookkeeping() -> None:
            # the session window and the drop counter commit with the first memory (one transaction)
            if session_id:
                self.store.append_session_messages(
                    session_id,
                    user_id,
                    [
                        {
                            "role": m.role,
                            "name": m.name,
                            "content": privacy[i].clean_text,
                            "message_id": items[i].message_id,
                            "at": (m.at or at).isoformat(),
                        }
                        for i, m in enumerate(msgs)
                    ],
                )
            if dropped:
                self.store.bump_counter(user_id, "dropped_by_filter", dropped)

        pending_bookkeeping: Callable[[], None] | None = bookkeeping
        if session_id:
            self._recent[session_id].extend(_fingerprint(privacy[i].clean_text) for i in range(len(msgs)))
        cands = [combine(u) for u in units]
        prefetched = None
        if len(cands) == 1 and cands[0].layer != Layer.working and self._anchored(cands[0]):
            # one memory to write: its keyword neighbours are looked up while it is being embedded
            prefetched = _POOL.submit(self._keyword_neighbours, user_id, cands[0])
        vectors = self.embedder.embed_passages([c.text for c in cands]) if cands else np.zeros((0, 1))
        keyword_hits = prefetched.result() if prefetched is not None else None
        pending_audits = audits
        for unit, cand, vec in zip(units, cands, vectors, strict=True):
            item = self._write_unit(
                unit,
                cand,
                vec,
                user_id=user_id,
                agent_id=agent_id,
                session_id=session_id,
                at=at,
                metadata=metadata or {},
                now=now,
                privacy=privacy,
                audits=pending_audits,
                keyword_hits=keyword_hits,
                first=pending_bookkeeping,
            )
            keyword_hits = None  # only the single-memory case is prefetched
            pending_audits = []
            pending_bookkeeping = None
            report.items.append(item)
        if pending_bookkeeping is not None or pending_audits:
            with self.store.atomic():
                if pending_bookkeeping is not None:
                    pending_bookkeeping()
                if pending_audits:
                    self.store.add_audit(pending_audits)
        return report

    # ------------------------------------------------------------------ merge + store
    @staticmethod
    def _anchored(cand: Candidate) -> bool:
        s = cand.structured
        return bool(
            cand.slot or cand.change or any(s.get(k) for k in ("ids", "places", "orgs", "people", "value"))
        )

    def _keyword_neighbours(self, user_id: str, cand: Candidate) -> list[tuple[str, float]]:
        # the keyword channel finds same-entity memories the embedding ranks low (a changed flight to
        # 成都, order A12345); without an anchor, the vector neighbours are the duplicates that matter
        if not self._anchored(cand):
            return []
        return self.store.keyword_search(
            user_id, keyword_terms(cand.text)[:24], k=5, statuses=_NEIGHBOUR_STATUSES
        )

    def _neighbours(
        self, user_id: str, cand: Candidate, vec: np.ndarray, by_kw: list[tuple[str, float]] | None = None
    ) -> list[Neighbour]:
        by_vec = self.store.vector_search(user_id, vec, k=8, statuses=_NEIGHBOUR_STATUSES)
        if by_kw is None:
            by_kw = self._keyword_neighbours(user_id, cand)
        # far vector neighbours can neither be duplicates nor the same slot's older value
        sims = {i: sim for i, sim in by_vec if sim >= 0.78}
        ids = list(dict.fromkeys([*sims, *(i for i, _ in by_kw)]))
        if not ids:
            return []
        recs = self.store.get_memories(ids)
        missing = [i for i in ids if i not in sims]
        if missing:
            sims.update((i, float(np.dot(v, vec))) for i, v in self.store.get_vectors(missing).items())
        return [Neighbour(record=recs[i], similarity=sims[i]) for i in ids if i in recs and i in sims]

    def _write_unit(
        self,
        unit: Unit,
        cand: Candidate,
        vec: np.ndarray,
        *,
        user_id: str,
        agent_id: str | None,
        session_id: str | None,
        at: datetime,
        metadata: dict[str, Any],
        now: datetime,
        privacy: dict[int, Any],
        audits: list[AuditEvent],
        keyword_hits: list[tuple[str, float]] | None = None,
        first: Callable[[], None] | None = None,
    ) -> WriteItem:
        lead = unit.members[0]
        sources = [
            Source(
                message_id=a.message_id,
                session_id=session_id,
                role=a.message.role,
                name=a.message.name,
                at=a.message.at or at,
            )
            for a in sorted([*unit.members, *unit.attached], key=lambda a: a.index)
        ]
        vaulted = [v for a in unit.members for v in privacy[a.index].vaulted]
        decision: MergeDecision = Add()
        if cand.layer != Layer.working:
            neighbours = self._neighbours(user_id, cand, vec, keyword_hits)
            decision = _redelivered(unit.message_ids, neighbours) or decide_merge(cand, neighbours, self.cfg)
        if vaulted and isinstance(decision, Merge | Update):
            # placeholders hide the values: "寄到[地址#1]" twice may be two different addresses. The newer
            # statement carries its own sealed value and replaces the older one (kept in history)
            decision = Supersede(target=decision.target, why="restated with a newly vaulted value")
        if isinstance(decision, Noop):
            # the same message ids again (a client retry): nothing changes, no version, no confidence gain
            with self.store.atomic():
                if first is not None:
                    first()
                self.store.add_audit(
                    [
                        *audits,
                        self._audit(
                            "merge", "noop", decision.why, lead.message_id, memory_id=decision.target, now=now
                        ),
                    ]
                )
            return WriteItem(
                message_id=lead.message_id, action="noop", memory_id=decision.target, reasons=[decision.why]
            )
        review = None
        if self.settings.review.enabled and cand.layer != Layer.working and not isinstance(decision, Merge):
            # a paraphrase of what is already known changes nothing; anything new that touches identity,
            # money or permissions waits for a person before recall may use it
            review = needs_review(cand, self.settings.review.rules)
            if not review.required:
                review = None
        with self.store.atomic():
            if first is not None:
                first()
            if isinstance(decision, Update) and review is None:
                target = self._update_in_place(decision, sources, cand, vec, now)
                self.store.add_audit(
                    [
                        *audits,
                        self._audit(
                            "merge",
                            "update",
                            decision.why,
                            lead.message_id,
                            memory_id=target.id,
                            now=now,
                            detail={"message_ids": unit.message_ids},
                        ),
                    ]
                )
                if self.cfg.verify == "queue":
                    self.store.enqueue("verify", {"memory_id": target.id, "user_id": user_id, "attempt": 1})
                return WriteItem(
                    message_id=lead.message_id,
                    action="update",
                    memory_id=target.id,
                    text=target.text,
                    reasons=[decision.why],
                )
            if isinstance(decision, Merge):
                target = self._merge_into(decision, sources, cand, now)
                self.store.add_audit(
                    [
                        *audits,
                        self._audit(
                            "merge",
                            "merge",
                            decision.why,
                            lead.message_id,
                            memory_id=target.id,
                            now=now,
                            scores={"similarity": decision.similarity},
                            detail={"message_ids": unit.message_ids},
                        ),
                    ]
                )
                return WriteItem(
                    message_id=lead.message_id,
                    action="merge",
                    memory_id=target.id,
                    text=target.text,
                    reasons=[decision.why],
                )
            rec = self._new_record(
                cand,
                sources,
                user_id=user_id,
                agent_id=agent_id,
                session_id=session_id,
                at=at,
                metadata=metadata,
                now=now,
            )
            action = "add" if cand.layer != Layer.working else "working"
            why = "new information" if action == "add" else "kept in working memory until it expires"
            if review is not None:
                # held back: stored and versioned, but the change it implies (superseding an older value)
                # happens only when a person approves it
                rec.status = Status.pending_review
                rec.structured["review"] = {
                    "topics": list(review.topics),
                    "reasons": review.reasons,
                    # a richer restatement under review replaces the older memory once approved
                    "decision": "supersede" if isinstance(decision, Update) else decision.action,
                    "target": getattr(decision, "target", None),
                    "why": decision.why,
                }
                if isinstance(decision, Link):
                    rec.links.append(RecordLink(type=decision.type, target=decision.target))
                action, why = "review", "; ".join(review.reasons)
            elif isinstance(decision, Supersede):
                old = self.store.get_memory(decision.target)
                if old is not None:
                    rec.links.append(RecordLink(type="supersedes", target=old.id))
                    self._retire(old, rec.id, decision.why, now)
                action, why = "supersede", decision.why
            elif isinstance(decision, Link):
                rec.links.append(RecordLink(type=decision.type, target=decision.target))
                action, why = "link", decision.why
            self.store.put_memory(rec, vector=vec, keyword_text=keyword_text_for(rec))
            self.store.add_version(rec, reason=f"{action}: {why}", actor="pipeline", at=now)
            if vaulted:
                vault = self._vault_factory()
                for placeholder, kind, value in vaulted:
                    self.store.put_secret(
                        user_id,
                        rec.id,
                        placeholder,
                        kind,
                        vault.encrypt(value, aad=f"{user_id}:{rec.id}"),
                        vault.key_id,
                    )
            self.store.add_audit(
                [
                    *audits,
                    self._audit(
                        "encode",
                        cand.encoder,
                        "; ".join(
                            [f"{cand.kind.value} in {cand.layer.value} memory"]
                            + [r for r in cand.reasons if r.startswith("llm")]
                        ),
                        lead.message_id,
                        memory_id=rec.id,
                        now=now,
                        scores={"importance": cand.importance},
                        detail={"message_ids": unit.message_ids},
                    ),
                    self._audit("merge", action, why, lead.message_id, memory_id=rec.id, now=now),
                ]
            )
            if self.cfg.verify == "queue" and cand.layer != Layer.working:
                self.store.enqueue("verify", {"memory_id": rec.id, "user_id": user_id, "attempt": 1})
        return WriteItem(
            message_id=lead.message_id, action=action, memory_id=rec.id, text=rec.text, reasons=[why]
        )  # type: ignore[arg-type]

    def _new_record(
        self,
        cand: Candidate,
        sources: list[Source],
        *,
        user_id: str,
        agent_id: str | None,
        session_id: str | None,
        at: datetime,
        metadata: dict[str, Any],
        now: datetime,
    ) -> MemoryRecord:
        expire_at = at + timedelta(hours=self.cfg.working_ttl_hours) if cand.layer == Layer.working else None
        return MemoryRecord(
            id=new_memory_id(),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            layer=cand.layer,
            kind=cand.kind,
            text=cand.text,
            raw=cand.raw,
            structured=dict(cand.structured),
            entities=list(cand.entities),
            time_start=cand.time_start,
            time_end=cand.time_end,
            importance=cand.importance,
            timeliness=cand.timeliness,
            confidence=cand.confidence,
            status=Status.active,
            sources=sources,
            metadata=dict(metadata),
            created_at=at,
            updated_at=now,
            expire_at=expire_at,
            version=1,
        )

    def _merge_into(self, d: Merge, sources: list[Source], cand: Candidate, now: datetime) -> MemoryRecord:
        target = self.store.get_memory(d.target)
        assert target is not None  # came from this scope's search a moment ago, inside the same lock
        have = {s.message_id for s in target.sources}
        new_sources = [*target.sources, *[s for s in sources if s.message_id not in have]]
        updated = target.model_copy(
            update={
                "sources": new_sources,
                "confidence": round(min(1.0, target.confidence + 0.1), 3),
                "importance": max(target.importance, cand.importance),
                "version": target.version + 1,
                "updated_at": now,
                "structured": {
                    **target.structured,
                    "mentions": int(target.structured.get("mentions", 1)) + 1,
                },
            }
        )
        self.store.put_memory(updated)
        self.store.add_version(updated, reason=f"merge: {d.why}", actor="pipeline", at=now)
        return updated

    def _update_in_place(
        self, d: Update, sources: list[Source], cand: Candidate, vec: np.ndarray, now: datetime
    ) -> MemoryRecord:
        target = self.store.get_memory(d.target)
        assert target is not None  # came from this scope's search a moment ago
        have = {s.message_id for s in target.sources}
        updated = target.model_copy(
            update={
                "text": cand.text,
                "raw": cand.raw,
                "structured": {
                    **target.structured,
                    **cand.structured,
                    "mentions": int(target.structured.get("mentions", 1)) + 1,
                },
                "entities": list(dict.fromkeys([*target.entities, *cand.entities])),
                "time_start": cand.time_start or target.time_start,
                "time_end": cand.time_end or target.time_end,
                "sources": [*target.sources, *[s for s in sources if s.message_id not in have]],
                "importance": max(target.importance, cand.importance),
                "confidence": round(min(1.0, target.confidence + 0.1), 3),
                "version": target.version + 1,
                "updated_at": now,
            }
        )
        self.store.put_memory(updated, vector=vec, keyword_text=keyword_text_for(updated))
        self.store.add_version(updated, reason=f"update: {d.why}", actor="pipeline", at=now)
        return updated

    def _retire(self, old: MemoryRecord, new_id: str, why: str, now: datetime) -> None:
        retired = old.model_copy(
            update={
                "status": Status.superseded,
                "superseded_by": new_id,
                "version": old.version + 1,
                "updated_at": now,
            }
        )
        self.store.put_memory(retired)
        self.store.add_version(retired, reason=f"superseded: {why}", actor="pipeline", at=now)
