"""One query through the read path: filters checked, the query rewritten (time window, follow-ups resolved
against the session's last turns), then hybrid recall over the statuses the call may see."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memscribe.read.recall import hybrid_recall, validate_filters
from memscribe.read.rewrite import rewrite_query

if TYPE_CHECKING:
    from memscribe.config import Settings
    from memscribe.providers.embedders import Embedder
    from memscribe.read.rerank import Scored
    from memscribe.store.base import Store

__all__ = ["RECENT_TURNS_FOR_REWRITE", "Recaller", "recall_for_query", "statuses_for"]

RECENT_TURNS_FOR_REWRITE = 6


def statuses_for(filters: Mapping[str, Any], *, deep: bool) -> tuple[str, ...]:
    """Active memories; archived ones too when ``deep``; exactly the filter's status(es) when it names any."""
    if filters.get("status"):
        st = filters["status"]
        return tuple({st} if isinstance(st, str) else st)
    return ("active", "archived") if deep else ("active",)


def recall_for_query(
    store: Store,
    embedder: Embedder,
    settings: Settings,
    query: str,
    *,
    user_id: str,
    k: int,
    filters: Mapping[str, Any] | None,
    deep: bool,
    now: datetime,
    session_id: str | None = None,
) -> list[Scored]:
    """The ``k`` best memories of ``user_id`` for a query that the boundary has already checked."""
    f = validate_filters(filters)
    recent = None
    if session_id:
        recent = [r.content for r in store.session_messages(session_id, last=RECENT_TURNS_FOR_REWRITE)]
    rq = rewrite_query(query, now=now, recent_turns=recent)
    return hybrid_recall(
        store,
        embedder,
        user_id=user_id,
        query=rq.text,
        now=now,
        window=rq.window,
        k=k,
        cfg=settings.recall,
        life=settings.lifecycle,
        statuses=statuses_for(f, deep=deep),
        deep=deep,
        filters=f,
        relevance_gate=True,
    )


class Recaller:
    """``recall_for_query`` bound to one store, embedder, settings and clock (what ``Memory`` holds)."""

    def __init__(
        self, store: Store, embedder: Embedder, settings: Settings, clock: Callable[[], datetime]
    ) -> None:
        self._store, self._embedder, self._settings, self._clock = store, embedder, settings, clock

    def __call__(
        self,
        query: str,
        *,
        user_id: str,
        k: int,
        filters: Mapping[str, Any] | None,
        deep: bool = False,
        session_id: str | None = None,
    ) -> list[Scored]:
        return recall_for_query(
            self._store,
            self._embedder,
            self._settings,
            query,
            user_id=user_id,
            k=k,
            filters=filters,
            deep=deep,
            now=self._clock(),
            session_id=session_id,
        )
