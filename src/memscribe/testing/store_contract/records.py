"""Records and vectors the contract tests write."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import numpy as np

from memscribe.models import Kind, Layer, Link, MemoryRecord, Source, Status

__all__ = ["T0", "make_record", "put", "unit_vector"]

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
PLUS8 = timezone(timedelta(hours=8))


def unit_vector(seed: int, dim: int = 384) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def make_record(mid: str, user: str = "u1", text: str = "用户不吃香菜", **kw) -> MemoryRecord:  # type: ignore[no-untyped-def]
    base = dict(
        id=mid,
        user_id=user,
        agent_id="agent-7",
        session_id="s1",
        layer=Layer.semantic,
        kind=Kind.preference,
        text=text,
        raw="我不吃香菜",
        structured={"subject": "用户", "negated": True, "nested": {"a": [1, 2, {"b": None}]}},
        entities=["香菜"],
        time_start=datetime(2026, 6, 17, 15, 0, tzinfo=PLUS8),
        time_end=datetime(2026, 6, 17, 16, 0, tzinfo=PLUS8),
        importance=0.8,
        timeliness=0.3,
        confidence=0.9,
        status=Status.active,
        superseded_by=None,
        links=[Link(type="related", target="mem_other")],
        sources=[Source(message_id="m-1", session_id="s1", role="user", name="Ann", at=T0)],
        metadata={"channel": "app", "n": 3},
        created_at=T0,
        updated_at=T0,
        last_accessed_at=None,
        access_count=0,
        expire_at=T0 + timedelta(days=30),
        version=1,
    )
    base.update(kw)
    return MemoryRecord(**base)


def put(store, rec: MemoryRecord, seed: int = 1, terms: str | None = None) -> None:  # type: ignore[no-untyped-def]
    """A memory as the write path stores it: row, vector, keyword entry and first version together."""
    with store.atomic():
        store.put_memory(rec, vector=unit_vector(seed), keyword_text=terms or rec.text)
        store.add_version(rec, reason="add", actor="test", at=T0)
