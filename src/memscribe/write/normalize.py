"""Input validation: whatever the caller passed becomes a list of Messages, or a typed InputError.
Nothing is written before this succeeds."""

from __future__ import annotations

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
from memscribe.text_rules import ID_MAX_CHARS, NAME_MAX_CHARS, TEXT_MAX_CHARS, bad_id, bad_label, bad_text

__all__ = ["check_id", "normalize_messages", "optional_id", "parse_at", "parse_message_at", "require_user"]

_ROLES = {"user", "assistant", "system", "tool"}
_ROLE_ALIASES = {"human": "user", "ai": "assistant", "bot": "assistant", "model": "assistant"}


def require_user(user_id: Any) -> str:
    if not isinstance(user_id, str) or not user_id.strip():
        raise MissingScopeError("user_id is required: a non-empty string naming whose memory this is")
    why = bad_id(user_id)
    if why:
        raise InputError(f"user_id {why}")
    return user_id


def check_id(value: Any, what: str) -> str:
    """An id (session, agent, message): the rules of :mod:`memscribe.text_rules`, or InputError."""
    why = bad_id(value)
    if why:
        raise InputError(f"{what} {why}")
    return value


def optional_id(value: Any, what: str) -> str | None:
    return None if value is None else check_id(value, what)


# a message's own time: far enough from the calendar's ends that "next year", "every Sunday" or "30 days
# ago" said at that time is still a date (the year 1 and the year 9999 have no neighbours)
AT_MIN_YEAR, AT_MAX_YEAR = 2, 9998


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


def parse_message_at(at: Any, *, default: datetime | None = None) -> datetime:
    """A message's own time: :func:`parse_at`, within the years AT_MIN_YEAR..AT_MAX_YEAR (a filter's bound may
    be anything; the time a message was said is what relative times in it are counted from)."""
    dt = parse_at(at, default=default)
    if not AT_MIN_YEAR <= dt.year <= AT_MAX_YEAR:
        raise InvalidTimeError(
            f"time {dt.isoformat()} is out of range: a message's time must fall in the years "
            f"{AT_MIN_YEAR}..{AT_MAX_YEAR}"
        )
    return dt


def _check_text(content: Any, limit: int, where: str) -> str:
    if isinstance(content, bytes):
        try:
            content = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{where}: content is not valid UTF-8") from exc
    if not isinstance(content, str):
        raise InputError(f"{where}: content must be a string, not {type(content).__name__}")
    if len(content) > TEXT_MAX_CHARS:
        raise MessageTooLargeError(
            f"{where}: {len(content)} characters is over the {TEXT_MAX_CHARS}-character message limit"
        )
    if not content.strip():
        raise EmptyMessageError(f"{where}: content is empty")
    why = bad_text(content)
    if why:
        raise InputError(f"{where}: content {why}")
    size = len(content.encode("utf-8"))
    if size > limit:
        raise MessageTooLargeError(f"{where}: {size} bytes is over the {limit}-byte message limit")
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
        # a blank name or id is no name or id (the schema's pattern for both: no forbidden character)
        name = item.get("name")
        if name is not None and (why := bad_label(name, max_chars=NAME_MAX_CHARS)):
            raise InputError(f"{where}: name {why}")
        mid = item.get("id")
        if isinstance(mid, bool) or (mid is not None and not isinstance(mid, str | int)):
            raise InputError(f"{where}: id must be a string or an integer")
        if isinstance(mid, str) and (why := bad_label(mid, max_chars=ID_MAX_CHARS)):
            raise InputError(f"{where}: id {why}")
        name = name if name and name.strip() else None
        mid = None if isinstance(mid, str) and not mid.strip() else mid
        msg_at = parse_message_at(item["at"]) if item.get("at") is not None else at
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
