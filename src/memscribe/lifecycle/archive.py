"""Archive and expiry decisions (DESIGN §4). Pure functions over one record; ``maintain`` does the I/O.

- A memory is *archived* when nobody has used it for ``archive_after_days`` and it was used fewer than
  ``archive_max_access`` times. Archived memories leave default recall but ``search(deep=True)`` still
  finds them and ``Memory.restore`` brings them back.
- A memory *expires* when its ``expire_at`` has passed (working-layer items carry a TTL; so can anything
  the caller gave one). Expired memories stay in history but are never recalled again.
"""

from __future__ import annotations

from datetime import datetime

from memscribe.config import LifecycleConfig
from memscribe.models import Layer, MemoryRecord, Status

__all__ = ["ARCHIVABLE_LAYERS", "EXPIRABLE_STATUSES", "last_activity", "should_archive", "should_expire"]

ARCHIVABLE_LAYERS = frozenset({Layer.episodic, Layer.semantic})
EXPIRABLE_STATUSES = frozenset({Status.active, Status.archived, Status.pending_review})


def last_activity(rec: MemoryRecord) -> datetime:
    """When this memory was last used or written, whichever is later.

    ``created_at`` is the time of the message it came from, ``updated_at`` when the store last wrote it
    (a merge, an edit, a restore), ``last_accessed_at`` when recall last returned it. A restore or an edit
    counts as activity, so a memory restored by hand is not archived again by the next run.
    """
    stamps = [rec.created_at, rec.updated_at]
    if rec.last_accessed_at is not None:
        stamps.append(rec.last_accessed_at)
    return max(stamps)


def should_archive(rec: MemoryRecord, now: datetime, cfg: LifecycleConfig) -> str | None:
    """The reason to archive ``rec`` at ``now``, or None to keep it active."""
    if rec.status != Status.active or rec.layer not in ARCHIVABLE_LAYERS:
        return None
    if rec.access_count >= cfg.archive_max_access:
        return None
    idle_days = (now - last_activity(rec)).total_seconds() / 86400.0
    if idle_days < cfg.archive_after_days:
        return None
    used = "never accessed" if rec.access_count == 0 else f"accessed {rec.access_count}x"
    return (
        f"not used for {idle_days:.0f} days (>= {cfg.archive_after_days:g}) and {used} "
        f"(< {cfg.archive_max_access})"
    )


def should_expire(rec: MemoryRecord, now: datetime) -> bool:
    """True when the memory's TTL has passed (any layer; active, archived or pending review)."""
    return rec.expire_at is not None and rec.expire_at <= now and rec.status in EXPIRABLE_STATUSES
