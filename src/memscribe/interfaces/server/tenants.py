"""Tenant isolation: which memory a request may reach.

Two ways, chosen by ``server.tenancy`` (``auto``: folders for the embedded SQLite store, prefix for a
``postgresql://`` URL):

- **folders** — one :class:`AsyncMemory` per tenant over its own store, ``<home>/tenants/<tenant>/``,
  opened on first use and kept. Isolation is physical: a memory id of another tenant does not exist in
  this tenant's store, a bug in a query filter cannot leak across tenants, and a tenant is backed up,
  moved or erased as one folder (with its own vault key). All tenants share one embedder (thread-safe).
- **prefix** — one shared memory (a server database); user ids are stored as ``<tenant>/<user>``, every
  memory id is checked against that prefix (another tenant's id is 404, exactly like a missing one), and
  the prefix is stripped from everything returned. Tenant names cannot contain ``/``, so prefixes never
  overlap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.aio import AsyncMemory
from memscribe.config import Settings, embedder_endpoint
from memscribe.errors import InputError, NotFoundError
from memscribe.models import AuditEvent, Context, Hit, MemoryRecord, Version, WriteReport
from memscribe.store.private import private_folder
from memscribe.write.normalize import require_user

if TYPE_CHECKING:
    from memscribe.compat.mem0 import Memory as Mem0Memory

__all__ = ["SERVER_WRITE_RATES", "TenantRegistry", "TenantScope"]

# add() calls per second per user and per tenant store, unless ``limits.*_rate`` are configured; over
# them the library defers the write (``limits.on_exceed="queue"``) or refuses it (``"error"`` -> 429)
SERVER_WRITE_RATES = {"user_rate": 10.0, "tenant_rate": 100.0}


class TenantScope:
    """One tenant's view of memory. Every route goes through it; nothing else touches AsyncMemory."""

    def __init__(self, tenant: str, memory: AsyncMemory, *, prefix: bool) -> None:
        self.tenant = tenant
        self.memory = memory
        self._prefix = f"{tenant}/" if prefix else ""
        self._mem0: Mem0Memory | None = None

    def mem0(self) -> Mem0Memory:
        """Mem0's API over this tenant's memory, for the Mem0-compatible routes (sync: call it in a
        worker thread)."""
        if self._mem0 is None:
            from memscribe.compat.mem0 import Memory as Mem0Memory

            self._mem0 = Mem0Memory(memory=self.memory.sync, prefix=self._prefix)
        return self._mem0

    # ------------------------------------------------------------------ ids in and out
    def uid(self, user_id: str) -> str:
        return self._prefix + require_user(user_id)

    def _owns_uid(self, internal: str) -> bool:
        return internal.startswith(self._prefix)

    def ext(self, internal: str) -> str:
        return internal[len(self._prefix) :]

    def rec(self, r: MemoryRecord) -> MemoryRecord:
        return r.model_copy(update={"user_id": self.ext(r.user_id)}) if self._prefix else r

    def recs(self, rs: Iterable[MemoryRecord]) -> list[MemoryRecord]:
        return [self.rec(r) for r in rs]

    def hit(self, h: Hit) -> Hit:
        return h.model_copy(update={"memory": self.rec(h.memory)}) if self._prefix else h

    async def owned(self, memory_id: str) -> MemoryRecord:
        """The record, if it belongs to this tenant; otherwise NotFound (never 'forbidden': no oracle)."""
        r = await self.memory.get(memory_id)
        if not self._owns_uid(r.user_id):
            raise NotFoundError(f"no memory {memory_id!r}")
        return r

    # ------------------------------------------------------------------ the API, scoped
    async def add(self, messages: Any, *, user_id: str, **kw: Any) -> WriteReport:
        rep = await self.memory.add(messages, user_id=self.uid(user_id), **kw)
        return rep.model_copy(update={"user_id": user_id}) if self._prefix else rep

    async def search(self, query: str, *, user_id: str, **kw: Any) -> list[Hit]:
        return [self.hit(h) for h in await self.memory.search(query, user_id=self.uid(user_id), **kw)]

    async def context(self, query: str, *, user_id: str, **kw: Any) -> Context:
        ctx = await self.memory.context(query, user_id=self.uid(user_id), **kw)
        if self._prefix:
            ctx = ctx.model_copy(update={"items": [self.hit(h) for h in ctx.items]})
        return ctx

    async def list(self, *, user_id: str, **kw: Any) -> list[MemoryRecord]:
        return self.recs(await self.memory.list(user_id=self.uid(user_id), **kw))

    async def get(self, memory_id: str) -> MemoryRecord:
        return self.rec(await self.owned(memory_id))

    async def update(self, memory_id: str, **kw: Any) -> MemoryRecord:
        await self.owned(memory_id)
        return self.rec(await self.memory.update(memory_id, **kw))

    async def delete(self, memory_id: str, *, reason: str) -> MemoryRecord:
        await self.owned(memory_id)
        return self.rec(await self.memory.delete(memory_id, reason=reason))

    async def restore(self, memory_id: str, *, reason: str) -> MemoryRecord:
        await self.owned(memory_id)
        return self.rec(await self.memory.restore(memory_id, reason=reason))

    async def history(self, memory_id: str) -> list[Version]:
        await self.owned(memory_id)
        out = await self.memory.history(memory_id)
        if self._prefix:
            out = [v.model_copy(update={"record": self.rec(v.record)}) for v in out]
        return out

    async def rollback(self, memory_id: str, version: int, *, reason: str | None) -> MemoryRecord:
        await self.owned(memory_id)
        return self.rec(await self.memory.rollback(memory_id, version, reason=reason))

    async def explain(self, memory_id: str) -> list[AuditEvent]:
        await self.owned(memory_id)
        out = await self.memory.explain(memory_id)
        if self._prefix:
            out = [e.model_copy(update={"user_id": self.ext(e.user_id)}) for e in out]
        return out

    async def reveal(self, memory_id: str, *, actor: str, reason: str) -> dict[str, str]:
        await self.owned(memory_id)
        return await self.memory.reveal(memory_id, actor=actor, reason=reason)

    async def forget(self, user_id: str) -> int:
        return await self.memory.forget(user_id=self.uid(user_id))

    async def users(self) -> list[str]:
        users = await self.memory.users()
        return sorted(self.ext(u) for u in users if self._owns_uid(u))

    async def maintain(self, *, user_id: str | None, dry_run: bool) -> Any:
        if user_id is None and self._prefix:
            # the shared store holds other tenants: maintain only this tenant's users, one by one
            reports = [
                await self.memory.maintain(user_id=self.uid(u), dry_run=dry_run) for u in await self.users()
            ]
            return reports
        uid = self.uid(user_id) if user_id is not None else None
        return [await self.memory.maintain(user_id=uid, dry_run=dry_run)]

    async def stats(self, *, user_id: str | None) -> dict[str, Any]:
        if user_id is None and self._prefix:
            raise InputError("user_id is required for stats on a shared store")
        return await self.memory.stats(user_id=self.uid(user_id) if user_id is not None else None)

    # ------------------------------------------------------------------ review queue
    async def review_queue(self, *, user_id: str | None) -> list[MemoryRecord]:
        uid = self.uid(user_id) if user_id is not None else None
        recs = await self.memory.review_queue(user_id=uid)
        return self.recs(r for r in recs if self._owns_uid(r.user_id))

    async def approve(self, memory_id: str) -> MemoryRecord:
        await self.owned(memory_id)
        return self.rec(await self.memory.approve(memory_id))

    async def reject(self, memory_id: str, *, reason: str | None) -> MemoryRecord:
        await self.owned(memory_id)
        return self.rec(await self.memory.reject(memory_id, reason=reason))


class TenantRegistry:
    """Opens each tenant's memory once (lazily) and closes them all on shutdown."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        mode = settings.server.tenancy
        if mode == "auto":
            mode = (
                "prefix"
                if settings.store and "://" in settings.store and not _sqlite(settings)
                else "folders"
            )
        self.mode = mode
        self._scopes: dict[str, TenantScope] = {}
        self._shared: AsyncMemory | None = None
        self._embedder: Any = None
        self._lock = asyncio.Lock()

    @property
    def open_tenants(self) -> list[str]:
        return sorted(self._scopes)

    def _open(self, tenant: str) -> AsyncMemory:
        from memscribe.providers.embedders import make_embedder

        s = self.settings
        if s.limits.user_rate is None and s.limits.tenant_rate is None:
            # the library leaves write rates off; a server shared by many callers turns them on
            s = s.model_copy(update={"limits": s.limits.model_copy(update=SERVER_WRITE_RATES)})
        if self._embedder is None:
            url, key = embedder_endpoint(s)
            self._embedder = make_embedder(s.embedder, base_url=url, api_key=key)
        if self.mode == "prefix":
            if self._shared is None:
                self._shared = AsyncMemory(settings=s, embedder=self._embedder)
            return self._shared
        home = Path(s.home) / "tenants" / tenant
        private_folder(home)
        ts = s.model_copy(update={"home": home, "store": None})
        return AsyncMemory(settings=ts, embedder=self._embedder)

    async def scope(self, tenant: str) -> TenantScope:
        sc = self._scopes.get(tenant)
        if sc is not None:
            return sc
        async with self._lock:
            sc = self._scopes.get(tenant)
            if sc is None:
                mem = await asyncio.to_thread(self._open, tenant)
                sc = self._scopes[tenant] = TenantScope(tenant, mem, prefix=self.mode == "prefix")
        return sc

    async def close(self) -> None:
        seen: set[int] = set()
        for sc in self._scopes.values():
            if id(sc.memory) not in seen:
                seen.add(id(sc.memory))
                await sc.memory.close()
        self._scopes.clear()


def _sqlite(settings: Settings) -> bool:
    return bool(settings.store and settings.store.startswith("sqlite:"))
