"""``AsyncMemory``: the async twin of :class:`~memscribe.memory.Memory`.

Each call runs the sync method in a worker thread (``asyncio.to_thread``), so the event loop never blocks
on SQLite or the embedder and the two can never drift apart in behaviour. Their signatures are checked to
be equal by a test; a new public ``Memory`` method needs its twin here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.memory import Memory

if TYPE_CHECKING:
    from memscribe.clock import Clock
    from memscribe.config import Settings
    from memscribe.jobs import RunReport
    from memscribe.lifecycle.maintain import MaintenanceReport
    from memscribe.models import AuditEvent, Context, Hit, MemoryRecord, Version, WriteReport
    from memscribe.portability import ImportReport
    from memscribe.providers.embedders import Embedder
    from memscribe.store.base import Store

__all__ = ["AsyncMemory"]


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
        clock: Clock | None = None,
    ) -> None:
        self._sync = Memory(home, settings=settings, store=store, embedder=embedder, clock=clock)

    @property
    def sync(self) -> Memory:
        """The :class:`Memory` underneath (for adapters that call it from their own worker threads)."""
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
        verbatim: bool = False,
    ) -> WriteReport:
        return await self._call(
            self._sync.add,
            messages,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            at=at,
            metadata=metadata,
            verbatim=verbatim,
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
        filters: Mapping[str, Any] | None = None,
    ) -> list[MemoryRecord]:
        return await self._call(
            self._sync.list,
            user_id=user_id,
            status=status,
            kind=kind,
            layer=layer,
            limit=limit,
            offset=offset,
            filters=filters,
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

    async def reveal(
        self, memory_id: str, *, actor: str = "user", reason: str | None = None
    ) -> dict[str, str]:
        return await self._call(self._sync.reveal, memory_id, actor=actor, reason=reason)

    async def rotate_vault_key(self) -> str | None:
        return await self._call(self._sync.rotate_vault_key)

    async def backup(self, path: str | Path) -> Path:
        return await self._call(self._sync.backup, path)

    async def forget(self, *, user_id: str) -> int:
        return await self._call(self._sync.forget, user_id=user_id)

    async def export(self, *, user_id: str | None = None) -> list[dict[str, Any]]:
        return await self._call(self._sync.export, user_id=user_id)

    async def import_(
        self,
        records: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 256,
        dry_run: bool = False,
        on_progress: Callable[[int], None] | None = None,
    ) -> ImportReport:
        return await self._call(
            self._sync.import_, list(records), batch_size=batch_size, dry_run=dry_run, on_progress=on_progress
        )

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
