"""Admission of writes: the per-user and per-store limits, the write-rate buckets, and the sealed payload
of a write the rate deferred.

``Memory.add`` asks, in order: :meth:`Admission.check_limits` (raises :class:`LimitExceeded`), then
:meth:`Admission.delay_for` (0: write now; > 0: defer by that many seconds; in ``error`` mode it raises
:class:`RateLimited` instead). A deferred write waits in the durable job queue sealed with the vault key
(the raw messages may still hold values the privacy stage has not removed), bound to its user by the
AES-GCM associated data ``deferred:<user>``.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from memscribe.errors import CorruptJob, LimitExceeded, RateLimited, VaultError
from memscribe.lifecycle.ratelimit import KeyedBuckets, TokenBucket, admit
from memscribe.models import Message, WriteItem, WriteReport

if TYPE_CHECKING:
    from memscribe.config import Settings
    from memscribe.store.base import Store
    from memscribe.vault import Vault

__all__ = ["Admission", "DeferredWrite"]

# what a new write may add to a user's count; the count of a user is cached between checks
_COUNTED_ACTIONS = ("add", "supersede", "close", "link", "review")
_COUNTED_STATUSES = ("active", "archived", "pending_review")
_COUNT_MAX_AGE_S = 5.0
_COUNT_NEAR_LIMIT = 0.95


class DeferredWrite(BaseModel):
    """One ``add()`` call the write rate postponed: everything needed to run it at its turn."""

    model_config = ConfigDict(frozen=True)

    user_id: str
    messages: list[Message]
    agent_id: str | None = None
    session_id: str | None = None
    at: datetime
    metadata: dict[str, Any] = {}
    verbatim: bool = False  # each message kept as given (no filter, encoder or merge)

    def report(self, job_id: int, delay_s: float) -> WriteReport:
        """What ``add()`` answers for it: every message ``deferred``, with the job and the wait."""
        reason = f"over the write rate: queued (job {job_id}), runs in {delay_s:.2f} s"
        return WriteReport(
            user_id=self.user_id,
            items=[
                WriteItem(message_id=m.id or f"job{job_id}:{i}", action="deferred", reasons=[reason])
                for i, m in enumerate(self.messages)
            ],
        )


def _aad(user_id: str) -> str:
    return f"deferred:{user_id}"


class Admission:
    """Limits and rates of one store. Thread-safe where it matters: the buckets lock themselves, and the
    count cache is advisory (a stale count near the limit is always re-read)."""

    def __init__(self, settings: Settings, store: Store, vault: Callable[[], Vault]) -> None:
        lim = settings.limits
        self._limits = lim
        self._store = store
        self._vault = vault
        self._user_buckets = KeyedBuckets(lim.user_rate, lim.user_burst) if lim.user_rate else None
        self._tenant_bucket = TokenBucket(lim.tenant_rate, lim.tenant_burst) if lim.tenant_rate else None
        self._user_counts: dict[str, tuple[float, int]] = {}  # user -> (monotonic time, memory count)

    # ------------------------------------------------------------------ limits
    def check_limits(self, user_id: str) -> None:
        """Raise :class:`LimitExceeded` when the user has too many memories or the store is too large."""
        lim = self._limits
        if lim.max_memories_per_user is not None:
            seen = self._user_counts.get(user_id)
            # a count a few seconds old is good enough far from the limit; near it, count again
            if (
                seen is None
                or time.monotonic() - seen[0] > _COUNT_MAX_AGE_S
                or seen[1] >= _COUNT_NEAR_LIMIT * lim.max_memories_per_user
            ):
                counts = self._store.count_memories(user_id)
                seen = (time.monotonic(), sum(counts.get(st, 0) for st in _COUNTED_STATUSES))
                self._user_counts[user_id] = seen
            if seen[1] >= lim.max_memories_per_user:
                raise LimitExceeded(
                    f"user {user_id!r} has {seen[1]} memories, the limit is {lim.max_memories_per_user}; "
                    "forget or archive some, or raise limits.max_memories_per_user"
                )
        if lim.max_store_mb is not None:
            size_mb = self._store.size_bytes() / 1e6
            if size_mb >= lim.max_store_mb:
                raise LimitExceeded(
                    f"the store is {size_mb:.1f} MB, the limit is {lim.max_store_mb} MB; "
                    "run `memscribe maintain`, forget users, or raise limits.max_store_mb"
                )

    def note_written(self, user_id: str, report: WriteReport) -> None:
        """Keep the cached count of a user in step with what a write just added."""
        seen = self._user_counts.get(user_id)
        if seen is not None:
            new = sum(1 for i in report.items if i.action in _COUNTED_ACTIONS)
            self._user_counts[user_id] = (seen[0], seen[1] + new)

    # ------------------------------------------------------------------ rates
    def delay_for(self, user_id: str) -> float:
        """Seconds this write must wait (0 = now); raises :class:`RateLimited` in ``error`` mode."""
        buckets: list[tuple[str, TokenBucket]] = []
        if self._user_buckets is not None:
            buckets.append(("user", self._user_buckets.get(user_id)))
        if self._tenant_bucket is not None:
            buckets.append(("tenant", self._tenant_bucket))
        if not buckets:
            return 0.0
        mode = self._limits.on_exceed
        decision = admit(buckets, mode=mode)
        if decision.delay_s <= 0:
            return 0.0
        if mode == "error":
            self._store.bump_counter(user_id, "writes_rate_limited", 1)
            raise RateLimited(
                f"over the {decision.limited_by} write rate; retry in {decision.delay_s:.2f} s",
                retry_after=decision.delay_s,
            )
        return decision.delay_s

    # ------------------------------------------------------------------ deferred payloads
    def seal(self, write: DeferredWrite) -> dict[str, Any]:
        """The job payload of a deferred write: user id in clear (for scoping), the rest encrypted."""
        vault = self._vault()
        body = json.dumps(
            {
                "messages": [m.model_dump(mode="json") for m in write.messages],
                "agent_id": write.agent_id,
                "session_id": write.session_id,
                "at": write.at.isoformat(),
                "metadata": write.metadata,
                "verbatim": write.verbatim,
            },
            ensure_ascii=False,
        )
        sealed = base64.b64encode(vault.encrypt(body, aad=_aad(write.user_id))).decode()
        return {"user_id": write.user_id, "sealed": sealed, "key_id": vault.key_id}

    def open(self, payload: Mapping[str, Any]) -> DeferredWrite:
        """The write a payload from :meth:`seal` stands for.

        Raises :class:`CorruptJob` when the payload cannot be decoded, decrypted (with the key it names)
        or parsed, and :class:`VaultError` when it was sealed with a key this store no longer has.
        """
        vault = self._vault()
        try:
            user_id, sealed = payload["user_id"], payload["sealed"]
            if not isinstance(user_id, str) or not isinstance(sealed, str):
                raise TypeError("user_id and sealed must be strings")
            blob = base64.b64decode(sealed, validate=True)
        except (KeyError, TypeError, binascii.Error) as exc:
            raise CorruptJob(f"deferred write payload is malformed: {exc}") from exc
        key_id = payload.get("key_id")
        try:
            plain = vault.decrypt(blob, aad=_aad(user_id))
        except VaultError as exc:
            if key_id is not None and key_id != vault.key_id:
                raise VaultError(
                    f"deferred write was sealed with vault key {key_id}, this store's key is {vault.key_id}"
                ) from exc
            raise CorruptJob(f"deferred write payload does not decrypt: {exc}") from exc
        try:
            body = json.loads(plain)
            return DeferredWrite(
                user_id=user_id,
                messages=body["messages"],
                agent_id=body["agent_id"],
                session_id=body["session_id"],
                at=datetime.fromisoformat(body["at"]),
                metadata=body["metadata"],
                verbatim=body.get("verbatim", False),  # payloads queued before verbatim writes existed
            )
        except (ValueError, KeyError, TypeError, ValidationError) as exc:
            raise CorruptJob(f"deferred write payload is unreadable: {exc}") from exc
