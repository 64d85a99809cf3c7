"""The public API: ``Memory``, a facade over one store and one embedder.

Decisions live in the pipeline stages and read-path modules; the pieces around them each have a module:
``boundary`` (input validation), ``admission`` (limits, write rates, deferred-write payloads), ``keyring``
(vault keys), ``read.query`` / ``read.context`` (recall and context assembly), ``portability`` (export /
import). This module wires them to a store and an embedder, and owns the background worker for queued
jobs. ``AsyncMemory`` (its async twin) lives in :mod:`memscribe.aio`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe import boundary
from memscribe.admission import Admission, DeferredWrite
from memscribe.clock import Clock, system_clock
from memscribe.config import Settings
from memscribe.errors import InputError, NotFoundError
from memscribe.facts import Reviewed
from memscribe.jobs import BackgroundWorker, JobRunner, RunReport
from memscribe.keyring import KeyRing
from memscribe.layers.session import SessionMemory
from memscribe.layers.working import WorkingMemory
from memscribe.ledger import Ledger
from memscribe.metrics import Metrics, store_snapshot, store_stats
from memscribe.models import (
    AuditEvent,
    Context,
    Hit,
    MemoryRecord,
    Message,
    Status,
    Version,
    WriteReport,
)
from memscribe.models import Link as RecordLink
from memscribe.portability import export_records, import_records
from memscribe.providers.embedders import Embedder, make_embedder
from memscribe.read.access import AccessLog
from memscribe.read.context import SessionTexts, assemble_context
from memscribe.read.inspection import decisions_about, pending_review, version_history
from memscribe.read.query import Recaller
from memscribe.read.siblings import with_siblings
from memscribe.store import open_store
from memscribe.store.base import Store
from memscribe.store.rows import JobRow
from memscribe.write.pipeline import WritePipeline
from memscribe.write.request import WriteRequest
from memscribe.write.verify import VerifyJob

if TYPE_CHECKING:
    from memscribe.lifecycle.maintain import MaintenanceReport
    from memscribe.vault import Vault

__all__ = ["Memory"]

log = logging.getLogger("memscribe")


class Memory:
    """Long-term memory for one store (a folder, ``MEMSCRIBE_HOME`` or ``./.memscribe/`` by default).

    ``clock`` is where every "now" comes from (write and access times, recency, job schedules, versions);
    the wall clock by default, a simulated one for benchmarks (see :mod:`memscribe.clock`).
    """

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        settings: Settings | None = None,
        store: str | Store | None = None,
        embedder: Embedder | None = None,
        clock: Clock | None = None,
    ) -> None:
        s = settings or Settings()
        if home is not None:
            s = s.model_copy(update={"home": Path(home)})
        if isinstance(store, str):
            s = s.model_copy(update={"store": store})
        self.settings = s
        self._clock: Clock = clock or system_clock
        self._store: Store = store if (store is not None and not isinstance(store, str)) else open_store(s)
        self.embedder = embedder or make_embedder(s.embedder, base_url=s.llm.base_url, api_key=s.llm.api_key)
        self._store.check_embedder(self.embedder.name, self.embedder.dim)
        self._keys = KeyRing(s.home, self._store, env_key=s.vault_key)
        self._ledger = Ledger(self._store, self.embedder, clock=self._clock)
        self._pipeline = WritePipeline(self._store, self.embedder, s, self._vault, self._ledger)
        self._admission = Admission(s, self._store, self._vault)
        self._recall = Recaller(self._store, self.embedder, s, self._clock)
        self._access = AccessLog(self._store)
        self._embedder_lock = threading.Lock()
        self._worker_embedder: Embedder | None = None
        self._closed = False
        self._jobs = JobRunner(self._store, clock=self._clock)
        self._jobs.register(
            "verify", VerifyJob(self._store, lambda: self.worker_embedder, s, self._ledger, clock=self._clock)
        )
        self._jobs.register("deferred_add", self._run_deferred)
        self._worker = BackgroundWorker(self._jobs, after_run=self._flush_touch)
        self.metrics = Metrics(lambda: store_snapshot(self._store))
        self._store.requeue_running()  # jobs of a process that died resume here

    # ------------------------------------------------------------------ plumbing
    def _vault(self) -> Vault:
        return self._keys.vault()

    @property
    def worker_embedder(self) -> Embedder:
        """The embedder background jobs use: its own engine when the provider can clone one, so queued
        verification never waits on (or blocks) the caller's add() and search()."""
        with self._embedder_lock:  # the worker thread and flush() may both ask first: build one engine
            if self._worker_embedder is None:
                clone = getattr(self.embedder, "clone", None)
                self._worker_embedder = clone() if callable(clone) else self.embedder
            return self._worker_embedder

    def _flush_touch(self) -> None:
        self._access.flush()

    def _get(self, memory_id: str) -> MemoryRecord:
        rec = self._store.get_memory(boundary.memory_id(memory_id))
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
        user_id = boundary.require_user(user_id)
        when = boundary.parse_at(at, default=self._clock())
        meta = boundary.metadata(metadata)
        msgs = boundary.normalize_messages(messages, max_bytes=self.settings.write.max_message_bytes, at=when)
        self._admission.check_limits(user_id)
        delay = self._admission.delay_for(user_id)
        if delay > 0:
            write = DeferredWrite(
                user_id=user_id,
                messages=msgs,
                agent_id=agent_id,
                session_id=session_id,
                at=when,
                metadata=meta,
            )
            return self._defer(write, delay=delay)
        self._worker.note_write()
        report = self._run_pipeline(
            msgs, user_id=user_id, agent_id=agent_id, session_id=session_id, at=when, metadata=meta
        )
        self._worker.note_write()  # idle is measured from the end of the last write
        self._admission.note_written(user_id, report)
        self._after_write()
        return report

    def _after_write(self) -> None:
        if self.settings.write.verify == "queue":
            self._worker.wake()
        elif self.settings.write.verify == "inline":
            self._jobs.run()

    def _defer(self, write: DeferredWrite, *, delay: float) -> WriteReport:
        """Over the rate: the whole write waits in the durable queue, sealed with the vault key (the raw
        messages may carry values the privacy stage has not removed yet), and runs at its turn."""
        payload = self._admission.seal(write)
        with self._store.atomic():
            job = self._store.enqueue(
                "deferred_add", payload, run_after=self._clock() + timedelta(seconds=delay)
            )
            self._store.bump_counter(write.user_id, "writes_deferred", 1)
        self._worker.wake()
        return write.report(job, delay)

    def _run_deferred(self, job: JobRow) -> None:
        write = self._admission.open(job.payload)
        self._run_pipeline(
            write.messages,
            user_id=write.user_id,
            agent_id=write.agent_id,
            session_id=write.session_id,
            at=write.at,
            metadata=write.metadata,
        )
        self._store.bump_counter(write.user_id, "writes_deferred_done", 1)

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
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            at=at,
            now=self._clock(),
            metadata=metadata,
        )
        with self.metrics.timed("add"):
            return self._pipeline.run(msgs, req)

    def flush(self, *, deferred: bool = False) -> RunReport:
        """Run queued background work (verification) now and write pending access statistics.

        ``deferred=True`` also runs, now, the writes that the rate limit queued for later. Returns what ran:
        a job whose handler fails is retried with backoff and, at its attempt cap, ends ``failed`` (audited,
        counted in ``stats()``) — it never blocks the jobs behind it, and flush() does not raise for it.
        """
        with self._worker.busy:  # a job the worker already claimed finishes first
            report = self._jobs.run(until=self._clock() + timedelta(days=36_500) if deferred else None)
        self._flush_touch()
        return report

    # ------------------------------------------------------------------ read
    def _record_access(self, ids: Iterable[str]) -> None:
        many = self._access.record(ids, self._clock())
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
        user_id, limit = boundary.require_user(user_id), boundary.search_limit(limit)
        query = boundary.query_text(query, max_bytes=self.settings.write.max_message_bytes)
        with self.metrics.timed("search"):
            scored = self._recall(
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
        """Prompt-ready text for a query within ``budget_tokens``: with a session, its task state,
        summary and recent turns first, then the memories recalled for the query."""
        user_id, budget_tokens = boundary.require_user(user_id), boundary.budget_tokens(budget_tokens)
        query = boundary.query_text(query, max_bytes=self.settings.write.max_message_bytes)
        with self.metrics.timed("context"):
            session = None
            if session_id:
                sess = self.session(session_id, user_id=user_id)
                working = WorkingMemory(self._store, user_id, None, self.settings).render()
                session = SessionTexts(
                    task_state=working, summary=sess.summary(), recent_turns=sess.render_recent()
                )
            ctx = assemble_context(
                budget_tokens=budget_tokens,
                max_items=max_items if max_items is not None else self.settings.recall.context_max_items,
                recall=lambda k: self._recall(
                    query, user_id=user_id, k=k, filters=filters, session_id=session_id
                ),
                session=session,
                # a sibling need not match the caller's filters: with filters, recall alone decides
                expand=None
                if filters
                else lambda head: with_siblings(
                    head, lambda ids: self._store.memories_from_messages(user_id, ids)
                ),
            )
            self._record_access(h.memory.id for h in ctx.items)
            return ctx

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
        user_id = boundary.require_user(user_id)
        statuses = boundary.status_filter(status)
        return self._store.list_memories(
            user_id, statuses=statuses, kind=kind, layer=layer, limit=limit, offset=offset
        )

    def _revise(
        self, changed: MemoryRecord, *, reason: str, actor: str, action: str, reembed: bool
    ) -> MemoryRecord:
        """An edit of a person's (or a reviewer's): a new version through the ledger, with the vector and
        keyword entry rewritten when the text changed."""
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
        boundary.check_editable(fields)
        changes = dict(fields)
        if text is not None:
            from memscribe.write.protect import protect

            # an edit never smuggles a secret past the filter
            changes["text"] = protect(boundary.edit_text(text)).clean_text
        data = rec.model_dump()
        data.update(changes)
        return self._revise(
            MemoryRecord.model_validate(data),
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
        return sorted(self._store.iter_users())

    # ------------------------------------------------------------------ review queue
    def review_queue(self, *, user_id: str | None = None, limit: int | None = None) -> list[MemoryRecord]:
        """Memories waiting for a person's approval (identity, money, permissions), oldest first."""
        users = [boundary.require_user(user_id)] if user_id is not None else list(self._store.iter_users())
        return pending_review(self._store, users, limit=limit)

    def _pending(self, memory_id: str) -> MemoryRecord:
        rec = self._get(memory_id)
        if rec.status != Status.pending_review:
            raise InputError(f"memory {memory_id!r} is {rec.status.value}, not pending review")
        return rec

    def approve(self, memory_id: str, *, actor: str = "reviewer", reason: str | None = None) -> MemoryRecord:
        """Let recall use a held-back memory; the change it stood for (superseding an older value of the
        same slot) happens now, in the same transaction."""
        rec = self._pending(memory_id)
        now = self._clock()
        pending = rec.state.pending
        links = list(rec.links)
        with self._pipeline.locks.hold(rec.user_id), self._store.atomic():
            if pending is not None and pending.decision == "supersede" and pending.target:
                old = self._store.get_memory(pending.target)
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
        return version_history(self._store, self._get(memory_id))

    def rollback(self, memory_id: str, version: int, *, reason: str | None = None) -> MemoryRecord:
        rec = self._get(memory_id)
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
        return self._revise(
            MemoryRecord.model_validate(data),
            reason=reason or f"rollback to version {version}",
            actor="user",
            action="rollback",
            reembed=True,
        )

    def explain(self, memory_id: str) -> list[AuditEvent]:
        """Why is this remembered: every stage decision about this memory and its source messages."""
        return decisions_about(self._store, self._get(memory_id))

    # ------------------------------------------------------------------ vault, backup, erase
    def reveal(self, memory_id: str) -> dict[str, str]:
        """The vaulted values of a memory (placeholder -> value); needs the vault key."""
        return self._keys.reveal(self._get(memory_id))

    def rotate_vault_key(self) -> str | None:
        """Re-encrypt every vaulted value under a fresh key; the old key stops working.

        With a key file (the default) the new key replaces it atomically and None is returned. With
        ``MEMSCRIBE_VAULT_KEY`` the new key is returned once (url-safe base64): set it before restarting.
        """
        # writes waiting for their rate slot are sealed with the current key: run them before it goes
        self.flush(deferred=True)
        return self._keys.rotate()

    def backup(self, path: str | Path) -> Path:
        """A consistent copy of the store while it is in use (SQLite online backup API)."""
        dest = boundary.backup_path(path)
        dest.parent.mkdir(parents=True, exist_ok=True)
        self.flush()
        self._store.backup_to(dest)
        return dest

    def forget(self, *, user_id: str) -> int:
        """Hard erase of everything of this user: memories, vectors, keyword entries, versions, audit, sessions."""
        user_id = boundary.require_user(user_id)
        self._access.clear()
        return self._ledger.erase_user(user_id)

    # ------------------------------------------------------------------ layers
    def session(self, session_id: str, *, user_id: str | None = None) -> SessionMemory:
        return SessionMemory(self._store, session_id, user_id, self.settings)

    def working(self, task_id: str, *, user_id: str) -> WorkingMemory:
        return WorkingMemory(self._store, boundary.require_user(user_id), task_id, self.settings)

    # ------------------------------------------------------------------ export / import
    def export(self, *, user_id: str | None = None) -> list[dict[str, Any]]:
        """Everything needed to rebuild the long-term memory elsewhere, as JSON-ready dicts (one per line
        of a JSONL file); the format is described in :mod:`memscribe.portability`."""
        return export_records(
            self._store, user_id=boundary.require_user(user_id) if user_id is not None else None
        )

    def import_(
        self, records: Iterable[Mapping[str, Any]], *, batch_size: int = 256, dry_run: bool = False
    ) -> int:
        """Load an :meth:`export` (dicts, e.g. the lines of a JSONL file); returns the number of memories.

        Everything comes back as it was (vault values stay sealed under their key); vectors and keyword
        entries are rebuilt with this store's embedder. A list is validated whole before anything is
        written, an iterator ``batch_size`` items at a time, one transaction per batch. Importing the same
        export twice changes nothing the second time; ``dry_run`` only validates and counts."""
        return import_records(
            self._store,
            self.embedder,
            self._ledger,
            records,
            batch_size=boundary.batch_size(batch_size),
            dry_run=dry_run,
            now=self._clock,
        )

    # ------------------------------------------------------------------ stats and lifecycle
    def stats(self, *, user_id: str | None = None) -> dict[str, Any]:
        """Counts by status, layer and kind, new memories per day, write-path counters (dropped by the
        filter, verify failures, deferred or refused writes), queue depth, and this process's latencies."""
        return {**store_stats(self._store, user_id), "latency_ms": self.metrics.latency_summary()}

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
            self._store,
            self.embedder,
            self.settings,
            now=now or self._clock(),
            dry_run=dry_run,
            user_id=boundary.require_user(user_id) if user_id is not None else None,
            ledger=self._ledger,
        )

    def close(self) -> None:
        if self._closed:
            return
        self._worker.stop(timeout=30)
        self._flush_touch()
        self._store.close()
        self._closed = True

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def __getattr__(name: str) -> Any:
    # ``from memscribe.memory import AsyncMemory`` keeps working; resolved lazily because aio imports this
    # module (an eager import here would be an import cycle)
    if name == "AsyncMemory":
        from memscribe.aio import AsyncMemory

        return AsyncMemory
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
