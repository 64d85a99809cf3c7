"""A Mem0 drop-in: the ``Memory`` / ``AsyncMemory`` API of mem0ai 2.2.1 over memscribe.

Switch by changing the import::

    from memscribe.compat.mem0 import Memory      # was: from mem0 import Memory
    m = Memory()
    m.add(messages, user_id="alice", metadata={"category": "movies"})
    m.search("What do you know about me?", user_id="alice")      # {"results": [{"id", "memory", "score", ...}]}

Calls take Mem0's arguments and answer in Mem0's shapes (``{"results": [...]}`` with ``id``, ``memory``,
``event``, ``hash``, ``metadata``, ``created_at``, ``updated_at``, ``score``, the ids). Both the 2.x form
(``filters={"user_id": …}``, ``top_k``) and the 1.x form of its docs (top-level ``user_id``, ``limit``) are
taken. What happens underneath is memscribe's: ``infer=True`` runs the write pipeline (no LLM needed),
``infer=False`` keeps each message verbatim (privacy still applies); ``delete`` and ``delete_all`` are soft
(``memscribe.Memory.restore`` brings a memory back); ``reset`` erases for real. Scopes are described in
:mod:`memscribe.compat.mem0_filters`; the documented differences are in ``docs/mem0-compat.md``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memscribe.compat.mem0_filters import Scope, scope_of, split_filters
from memscribe.compat.mem0_shapes import EVENTS, history_entries, memory_item
from memscribe.config import Settings
from memscribe.errors import InputError, NotFoundError
from memscribe.memory import Memory as MemscribeMemory
from memscribe.models import MemoryRecord, WriteReport

__all__ = ["AsyncMemory", "Memory", "settings_from_config"]

log = logging.getLogger("memscribe.compat.mem0")

SEARCH_POOL_MAX = 1000  # candidates fetched when a filter memscribe cannot apply itself thins the results


def settings_from_config(config: Mapping[str, Any] | None, base: Settings | None = None) -> Settings:
    """What of a Mem0 config dict memscribe can honour: the local store's ``path`` becomes the home folder,
    an ``openai``-style LLM (``openai_base_url`` / ``api_key`` / ``model``) becomes memscribe's optional
    LLM encoder. Everything else (other vector stores, embedders, graph stores, prompts) has no meaning
    here and is logged as ignored, never silently."""
    s = base or Settings()
    if not config:
        return s
    if not isinstance(config, Mapping):
        raise InputError("config must be a dict")
    ignored = [k for k in config if k not in ("vector_store", "llm", "version", "history_db_path")]
    vs = _section(config, "vector_store")
    path = vs.get("path")
    if path:
        s = s.model_copy(update={"home": Path(path)})
    elif vs:
        ignored.append("vector_store")
    llm = _section(config, "llm")
    if llm.get("openai_base_url") or llm.get("base_url"):
        s = s.model_copy(
            update={
                "llm": s.llm.model_copy(
                    update={
                        "base_url": llm.get("openai_base_url") or llm.get("base_url"),
                        "api_key": llm.get("api_key"),
                        "model": llm.get("model") or s.llm.model,
                    }
                )
            }
        )
    if ignored:
        log.warning("Mem0 config keys with no meaning in memscribe were ignored: %s", sorted(set(ignored)))
    return s


def _section(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    sec = config.get(name) or {}
    if not isinstance(sec, Mapping):
        raise InputError(f"config[{name!r}] must be a dict")
    inner = sec.get("config") or {}
    if not isinstance(inner, Mapping):
        raise InputError(f"config[{name!r}]['config'] must be a dict")
    return dict(inner)


class Memory:
    """Mem0's ``Memory`` over a memscribe store (``home`` or the config's vector-store ``path``; by default
    ``$MEMSCRIBE_HOME`` or ``./.memscribe``). ``.memscribe`` is the memscribe ``Memory`` underneath, for
    everything Mem0 has no call for (``context``, ``explain``, ``restore``, ``rollback`` …).

    ``memory`` and ``prefix`` are for the server: its tenant's memory, and the tenant's user-id prefix on a
    shared store (every owner id gets it; a memory id without it is not found)."""

    def __init__(
        self,
        config: Mapping[str, Any] | None = None,
        *,
        home: str | Path | None = None,
        settings: Settings | None = None,
        memory: MemscribeMemory | None = None,
        prefix: str = "",
    ) -> None:
        self._prefix = prefix
        if memory is not None:
            self.memscribe = memory
        else:
            s = settings_from_config(config, settings)
            self.memscribe = MemscribeMemory(home, settings=s)

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any]) -> Memory:
        return cls(config_dict)

    # ------------------------------------------------------------------ write
    def add(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
        **unsupported: Any,
    ) -> dict[str, Any]:
        """Remember ``messages`` (a string, a message dict or a list of them). ``infer=False`` stores each
        non-system message as given; Mem0 skips system messages there too."""
        _refuse(unsupported, "add")
        if memory_type is not None or prompt is not None:
            raise InputError(
                "memory_type and prompt are Mem0 LLM-prompt features with no memscribe equivalent"
            )
        scope = scope_of(user_id, agent_id, run_id)
        if not infer:
            messages = _verbatim_messages(messages)
            if not messages:
                return {"results": []}
        rep = self.memscribe.add(
            messages,
            user_id=self._prefix + scope.owner,
            agent_id=scope.agent_id,
            session_id=scope.run_id,
            metadata=metadata,
            verbatim=not infer,
        )
        return {"results": self._events(rep, messages if not infer else None)}

    def _events(self, rep: WriteReport, verbatim: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
        out = []
        for i, item in enumerate(rep.items):
            event = EVENTS.get(item.action)
            if event is None or item.memory_id is None:  # dropped, unchanged or deferred: not a memory event
                continue
            rec = self.memscribe.get(item.memory_id)
            entry: dict[str, Any] = {"id": rec.id, "memory": rec.text, "event": event}
            if rec.metadata:
                entry["metadata"] = dict(rec.metadata)
            if item.action == "supersede":
                old = next((lk.target for lk in rec.links if lk.type == "supersedes"), None)
                if old is not None:
                    entry["previous_memory"] = self.memscribe.get(old).text
            if verbatim is not None:
                entry["actor_id"] = verbatim[i].get("name")
                entry["role"] = verbatim[i].get("role", "user")
            if item.action == "review":
                entry["status"] = "pending_review"  # stored, held back from recall until approved
            out.append(entry)
        return out

    # ------------------------------------------------------------------ read
    def get(self, memory_id: str) -> dict[str, Any] | None:
        """The memory in Mem0's shape, or None when there is none (as Mem0 answers)."""
        try:
            rec = self._own(memory_id)
        except KeyError:
            return None
        return memory_item(rec, self._prefix) if rec.status.value == "active" else None

    def _own(self, memory_id: str) -> MemoryRecord:
        rec = self.memscribe.get(memory_id)
        if not rec.user_id.startswith(self._prefix):  # another tenant's: exactly like a missing one
            raise NotFoundError(f"no memory {memory_id!r}")
        return rec

    def get_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        filters: Mapping[str, Any] | None = None,
        top_k: int = 20,
        limit: int | None = None,
        **unsupported: Any,
    ) -> dict[str, Any]:
        _refuse(unsupported, "get_all")
        split = split_filters(filters, user_id=user_id, agent_id=agent_id, run_id=run_id)
        n = _count(limit if limit is not None else top_k)
        recs = self._records(split.scope, split.equal)
        if split.predicate is not None:
            recs = [r for r in recs if split.predicate(r.metadata)]
        return {"results": [memory_item(r, self._prefix) for r in recs[:n]]}

    def _records(self, scope: Scope, equal: Mapping[str, Any]) -> list[MemoryRecord]:
        f = {**scope.filters, **({"metadata": dict(equal)} if equal else {})}
        return self.memscribe.list(user_id=self._prefix + scope.owner, filters=f or None)

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        filters: Mapping[str, Any] | None = None,
        top_k: int = 20,
        limit: int | None = None,
        threshold: float | None = None,
        rerank: bool = False,
        **unsupported: Any,
    ) -> dict[str, Any]:
        """Memories for ``query``, best first, each with its ``score``. ``threshold`` cuts on memscribe's
        score; by default memscribe's relevance gate decides (nothing relevant: no results)."""
        _refuse(unsupported, "search")
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, int | float)):
            raise InputError("threshold must be a number")
        split = split_filters(filters, user_id=user_id, agent_id=agent_id, run_id=run_id)
        n = _count(limit if limit is not None else top_k)
        f = {**split.scope.filters, **({"metadata": split.equal} if split.equal else {})}
        pool = n if split.predicate is None else min(SEARCH_POOL_MAX, max(4 * n, 60))
        owner = self._prefix + split.scope.owner
        hits = self.memscribe.search(query, user_id=owner, limit=pool, filters=f or None)
        out = []
        for h in hits:
            if split.predicate is not None and not split.predicate(h.memory.metadata):
                continue
            if threshold is not None and h.score < threshold:
                continue
            out.append({**memory_item(h.memory, self._prefix), "score": h.score})
        return {"results": out[:n]}

    # ------------------------------------------------------------------ change
    def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        *,
        data: str | None = None,
    ) -> dict[str, str]:
        """New text and/or metadata (merged into the old); the old version stays in ``history``."""
        text = text if text is not None else data
        if text is None and metadata is None:
            raise InputError("at least one of text or metadata must be given")
        fields: dict[str, Any] = {}
        if metadata is not None:
            if not isinstance(metadata, Mapping):
                raise InputError("metadata must be a dict")
            rec = self._own(memory_id)
            ids = {"user_id", "agent_id", "run_id", "actor_id"}  # immutable after creation, as in Mem0
            fields["metadata"] = {**rec.metadata, **{k: v for k, v in metadata.items() if k not in ids}}
        else:
            self._own(memory_id)
        self.memscribe.update(memory_id, text=text, reason="updated through the Mem0 API", **fields)
        return {"message": "Memory updated successfully!"}

    def delete(self, memory_id: str) -> dict[str, str]:
        """Soft delete (``memscribe.restore(id)`` undoes it); an unknown id is a ``NotFoundError``."""
        self._own(memory_id)
        self.memscribe.delete(memory_id, reason="deleted through the Mem0 API")
        return {"message": "Memory deleted successfully!"}

    def delete_all(
        self, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> dict[str, str]:
        """Soft delete of every active memory of the scope, each reversible with ``restore``."""
        scope = scope_of(user_id, agent_id, run_id)
        for rec in self._records(scope, {}):
            self.memscribe.delete(rec.id, reason="delete_all through the Mem0 API")
        return {"message": "Memories deleted successfully!"}

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """ADD / UPDATE / DELETE entries, oldest first, with Mem0 2.x's keys (``old_memory``,
        ``new_memory``, ``event``) and its 1.x docs' keys (``previous_value``, ``new_value``, ``action``)."""
        self._own(memory_id)
        return history_entries(self.memscribe.history(memory_id))

    def reset(self) -> None:
        """Erase everything in the store (hard: the one Mem0 call that memscribe does not keep a copy of)."""
        for user in self.memscribe.users():
            if user.startswith(self._prefix):
                self.memscribe.forget(user_id=user)

    def close(self) -> None:
        self.memscribe.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _verbatim_messages(messages: Any) -> list[dict[str, Any]]:
    """``infer=False``: what Mem0 would store raw — each non-system message (a string is one user message)."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if isinstance(messages, Mapping):
        messages = [messages]
    if not isinstance(messages, list):
        raise InputError("messages must be a string, a message dict or a list of them")
    for m in messages:
        if not isinstance(m, Mapping) or "content" not in m or "role" not in m:
            raise InputError("each message needs a role and a content")
    return [dict(m) for m in messages if m["role"] != "system"]


def _count(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1 or n > SEARCH_POOL_MAX:
        raise InputError(f"top_k / limit must be an integer between 1 and {SEARCH_POOL_MAX}")
    return n


def _refuse(unsupported: Mapping[str, Any], call: str) -> None:
    # a Mem0 argument memscribe cannot honour is an error, never silently ignored
    if unsupported:
        raise InputError(f"{call}() does not take {sorted(unsupported)} in memscribe's Mem0 API")


class AsyncMemory:
    """Mem0's ``AsyncMemory``: each call of :class:`Memory` run in a worker thread (one implementation,
    so the twins cannot drift apart)."""

    def __init__(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        self.sync = Memory(config, **kwargs)

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any]) -> AsyncMemory:
        return cls(config_dict)  # synchronous in Mem0's AsyncMemory too

    async def add(self, messages: Any, **kwargs: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.add, messages, **kwargs)

    async def get(self, memory_id: str) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.sync.get, memory_id)

    async def get_all(self, **kwargs: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.get_all, **kwargs)

    async def search(self, query: str, **kwargs: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.search, query, **kwargs)

    async def update(self, memory_id: str, *args: Any, **kwargs: Any) -> dict[str, str]:
        return await asyncio.to_thread(self.sync.update, memory_id, *args, **kwargs)

    async def delete(self, memory_id: str) -> dict[str, str]:
        return await asyncio.to_thread(self.sync.delete, memory_id)

    async def delete_all(self, **kwargs: Any) -> dict[str, str]:
        return await asyncio.to_thread(self.sync.delete_all, **kwargs)

    async def history(self, memory_id: str) -> list[dict[str, Any]]:
        return await asyncio.to_thread(self.sync.history, memory_id)

    async def reset(self) -> None:
        await asyncio.to_thread(self.sync.reset)

    async def close(self) -> None:
        await asyncio.to_thread(self.sync.close)
