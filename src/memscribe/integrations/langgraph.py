"""LangGraph long-term memory store backed by memscribe: ``MemscribeStore(BaseStore)``.

    from langgraph.graph import StateGraph
    from memscribe import Memory
    from memscribe.integrations.langgraph import MemscribeStore

    store = MemscribeStore(Memory())
    graph = builder.compile(store=store)        # nodes receive it as ``store`` / ``runtime.store``

Mapping
-------
* **Namespace -> user scope.** Element ``user_id_at`` (default 1) of the namespace is the memscribe
  ``user_id``: ``("memories", "u1")``, ``("users", "u1", "prefs")`` both live in user ``u1``'s scope, so
  memscribe's per-user isolation, ``forget(user_id=...)`` (hard erase) and the web UI see them.
  Shorter namespaces, or every namespace with ``user_id_at=None``, go to ``default_user_id``
  (``"langgraph"``). The full namespace is kept on the record, so a search with a namespace prefix only
  returns items under that prefix.
* **Key -> memory id.** The id is derived from (namespace, key): ``"lg_" + sha256(json([namespace, key]))``
  (24 hex digits). It is durable and needs no lookup table; the record's ``metadata["langgraph"]`` also
  keeps ``namespace``, ``key`` and the original ``value``, and ``metadata["origin"] == "langgraph"``.
* **Value -> memory text.** ``value["text"]`` or ``value["content"]`` when it is a string, the fields named
  in ``PutOp.index`` when given, otherwise the value as JSON. That text is embedded and keyword-indexed for
  hybrid search (secrets in it are filtered like any memscribe edit); ``get`` returns the value unchanged.
  ``value["kind"]``, when it is a memscribe kind (``preference``, ``profile``, ``fact``...), sets the kind;
  items are kept in the semantic layer.
* **put** writes the record as given (no extraction / dedupe pipeline: LangGraph's contract is that ``get``
  returns what ``put`` stored). A put over an existing key is a new memscribe version (``history()``,
  ``rollback()`` work); ``PutOp(value=None)`` is a versioned soft delete.
* **search** with ``query`` runs memscribe's hybrid recall (vector + BM25 + time) in the user scope,
  ``SearchItem.score`` is memscribe's score; without ``query`` items are listed newest first. ``filter``
  matches value fields (exact, nested dicts, ``$eq $ne $gt $gte $lt $lte``); ``limit``/``offset`` page.
  A filter key with dots (``"user.access-level"``) is a path into nested dicts unless the value has that
  key as it is. A prefix that does not name a user (e.g. ``("memories",)``) searches every user.
* **Labels.** Any string is a namespace label (periods, newlines, ``*`` and other characters are kept as
  they are: the namespace is stored as a list, never joined). A label that cannot be a memscribe user id
  (empty, a control character such as a newline, over 256 characters) gets the scope
  ``"lg-" + sha256(label)[:16]``, so such items still live in a user scope of their own.
* **TTL** (``supports_ttl=True``, ``MemscribeStore(..., ttl={"default_ttl": minutes, ...})``): ``put(ttl=m)``
  sets the memory's ``expire_at`` to now + m minutes (``ttl=None``: never; not given: ``default_ttl``).
  With ``refresh_on_read`` in the config, reads (unless ``refresh_ttl=False``) push ``expire_at`` back to
  now + m — a new version, at most one per hundredth of the TTL. ``sweep_ttl()`` turns every item past
  its ``expire_at`` into an *expired* memory (a versioned status change, kept in history, never returned
  again) and returns the count; ``start_ttl_sweeper()`` does so every ``sweep_interval_minutes`` in a
  background thread (``memscribe maintain`` leaves items alone: they are pinned). Until swept, an expired
  item is still returned unless ``omit_expired`` is set.

``batch`` runs on the caller's thread; ``abatch`` runs the same work in a worker thread
(``asyncio.to_thread``), so it never blocks the event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from memscribe.aio import AsyncMemory
from memscribe.errors import InputError, MemscribeError, NotFoundError
from memscribe.memory import Memory
from memscribe.models import Kind, Layer, MemoryRecord, Status, Version
from memscribe.write.normalize import require_user

__all__ = ["MemscribeStore", "memory_id_for"]

ORIGIN = "langgraph"
_ABSENT = {Status.deleted, Status.expired}
_KINDS = {k.value for k in Kind}


def memory_id_for(namespace: Sequence[str], key: str) -> str:
    """The memscribe memory id of a LangGraph item (stable across processes and machines)."""
    blob = json.dumps([list(namespace), key], ensure_ascii=False, separators=(",", ":"))
    return "lg_" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


def _now() -> datetime:
    return datetime.now(UTC)


def _validate_namespace(namespace: tuple[str, ...], *, allow_empty: bool = False) -> None:
    # any string is a label: the namespace is stored as a JSON list, so no character is special here
    # (LangGraph's own put() still refuses periods and empty labels before an op reaches this store)
    if not isinstance(namespace, tuple):
        raise InvalidNamespaceError(f"namespace must be a tuple of strings, got {namespace!r}")
    if not namespace and not allow_empty:
        raise InvalidNamespaceError("namespace cannot be empty")
    if any(not isinstance(label, str) for label in namespace):
        raise InvalidNamespaceError(f"namespace labels must be strings: {namespace!r}")


def scope_for_label(label: str) -> str:
    """The memscribe user id of a namespace label: the label itself when it is a valid user id, else a
    stable digest of it (a label may hold a newline or be empty; a user id may not)."""
    try:
        return require_user(label)
    except InputError:
        return "lg-" + hashlib.sha256(label.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _field(value: Mapping[str, Any], key: str) -> Any:
    """A filter key's value: the key as it is, else a dotted path into nested dicts."""
    if key in value:
        return value[key]
    return _path(value, key) if "." in key else None


def _path(value: Any, dotted: str) -> Any:
    cur = value
    for part in dotted.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return None
        cur = cur[part]
    return cur


def _text_of(value: Mapping[str, Any], index: list[str] | bool | None) -> str:
    if isinstance(index, list) and index:
        parts = []
        for field in index:
            v = _path(value, field)
            if v is not None:
                parts.append(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True))
        if parts:
            return "\n".join(parts)
    for field in ("text", "content"):
        v = value.get(field)
        if isinstance(v, str) and v.strip():
            return v
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _compare(item_value: Any, want: Any) -> bool:
    if isinstance(want, Mapping):
        if any(str(k).startswith("$") for k in want):
            return all(_operator(item_value, op, v) for op, v in want.items())
        return isinstance(item_value, Mapping) and all(
            _compare(item_value.get(k), v) for k, v in want.items()
        )
    if isinstance(want, list | tuple):
        return (
            isinstance(item_value, list | tuple)
            and len(item_value) == len(want)
            and all(_compare(a, b) for a, b in zip(item_value, want, strict=True))
        )
    return item_value == want


_OPERATORS = {"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"}


def _check_filter(want: Any) -> None:
    """Refuse unknown operators up front, whether or not any item reaches the comparison."""
    if isinstance(want, Mapping):
        for k, v in want.items():
            if str(k).startswith("$") and k not in _OPERATORS:
                raise InputError(f"unsupported filter operator {k!r}; use {' '.join(sorted(_OPERATORS))}")
            _check_filter(v)
    elif isinstance(want, list | tuple):
        for v in want:
            _check_filter(v)


def _operator(value: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return value == arg
    if op == "$ne":
        return value != arg
    if op not in ("$gt", "$gte", "$lt", "$lte"):
        raise InputError(f"unsupported filter operator {op!r}; use $eq $ne $gt $gte $lt $lte")
    if value is None:
        return False
    try:
        a, b = float(value), float(arg)
    except (TypeError, ValueError):
        return False
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def _matches(cond: MatchCondition, ns: tuple[str, ...]) -> bool:
    path = tuple(cond.path)
    if len(ns) < len(path):
        return False
    pairs = (
        zip(ns, path, strict=False)
        if cond.match_type == "prefix"
        else zip(reversed(ns), reversed(path), strict=False)
    )
    return all(p == "*" or a == p for a, p in pairs)


class MemscribeStore(BaseStore):
    """A LangGraph ``BaseStore`` whose items are memscribe memories (see the module docstring)."""

    supports_ttl = True

    def __init__(
        self,
        memory: Memory | AsyncMemory | None = None,
        *,
        home: str | Path | None = None,
        user_id_at: int | None = 1,
        default_user_id: str = "langgraph",
        ttl: TTLConfig | None = None,
    ) -> None:
        if memory is not None and home is not None:
            raise InputError("give either memory or home, not both")
        if user_id_at is not None and (not isinstance(user_id_at, int) or user_id_at < 0):
            raise InputError("user_id_at must be a non-negative integer or None")
        if not isinstance(default_user_id, str) or not default_user_id.strip():
            raise InputError("default_user_id must be a non-empty string")
        self._owns = memory is None
        if isinstance(memory, AsyncMemory):
            memory = memory.sync
        self.memory: Memory = memory if memory is not None else Memory(home)
        self.user_id_at = user_id_at
        self.default_user_id = default_user_id
        self._write_lock = threading.Lock()
        self.ttl_config = ttl
        self._sweeper: threading.Thread | None = None
        self._stop_sweeping = threading.Event()

    # ------------------------------------------------------------------ mapping
    def user_id_for(self, namespace: tuple[str, ...]) -> str:
        """The memscribe user scope of a namespace."""
        if self.user_id_at is not None and len(namespace) > self.user_id_at:
            return scope_for_label(namespace[self.user_id_at])
        return self.default_user_id

    def _users_under(self, prefix: tuple[str, ...]) -> list[str]:
        if self.user_id_at is None:
            return [self.default_user_id]
        if len(prefix) > self.user_id_at:
            return [scope_for_label(prefix[self.user_id_at])]
        return self.memory.users()

    @staticmethod
    def _lg(rec: MemoryRecord) -> dict[str, Any] | None:
        if rec.metadata.get("origin") != ORIGIN:
            return None
        lg = rec.metadata.get("langgraph")
        return lg if isinstance(lg, dict) else None

    def _item(self, rec: MemoryRecord, score: float | None = None, *, search: bool = False) -> Item | None:
        lg = self._lg(rec)
        if lg is None:
            return None
        ns = tuple(lg["namespace"])
        if search:
            return SearchItem(ns, lg["key"], lg["value"], rec.created_at, rec.updated_at, score)
        return Item(
            value=lg["value"],
            key=lg["key"],
            namespace=ns,
            created_at=rec.created_at,
            updated_at=rec.updated_at,
        )

    # ------------------------------------------------------------------ ops
    def _get(self, op: GetOp) -> Item | None:
        _validate_namespace(tuple(op.namespace))
        try:
            rec = self.memory.get(memory_id_for(op.namespace, op.key))
        except NotFoundError:
            return None
        if rec.status in _ABSENT or self._hidden(rec, _now()):
            return None
        lg = self._lg(rec)
        if lg is None or tuple(lg["namespace"]) != tuple(op.namespace) or lg["key"] != op.key:
            return None
        if self._refreshes(op.refresh_ttl):
            rec = self._refresh(rec)
        return self._item(rec)

    # ------------------------------------------------------------------ TTL
    def _refreshes(self, asked: bool) -> bool:
        """A read refreshes TTLs when the op asks (BaseStore's default) and the TTL config turns
        ``refresh_on_read`` on, as LangGraph's SQLite store does: without it a read is not use."""
        return asked and bool(self.ttl_config and self.ttl_config.get("refresh_on_read", False))

    def _hidden(self, rec: MemoryRecord, now: datetime) -> bool:
        """Past its expiry but not yet swept, and the store is told to omit such items."""
        omit = bool(self.ttl_config and self.ttl_config.get("omit_expired"))
        return omit and rec.expire_at is not None and rec.expire_at <= now

    def _refresh(self, rec: MemoryRecord) -> MemoryRecord:
        """Push a live item's expiry back to now + its TTL (a read counts as use). Throttled to one version
        per hundredth of the TTL, so a hot item does not gain a version per read; an expired item stays
        expired."""
        lg = self._lg(rec) or {}
        ttl = lg.get("ttl")
        now = _now()
        if ttl is None or rec.expire_at is None or rec.expire_at <= now:
            return rec
        new = now + timedelta(minutes=float(ttl))
        if (new - rec.expire_at).total_seconds() < float(ttl) * 60 / 100:
            return rec
        with self._write_lock:
            return self.memory.update(rec.id, expire_at=new, reason="langgraph: ttl refreshed", actor=ORIGIN)

    def sweep_ttl(self) -> int:
        """Expire every item past its ``expire_at`` (versioned: status ``expired``, kept in history);
        returns how many."""
        now = _now()
        swept = 0
        for uid in self.memory.users():
            for rec in self.memory.list(user_id=uid, status="active"):
                if self._lg(rec) is None or rec.expire_at is None or rec.expire_at > now:
                    continue
                with self._write_lock:
                    try:
                        self.memory.update(
                            rec.id, status=Status.expired, reason="langgraph: ttl expired", actor=ORIGIN
                        )
                    except MemscribeError:  # changed by another writer meanwhile: the next sweep sees it
                        continue
                swept += 1
        return swept

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """Run :meth:`sweep_ttl` every ``sweep_interval_minutes`` (default: the TTL config's, else 5) in a
        daemon thread until :meth:`stop_ttl_sweeper` or :meth:`close`; the future is done when it stops."""
        interval = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5
        if interval <= 0:
            raise InputError("sweep_interval_minutes must be positive")
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        if self._sweeper is not None and self._sweeper.is_alive():
            done.set_result(None)
            return done
        self._stop_sweeping.clear()

        def loop() -> None:
            try:
                while not self._stop_sweeping.wait(float(interval) * 60):
                    self.sweep_ttl()
            finally:
                done.set_result(None)

        self._sweeper = threading.Thread(target=loop, name="memscribe-langgraph-ttl", daemon=True)
        self._sweeper.start()
        return done

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; True when it has stopped (or none was running)."""
        self._stop_sweeping.set()
        if self._sweeper is None:
            return True
        self._sweeper.join(timeout)
        stopped = not self._sweeper.is_alive()
        if stopped:
            self._sweeper = None
        return stopped

    def _put(self, op: PutOp) -> None:
        ns = tuple(op.namespace)
        _validate_namespace(ns)
        if not isinstance(op.key, str) or not op.key:
            raise InputError("key must be a non-empty string")
        ttl = op.ttl  # minutes; BaseStore.put has already put in the config's default_ttl
        if ttl is not None and (not isinstance(ttl, int | float) or ttl <= 0):
            raise InputError("ttl must be a positive number of minutes or None")
        expire_at = _now() + timedelta(minutes=float(ttl)) if ttl is not None else None
        mid = memory_id_for(ns, op.key)
        with self._write_lock:
            try:
                existing: MemoryRecord | None = self.memory.get(mid)
            except NotFoundError:
                existing = None
            if op.value is None:
                if existing is not None and existing.status not in _ABSENT:
                    self.memory.delete(mid, reason="langgraph: deleted")
                return
            if not isinstance(op.value, Mapping):
                raise InputError("a LangGraph store value must be a dict")
            value = json.loads(json.dumps(dict(op.value), ensure_ascii=False, default=str))
            text = _text_of(value, op.index)
            kind = value.get("kind") if value.get("kind") in _KINDS else Kind.fact.value
            meta = {
                "origin": ORIGIN,
                # an item lives until the graph deletes it: maintenance never archives, decays or merges it
                "pinned": True,
                "langgraph": {
                    "namespace": list(ns),
                    "key": op.key,
                    "value": value,
                    "index": op.index is not False,
                    "ttl": ttl,
                },
            }
            if existing is None:
                self._create(
                    mid, self.user_id_for(ns), text=text, kind=kind, metadata=meta, expire_at=expire_at
                )
            else:
                self.memory.update(
                    mid,
                    text=text,
                    kind=kind,
                    metadata=meta,
                    status=Status.active,
                    expire_at=expire_at,
                    reason="langgraph: put",
                    actor=ORIGIN,
                )

    def _create(
        self,
        mid: str,
        user_id: str,
        *,
        text: str,
        kind: str,
        metadata: dict[str, Any],
        expire_at: datetime | None,
    ) -> None:
        from memscribe.write.protect import protect  # the same secret filter memscribe applies to edits

        clean = protect(text).clean_text
        if not clean.strip():
            raise InputError("the item has no text to remember")
        now = _now()
        rec = MemoryRecord(
            id=mid,
            user_id=user_id,
            layer=Layer.semantic,
            kind=Kind(kind),
            text=clean,
            metadata=metadata,
            created_at=now,
            updated_at=now,
            expire_at=expire_at,
        )
        first = Version(
            memory_id=mid, version=1, record=rec, reason="langgraph: put", actor=ORIGIN, created_at=now
        )
        data = rec.model_dump(mode="json")
        data["_versions"] = [first.model_dump(mode="json")]
        self.memory.import_([data])

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        _validate_namespace(prefix, allow_empty=True)
        if op.limit < 0 or op.offset < 0:
            raise InputError("limit and offset must not be negative")
        if op.filter is not None and not isinstance(op.filter, Mapping):
            raise InputError("filter must be a dict")
        _check_filter(op.filter)
        want = op.offset + op.limit
        if want == 0:
            return []

        def keep(lg: dict[str, Any] | None) -> bool:
            if lg is None or tuple(lg["namespace"][: len(prefix)]) != prefix:
                return False
            return not op.filter or all(_compare(_field(lg["value"], k), v) for k, v in op.filter.items())

        now = _now()
        found: list[tuple[SearchItem, MemoryRecord]] = []
        for uid in self._users_under(prefix):
            if op.query:
                # over-fetch: hits outside the prefix or failing the value filter are dropped afterwards
                hits = self.memory.search(
                    op.query,
                    user_id=uid,
                    limit=min(1000, max(50, want * 4)),
                    filters={"metadata": {"origin": ORIGIN}},
                )
                pairs = [(h.memory, h.score) for h in hits]
            else:
                pairs = [(rec, None) for rec in self.memory.list(user_id=uid, status="active")]
            for rec, score in pairs:
                lg = self._lg(rec)
                if not keep(lg) or lg is None or self._hidden(rec, now):
                    continue
                if op.query and not lg.get("index", True):
                    continue
                item = self._item(rec, score, search=True)
                if isinstance(item, SearchItem):
                    found.append((item, rec))
        if op.query:
            found.sort(key=lambda p: -(p[0].score or 0.0))
        else:
            found.sort(key=lambda p: (p[0].updated_at, p[0].namespace, p[0].key), reverse=True)
        page = found[op.offset : op.offset + op.limit]
        if self._refreshes(op.refresh_ttl):
            for _, rec in page:
                self._refresh(rec)
        return [item for item, _ in page]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefixes = [tuple(c.path) for c in op.match_conditions or () if c.match_type == "prefix"]
        fixed = prefixes[0] if prefixes and "*" not in prefixes[0] else ()
        seen: set[tuple[str, ...]] = set()
        now = _now()
        for uid in self._users_under(fixed):
            for rec in self.memory.list(user_id=uid, status="active"):
                lg = self._lg(rec)
                if lg is not None and not self._hidden(rec, now):
                    seen.add(tuple(lg["namespace"]))
        out = [ns for ns in seen if all(_matches(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            out = list({ns[: op.max_depth] for ns in out})
        return sorted(out)[op.offset : op.offset + op.limit]

    # ------------------------------------------------------------------ BaseStore
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise InputError(f"unknown store operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def close(self) -> None:
        """Close the memory if this store opened it (``MemscribeStore(home=...)``)."""
        self.stop_ttl_sweeper(timeout=5)
        if self._owns:
            self.memory.close()

    def __enter__(self) -> MemscribeStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
