"""Opaque list cursors: where the next page starts, bound to the query that made it.

A cursor is url-safe base64 of ``{"o": offset, "q": digest of the query}``; a cursor of another query (or
a hand-made one) is refused with 422 instead of paging through something else.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from memscribe.errors import InputError

__all__ = ["decode_cursor", "encode_cursor", "query_digest"]


def query_digest(query: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(query, sort_keys=True, default=str).encode()).hexdigest()[:16]


def encode_cursor(offset: int, digest: str) -> str:
    raw = json.dumps({"o": offset, "q": digest}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, digest: str) -> int:
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        offset, made_for = body["o"], body["q"]
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise InputError("cursor is not one this server gave out") from exc
    if not isinstance(offset, int) or offset < 0 or made_for != digest:
        raise InputError("cursor belongs to another query (same user, status, kind, layer and filters)")
    return offset
