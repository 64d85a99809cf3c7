"""Working memory: task-scoped scratch state (intermediate results, temporary preferences, to-dos) with a
TTL (default 24 h), cleared when the task is done or aborted, shown in context while live."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from memscribe.config import Settings
from memscribe.errors import InputError
from memscribe.store.base import Store, WorkingItemRow

__all__ = ["WorkingMemory"]

ItemKind = Literal["result", "preference", "todo", "note", "progress"]


def _now() -> datetime:
    return datetime.now(UTC)


class WorkingMemory:
    def __init__(self, store: Store, user_id: str, task_id: str | None, settings: Settings) -> None:
        self.store, self.user_id, self.task_id, self.settings = store, user_id, task_id, settings

    def _task(self) -> str:
        if not self.task_id:
            raise InputError(
                "this working memory view is not bound to a task (use mem.working(task_id, ...))"
            )
        return self.task_id

    def set(
        self,
        key: str,
        value: Any,
        *,
        kind: ItemKind = "note",
        ttl_hours: float | None = None,
        now: datetime | None = None,
    ) -> None:
        if not isinstance(key, str) or not key:
            raise InputError("working memory keys are non-empty strings")
        ttl = self.settings.write.working_ttl_hours if ttl_hours is None else ttl_hours
        expire = (now or _now()) + timedelta(hours=ttl)
        self.store.put_working(self.user_id, self._task(), key, value, kind=kind, expire_at=expire)

    def items(self, *, now: datetime | None = None) -> list[WorkingItemRow]:
        now = now or _now()
        out = []
        for it in self.store.working_items(self.user_id, self.task_id):
            if it.expire_at is not None and it.expire_at <= now:
                continue
            out.append(it)
        return out

    def get(self, key: str, default: Any = None, *, now: datetime | None = None) -> Any:
        for it in self.items(now=now):
            if it.key == key:
                return it.value
        return default

    def delete(self, key: str) -> bool:
        return self.store.delete_working(self.user_id, self._task(), key) > 0

    def reset(self) -> int:
        return self.store.delete_working(self.user_id, self._task())

    def done(self) -> int:
        """The task finished (or was aborted): its scratch state goes."""
        return self.reset()

    abort = done

    def render(self, *, now: datetime | None = None) -> str:
        lines = []
        for it in self.items(now=now):
            v = it.value
            shown = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
            lines.append(f"- [{it.task_id} · {it.kind}] {it.key}: {shown}")
        return "\n".join(lines)
