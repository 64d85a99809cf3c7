"""Access statistics of recall, batched: which memories a search or context returned, and when.

Recall must not wait on a write, so returned ids are collected in memory and written in one ``touch``
later (by the background worker, at ``flush()``, or when the batch grows large). Decay and archiving
read these times, so ``maintain()`` flushes first.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memscribe.store.base import Store

__all__ = ["AccessLog"]


class AccessLog:
    """Pending accesses (memory id -> latest time) of one store; thread-safe."""

    FLUSH_AT = 256  # a batch this large is written without waiting for the worker

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._pending: dict[str, datetime] = {}

    def record(self, ids: Iterable[str], at: datetime) -> bool:
        """Note the ids as accessed at ``at``; True when the batch is large enough to write now."""
        with self._lock:
            for i in ids:
                self._pending[i] = at
            return len(self._pending) >= self.FLUSH_AT

    def flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        if pending:
            self._store.touch(list(pending), max(pending.values()))

    def clear(self) -> None:
        """Drop what is pending (the user's memories are being erased)."""
        with self._lock:
            self._pending.clear()
