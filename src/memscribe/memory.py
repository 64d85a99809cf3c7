"""The public API: ``Memory`` (sync) and ``AsyncMemory`` (async twin over the same core).

All decisions live in the pipeline stages and read-path modules; this module wires them to a store and
an embedder, validates input at the boundary, and owns the background worker for queued jobs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.config import Settings
from memscribe.errors import InputError, LimitExceeded, NotFoundError, RateLimited
from memscribe.facts import Reviewed
from memscribe.jobs import BackgroundWorker, JobRunner, RunReport
from memscribe.lang.text import count_tokens
from memscribe.layers.session import SessionMemory
from memscribe.layers.working import WorkingMemory
from memscribe.ledger import Ledger, SealedSecret
from memscribe.lifecycle.ratelimit import KeyedBuckets, TokenBucket, admit
from memscribe.metrics import Metrics
from memscribe.models import (
    AuditEvent,
    Context,
    Hit,
    MemoryRecord,
    Message,
    Status,
    Version,
    WriteItem,
    WriteReport,
)
from memscribe.models import Link as RecordLink
from memscribe.providers.embedders import Embedder, make_embedder
from memscribe.read.assemble import fit_block, format_line, pack_lines
from memscribe.read.recall import hybrid_recall, validate_filters
from memscribe.read.rewrite import rewrite_query
from memscribe.store import open_store
from memscribe.store.base import Store
from memscribe.write.normalize import normalize_messages, parse_at, require_user
from memscribe.write.pipeline import WritePipeline
from memscribe.write.request import WriteRequest
from memscribe.write.verify import VerifyJob

if TYPE_CHECKING:
    from memscribe.lifecycle.maintain import MaintenanceReport

__all__ = ["AsyncMemory", "Memory"]

log = logging.getLogger("memscribe")

_ALL_STATUSES = tuple(s.value for s in Status)
_EDITABLE = {
    "text",
    "kind",
    "layer",
    "structured",
    "entities",
    "time_start",
    "time_end",
    "importance",
    "confidence",
    "metadata",
    "expire_at",
    "status",
}


def _now() -> datetime:
    return datetime.now(UTC)


def _check_depth(value: Any, *, limit: int) -> None:
    """Metadata nested deeper than ``limit`` is refused before anything recursive touches it."""
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if depth > limit:
            raise InputError(f"metadata is nested deeper than {limit} levels")
        if isinstance(v, Mapping):
            stack.extend((x, depth + 1) for x in v.values())
        elif isinstance(v, list | tuple):
            stack.extend((x, depth + 1) for x in v)


class Memory:
    """Long-term memory for one store (a folder, ``MEMSCRIBE_HOME`` or ``./.memscribe/`` by default)."""

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        settings: Settings | None = None,
        store: str | Store | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        s = settings or Settings()
        if home is not None:
            s = s.model_copy(update={"home": Path(home)})
        if isinstance(store, str):
            s = s.model_copy(update={"store": store})
        self.settings = s
        self.store: Store = store if (store is not None and not isinstance(store, str)) else open_store(s)
        self.embedder = embedder or make_embedder(s.embedder, base_url=s.llm.base_url, api_key=s.llm.api_key)
        self.store.check_embedder(self.embedder.name, self.embedder.dim)
        self._ledger = Ledger(self.store, self.embedder, clock=_now)
        self._pipeline = WritePipeline(self.store, self.embedder, s, self._vault, self._ledger)
        self._vault_obj = None
        self._touch_lock = threading.Lock()
        self._pending_touch: dict[str, datetime] = {}
        self._worker_embedder: Embedder | None = None
        self._closed = False
        self._jobs = JobRunner(self.store, clock=_now)
        self._jobs.register(
            "verify", VerifyJob(self.store, lambda: self.worker_embedder, s, self._ledger, clock=_now)
        )
        self._jobs.register("deferred_add", self._run_deferred)
        self._worker = BackgroundWorker(self._jobs, after_run=self._flush_touch)
        lim = s.limits
        self._user_buckets = KeyedBuckets(lim.user_rate, lim.user_burst) if lim.user_rate else None
        self._tenant_bucket = TokenBucket(lim.tenant_rate, lim.tenant_burst) if lim.tenant_rate else None
        self._user_counts: dict[str, tuple[float, int]] = {}  # user -> (monotonic time, memory count)
        self.metrics = Metrics(self._metrics_snapshot)
        self.store.requeue_running()  # jobs of a process that died resume here

    # ------------------------------------------------------------------ plumbing
    def _vault(self):  # type: ignore[no-untyped-def]
        if self._vault_obj is None:
            from memscribe.vault import Vault, load_or_create_key

            home = Path(self.settings.home)
            pending = home / "vault.key.next"
            if not self.settings.vault_key and pending.exists():
                # a rotation was interrupted: keep whichever key the stored rows were sealed with
                candidate = Vault(load_or_create_key(home, pending.read_text().strip()))
                used = {r.key_id for r in self.store.all_secrets()}
                if candidate.key_id in used:
                    os.replace(pending, home / "vault.key")
                else:
                    pending.unlink()
            self._vault_obj = Vault(load_or_create_key(home, self.settings.vault_key))
        return self._vault_obj

    @property
    def worker_embedder(self) -> Embedder:
        """The embedder background jobs use: its own engine when the provider can clone one, so queued
        verification never waits on (or blocks) the caller's add() and search()."""
        with self._touch_lock:  # the worker thread and flush() may both ask first: build one engine
            if self._worker_embedder is None:
                clone = getattr(self.embedder, "clone", None)
                self._worker_embedder = clone() if callable(clone) else self.embedder
            return self._worker_embedder

    def _ensure_worker(self) -> None:
        if self.settings.write.verify == "queue":
            self._worker.wake()

    def _flush_touch(self) -> None:
        with self._touch_lock:
            pending, self._pending_touch = self._pending_touch, {}
        if pending:
            at = max(pending.values())
            self.store.touch(list(pending), at)

    def _get(self, memory_id: str) -> MemoryRecord:
        if not isinstance(memory_id, str) or not memory_id:
            raise InputError("memory id must be a non-empty string")
        rec = self.store.get_memory(memory_id)
        if rec is None:
            raise NotFoundError(f"no memory {memory_id!r}")
        return rec

    # ------------------------------------------------------------------ write
    def add(
        self,
        messages: Any,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        at: str | datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> WriteReport:
        user_id = require_user(user_id)
        when = parse_at(at)
        if metadata is not None and not isinstance(metadata, Mapping):
            raise InputError("metadata must be a dict")
        meta = dict(metadata or {})
        _check_depth(meta, limit=32)
        try:
            encoded = json.dumps(meta)
        except (TypeError, ValueError, RecursionError) as exc:
            raise InputError(f"metadata must be JSON-serialisable: {exc}") from exc
        if len(encoded) > 16_384:
            raise InputError("metadata is larger than 16 KB")
        msgs = normalize_messages(messages, max_bytes=self.settings.write.max_message_bytes, at=when)
        self._check_limits(user_id)
        delay = self._admit(user_id)
        if delay > 0:
            return self._defer(
                msgs,
                user_id=user_id,
                agent_id=agent_id,
                session_id=session_id,
                at=when,
                meta=meta,
                delay=delay,
            )
        self._worker.note_write()
        report = self._run_pipeline(
            msgs, user_id=user_id, agent_id=agent_id, session_id=session_id, at=when, metadata=meta
        )
        self._worker.note_write()
        seen = self._user_counts.get(user_id)
        if seen is not None:
            new = sum(1 for i in report.items if i.action in ("add", "supersede", "link", "review"))
            self._user_counts[user_id] = (seen[0], seen[1] + new)
        self._after_write()
        return report

    def _after_write(self) -> None:
        if self.settings.write.verify == "queue":
            self._worker.wake()
        elif self.settings.write.verify == "inline":
            self._jobs.run()

    # ------------------------------------------------------------------ admission: limits and rates
    def _check_limits(self, user_id: str) -> None:
        lim = self.settings.limits
        if lim.max_memories_per_user is not None:
            seen = self._user_counts.get(user_id)
            # a count a few seconds old is good enough far from the limit; near it, count again
            if (
                seen is None
                or time.monotonic() - seen[0] > 5.0
                or seen[1] >= 0.95 * lim.max_memories_per_user
            ):
                counts = self.store.count_memories(user_id)
                n = sum(counts.get(st, 0) for st in ("active", "archived", "pending_review"))
                seen = (time.monotonic(), n)
                self._user_counts[user_id] = seen
            if seen[1] >= lim.max_memories_per_user:
                raise LimitExceeded(
                    f"user {user_id!r} has {seen[1]} memories, the limit is {lim.max_memories_per_user}; "
                    "forget or archive some, or raise limits.max_memories_per_user"
                )
        if lim.max_store_mb is not None:
            size_mb = self.store.size_bytes() / 1e6
            if size_mb >= lim.max_store_mb:
                raise LimitExceeded(
                    f"the store is {size_mb:.1f} MB, the limit is {lim.max_store_mb} MB; "
                    "run `memscribe maintain`, forget users, or raise limits.max_store_mb"
                )

    def _admit(self, user_id: str) -> float:
        """Seconds this write must wait (0 = now); raises RateLimited in error mode."""
        buckets: list[tuple[str, TokenBucket]] = []
        if self._user_buckets is not None:
            buckets.append(("user", self._user_buckets.get(user_id)))
        if self._tenant_bucket is not None:
            buckets.append(("tenant", self._tenant_bucket))
        if not buckets:
            return 0.0
        mode = self.settings.limits.on_exceed
        decision = admit(buckets, mode=mode)
        if decision.delay_s <= 0:
            return 0.0
        if mode == "error":
            self.store.bump_counter(user_id, "writes_rate_limited", 1)
            raise RateLimited(
                f"over the {decision.limited_by} write rate; retry in {decision.delay_s:.2f} s",
                retry_after=decision.delay_s,
            )
        return decision.delay_s

    def _defer(
        self,
        msgs: list[Message],
        *,
        user_id: str,
        agent_id: str | None,
        session_id: str | None,
        at: datetime,
        meta: dict[str, Any],
        delay: float,
    ) -> WriteReport:
        """Over the rate: the whole write waits in the durable queue, sealed with the vault key (the raw
        messages may carry values the privacy stage has not removed yet), and runs at its turn."""
        import base64

        vault = self._vault()
        body = json.dumps(
            {
                "messages": [m.model_dump(mode="json") for m in msgs],
                "agent_id": agent_id,
                "session_id": session_id,
                "at": at.isoformat(),
                "metadata": meta,
            },
            ensure_ascii=False,
        )
        sealed = base64.b64encode(vault.encrypt(body, aad=f"deferred:{user_id}")).decode()
        with self.store.atomic():
            job = self.store.enqueue(
                "deferred_add",
                {"user_id": user_id, "sealed": sealed, "key_id": vault.key_id},
                run_after=_now() + timedelta(seconds=delay),
            )
            self.store.bump_counter(user_id, "writes_deferred", 1)
        self._worker.wake()
        reason = f"over the write rate: queued (job {job}), runs in {delay:.2f} s"
        return WriteReport(
            user_id=user_id,
            items=[
                WriteItem(message_id=m.id or f"job{job}:{i}", action="deferred", reasons=[reason])
                for i, m in enumerate(msgs)
            ],
        )

    def _run_deferred(self, job: Mapping[str, Any]) -> None:
        import base64

        payload = job.payload
        user_id = payload["user_id"]
        body = json.loads(
            self._vault().decrypt(base64.b64decode(payload["sealed"]), aad=f"deferred:{user_id}")
        )
        msgs = [Message.model_validate(m) for m in body["messages"]]
        self._run_pipeline(
            msgs,
            user_id=user_id,
            agent_id=body["agent_id"],
            session_id=body["session_id"],
            at=datetime.fromisoformat(body["at"]),
            metadata=body["metadata"],
        )
        self.store.bump_counter(user_id, "writes_deferred_done", 1)

    def _run_pipeline(
        self,
        msgs: list[Message],
        *,
        user_id: str,
        agent_id: str | None,
        session_id: str | None,
        at: datetime,
        metadata: dict[str, Any],
    ) -> WriteReport:
        """One write through the pipeline, timed (add() and deferred writes); the pipeline locks only the
        user's neighbour lookup and commit."""
        req = WriteRequest(
            user_id=user_id, agent_id=agent_id, session_id=session_id, at=at, now=_now(), metadata=metadata
        )
        with self.metrics.timed("add"):
            return self._pipeline.run(msgs, req)

    def flush(self, *, deferred: bool = False) -> RunReport:
        """Run queued background work (verification) now and write pending access statistics.

        ``deferred=True`` also runs, now, the writes that the rate limit queued for later. Returns what ran:
        a job whose handler fails is retried with backoff and, at its attempt cap, ends ``failed`` (audited,
        counted in ``stats()``) — it never blocks the jobs behind it, and flush() does not raise for it.
        """
        report = self._jobs.run(until=_now() + timedelta(days=36_500) if deferred else None)
        self._flush_touch()
        return report

    # ------------------------------------------------------------------ read
    def _scored(
        self,
        query: str,
        *,
        user_id: str,
        k: int,
        filters: Mapping[str, Any] | None,
        deep: bool,
        session_id: str | None = None,
        now: datetime | None = None,
    ) -> list:
        if not isinstance(query, str):
            raise InputError("query must be a string")
        if not query.strip():
            raise InputError("query is empty")
        if len(query.encode("utf-8", "surrogatepass")) > self.settings.write.max_message_bytes:
            raise InputError("query is longer than the message size limit")
        now = now or _now()
        f = validate_filters(filters)
        recent = None
        if session_id:
            recent = [r.content for r in self.store.session_messages(session_id, last=6)]
        rq = rewrite_query(query, now=now, recent_turns=recent)
        statuses = ("active",)
        if deep:
            statuses = ("active", "archived")
        if f.get("status"):
            statuses = tuple({f["status"]} if isinstance(f["status"], str) else f["status"])
        return hybrid_recall(
            self.store,
            self.embedder,
            user_id=user_id,
            query=rq.text,
            now=now,
            window=rq.window,
            k=k,
            cfg=self.settings.recall,
            life=self.settings.lifecycle,
            statuses=statuses,
            deep=deep,
            filters=f,
        )

    def _record_access(self, ids: Iterable[str]) -> None:
        now = _now()
        with self._touch_lock:
            for i in ids:
                self._pending_touch[i] = now
            many = len(self._pending_touch) >= 256
        if many and not self._worker.running:
            self._flush_touch()
        elif self._worker.running:
            self._worker.wake()

    def search(
        self,
        query: str,
        *,
        user_id: str,
        limit: int = 10,
        filters: Mapping[str, Any] | None = None,
        deep: bool = False,
        session_id: str | None = None,
    ) -> list[Hit]:
        user_id = require_user(user_id)
        if not isinstance(limit, int) or limit < 1 or limit > 1000:
            raise InputError("limit must be an integer between 1 and 1000")
        with self.metrics.timed("search"):
            scored = self._scored(
                query, user_id=user_id, k=max(limit, 20), filters=filters, deep=deep, session_id=session_id
            )[:limit]
        self._record_access(s.record.id for s in scored)
        return [Hit(memory=s.record, score=s.score, why=s.why) for s in scored]

    def context(
        self,
        query: str,
        *,
        user_id: str,
        session_id: str | None = None,
        budget_tokens: int = 1000,
        max_items: int | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> Context:
        user_id = require_user(user_id)
        if not isinstance(budget_tokens, int) or budget_tokens < 1:
            raise InputError("budget_tokens must be a positive integer")
        with self.metrics.timed("context"):
            return self._context(
                query,
                user_id=user_id,
                session_id=session_id,
                budget_tokens=budget_tokens,
                max_items=max_items,
                filters=filters,
            )

    def _context(
        self,
        query: str,
        *,
        user_id: str,
        session_id: str | None,
        budget_tokens: int,
        max_items: int | None,
        filters: Mapping[str, Any] | None,
    ) -> Context:
        blocks: dict[str, str] = {}
        mem_budget = budget_tokens
        if session_id:
            sess = self.session(session_id, user_id=user_id)
            working = WorkingMemory(self.store, user_id, None, self.settings).render()
            spend = {
                "task state": (working, 0.10),
                "session summary": (sess.summary(), 0.15),
                "recent turns": (sess.render_recent(), 0.25),
            }
            for title, (body, share) in spend.items():
                block = fit_block(f"## {title}", body, int(budget_tokens * share))
                if block:
                    blocks[title] = block
            mem_budget = budget_tokens - sum(count_tokens(b) + 2 for b in blocks.values())
        k = max(20, min(200, mem_budget // 12))
        scored = self._scored(query, user_id=user_id, k=k, filters=filters, deep=False, session_id=session_id)
        limit = max_items if max_items is not None else self.settings.recall.context_max_items
        lines = [format_line(s.record) for s in scored]
        header = "## memories\n" if blocks else ""
        chosen, _ = pack_lines(lines, mem_budget - count_tokens(header), max_items=limit)
        items = [Hit(memory=scored[i].record, score=scored[i].score, why=scored[i].why) for i in chosen]
        parts = [b for b in blocks.values()]
        if chosen:
            parts.append(header + "\n".join(lines[i] for i in chosen))
        text = "\n\n".join(parts)
        tokens = count_tokens(text)
        assert tokens <= budget_tokens, "context assembly exceeded its budget"
        self._record_access(h.memory.id for h in items)
        return Context(text=text, items=items, tokens=tokens, budget_tokens=budget_tokens, blocks=blocks)

    # ------------------------------------------------------------------ inspect and correct
    def get(self, memory_id: str) -> MemoryRecord:
        return self._get(memory_id)

    def list(
        self,
        *,
        user_id: str,
        status: str | None = "active",
        kind: str | None = None,
        layer: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[MemoryRecord]:
        user_id = require_user(user_id)
        if status in (None, "all"):
            statuses = None
        elif status in _ALL_STATUSES:
            statuses = (status,)
        else:
            raise InputError(f"unknown status {status!r}; use one of {list(_ALL_STATUSES)} or None for all")
        return self.store.list_memories(
            user_id, statuses=statuses, kind=kind, layer=layer, limit=limit, offset=offset
        )

    def _revise(
        self, changed: MemoryRecord, *, reason: str, actor: str, action: str, reembed: bool
    ) -> MemoryRecord:
        """An edit of a person's (or a reviewer's): a new version, with the vector and keyword entry
        rewritten when the text changed."""
        return self._ledger.revise(
            changed, reason=reason, actor=actor, stage="edit", action=action, reembed=reembed
        )

    def update(
        self,
        memory_id: str,
        *,
        text: str | None = None,
        reason: str = "edited",
        actor: str = "user",
        **fields: Any,
    ) -> MemoryRecord:
        rec = self._get(memory_id)
        unknown = set(fields) - _EDITABLE
        if unknown:
            raise InputError(f"cannot edit fields {sorted(unknown)}; editable: {sorted(_EDITABLE)}")
        changes = dict(fields)
        if text is not None:
            from memscribe.write.protect import protect

            if not isinstance(text, str) or not text.strip():
                raise InputError("text must be a non-empty string")
            changes["text"] = protect(text).clean_text  # an edit never smuggles a secret past the filter
        data = rec.model_dump()
        data.update(changes)
        new = MemoryRecord.model_validate(data)
        return self._revise(
            new,
            reason=reason,
            actor=actor,
            action="update",
            reembed="text" in changes or "entities" in changes,
        )

    def delete(self, memory_id: str, *, reason: str = "deleted by request") -> MemoryRecord:
        rec = self._get(memory_id)
        changed = rec.model_copy(update={"status": Status.deleted})
        return self._revise(changed, reason=reason, actor="user", action="delete", reembed=False)

    def restore(self, memory_id: str, *, reason: str = "restored") -> MemoryRecord:
        rec = self._get(memory_id)
        changed = rec.model_copy(update={"status": Status.active})
        return self._revise(changed, reason=reason, actor="user", action="restore", reembed=False)

    def users(self) -> list[str]:
        """Every user id with memories in this store, sorted."""
        return sorted(self.store.iter_users())

    # ------------------------------------------------------------------ review queue
    def review_queue(self, *, user_id: str | None = None, limit: int | None = None) -> list[MemoryRecord]:
        """Memories waiting for a person's approval (identity, money, permissions), oldest first."""
        users = [require_user(user_id)] if user_id is not None else list(self.store.iter_users())
        out: list[MemoryRecord] = []
        for u in users:
            out.extend(self.store.list_memories(u, statuses=(Status.pending_review.value,)))
        out.sort(key=lambda r: (r.updated_at, r.id))
        return out[:limit] if limit is not None else out

    def _pending(self, memory_id: str) -> MemoryRecord:
        rec = self._get(memory_id)
        if rec.status != Status.pending_review:
            raise InputError(f"memory {memory_id!r} is {rec.status.value}, not pending review")
        return rec

    def approve(self, memory_id: str, *, actor: str = "reviewer", reason: str | None = None) -> MemoryRecord:
        """Let recall use a held-back memory; the change it stood for (superseding an older value of the
        same slot) happens now, in the same transaction."""
        rec = self._pending(memory_id)
        now = _now()
        pending = rec.state.pending
        links = list(rec.links)
        with self._pipeline.locks.hold(rec.user_id), self.store.atomic():
            if pending is not None and pending.decision == "supersede" and pending.target:
                old = self.store.get_memory(pending.target)
                if old is not None and old.status == Status.active:
                    links.append(RecordLink(type="supersedes", target=old.id))
                    self._ledger.retire(
                        old,
                        status=Status.superseded,
                        superseded_by=rec.id,
                        reason=f"superseded: {pending.why or 'approved change'}",
                        actor="pipeline",
                        stage="merge",
                        at=now,
                    )
            reviewed = Reviewed(by=actor, at=now.isoformat(), topics=pending.topics if pending else ())
            changed = rec.model_copy(
                update={
                    "status": Status.active,
                    "state": rec.state.model_copy(update={"pending": None, "reviewed": reviewed}),
                    "links": links,
                }
            )
            return self._revise(
                changed, reason=reason or "approved in review", actor=actor, action="approve", reembed=False
            )

    def reject(self, memory_id: str, *, actor: str = "reviewer", reason: str | None = None) -> MemoryRecord:
        """Refuse a held-back memory: it is deleted (kept in history with the reason), nothing it implied
        happens."""
        rec = self._pending(memory_id)
        changed = rec.model_copy(update={"status": Status.deleted})
        return self._revise(
            changed, reason=reason or "rejected in review", actor=actor, action="reject", reembed=False
        )

    def history(self, memory_id: str) -> list[Version]:
        """Versions of this memory, preceded by those of the memories it superseded (the fact's whole story)."""
        rec = self._get(memory_id)
        chain: list[Version] = []
        seen = {rec.id}
        pending = [link.target for link in rec.links if link.type == "supersedes"]
        while pending:
            prev = pending.pop()
            if prev in seen:
                continue
            seen.add(prev)
            chain = self.store.versions(prev) + chain
            old = self.store.get_memory(prev)
            if old is not None:
                pending.extend(link.target for link in old.links if link.type == "supersedes")
        return chain + self.store.versions(rec.id)

    def rollback(self, memory_id: str, version: int, *, reason: str | None = None) -> MemoryRecord:
        rec = self._get(memory_id)
        target = next((v for v in self.store.versions(memory_id) if v.version == version), None)
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
        changed = MemoryRecord.model_validate(data)
        return self._revise(
            changed,
            reason=reason or f"rollback to version {version}",
            actor="user",
            action="rollback",
            reembed=True,
        )

    def explain(self, memory_id: str) -> list[AuditEvent]:
        """Why is this remembered: every stage decision about this memory and its source messages."""
        rec = self._get(memory_id)
        events = self.store.audit_for(memory_id=memory_id)
        ids = {s.message_id for s in rec.sources}
        seen = {e.id for e in events}
        for e in self.store.audit_for(user_id=rec.user_id):
            if e.message_id in ids and e.id not in seen and e.memory_id is None:
                events.append(e)
        return sorted(events, key=lambda e: e.id or 0)

    def reveal(self, memory_id: str) -> dict[str, str]:
        """The vaulted values of a memory (placeholder -> value); needs the vault key."""
        rec = self._get(memory_id)
        vault = self._vault()
        return {
            s.label: vault.decrypt(s.ciphertext, aad=f"{rec.user_id}:{rec.id}")
            for s in self.store.secrets_for(memory_id)
        }

    def backup(self, path: str | Path) -> Path:
        """A consistent copy of the store while it is in use (SQLite online backup API)."""
        dest = Path(path)
        if dest.exists():
            raise InputError(f"{dest} exists; choose a new file for the backup")
        dest.parent.mkdir(parents=True, exist_ok=True)
        self.flush()
        self.store.backup_to(dest)
        return dest

    def rotate_vault_key(self) -> str | None:
        """Re-encrypt every vaulted value under a fresh key; the old key stops working.

        With a key file (the default) the new key replaces it atomically and None is returned. With
        ``MEMSCRIBE_VAULT_KEY`` the new key is returned once (url-safe base64): set it before restarting.
        """
        import base64

        from memscribe.vault import KEY_FILE, Vault

        # writes waiting for their rate slot are sealed with the current key: run them before it goes
        self.flush(deferred=True)
        old = self._vault()
        new_key = os.urandom(32)
        new = Vault(new_key)
        rows = self.store.all_secrets()
        aads = {}
        for r in rows:
            rec = self.store.get_memory(r.memory_id)
            aads[r.id] = f"{rec.user_id}:{rec.id}" if rec is not None else ""
        blobs = old.rotate([(r.ciphertext, aads[r.id]) for r in rows], new)
        encoded = base64.urlsafe_b64encode(new_key).decode()
        path = Path(self.settings.home) / KEY_FILE
        pending = path.with_name(KEY_FILE + ".next")
        if not self.settings.vault_key:
            # the new key is on disk before any row uses it; renamed into place only after the commit, and
            # _vault() finishes an interrupted rotation by the key_id the rows carry
            fd = os.open(pending, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(encoded + "\n")
                fh.flush()
                os.fsync(fh.fileno())
        with self.store.atomic():
            for r, blob in zip(rows, blobs, strict=True):
                self.store.replace_secret(r.id, blob, new.key_id)
        if not self.settings.vault_key:
            os.replace(pending, path)
        self._vault_obj = new
        return None if not self.settings.vault_key else encoded

    def forget(self, *, user_id: str) -> int:
        """Hard erase of everything of this user: memories, vectors, keyword entries, versions, audit, sessions."""
        user_id = require_user(user_id)
        with self._touch_lock:
            self._pending_touch.clear()
        return self._ledger.erase_user(user_id)

    # ------------------------------------------------------------------ layers
    def session(self, session_id: str, *, user_id: str | None = None) -> SessionMemory:
        return SessionMemory(self.store, session_id, user_id, self.settings)

    def working(self, task_id: str, *, user_id: str) -> WorkingMemory:
        return WorkingMemory(self.store, require_user(user_id), task_id, self.settings)

    # ------------------------------------------------------------------ export / import
    def export(self, *, user_id: str | None = None) -> list[dict[str, Any]]:
        """Everything needed to rebuild the long-term memory elsewhere, as JSON-ready dicts (one per line
        of a JSONL file): per user, the audit trail in chunks (``{"_type": "audit", "id": "_audit:<user>:<n>",
        "user_id", "events"}``) and then every memory in every status, each with ``_versions`` (full
        history) and ``_vault`` (its sealed values: ciphertext, never plaintext). Links, supersession and
        sources are fields of the records. Left out, being derived or transient: vectors and keyword entries
        (rebuilt on import with the store's embedder), store-local row ids, session windows, working items,
        counters and the job queue."""
        import base64

        if user_id is not None:
            users = [require_user(user_id)]
        else:  # with users whose every message was dropped: their audit trail says why
            users = sorted({*self.store.iter_users(), *(e.user_id for e in self.store.audit_for())})
        out: list[dict[str, Any]] = []
        for u in users:
            events = [e.model_dump(mode="json", exclude={"id"}) for e in self.store.audit_for(user_id=u)]
            for n, i in enumerate(range(0, len(events), 1000)):
                out.append(
                    {"_type": "audit", "id": f"_audit:{u}:{n}", "user_id": u, "events": events[i : i + 1000]}
                )
            for rec in self.store.list_memories(u, statuses=None):
                d = rec.model_dump(mode="json")
                d["_versions"] = [v.model_dump(mode="json") for v in self.store.versions(rec.id)]
                secrets = self.store.secrets_for(rec.id)
                if secrets:
                    d["_vault"] = [
                        {
                            "label": s.label,
                            "kind": s.kind,
                            "key_id": s.key_id,
                            "ciphertext": base64.b64encode(s.ciphertext).decode("ascii"),
                        }
                        for s in secrets
                    ]
                out.append(d)
        return out

    def import_(
        self, records: Iterable[Mapping[str, Any]], *, batch_size: int = 256, dry_run: bool = False
    ) -> int:
        """Load an :meth:`export` (dicts, e.g. the lines of a JSONL file); returns the number of memories.

        Ids, every field, versions, links, vault ciphertexts (sealed: they open only with the vault key they
        were sealed with) and the audit trail come back as they were; vectors and keyword entries are
        rebuilt with this store's embedder. A list is validated completely before anything is written; an
        iterator (a file being streamed) is validated and written ``batch_size`` items at a time, each batch
        in one transaction. Importing the same export twice changes nothing the second time. ``dry_run``
        only validates (and counts the memories)."""
        import base64
        import binascii
        from collections import Counter

        def parse(raw: Any) -> tuple[str, Any]:
            if not isinstance(raw, Mapping):
                raise InputError("each imported record must be a dict (one JSON object per line)")
            d = dict(raw)
            if d.get("_type") == "audit":
                try:
                    user = require_user(d.get("user_id"))
                    evs = [AuditEvent.model_validate({**e, "id": None}) for e in d.get("events") or []]
                except (ValueError, TypeError) as exc:
                    raise InputError(f"invalid audit item: {exc}") from exc
                if any(e.user_id != user for e in evs):
                    raise InputError("an audit item holds events of another user")
                return "audit", (user, evs)
            if "_type" in d:
                raise InputError(f"unknown item type {d['_type']!r}")
            try:
                versions = [Version.model_validate(v) for v in d.pop("_versions", None) or []]
                vault = [
                    (
                        str(s["label"]),
                        str(s["kind"]),
                        str(s["key_id"]),
                        base64.b64decode(s["ciphertext"], validate=True),
                    )
                    for s in d.pop("_vault", None) or []
                ]
                rec = MemoryRecord.model_validate(d)
            except (ValueError, TypeError, KeyError, binascii.Error) as exc:
                raise InputError(f"invalid record: {exc}") from exc
            if any(v.memory_id != rec.id for v in versions):
                raise InputError(f"record {rec.id!r} carries versions of another memory")
            return "memory", (rec, versions, vault)

        seen_audit: dict[str, Counter[tuple[Any, ...]]] = {}

        def audit_key(e: AuditEvent) -> tuple[Any, ...]:
            return (e.ts, e.memory_id, e.message_id, e.stage, e.action, e.reason)

        def write(items: list[tuple[str, Any]]) -> int:
            mems = [it for kind, it in items if kind == "memory"]
            vecs = self.embedder.embed_passages([r.text for r, _, _ in mems]) if mems else []
            vec_of = dict(zip((r.id for r, _, _ in mems), vecs, strict=True))
            with self.store.atomic():
                for kind, it in items:
                    if kind == "audit":
                        user, evs = it
                        if user not in seen_audit:
                            seen_audit[user] = Counter(
                                audit_key(e) for e in self.store.audit_for(user_id=user)
                            )
                        have = seen_audit[user]
                        fresh = []
                        for e in evs:
                            if have[audit_key(e)] > 0:
                                have[audit_key(e)] -= 1  # already in this store (a second import)
                            else:
                                fresh.append(e)
                        self.store.add_audit(fresh)
                        continue
                    rec, versions, vault = it
                    self._ledger.restore_imported(
                        rec,
                        vector=vec_of[rec.id],
                        versions=versions,
                        secrets=[SealedSecret(label=a, kind=b, key_id=c, blob=d) for a, b, c, d in vault],
                    )
            return len(mems)

        def parsed_items() -> Iterable[tuple[str, Any]]:
            for i, raw in enumerate(records):
                try:
                    yield parse(raw)
                except InputError as exc:
                    raise InputError(f"item {i + 1}: {exc}") from exc

        if dry_run:
            return sum(1 for kind, _ in parsed_items() if kind == "memory")
        if isinstance(records, list | tuple):
            parsed = list(parsed_items())  # all or nothing: a bad item anywhere writes nothing
            return sum(write(parsed[i : i + batch_size]) for i in range(0, len(parsed), batch_size))
        n = 0
        batch: list[tuple[str, Any]] = []
        for item in parsed_items():
            batch.append(item)
            if len(batch) >= batch_size:
                n += write(batch)
                batch = []
        if batch:
            n += write(batch)
        return n

    # ------------------------------------------------------------------ stats and lifecycle
    def stats(self, *, user_id: str | None = None) -> dict[str, Any]:
        """Counts by status, layer and kind, new memories per day, write-path counters (dropped by the
        filter, verify failures, deferred or refused writes), queue depth, and this process's latencies."""
        facets = self.store.memory_facets(user_id)
        return {
            "memories_by_status": facets["status"],
            "memories_by_layer": facets["layer"],
            "memories_by_kind": facets["kind"],
            "daily_new": facets["daily_new"],
            "counters": self.store.counters(user_id),
            "queue_depth": self.store.pending_jobs(),
            "jobs": self.store.job_counts(),  # by status: pending, running, failed (kept with their error)
            "pending_review": facets["status"].get(Status.pending_review.value, 0),
            "latency_ms": self.metrics.latency_summary(),
        }

    def _metrics_snapshot(self) -> dict[str, Any]:
        return {
            "facets": self.store.memory_facets(None, days=7),
            "counters": self.store.counters(None),
            "queue_depth": self.store.pending_jobs(),
        }

    def metrics_text(self) -> str:
        """Prometheus exposition text: latency histograms of this process and the store's counts."""
        return self.metrics.text()

    def maintain(
        self, *, now: datetime | None = None, dry_run: bool = False, user_id: str | None = None
    ) -> MaintenanceReport:
        """Expire TTLs, archive cold memories, decay unconfirmed inferences, merge near-duplicates and
        consolidate repeated episodes (DESIGN §4). Every change is a version; ``dry_run`` writes nothing."""
        from memscribe.lifecycle.maintain import run_maintenance

        self.flush()  # access statistics decide what is cold
        return run_maintenance(
            self.store,
            self.embedder,
            self.settings,
            now=now or _now(),
            dry_run=dry_run,
            user_id=require_user(user_id) if user_id is not None else None,
            ledger=self._ledger,
        )

    def close(self) -> None:
        if self._closed:
            return
        self._worker.stop(timeout=30)
        self._flush_touch()
        self.store.close()
        self._closed = True

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncMemory:
    """Async twin of :class:`Memory`: the same core, each call run in a worker thread so the event loop
    never blocks on SQLite or the embedder."""

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        settings: Settings | None = None,
        store: str | Store | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self._sync = Memory(home, settings=settings, store=store, embedder=embedder)
        self._lock = asyncio.Lock()

    @property
    def sync(self) -> Memory:
        return self._sync

    async def _call(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        return await asyncio.to_thread(fn, *args, **kwargs)

    async def add(
        self,
        messages: Any,
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        at: str | datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> WriteReport:
        return await self._call(
            self._sync.add,
            messages,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            at=at,
            metadata=metadata,
        )

    async def flush(self, *, deferred: bool = False) -> RunReport:
        return await self._call(self._sync.flush, deferred=deferred)

    async def search(
        self,
        query: str,
        *,
        user_id: str,
        limit: int = 10,
        filters: Mapping[str, Any] | None = None,
        deep: bool = False,
        session_id: str | None = None,
    ) -> list[Hit]:
        return await self._call(
            self._sync.search,
            query,
            user_id=user_id,
            limit=limit,
            filters=filters,
            deep=deep,
            session_id=session_id,
        )

    async def context(
        self,
        query: str,
        *,
        user_id: str,
        session_id: str | None = None,
        budget_tokens: int = 1000,
        max_items: int | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> Context:
        return await self._call(
            self._sync.context,
            query,
            user_id=user_id,
            session_id=session_id,
            budget_tokens=budget_tokens,
            max_items=max_items,
            filters=filters,
        )

    async def get(self, memory_id: str) -> MemoryRecord:
        return await self._call(self._sync.get, memory_id)

    async def list(
        self,
        *,
        user_id: str,
        status: str | None = "active",
        kind: str | None = None,
        layer: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[MemoryRecord]:
        return await self._call(
            self._sync.list,
            user_id=user_id,
            status=status,
            kind=kind,
            layer=layer,
            limit=limit,
            offset=offset,
        )

    async def update(
        self,
        memory_id: str,
        *,
        text: str | None = None,
        reason: str = "edited",
        actor: str = "user",
        **fields: Any,
    ) -> MemoryRecord:
        return await self._call(self._sync.update, memory_id, text=text, reason=reason, actor=actor, **fields)

    async def delete(self, memory_id: str, *, reason: str = "deleted by request") -> MemoryRecord:
        return await self._call(self._sync.delete, memory_id, reason=reason)

    async def restore(self, memory_id: str, *, reason: str = "restored") -> MemoryRecord:
        return await self._call(self._sync.restore, memory_id, reason=reason)

    async def users(self) -> list[str]:
        return await self._call(self._sync.users)

    async def review_queue(
        self, *, user_id: str | None = None, limit: int | None = None
    ) -> list[MemoryRecord]:
        return await self._call(self._sync.review_queue, user_id=user_id, limit=limit)

    async def approve(
        self, memory_id: str, *, actor: str = "reviewer", reason: str | None = None
    ) -> MemoryRecord:
        return await self._call(self._sync.approve, memory_id, actor=actor, reason=reason)

    async def reject(
        self, memory_id: str, *, actor: str = "reviewer", reason: str | None = None
    ) -> MemoryRecord:
        return await self._call(self._sync.reject, memory_id, actor=actor, reason=reason)

    async def history(self, memory_id: str) -> list[Version]:
        return await self._call(self._sync.history, memory_id)

    async def rollback(self, memory_id: str, version: int, *, reason: str | None = None) -> MemoryRecord:
        return await self._call(self._sync.rollback, memory_id, version, reason=reason)

    async def explain(self, memory_id: str) -> list[AuditEvent]:
        return await self._call(self._sync.explain, memory_id)

    async def reveal(self, memory_id: str) -> dict[str, str]:
        return await self._call(self._sync.reveal, memory_id)

    async def rotate_vault_key(self) -> str | None:
        return await self._call(self._sync.rotate_vault_key)

    async def backup(self, path: str | Path) -> Path:
        return await self._call(self._sync.backup, path)

    async def forget(self, *, user_id: str) -> int:
        return await self._call(self._sync.forget, user_id=user_id)

    async def export(self, *, user_id: str | None = None) -> list[dict[str, Any]]:
        return await self._call(self._sync.export, user_id=user_id)

    async def import_(
        self, records: Iterable[Mapping[str, Any]], *, batch_size: int = 256, dry_run: bool = False
    ) -> int:
        return await self._call(self._sync.import_, list(records), batch_size=batch_size, dry_run=dry_run)

    async def stats(self, *, user_id: str | None = None) -> dict[str, Any]:
        return await self._call(self._sync.stats, user_id=user_id)

    async def metrics_text(self) -> str:
        return await self._call(self._sync.metrics_text)

    async def maintain(
        self, *, now: datetime | None = None, dry_run: bool = False, user_id: str | None = None
    ) -> MaintenanceReport:
        return await self._call(self._sync.maintain, now=now, dry_run=dry_run, user_id=user_id)

    async def close(self) -> None:
        await self._call(self._sync.close)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
