"""Input validation at the API boundary: every argument a caller hands to ``Memory`` is checked here,
before anything is read or written, and refused with a typed :class:`~memscribe.errors.InputError`.

Pure functions: each takes the raw value and returns the value the core works with (or raises). Message
normalisation stays in :mod:`memscribe.write.normalize` (``require_user`` and ``parse_at`` come from there
too, so the rules live once).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from memscribe.errors import InputError, MessageTooLargeError
from memscribe.models import Status
from memscribe.text_rules import REASON_MAX_CHARS, TEXT_MAX_CHARS, bad_label, bad_string, bad_text
from memscribe.write.normalize import (
    check_id,
    normalize_messages,
    optional_id,
    parse_at,
    parse_message_at,
    require_user,
)

__all__ = [
    "ALL_STATUSES",
    "EDITABLE_FIELDS",
    "METADATA_MAX_BYTES",
    "METADATA_MAX_DEPTH",
    "backup_path",
    "batch_size",
    "budget_tokens",
    "check_editable",
    "check_id",
    "edit_text",
    "memory_id",
    "metadata",
    "normalize_messages",
    "optional_id",
    "parse_at",
    "parse_message_at",
    "query_text",
    "reason",
    "require_user",
    "search_limit",
    "status_filter",
]

ALL_STATUSES = tuple(s.value for s in Status)
EDITABLE_FIELDS = frozenset(
    {
        "text",
        "kind",
        "layer",
        "structured",
        "entities",
        "time_start",
        "time_end",
        "importance",
        "confidence",
        "metadata",
        "expire_at",
        "status",
    }
)
METADATA_MAX_DEPTH = 32
METADATA_MAX_BYTES = 16_384
SEARCH_MAX_LIMIT = 1000


def _check_depth(value: Any, *, limit: int) -> None:
    """Metadata nested deeper than ``limit`` is refused before anything recursive (json) touches it, and
    so is a key or string holding a control character or a lone surrogate (see :mod:`text_rules`)."""
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if depth > limit:
            raise InputError(f"metadata is nested deeper than {limit} levels")
        if isinstance(v, Mapping):
            for k in v:
                if why := bad_label(k):
                    raise InputError(f"metadata key {k!r} {why}")
            stack.extend((x, depth + 1) for x in v.values())
        elif isinstance(v, list | tuple):
            stack.extend((x, depth + 1) for x in v)
        elif isinstance(v, str) and (why := bad_string(v)):
            raise InputError(f"metadata value {why}")


def metadata(value: Any, *, what: str = "metadata") -> dict[str, Any]:
    """The caller's metadata as a plain dict: a mapping, at most 32 levels deep, JSON-serialisable (no
    NaN or infinity), no control character or lone surrogate in a key or string, and at most 16 KB as
    JSON. ``None`` is an empty dict."""
    if value is not None and not isinstance(value, Mapping):
        raise InputError(f"{what} must be a dict")
    meta = dict(value or {})
    try:
        _check_depth(meta, limit=METADATA_MAX_DEPTH)
    except InputError as exc:
        raise InputError(str(exc).replace("metadata", what, 1)) from None
    try:
        encoded = json.dumps(meta, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InputError(f"{what} must be JSON-serialisable: {exc}") from exc
    if len(encoded) > METADATA_MAX_BYTES:
        raise InputError(f"{what} is larger than 16 KB")
    return meta


def memory_id(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise InputError("memory id must be a non-empty string")
    if why := bad_label(value, max_chars=256):
        raise InputError(f"memory id {why}")
    return value


def query_text(value: Any, *, max_bytes: int) -> str:
    """A search query: a non-blank string no longer (in UTF-8) than a message may be."""
    if not isinstance(value, str):
        raise InputError("query must be a string")
    if not value.strip():
        raise InputError("query is empty")
    if why := bad_text(value, max_chars=max_bytes):
        raise InputError(f"query {why}")
    if len(value.encode("utf-8", "surrogatepass")) > max_bytes:
        raise InputError("query is longer than the message size limit")
    return value


def search_limit(value: Any) -> int:
    if not isinstance(value, int) or value < 1 or value > SEARCH_MAX_LIMIT:
        raise InputError(f"limit must be an integer between 1 and {SEARCH_MAX_LIMIT}")
    return value


def budget_tokens(value: Any) -> int:
    if not isinstance(value, int) or value < 1:
        raise InputError("budget_tokens must be a positive integer")
    return value


def status_filter(value: str | None) -> tuple[str, ...] | None:
    """``list(status=…)``: one status name, or None / "all" for every status (returned as None)."""
    if value in (None, "all"):
        return None
    if value in ALL_STATUSES:
        return (value,)
    raise InputError(f"unknown status {value!r}; use one of {list(ALL_STATUSES)} or None for all")


def check_editable(fields: Iterable[str]) -> None:
    unknown = set(fields) - EDITABLE_FIELDS
    if unknown:
        raise InputError(f"cannot edit fields {sorted(unknown)}; editable: {sorted(EDITABLE_FIELDS)}")


def edit_text(value: Any) -> str:
    """The new text of an edit, before the privacy filter sees it: the same rules and cap as a message."""
    if isinstance(value, str) and len(value) > TEXT_MAX_CHARS:
        raise MessageTooLargeError(
            f"text is {len(value)} characters, over the {TEXT_MAX_CHARS}-character limit"
        )
    why = bad_text(value)
    if why:
        raise InputError(f"text {why}")
    return value


def reason(value: Any, what: str = "reason") -> str:
    """Why a change was made (kept in the version history): text of at most 1000 characters, may be blank."""
    why = bad_text(value, max_chars=REASON_MAX_CHARS, blank_ok=True)
    if why:
        raise InputError(f"{what} {why}")
    return value


def batch_size(value: Any) -> int:
    if not isinstance(value, int) or value < 1:
        raise InputError("batch_size must be a positive integer")
    return value


def backup_path(value: str | Path) -> Path:
    """A backup goes to a new file: an existing one is never overwritten."""
    dest = Path(value)
    if dest.exists():
        raise InputError(f"{dest} exists; choose a new file for the backup")
    return dest
