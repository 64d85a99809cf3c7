"""Statements said together are read together: a recalled statement brings the other statements of its
message (its siblings) into the context, right after it.

Memories are atomic (one speaker's statement each, DESIGN §8.1), so a message that said three things is
three memories; a query usually finds one of them, and the answer often needs the others ("I went to a
support group yesterday" / "the stories were so inspiring"). This is small-to-big retrieval: the unit
written and merged stays the statement, the unit read is the statement with its message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memscribe.models import MemoryRecord
from memscribe.read.rerank import Scored

__all__ = ["MAX_SIBLINGS", "with_siblings"]

MAX_SIBLINGS = 4  # per recalled statement: a long message is not pulled in whole


def _origin(rec: MemoryRecord) -> str | None:
    return rec.sources[0].message_id if rec.sources else None


def with_siblings(
    scored: Sequence[Scored], find: Callable[[list[str]], list[MemoryRecord]], *, limit: int = MAX_SIBLINGS
) -> list[Scored]:
    """``scored`` (best first) with each memory's siblings placed right after it, each once.

    ``find(message_ids)`` returns the memories first said in those messages. A sibling that was recalled on
    its own keeps its own place if that comes first; otherwise it moves up behind the statement it was said
    with, scored just below it.
    """
    origins = list(dict.fromkeys(o for s in scored if (o := _origin(s.record)) is not None))
    by_origin: dict[str, list[MemoryRecord]] = {}
    for rec in find(origins) if origins else []:
        by_origin.setdefault(_origin(rec) or "", []).append(rec)
    out: list[Scored] = []
    placed: set[str] = set()
    for s in scored:
        if s.record.id in placed:
            continue
        out.append(s)
        placed.add(s.record.id)
        siblings = [r for r in by_origin.get(_origin(s.record) or "", []) if r.id not in placed]
        for rec in siblings[:limit]:
            out.append(Scored(record=rec, score=s.score * 0.999, why={"sibling_of": s.record.id}))
            placed.add(rec.id)
    return out
