"""A recalled memory that superseded another brings the version it replaced into the context, right after it,
marked as superseded.

A supersede replaces what changed, but the memory it replaced often held more than the changed value: the
membership number beside a card's old expiry date, the first delivery beside the delivery window that later
moved, the original deadline a question about the change asks for. Recall searches active memories only (a
superseded value must never be read as current), so without this the words of the earlier version are lost
to every question. Shown labelled as superseded beside its successor, the agent reads both: what holds now,
and what it was (and what else was said with it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memscribe.models import MemoryRecord, Status
from memscribe.read.rerank import Scored

__all__ = ["MAX_EARLIER", "with_earlier_versions"]

MAX_EARLIER = 1  # the version it replaced, not the whole chain: the chain is history()'s job


def with_earlier_versions(
    scored: Sequence[Scored],
    get: Callable[[list[str]], dict[str, MemoryRecord]],
    *,
    user_id: str,
    limit: int = MAX_EARLIER,
) -> list[Scored]:
    """``scored`` with, after each memory that superseded others, the memories it replaced (each once).

    ``get(ids)`` returns memories by id. Only a memory of the same user whose status is still ``superseded``
    comes back: one deleted, archived or restored since is not the successor's history any more.
    """
    wanted = {
        s.record.id: [lk.target for lk in s.record.links if lk.type == "supersedes"][:limit] for s in scored
    }
    targets = list(dict.fromkeys(t for ts in wanted.values() for t in ts))
    found = get(targets) if targets else {}
    out: list[Scored] = []
    placed = {s.record.id for s in scored}
    for s in scored:
        out.append(s)
        for target in wanted[s.record.id]:
            rec = found.get(target)
            if rec is None or target in placed or rec.user_id != user_id or rec.status != Status.superseded:
                continue
            out.append(Scored(record=rec, score=s.score * 0.998, why={"earlier_version_of": s.record.id}))
            placed.add(target)
    return out
