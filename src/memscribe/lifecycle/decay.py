"""Decay-aware value of a memory (DESIGN §3):

    retrieval_value = importance × decay_factor ^ (days_since_last_access / half_life_days)

Half-life by use: frequently used memories fade slowly (180 d), occasional ones faster (30 d), short-term
working items within a day.
"""

from __future__ import annotations

from datetime import datetime

from memscribe.config import LifecycleConfig
from memscribe.models import Layer, MemoryRecord

__all__ = ["half_life_days", "retrieval_value"]


def half_life_days(rec: MemoryRecord, cfg: LifecycleConfig) -> float:
    if rec.layer == Layer.working:
        return cfg.half_life_days_short
    if rec.access_count >= cfg.frequent_access_count or rec.layer == Layer.semantic:
        return cfg.half_life_days_frequent
    return cfg.half_life_days_occasional


def retrieval_value(rec: MemoryRecord, now: datetime, cfg: LifecycleConfig) -> float:
    last = rec.last_accessed_at or rec.updated_at or rec.created_at
    days = max(0.0, (now - last).total_seconds() / 86400.0)
    return rec.importance * cfg.decay_factor ** (days / half_life_days(rec, cfg))
