"""Mem0's result shapes from memscribe's records and versions (pure functions)."""

from __future__ import annotations

import hashlib
from typing import Any

from memscribe.compat.mem0_filters import AGENT_PREFIX, RUN_PREFIX
from memscribe.models import MemoryRecord, Version

__all__ = ["EVENTS", "history_entries", "memory_item"]

# memscribe's write actions as Mem0 events; a supersede is Mem0's UPDATE (Mem0 rewrites the old memory in
# place, memscribe keeps it as a superseded version and answers with the new memory's id)
EVENTS = {"add": "ADD", "working": "ADD", "review": "ADD", "link": "ADD", "close": "ADD"}
EVENTS |= {"update": "UPDATE", "merge": "UPDATE", "supersede": "UPDATE"}


def _iso(dt: Any) -> str | None:
    return dt.isoformat() if dt is not None else None


def _hash(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def memory_item(rec: MemoryRecord, prefix: str = "") -> dict[str, Any]:
    """A memscribe record in Mem0's shape (the ids only when set, ``metadata`` only when not empty);
    ``prefix`` (a server tenant's) is taken off the user id."""
    owner = rec.user_id[len(prefix) :]
    item: dict[str, Any] = {
        "id": rec.id,
        "memory": rec.text,
        "hash": _hash(rec.text),
        "created_at": _iso(rec.created_at),
        "updated_at": _iso(rec.updated_at) if rec.version > 1 else None,
    }
    if not owner.startswith((AGENT_PREFIX, RUN_PREFIX)):
        item["user_id"] = owner
    if rec.agent_id is not None:
        item["agent_id"] = rec.agent_id
    if rec.session_id is not None:
        item["run_id"] = rec.session_id
    if rec.metadata:
        item["metadata"] = dict(rec.metadata)
    return item


def history_entries(versions: list[Version]) -> list[dict[str, Any]]:
    """Mem0's history from memscribe's versions: a text change is an UPDATE, a deletion a DELETE; other
    revisions (access counts, verification, status bookkeeping) are not events in Mem0's terms."""
    out: list[dict[str, Any]] = []
    last: dict[str, MemoryRecord] = {}
    for v in versions:
        rec, prev = v.record, last.get(v.memory_id)
        last[v.memory_id] = rec
        if prev is None:
            event, old = "ADD", None
        elif rec.status.value == "deleted" and prev.status.value != "deleted":
            event, old = "DELETE", prev.text
        elif rec.text != prev.text:
            event, old = "UPDATE", prev.text
        else:
            continue
        new = None if event == "DELETE" else rec.text
        out.append(
            {
                "id": f"{v.memory_id}:v{v.version}",
                "memory_id": v.memory_id,
                "old_memory": old,
                "new_memory": new,
                "event": event,
                "previous_value": old,
                "new_value": new,
                "action": event,
                "created_at": _iso(rec.created_at),
                "updated_at": _iso(v.created_at) if v.version > 1 else None,
                "is_deleted": event == "DELETE",
            }
        )
    return out
