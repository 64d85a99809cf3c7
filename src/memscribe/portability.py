"""Export and import of long-term memory: everything needed to rebuild it in another store.

An export is a list of JSON-ready dicts (one per line of a JSONL file): per user, the audit trail in
chunks (``{"_type": "audit", "id": "_audit:<user>:<n>", "user_id", "events"}``) and then every memory in
every status, each with ``_versions`` (its full history) and ``_vault`` (its sealed values: ciphertext,
never plaintext). Left out, being derived or transient: vectors and keyword entries (rebuilt on import
with the importing store's embedder), store-local row ids, session windows, working items, counters and
the job queue.

Import is four steps: :func:`parse_item` turns one dict into a typed item (or raises ``InputError``),
:func:`import_records` groups items into batches, :func:`import_action` decides, per memory, what the
import does with it given the local record, and :func:`_write_batch` carries a batch's decisions out in one
transaction; it is the only function here that writes.

Re-importing is safe and cheap. A memory the store already holds with the same version and the same
content (:func:`content_hash`; access counters aside) is skipped — not rewritten, not re-embedded — so a
second import of an unchanged export costs little more than reading it. A local version that is newer than
the imported one, or that went another way since their common version, is kept: the import never silently
replaces it, and reports it as a conflict (:class:`ImportConflict`). An imported version that extends the
local history is applied (re-embedded only when its text changed). Sealed values under another vault key
than this store's are stored as they are (they stay sealed) and reported, since this store cannot open
them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from memscribe.errors import InputError
from memscribe.ledger import Ledger, SealedSecret
from memscribe.models import AuditEvent, MemoryRecord, Version
from memscribe.write.normalize import require_user

if TYPE_CHECKING:
    from memscribe.providers.embedders import Embedder
    from memscribe.store.base import Store
    from memscribe.store.rows import SecretRow

__all__ = [
    "AuditItem",
    "ImportConflict",
    "ImportReport",
    "MemoryItem",
    "SealedValue",
    "content_hash",
    "export_records",
    "import_action",
    "import_records",
    "parse_item",
]

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


# ---------------------------------------------------------------------- decide
# changed by recall without a new version (access statistics): not part of what a version says
_VOLATILE = frozenset({"access_count", "last_accessed_at"})


def content_hash(rec: MemoryRecord) -> str:
    """What one version of a memory says, as a digest: equal digests, same memory (access counts aside)."""
    blob = json.dumps(
        rec.model_dump(mode="json", exclude=set(_VOLATILE)), sort_keys=True, ensure_ascii=False
    ).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


ImportVerb = Literal["add", "update", "unchanged", "conflict"]


@dataclass(frozen=True)
class ImportConflict:
    """A memory the import left as it was, because the local version is newer or went another way."""

    memory_id: str
    local_version: int
    imported_version: int
    reason: str


def import_action(local: MemoryRecord | None, item: MemoryItem) -> tuple[ImportVerb, str]:
    """What the import does with ``item`` given the store's record of the same id, and why."""
    new = item.record
    if local is None:
        return "add", "not in this store"
    if local.user_id != new.user_id:  # an id clash must never move a memory into another user's scope
        return "conflict", f"the id belongs to user {local.user_id!r} here, not {new.user_id!r}; kept local"
    if local.version > new.version:
        return "conflict", f"local v{local.version} is newer than the imported v{new.version}; kept local"
    if local.version == new.version:
        if content_hash(local) == content_hash(new):
            return "unchanged", f"v{new.version} already here"
        return "conflict", f"local and imported v{new.version} differ; kept local"
    # the import is ahead: apply it only when its history passes through the local version unchanged
    common = next((v.record for v in item.versions if v.version == local.version), None)
    if common is not None and content_hash(common) != content_hash(local):
        return (
            "conflict",
            f"local v{local.version} differs from the imported history at v{local.version} "
            f"(both changed since); kept local",
        )
    return "update", f"imported v{new.version} follows local v{local.version}"


@dataclass
class ImportReport:
    """What an import did. ``memories`` counts every memory read (as ``import_`` has always returned)."""

    memories: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    embedded: int = 0  # texts embedded: new memories and updates whose text changed
    conflicts: list[ImportConflict] = field(default_factory=list)
    sealed_elsewhere: list[str] = field(default_factory=list)  # ids with values under another vault key
    dry_run: bool = False

    @property
    def written(self) -> int:
        return self.added + self.updated

    @property
    def conflict_ids(self) -> list[str]:
        return [c.memory_id for c in self.conflicts]

    def summary(self) -> str:
        verb = "would import" if self.dry_run else "imported"
        parts = [f"{verb} {self.memories} memories"]
        if not self.dry_run:
            parts.append(
                f"{self.added} added, {self.updated} updated, {self.unchanged} unchanged, "
                f"{len(self.conflicts)} conflicts"
            )
        return ": ".join(parts)

    def warnings(self) -> list[str]:
        out = []
        if self.conflicts:
            shown = ", ".join(self.conflict_ids[:10]) + (" …" if len(self.conflicts) > 10 else "")
            out.append(
                f"{len(self.conflicts)} memories are newer or changed here; kept the local version: {shown}"
            )
        if self.sealed_elsewhere:
            shown = ", ".join(self.sealed_elsewhere[:10]) + (" …" if len(self.sealed_elsewhere) > 10 else "")
            out.append(
                f"{len(self.sealed_elsewhere)} memories hold vaulted values sealed with another vault key; this "
                f"store cannot open them (copy the exporting store's vault key to reveal them): {shown}"
            )
        return out


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
    report: ImportReport,
    key_id: Callable[[], str],
) -> None:
    """Carry out one batch's decisions in one transaction (vectors computed before it opens)."""
    mems = [it for it in items if isinstance(it, MemoryItem)]
    local = store.get_memories([m.record.id for m in mems]) if mems else {}
    plan: list[tuple[MemoryItem, ImportVerb]] = []
    for m in mems:
        verb, why = import_action(local.get(m.record.id), m)
        plan.append((m, verb))
        if verb == "conflict":
            old = local[m.record.id]
            report.conflicts.append(ImportConflict(m.record.id, old.version, m.record.version, why))
        if any(s.key_id != key_id() for s in m.vault):  # stored (or already here) but unreadable here
            report.sealed_elsewhere.append(m.record.id)
    # a vector only where the text is new to this store: an update of metadata or status keeps its vector
    embed = [
        m
        for m, verb in plan
        if verb == "add" or (verb == "update" and local[m.record.id].text != m.record.text)
    ]
    vecs = embedder.embed_passages([m.record.text for m in embed]) if embed else []
    vec_of = dict(zip((m.record.id for m in embed), vecs, strict=True))
    report.memories += len(mems)
    report.embedded += len(embed)
    with store.atomic():
        for it in items:
            if isinstance(it, AuditItem):
                store.add_audit(seen.fresh(it.user_id, it.events))
        for m, verb in plan:
            if verb in ("unchanged", "conflict"):
                report.unchanged += verb == "unchanged"
                continue
            ahead = local[m.record.id].version if verb == "update" else 0
            ledger.restore_imported(
                m.record,
                vector=vec_of.get(m.record.id),
                versions=[v for v in m.versions if v.version > ahead],
                secrets=[
                    SealedSecret(label=s.label, kind=s.kind, blob=s.ciphertext, key_id=s.key_id)
                    for s in m.vault
                ],
            )
            report.added += verb == "add"
            report.updated += verb == "update"


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
    key_id: Callable[[], str],
    on_progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Load an export; returns what it did (see :class:`ImportReport`).

    A list or tuple is validated completely before anything is written (all or nothing); any other
    iterable (a file being streamed) is validated and written ``batch_size`` items at a time, each batch
    in one transaction. ``dry_run`` only validates and counts. ``key_id`` gives this store's vault key id
    (asked only when an imported memory has sealed values); ``on_progress`` is called with the number of
    items done after each batch.
    """
    if dry_run:
        n = 0
        for i, it in enumerate(_numbered(records), start=1):
            n += isinstance(it, MemoryItem)
            if on_progress is not None and i % batch_size == 0:
                on_progress(batch_size)
        return ImportReport(memories=n, dry_run=True)
    items: Iterable[ImportItem] = _numbered(records)
    if isinstance(records, list | tuple):
        items = list(items)  # a bad item anywhere raises here, before the first batch
    seen = _AuditSeen(store)
    report = ImportReport()
    for batch in _batches(items, batch_size):
        _write_batch(store, embedder, ledger, batch, seen, report, key_id)
        if on_progress is not None:
            on_progress(len(batch))
    return report
