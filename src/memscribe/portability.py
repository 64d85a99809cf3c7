"""Export and import of long-term memory: everything needed to rebuild it in another store.

An export is a list of JSON-ready dicts (one per line of a JSONL file): per user, the audit trail in
chunks (``{"_type": "audit", "id": "_audit:<user>:<n>", "user_id", "events"}``) and then every memory in
every status, each with ``_versions`` (its full history) and ``_vault`` (its sealed values: ciphertext,
never plaintext). Left out, being derived or transient: vectors and keyword entries (rebuilt on import
with the importing store's embedder), store-local row ids, session windows, working items, counters and
the job queue.

Import is three steps: :func:`parse_item` turns one dict into a typed item (or raises ``InputError``),
:func:`import_records` groups items into batches, and :func:`_write_batch` writes one batch in one
transaction; it is the only function here that writes.
"""

from __future__ import annotations

import base64
import binascii
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memscribe.errors import InputError
from memscribe.ledger import Ledger, SealedSecret
from memscribe.models import AuditEvent, MemoryRecord, Version
from memscribe.write.normalize import require_user

if TYPE_CHECKING:
    from memscribe.providers.embedders import Embedder
    from memscribe.store.base import Store
    from memscribe.store.rows import SecretRow

__all__ = ["AuditItem", "MemoryItem", "SealedValue", "export_records", "import_records", "parse_item"]

AUDIT_CHUNK = 1000  # events per audit line: a long trail stays a stream of moderate lines


# ---------------------------------------------------------------------- export
def _sealed_json(secret: SecretRow) -> dict[str, str]:
    return {
        "label": secret.label,
        "kind": secret.kind,
        "key_id": secret.key_id,
        "ciphertext": base64.b64encode(secret.ciphertext).decode("ascii"),
    }


def export_records(store: Store, *, user_id: str | None = None) -> list[dict[str, Any]]:
    """The export of one user, or of every user of the store (``user_id=None``)."""
    if user_id is not None:
        users = [user_id]
    else:  # with users whose every message was dropped: their audit trail says why
        users = sorted({*store.iter_users(), *(e.user_id for e in store.audit_for())})
    out: list[dict[str, Any]] = []
    for u in users:
        events = [e.model_dump(mode="json", exclude={"id"}) for e in store.audit_for(user_id=u)]
        for n, i in enumerate(range(0, len(events), AUDIT_CHUNK)):
            out.append(
                {
                    "_type": "audit",
                    "id": f"_audit:{u}:{n}",
                    "user_id": u,
                    "events": events[i : i + AUDIT_CHUNK],
                }
            )
        for rec in store.list_memories(u, statuses=None):
            d = rec.model_dump(mode="json")
            d["_versions"] = [v.model_dump(mode="json") for v in store.versions(rec.id)]
            secrets = store.secrets_for(rec.id)
            if secrets:
                d["_vault"] = [_sealed_json(s) for s in secrets]
            out.append(d)
    return out


# ---------------------------------------------------------------------- parse
@dataclass(frozen=True)
class AuditItem:
    user_id: str
    events: list[AuditEvent]


@dataclass(frozen=True)
class SealedValue:
    label: str
    kind: str
    key_id: str
    ciphertext: bytes


@dataclass(frozen=True)
class MemoryItem:
    record: MemoryRecord
    versions: list[Version]
    vault: list[SealedValue]


ImportItem = AuditItem | MemoryItem


def _parse_audit(d: dict[str, Any]) -> AuditItem:
    try:
        user = require_user(d.get("user_id"))
        events = [AuditEvent.model_validate({**e, "id": None}) for e in d.get("events") or []]
    except (ValueError, TypeError) as exc:
        raise InputError(f"invalid audit item: {exc}") from exc
    if any(e.user_id != user for e in events):
        raise InputError("an audit item holds events of another user")
    return AuditItem(user, events)


def _parse_memory(d: dict[str, Any]) -> MemoryItem:
    try:
        versions = [Version.model_validate(v) for v in d.pop("_versions", None) or []]
        vault = [
            SealedValue(
                str(s["label"]),
                str(s["kind"]),
                str(s["key_id"]),
                base64.b64decode(s["ciphertext"], validate=True),
            )
            for s in d.pop("_vault", None) or []
        ]
        rec = MemoryRecord.model_validate(d)
    except (ValueError, TypeError, KeyError, binascii.Error) as exc:
        raise InputError(f"invalid record: {exc}") from exc
    if any(v.memory_id != rec.id for v in versions):
        raise InputError(f"record {rec.id!r} carries versions of another memory")
    return MemoryItem(rec, versions, vault)


def parse_item(raw: Any) -> ImportItem:
    """One line of an export as a typed item; anything else is an ``InputError`` naming what is wrong."""
    if not isinstance(raw, Mapping):
        raise InputError("each imported record must be a dict (one JSON object per line)")
    d = dict(raw)
    if d.get("_type") == "audit":
        return _parse_audit(d)
    if "_type" in d:
        raise InputError(f"unknown item type {d['_type']!r}")
    return _parse_memory(d)


def _numbered(records: Iterable[Any]) -> Iterator[ImportItem]:
    for i, raw in enumerate(records):
        try:
            yield parse_item(raw)
        except InputError as exc:
            raise InputError(f"item {i + 1}: {exc}") from exc


# ---------------------------------------------------------------------- write
def _audit_key(e: AuditEvent) -> tuple[Any, ...]:
    return (e.ts, e.memory_id, e.message_id, e.stage, e.action, e.reason)


class _AuditSeen:
    """The audit events each user already has in the store, so a second import adds none twice."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._have: dict[str, Counter[tuple[Any, ...]]] = {}

    def fresh(self, user: str, events: list[AuditEvent]) -> list[AuditEvent]:
        if user not in self._have:
            self._have[user] = Counter(_audit_key(e) for e in self._store.audit_for(user_id=user))
        have = self._have[user]
        out = []
        for e in events:
            if have[_audit_key(e)] > 0:
                have[_audit_key(e)] -= 1  # already in this store
            else:
                out.append(e)
        return out


def _write_batch(
    store: Store,
    embedder: Embedder,
    ledger: Ledger,
    items: list[ImportItem],
    seen: _AuditSeen,
    now: Callable[[], datetime],
) -> int:
    """Write one batch in one transaction (vectors computed before it opens); returns its memory count."""
    mems = [it for it in items if isinstance(it, MemoryItem)]
    vecs = embedder.embed_passages([m.record.text for m in mems]) if mems else []
    vec_of = dict(zip((m.record.id for m in mems), vecs, strict=True))
    with store.atomic():
        for it in items:
            if isinstance(it, AuditItem):
                store.add_audit(seen.fresh(it.user_id, it.events))
                continue
            ledger.restore_imported(
                it.record,
                vector=vec_of[it.record.id],
                versions=it.versions,
                secrets=[
                    SealedSecret(label=s.label, kind=s.kind, blob=s.ciphertext, key_id=s.key_id)
                    for s in it.vault
                ],
            )
    return len(mems)


def _batches(items: Iterable[ImportItem], size: int) -> Iterator[list[ImportItem]]:
    batch: list[ImportItem] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def import_records(
    store: Store,
    embedder: Embedder,
    ledger: Ledger,
    records: Iterable[Mapping[str, Any]],
    *,
    batch_size: int,
    dry_run: bool,
    now: Callable[[], datetime],
) -> int:
    """Load an export; returns the number of memories.

    A list or tuple is validated completely before anything is written (all or nothing); any other
    iterable (a file being streamed) is validated and written ``batch_size`` items at a time, each batch
    in one transaction. ``dry_run`` only validates and counts.
    """
    if dry_run:
        return sum(1 for it in _numbered(records) if isinstance(it, MemoryItem))
    items: Iterable[ImportItem] = _numbered(records)
    if isinstance(records, list | tuple):
        items = list(items)  # a bad item anywhere raises here, before the first batch
    seen = _AuditSeen(store)
    return sum(
        _write_batch(store, embedder, ledger, batch, seen, now) for batch in _batches(items, batch_size)
    )
