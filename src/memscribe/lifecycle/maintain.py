"""The maintenance runner (DESIGN §4): the lifecycle decisions applied through the Store.

Per user, in this order: expire TTLs -> archive cold memories -> decay unconfirmed inferences -> merge
near-duplicate clusters -> consolidate repeated episodes into semantic memories (merging again when a
new semantic memory duplicates one already kept). Then expired working-memory items are removed.

Every change is a new version plus an audit event (stage ``maintain``); the changes of one memory (or
of one merge cluster) commit together in one ``store.atomic()``. Before writing, the runner checks that
the stored version is still the one it read: a memory that changed meanwhile (an add() merged into it,
a user edit) is skipped and reconsidered by the next run. Access statistics that moved meanwhile are
carried over.

Bookkeeping changes (archive, expire, confidence decay) keep ``updated_at``: they must not reset the
inactivity clock or make a memory look recent to the reranker. Content changes (merge, consolidation)
set ``updated_at = now``.

Idempotent and restartable: each step is decided from the stored state alone, so a second run at the same
``now`` changes nothing, and a run interrupted half-way is completed by the next one. Inference decay is
per maintenance *day*: it happens at most once per ``DECAY_MIN_INTERVAL`` (20 h), so reruns the same day
are no-ops but every later run (daily or weekly) decays again — the decay rate follows how often
maintenance is scheduled.

``dry_run=True`` computes the same report (including embeddings of would-be semantic memories) and
writes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from memscribe.config import Settings
from memscribe.errors import InputError
from memscribe.ledger import Ledger
from memscribe.lifecycle.archive import should_archive, should_expire
from memscribe.lifecycle.consolidate import (
    decay_inference,
    find_repeated_episodes,
    merge_cluster,
    near_duplicate_clusters,
    same_habit,
    semantic_from_episodes,
)
from memscribe.models import AuditEvent, Layer, Link, MemoryRecord, Status
from memscribe.providers.embedders import Embedder
from memscribe.store.base import Store

__all__ = ["NEAR_DUPLICATE_SIMILARITY", "MaintenanceAction", "MaintenanceReport", "run_maintenance"]

ActionName = Literal["expire", "archive", "decay", "merge", "supersede", "consolidate", "reinforce", "skip"]
GROWTH_WINDOW_DAYS = 30
# Cosine floor for near-duplicates; the word-overlap, slot and id checks in ``near_duplicate_clusters``
# do the real separating (e5 cosines of different facts are often above 0.9).
NEAR_DUPLICATE_SIMILARITY = 0.85
_MAX_MERGE_ROUNDS = 8


class MaintenanceAction(BaseModel):
    user_id: str
    memory_id: str
    action: ActionName
    reason: str


class MaintenanceReport(BaseModel):
    now: datetime
    dry_run: bool = False
    users: list[str] = Field(default_factory=list)
    expired: int = 0
    archived: int = 0  # cold memories and inferences that fell below the confidence floor
    consolidated: int = 0  # semantic memories created from repeated episodes
    reinforced: int = 0  # existing consolidated memories that gained new episodes
    merged: int = 0  # memories superseded by a near-duplicate (the cluster's newest survives)
    confidence_decayed: int = 0
    working_items_expired: int = 0
    skipped: int = 0  # changes not written because the memory changed during the run
    active_before: dict[str, int] = Field(default_factory=dict)
    active_after: dict[str, int] = Field(default_factory=dict)
    growth_rate: float = 0.0  # memories created per day over the last 30 days (all users processed)
    growth_rate_by_user: dict[str, float] = Field(default_factory=dict)
    actions: list[MaintenanceAction] = Field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return dict(Counter(a.action for a in self.actions))


@dataclass(slots=True)
class _Write:
    rec: MemoryRecord
    new: bool = False  # a brand-new memory (stored with a vector and keyword entry)
    reindex_keywords: bool = False


@dataclass(slots=True)
class _Op:
    """Changes that commit together, with the report lines they produce."""

    writes: list[_Write]
    reason: str
    actions: list[tuple[str, str]]  # (memory_id, action)
    vector: np.ndarray | None = None


class _Conflict(Exception):
    pass


@dataclass
class _UserRun:
    user_id: str
    now: datetime
    settings: Settings
    store: Store
    embedder: Embedder
    ledger: Ledger
    loaded: dict[str, MemoryRecord]
    state: dict[str, MemoryRecord] = field(default_factory=dict)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    ops: list[_Op] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.state = dict(self.loaded)

    # ------------------------------------------------------------------ bookkeeping
    def _next(self, old: MemoryRecord, new: MemoryRecord, *, touch: bool) -> MemoryRecord:
        new = new.model_copy(
            update={"version": old.version + 1, "updated_at": self.now if touch else old.updated_at}
        )
        self.state[new.id] = new
        return new

    def _single(
        self,
        old: MemoryRecord,
        new: MemoryRecord,
        *,
        action: str,
        reason: str,
        touch: bool,
    ) -> None:
        rec = self._next(old, new, touch=touch)
        self.ops.append(_Op(writes=[_Write(rec)], reason=reason, actions=[(rec.id, action)]))

    def _live(self, *layers: Layer) -> list[MemoryRecord]:
        return [r for r in self.state.values() if r.status == Status.active and r.layer in layers]

    def _ensure_vectors(self, recs: Iterable[MemoryRecord]) -> None:
        missing = [r.id for r in recs if r.id not in self.vectors]
        if missing:
            self.vectors.update(self.store.get_vectors(missing))

    # ------------------------------------------------------------------ steps
    def expire(self) -> None:
        for r in list(self.state.values()):
            if should_expire(r, self.now):
                reason = f"expired at {r.expire_at.isoformat() if r.expire_at else '?'}"
                self._single(
                    r,
                    r.model_copy(update={"status": Status.expired}),
                    action="expire",
                    reason=reason,
                    touch=False,
                )

    def archive(self) -> None:
        cfg = self.settings.lifecycle
        for r in list(self.state.values()):
            why = should_archive(r, self.now, cfg)
            if why:
                self._single(
                    r,
                    r.model_copy(update={"status": Status.archived}),
                    action="archive",
                    reason=why,
                    touch=False,
                )

    def decay(self) -> None:
        cfg = self.settings.lifecycle
        for r in list(self.state.values()):
            new = decay_inference(r, cfg, now=self.now)
            if new is None:
                continue
            reason = f"unconfirmed inference: confidence {r.confidence:.3g} -> {new.confidence:.3g}"
            rec = self._next(r, new, touch=False)
            actions = [(rec.id, "decay")]
            if rec.status == Status.archived:
                reason += f" (< {cfg.inference_archive_below:g}, archived)"
                actions.append((rec.id, "archive"))
            self.ops.append(_Op(writes=[_Write(rec)], reason=reason, actions=actions))

    def merge(self) -> int:
        done = 0
        for _ in range(_MAX_MERGE_ROUNDS):  # until no cluster is left (a survivor may pair anew)
            live = self._live(Layer.episodic, Layer.semantic)
            self._ensure_vectors(live)
            clusters = near_duplicate_clusters(live, self.vectors, similarity=NEAR_DUPLICATE_SIMILARITY)
            if not clusters:
                break
            for cluster in clusters:
                survivor, retired = merge_cluster(cluster)
                old = {r.id: r for r in cluster}
                writes = [_Write(self._next(old[survivor.id], survivor, touch=True), reindex_keywords=True)]
                writes += [_Write(self._next(old[r.id], r, touch=True)) for r in retired]
                self.ops.append(
                    _Op(
                        writes=writes,
                        reason=f"near-duplicates of {survivor.id} (newest kept): {survivor.text[:60]}",
                        actions=[(survivor.id, "merge")] + [(r.id, "supersede") for r in retired],
                    )
                )
                done += len(retired)
        return done

    def consolidate(self) -> int:
        owner: dict[str, str] = {}  # episode id -> the semantic memory derived from it (any status)
        for r in self.state.values():
            for link in r.links:
                if link.type == "derived_from":
                    owner.setdefault(link.target, r.id)
        episodes = self._live(Layer.episodic)
        self._ensure_vectors(episodes)
        created = 0
        for cluster in find_repeated_episodes(episodes, self.vectors):
            fresh = [e for e in cluster if e.id not in owner]
            if not fresh:
                continue
            owners = Counter(owner[e.id] for e in cluster if e.id in owner)
            target = self._current(owners.most_common(1)[0][0]) if owners else None
            if target is None or target.status not in (Status.active, Status.archived):
                # new, or its consolidated memory was deleted / expired: only a full new pattern counts
                group = fresh if owners else cluster
                if len(group) < 3:
                    continue
                rec = semantic_from_episodes(group, self.now, vectors=self.vectors)
                vec = np.asarray(self.embedder.embed_passages([rec.text])[0], dtype=np.float32)
                target = self._kept_habit(rec, vec)
                if target is None:
                    self._create(rec, vec, group)
                    for e in group:
                        owner[e.id] = rec.id
                    created += 1
                    continue
            self._reinforce(target, fresh)  # the habit goes on (an archived one comes back)
            for e in fresh:
                owner[e.id] = target.id
        return created

    def _kept_habit(self, rec: MemoryRecord, vec: np.ndarray) -> MemoryRecord | None:
        """An active or archived consolidated memory that already states this habit (its episodes aged
        out, the pattern came back)."""
        kept = [
            r
            for r in self.state.values()
            if r.layer == Layer.semantic
            and r.state.consolidated_from is not None
            and r.status in (Status.active, Status.archived)
        ]
        self._ensure_vectors(kept)
        for r in sorted(kept, key=lambda r: (r.status != Status.active, -r.created_at.timestamp())):
            v = self.vectors.get(r.id)
            if v is not None and same_habit(rec, r, float(np.dot(v, vec))):
                return self.state[r.id]
        return None

    def _create(self, rec: MemoryRecord, vec: np.ndarray, group: Sequence[MemoryRecord]) -> None:
        self.vectors[rec.id] = vec
        self.state[rec.id] = rec
        self.ops.append(
            _Op(
                writes=[_Write(rec, new=True)],
                reason=f"{len(group)} repeated episodes: " + ", ".join(e.id for e in group),
                actions=[(rec.id, "consolidate")],
                vector=vec,
            )
        )

    def _current(self, memory_id: str) -> MemoryRecord | None:
        """The memory, or the active one that superseded it (a merged consolidated memory lives on)."""
        rec = self.state.get(memory_id)
        for _ in range(32):
            if rec is None or rec.status != Status.superseded or not rec.superseded_by:
                break
            rec = self.state.get(rec.superseded_by)
        return rec

    def _reinforce(self, target: MemoryRecord, fresh: Sequence[MemoryRecord]) -> None:
        have = {s.message_id for s in target.sources}
        state = target.state.model_copy(
            update={"consolidated_from": (target.state.consolidated_from or 0) + len(fresh)}
        )
        new = target.model_copy(
            update={
                "links": [*target.links, *(Link(type="derived_from", target=e.id) for e in fresh)],
                "sources": [
                    *target.sources,
                    *(s for e in fresh for s in e.sources if s.message_id not in have),
                ],
                "importance": max([target.importance, *(e.importance for e in fresh)]),
                "state": state,
                "status": Status.active,
            },
            deep=True,
        )
        again = " (restored from the archive)" if target.status == Status.archived else ""
        self._single(
            target,
            new,
            action="reinforce",
            reason=f"{len(fresh)} more episodes{again}: " + ", ".join(e.id for e in fresh),
            touch=True,
        )

    def plan(self) -> None:
        self.expire()
        self.archive()
        self.decay()
        for _ in range(_MAX_MERGE_ROUNDS):
            self.merge()
            if not self.consolidate():
                break

    # ------------------------------------------------------------------ apply
    def apply(self, op: _Op) -> None:
        with self.store.atomic():
            ids = [w.rec.id for w in op.writes if not w.new]
            current = self.store.get_memories(ids) if ids else {}
            for w in op.writes:
                rec = w.rec
                if not w.new:
                    cur = current.get(rec.id)
                    if cur is None or cur.version != rec.version - 1:
                        raise _Conflict(rec.id)
                    rec = _carry_access(rec, cur, self.loaded.get(rec.id))
                self.ledger.apply_planned(
                    rec,
                    new=w.new,
                    reason=op.reason,
                    actor="maintain",
                    at=self.now,
                    vector=op.vector if w.new else None,
                    reindex_keywords=w.reindex_keywords,
                )
            self.store.add_audit(
                AuditEvent(
                    ts=self.now,
                    user_id=self.user_id,
                    memory_id=mid,
                    stage="maintain",
                    action=action,
                    reason=op.reason,
                )
                for mid, action in op.actions
            )


def _carry_access(rec: MemoryRecord, cur: MemoryRecord, base: MemoryRecord | None) -> MemoryRecord:
    """Keep recall's access statistics that were recorded after this run read the memory."""
    delta = cur.access_count - (base.access_count if base is not None else cur.access_count)
    stamps = [t for t in (rec.last_accessed_at, cur.last_accessed_at) if t is not None]
    if delta <= 0 and rec.last_accessed_at == (max(stamps) if stamps else None):
        return rec
    return rec.model_copy(
        update={
            "access_count": rec.access_count + max(0, delta),
            "last_accessed_at": max(stamps) if stamps else None,
        }
    )


def _growth(recs: Iterable[MemoryRecord], now: datetime) -> int:
    start = now - timedelta(days=GROWTH_WINDOW_DAYS)
    return sum(1 for r in recs if start < r.created_at <= now)


def _expire_working(
    store: Store, users: Sequence[str], now: datetime, *, dry_run: bool, all_users: bool
) -> int:
    if not dry_run and all_users:
        return store.expire_working(now)
    n = 0
    for u in users:
        for it in store.working_items(u):
            if it.expire_at is None or it.expire_at > now:
                continue
            n += 1
            if not dry_run:
                store.delete_working(u, it.task_id, it.key)
    return n


def run_maintenance(
    store: Store,
    embedder: Embedder,
    settings: Settings,
    *,
    now: datetime,
    dry_run: bool = False,
    user_id: str | None = None,
    on_action: Callable[[MaintenanceAction], None] | None = None,
    ledger: Ledger | None = None,
) -> MaintenanceReport:
    """Run the lifecycle over one user (or every user of the store) as of ``now``; see the module doc."""
    if now.tzinfo is None:
        raise InputError("now must be timezone-aware (e.g. datetime.now(UTC))")
    users = [user_id] if user_id is not None else list(store.iter_users())
    ledger = ledger or Ledger(store, embedder, clock=lambda: now)
    report = MaintenanceReport(now=now, dry_run=dry_run, users=users)
    created = 0
    for u in users:
        # pinned memories (metadata "pinned": true, e.g. LangGraph store items) are kept as written
        loaded = {
            r.id: r for r in store.list_memories(u, statuses=None) if r.metadata.get("pinned") is not True
        }
        run = _UserRun(
            user_id=u,
            now=now,
            settings=settings,
            store=store,
            embedder=embedder,
            ledger=ledger,
            loaded=loaded,
        )
        report.active_before[u] = sum(1 for r in loaded.values() if r.status == Status.active)
        run.plan()
        for op in run.ops:
            lines = [
                MaintenanceAction(user_id=u, memory_id=m, action=a, reason=op.reason) for m, a in op.actions
            ]  # type: ignore[arg-type]
            if not dry_run:
                try:
                    run.apply(op)
                except _Conflict as exc:
                    report.skipped += 1
                    lines = [
                        MaintenanceAction(
                            user_id=u,
                            memory_id=str(exc),
                            action="skip",
                            reason="changed during maintenance; left for the next run",
                        )
                    ]
            for line in lines:
                _count(report, line.action)
                report.actions.append(line)
                if on_action is not None:
                    on_action(line)
        if dry_run:
            report.active_after[u] = sum(1 for r in run.state.values() if r.status == Status.active)
        else:
            report.active_after[u] = int(store.count_memories(u).get("active", 0))
        grown = _growth(run.state.values(), now)
        report.growth_rate_by_user[u] = round(grown / GROWTH_WINDOW_DAYS, 3)
        created += grown
    report.growth_rate = round(created / GROWTH_WINDOW_DAYS, 3)
    report.working_items_expired = _expire_working(
        store, users, now, dry_run=dry_run, all_users=user_id is None
    )
    return report


_COUNTERS = {
    "expire": "expired",
    "archive": "archived",
    "consolidate": "consolidated",
    "reinforce": "reinforced",
    "supersede": "merged",
    "decay": "confidence_decayed",
}


def _count(report: MaintenanceReport, action: str) -> None:
    name = _COUNTERS.get(action)
    if name is not None:
        setattr(report, name, getattr(report, name) + 1)
