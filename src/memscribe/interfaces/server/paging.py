"""Opaque list cursors: where the next page starts, bound to the query that made it.

A cursor is url-safe base64 of ``{"o": offset, "q": digest of the query}``. One that is not base64url is
refused by the schema (422); a well-formed one this server did not give out for this very query names no
page, so it is a 404 (``NotFoundError``) instead of paging through something else — the schema can state the
alphabet of a cursor, not which cursors exist.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from memscribe.errors import NotFoundError

__all__ = ["CURSOR_PATTERN", "decode_cursor", "encode_cursor", "query_digest"]

CURSOR_PATTERN = r"^[A-Za-z0-9_-]+$"


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
        raise NotFoundError("no page for this cursor: it is not one this server gave out") from exc
    if not isinstance(offset, int) or offset < 0 or made_for != digest:
        raise NotFoundError(
            "no page for this cursor: it belongs to another query (user, status, kind, layer, filters)"
        )
    return offset
