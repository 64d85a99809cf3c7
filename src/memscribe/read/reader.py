"""``search()`` and ``context()`` of one store, and its listings (``list()``, ``review_queue()``).

Arguments are validated (:mod:`memscribe.boundary`); a search or context is timed, recall runs
(:class:`~memscribe.read.query.Recaller`), and the ids it returned go to the access log (written later in
a batch, so recall never waits on a write).

``context()`` is composed here for :func:`~memscribe.read.context.assemble_context`, which stays pure:
the session layers rendered (task state, rolling summary, recent turns) when a session is named, recall
for the query, and the statements said with each memory that fits (:mod:`memscribe.read.siblings`) and the
version it superseded (:mod:`memscribe.read.history`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from memscribe import boundary
from memscribe.errors import InputError
from memscribe.layers.session import SessionMemory
from memscribe.layers.working import WorkingMemory
from memscribe.models import Context, Hit, MemoryRecord
from memscribe.read.context import SessionTexts, assemble_context
from memscribe.read.history import with_earlier_versions
from memscribe.read.inspection import pending_review
from memscribe.read.query import Recaller
from memscribe.read.recall import matches_filters, validate_filters
from memscribe.read.siblings import with_siblings

if TYPE_CHECKING:
    from memscribe.clock import Clock
    from memscribe.config import Settings
    from memscribe.metrics import Metrics
    from memscribe.providers.embedders import Embedder
    from memscribe.store.base import Store

__all__ = ["Reader", "session_texts"]


def session_texts(store: Store, settings: Settings, session_id: str, *, user_id: str) -> SessionTexts:
    """What a session's layers say, rendered: the user's working items, the summary, the last turns."""
    sess = SessionMemory(store, session_id, user_id, settings)
    working = WorkingMemory(store, user_id, None, settings).render()
    return SessionTexts(task_state=working, summary=sess.summary(), recent_turns=sess.render_recent())


class Reader:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        metrics: Metrics,
        *,
        clock: Clock,
        on_access: Callable[[Iterable[str]], None],
    ) -> None:
        self._store = store
        self._settings = settings
        self._recall = Recaller(store, embedder, settings, clock)
        self._metrics = metrics
        self._on_access = on_access

    def _query(self, query: str) -> str:
        return boundary.query_text(query, max_bytes=self._settings.write.max_message_bytes)

    def search(
        self,
        query: str,
        *,
        user_id: str,
        limit: int,
        filters: Mapping[str, Any] | None,
        deep: bool,
        session_id: str | None,
    ) -> list[Hit]:
        user_id, limit = boundary.require_user(user_id), boundary.search_limit(limit)
        session_id = boundary.optional_id(session_id, "session_id")
        query = self._query(query)
        with self._metrics.timed("search"):
            scored = self._recall(
                query, user_id=user_id, k=max(limit, 20), filters=filters, deep=deep, session_id=session_id
            )[:limit]
        self._on_access(s.record.id for s in scored)
        return [Hit(memory=s.record, score=s.score, why=s.why) for s in scored]

    def context(
        self,
        query: str,
        *,
        user_id: str,
        session_id: str | None,
        budget_tokens: int,
        max_items: int | None,
        filters: Mapping[str, Any] | None,
    ) -> Context:
        user_id, budget_tokens = boundary.require_user(user_id), boundary.budget_tokens(budget_tokens)
        session_id = boundary.optional_id(session_id, "session_id")
        if max_items is not None and (
            isinstance(max_items, bool) or not isinstance(max_items, int) or max_items < 1
        ):
            raise InputError("max_items must be a positive integer")
        query = self._query(query)
        store, settings = self._store, self._settings
        with self._metrics.timed("context"):
            ctx = assemble_context(
                budget_tokens=budget_tokens,
                max_items=max_items if max_items is not None else settings.recall.context_max_items,
                recall=lambda k: self._recall(
                    query, user_id=user_id, k=k, filters=filters, session_id=session_id
                ),
                session=session_texts(store, settings, session_id, user_id=user_id) if session_id else None,
                # a sibling need not match the caller's filters: with filters, recall alone decides
                expand=None
                if filters
                else lambda head: with_earlier_versions(
                    with_siblings(head, lambda ids: store.memories_from_messages(user_id, ids)),
                    store.get_memories,
                    user_id=user_id,
                ),
            )
            self._on_access(h.memory.id for h in ctx.items)
            return ctx

    def records(
        self,
        *,
        user_id: str,
        status: str | None,
        kind: str | None,
        layer: str | None,
        limit: int | None,
        offset: int,
        filters: Mapping[str, Any] | None = None,
    ) -> list[MemoryRecord]:
        """A user's memories of one status (``None`` or ``"all"``: every status), kind and layer; with
        ``filters`` (the keys ``search()`` takes: agent_id, session_id, metadata, entities, ...) only those
        that match, paged after filtering."""
        user_id, statuses = boundary.require_user(user_id), boundary.status_filter(status)
        f = validate_filters(filters)
        if not f:
            return self._store.list_memories(
                user_id, statuses=statuses, kind=kind, layer=layer, limit=limit, offset=offset
            )
        recs = self._store.list_memories(user_id, statuses=statuses, kind=kind, layer=layer)
        kept = [r for r in recs if matches_filters(r, f)]
        return kept[offset : None if limit is None else offset + limit]

    def review_queue(self, *, user_id: str | None, limit: int | None) -> list[MemoryRecord]:
        """The memories of one user (``None``: of every user) waiting for review, oldest first."""
        users = [boundary.require_user(user_id)] if user_id is not None else list(self._store.iter_users())
        return pending_review(self._store, users, limit=limit)
