"""The public API: ``Memory``, a facade over one store and one embedder.

Each call goes to the module that does the work: ``write_runner`` (validation, admission, the pipeline,
deferred writes), ``background`` (job queue, worker, access statistics), ``read.reader`` (search, context),
``editing`` and ``approval`` (edits and review verdicts, versions through the ``ledger``), ``read.inspection``
(history, explanations, review queue), ``keyring`` (vault), ``upkeep`` (maintenance, backup, export /
import, key rotation, erasure). ``AsyncMemory`` (its async twin) lives in :mod:`memscribe.aio`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe import boundary
from memscribe.approval import Approval
from memscribe.background import Background
from memscribe.clock import Clock, system_clock
from memscribe.config import Settings, embedder_endpoint, settings_for
from memscribe.editing import Editor
from memscribe.keyring import KeyRing
from memscribe.layers.session import SessionMemory
from memscribe.layers.working import WorkingMemory
from memscribe.ledger import Ledger
from memscribe.metrics import Metrics, store_snapshot, store_stats
from memscribe.models import AuditEvent, Context, Hit, MemoryRecord, Status, Version, WriteReport
from memscribe.providers.embedders import Embedder, make_embedder
from memscribe.read.inspection import decisions_about, version_history
from memscribe.read.reader import Reader
from memscribe.store import open_store
from memscribe.store.base import Store
from memscribe.upkeep import Upkeep
from memscribe.write.pipeline import WritePipeline
from memscribe.write_runner import WriteRunner

if TYPE_CHECKING:
    from memscribe.jobs import RunReport
    from memscribe.lifecycle.maintain import MaintenanceReport
    from memscribe.portability import ImportReport
    from memscribe.vault import Vault

__all__ = ["Memory"]


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
        self.settings = s = settings_for(settings, home=home, store=store)
        self._clock = clock = clock or system_clock
        self._store = st = store if (store is not None and not isinstance(store, str)) else open_store(s)
        url, key = embedder_endpoint(s)
        self.embedder = emb = embedder or make_embedder(s.embedder, base_url=url, api_key=key)
        st.check_embedder(emb.name, emb.dim)
        self._keys = KeyRing(s.home, st, env_key=s.vault_key)
        self._ledger = ledger = Ledger(st, emb, clock=clock)
        self._pipeline = WritePipeline(st, emb, s, self._vault, ledger)
        self._editor = Editor(st, ledger)
        self._approval = Approval(st, ledger, self._editor, self._pipeline.locks, clock=clock)
        self.metrics = Metrics(lambda: store_snapshot(self._store))
        self._background = bg = Background(st, s, emb, ledger, clock=clock)
        self._jobs, self._worker = bg.jobs, bg.worker
        self._reader = Reader(st, emb, s, self.metrics, clock=clock, on_access=bg.record_access)
        self._writes = WriteRunner(st, s, self._pipeline, bg, self.metrics, vault=self._vault, clock=clock)
        self._upkeep = Upkeep(st, emb, s, ledger, bg, self._keys, clock=clock)
        self._closed = False
        self._store.requeue_running()  # jobs of a process that died resume here

    def _vault(self) -> Vault:
        return self._keys.vault()

    @property
    def worker_embedder(self) -> Embedder:
        """The embedder background jobs use: its own engine when the provider can clone one, so queued
        verification never waits on (or blocks) the caller's add() and search()."""
        return self._background.embedder

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
        verbatim: bool = False,
    ) -> WriteReport:
        """The write pipeline over ``messages``; ``verbatim=True``: each message one memory as given (no
        filter, encoder or merge; the privacy stage still runs)."""
        kw = {"agent_id": agent_id, "session_id": session_id, "at": at, "metadata": metadata}
        return self._writes.add(messages, user_id=user_id, verbatim=verbatim, **kw)

    def flush(self, *, deferred: bool = False) -> RunReport:
        """Run queued background work (verification) now and write pending access statistics.

        ``deferred=True`` also runs the writes the rate limit queued for later. A failing job is retried
        with backoff, at its cap ends ``failed`` (audited, counted in ``stats()``); flush() never raises
        for it: the :class:`~memscribe.jobs.RunReport` it returns says what ran and what failed."""
        return self._background.flush(deferred=deferred)

    # ------------------------------------------------------------------ read
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
        return self._reader.search(
            query, user_id=user_id, limit=limit, filters=filters, deep=deep, session_id=session_id
        )

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
        kw = dict(session_id=session_id, budget_tokens=budget_tokens, max_items=max_items, filters=filters)
        return self._reader.context(query, user_id=user_id, **kw)

    # ------------------------------------------------------------------ inspect and correct
    def get(self, memory_id: str) -> MemoryRecord:
        return self._editor.get(memory_id)

    def list(
        self,
        *,
        user_id: str,
        status: str | None = "active",
        kind: str | None = None,
        layer: str | None = None,
        limit: int | None = None,
        offset: int = 0,
        filters: Mapping[str, Any] | None = None,
    ) -> list[MemoryRecord]:
        """A user's memories, oldest first; ``filters`` takes the keys ``search()`` takes."""
        kw = {"status": status, "kind": kind, "layer": layer, "limit": limit, "offset": offset}
        return self._reader.records(user_id=user_id, filters=filters, **kw)

    def users(self) -> list[str]:
        """Every user id with memories in this store, sorted."""
        return sorted(self._store.iter_users())

    def history(self, memory_id: str) -> list[Version]:
        """Versions of this memory, preceded by those of the memories it superseded (the fact's whole story)."""
        return version_history(self._store, self._editor.get(memory_id))

    def explain(self, memory_id: str) -> list[AuditEvent]:
        """Why is this remembered: every stage decision about this memory and its source messages."""
        return decisions_about(self._store, self._editor.get(memory_id))

    def reveal(self, memory_id: str, *, actor: str = "user", reason: str | None = None) -> dict[str, str]:
        """The vaulted values of a memory (placeholder -> value); needs the vault key. Every reveal is
        audited (stage ``vault``, action ``reveal``: who, why, which placeholders), never with the values."""
        rec = self._editor.get(memory_id)
        return self._keys.reveal(rec, actor=actor, reason=reason, at=self._clock())

    def update(
        self,
        memory_id: str,
        *,
        text: str | None = None,
        reason: str = "edited",
        actor: str = "user",
        **fields: Any,
    ) -> MemoryRecord:
        return self._editor.update(memory_id, text=text, reason=reason, actor=actor, **fields)

    def delete(self, memory_id: str, *, reason: str = "deleted by request") -> MemoryRecord:
        return self._editor.set_status(memory_id, Status.deleted, reason=reason, action="delete")

    def restore(self, memory_id: str, *, reason: str = "restored") -> MemoryRecord:
        return self._editor.set_status(memory_id, Status.active, reason=reason, action="restore")

    def rollback(self, memory_id: str, version: int, *, reason: str | None = None) -> MemoryRecord:
        return self._editor.rollback(memory_id, version, reason=reason)

    # ------------------------------------------------------------------ review queue
    def review_queue(self, *, user_id: str | None = None, limit: int | None = None) -> list[MemoryRecord]:
        """Memories waiting for a person's approval (identity, money, permissions), oldest first."""
        return self._reader.review_queue(user_id=user_id, limit=limit)

    def approve(self, memory_id: str, *, actor: str = "reviewer", reason: str | None = None) -> MemoryRecord:
        """Let recall use a held-back memory; the change it stood for (superseding an older value of the
        same slot) happens now, in the same transaction."""
        return self._approval.approve(memory_id, actor=actor, reason=reason)

    def reject(self, memory_id: str, *, actor: str = "reviewer", reason: str | None = None) -> MemoryRecord:
        """Refuse a held-back memory: it is deleted (kept in history with the reason), nothing it implied
        happens."""
        return self._approval.reject(memory_id, actor=actor, reason=reason)

    # ------------------------------------------------------------------ the whole store (upkeep)
    def export(self, *, user_id: str | None = None) -> list[dict[str, Any]]:
        """Everything needed to rebuild the long-term memory elsewhere, as JSON-ready dicts (one per line
        of a JSONL file); the format is described in :mod:`memscribe.portability`."""
        return self._upkeep.export(user_id=user_id)

    def import_(
        self,
        records: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 256,
        dry_run: bool = False,
        on_progress: Callable[[int], None] | None = None,
    ) -> ImportReport:
        """Load an :meth:`export` (dicts, e.g. a JSONL file's lines); returns an ``ImportReport``.

        Vault values stay sealed; vectors and keyword entries are rebuilt with this store's embedder. A list is
        validated whole first, an iterator ``batch_size`` items at a time. A memory already here unchanged is
        skipped (not re-embedded); a newer or diverged local version is kept and listed in ``.conflicts``
        (see :mod:`memscribe.portability`). ``dry_run`` only counts; ``on_progress(n)`` reports items done."""
        return self._upkeep.import_(records, batch_size=batch_size, dry_run=dry_run, on_progress=on_progress)

    def backup(self, path: str | Path) -> Path:
        """A consistent copy of the store while it is in use (SQLite online backup API)."""
        return self._upkeep.backup(path)

    def rotate_vault_key(self) -> str | None:
        """Re-encrypt every vaulted value under a fresh key; the old key stops working.

        With a key file (the default) it is replaced atomically and None is returned; with
        ``MEMSCRIBE_VAULT_KEY`` the new key is returned once (url-safe base64): set it before restarting."""
        return self._upkeep.rotate_vault_key()

    def maintain(
        self, *, now: datetime | None = None, dry_run: bool = False, user_id: str | None = None
    ) -> MaintenanceReport:
        """Expire TTLs, archive cold memories, decay unconfirmed inferences, merge near-duplicates and
        consolidate repeated episodes (DESIGN §4). Every change is a version; ``dry_run`` writes nothing."""
        return self._upkeep.maintain(now=now, dry_run=dry_run, user_id=user_id)

    def forget(self, *, user_id: str) -> int:
        """Hard erase of everything of this user: memories, vectors, keyword entries, versions, audit, sessions."""
        return self._upkeep.forget(user_id=user_id)

    # ------------------------------------------------------------------ layers and stats
    def session(self, session_id: str, *, user_id: str | None = None) -> SessionMemory:
        return SessionMemory(self._store, session_id, user_id, self.settings)

    def working(self, task_id: str, *, user_id: str) -> WorkingMemory:
        return WorkingMemory(self._store, boundary.require_user(user_id), task_id, self.settings)

    def stats(self, *, user_id: str | None = None) -> dict[str, Any]:
        """Counts by status, layer and kind, new memories per day, write-path counters (dropped by the
        filter, verify failures, deferred or refused writes), queue depth, and this process's latencies."""
        return {**store_stats(self._store, user_id), "latency_ms": self.metrics.latency_summary()}

    def metrics_text(self) -> str:
        """Prometheus exposition text: latency histograms of this process and the store's counts."""
        return self.metrics.text()

    def close(self) -> None:
        if not self._closed:
            self._background.close()
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
