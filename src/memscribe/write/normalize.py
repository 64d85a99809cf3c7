"""Input validation: whatever the caller passed becomes a list of Messages, or a typed InputError.
Nothing is written before this succeeds."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from memscribe.errors import (
    EmptyMessageError,
    InputError,
    InvalidTimeError,
    MessageTooLargeError,
    MissingScopeError,
)
from memscribe.models import Message

__all__ = ["normalize_messages", "parse_at", "require_user"]

_ROLES = {"user", "assistant", "system", "tool"}
_ROLE_ALIASES = {"human": "user", "ai": "assistant", "bot": "assistant", "model": "assistant"}


def require_user(user_id: Any) -> str:
    if not isinstance(user_id, str) or not user_id.strip():
        raise MissingScopeError("user_id is required: a non-empty string naming whose memory this is")
    if len(user_id) > 256 or any(unicodedata.category(c) == "Cc" for c in user_id):
        raise InputError("user_id must be at most 256 characters with no control characters")
    return user_id


def parse_at(at: Any, *, default: datetime | None = None) -> datetime:
    """ISO 8601 string or datetime -> timezone-aware datetime (naive values are taken as UTC)."""
    if at is None:
        return default or datetime.now(UTC)
    if isinstance(at, datetime):
        dt = at
    elif isinstance(at, str):
        try:
            dt = datetime.fromisoformat(at.strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise InvalidTimeError(
                f"cannot parse time {at!r}: use ISO 8601, e.g. 2026-06-10T09:00:00+08:00"
            ) from exc
    else:
        raise InvalidTimeError(f"time must be an ISO 8601 string or a datetime, not {type(at).__name__}")
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def _check_text(content: Any, limit: int, where: str) -> str:
    if isinstance(content, bytes):
        try:
            content = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{where}: content is not valid UTF-8") from exc
    if not isinstance(content, str):
        raise InputError(f"{where}: content must be a string, not {type(content).__name__}")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in content):
        raise InputError(f"{where}: content contains unpaired surrogates (not valid Unicode text)")
    if "\x00" in content:
        raise InputError(f"{where}: content contains NUL bytes (binary data is not a message)")
    size = len(content.encode("utf-8"))
    if size > limit:
        raise MessageTooLargeError(f"{where}: {size} bytes is over the {limit}-byte message limit")
    if not content.strip():
        raise EmptyMessageError(f"{where}: content is empty")
    return content


def normalize_messages(messages: Any, *, max_bytes: int, at: datetime) -> list[Message]:
    """str | {"role","content",["name"],["id"],["at"]} | list of those -> [Message]."""
    if isinstance(messages, str | bytes):
        items: Sequence[Any] = [{"role": "user", "content": messages}]
    elif isinstance(messages, Mapping):
        items = [messages]
    elif isinstance(messages, Sequence):
        items = list(messages)
    else:
        raise InputError(
            f"messages must be a string, a dict or a list of them, not {type(messages).__name__}"
        )
    if not items:
        raise EmptyMessageError("no messages given")
    out: list[Message] = []
    for i, item in enumerate(items):
        where = f"message {i}"
        if isinstance(item, str | bytes):
            item = {"role": "user", "content": item}
        if isinstance(item, Message):
            item = item.model_dump()
        if not isinstance(item, Mapping):
            raise InputError(f"{where}: expected a dict with 'role' and 'content', got {type(item).__name__}")
        role = item.get("role", "user")
        if not isinstance(role, str):
            raise InputError(f"{where}: role must be a string")
        role = _ROLE_ALIASES.get(role.lower(), role.lower())
        if role not in _ROLES:
            raise InputError(
                f"{where}: unknown role {item.get('role')!r} (use user, assistant, system or tool)"
            )
        content = _check_text(item.get("content"), max_bytes, where)
        name = item.get("name")
        if name is not None and (not isinstance(name, str) or len(name) > 128):
            raise InputError(f"{where}: name must be a string of at most 128 characters")
        mid = item.get("id")
        if mid is not None and not isinstance(mid, str | int):
            raise InputError(f"{where}: id must be a string or an integer")
        msg_at = parse_at(item["at"]) if item.get("at") is not None else at
        out.append(
            Message(
                role=role,
                content=content,
                name=name or None,
                id=str(mid) if mid is not None else None,
                at=msg_at,
            )
        )
    return out
