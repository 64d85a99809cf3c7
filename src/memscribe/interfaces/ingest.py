"""Streamed ingest of a JSONL conversation file into one user's memory (``memscribe ingest``).

One message object per line: ``{"role", "content", "id"?, "at"?, "name"?, "session_id"?}`` (other keys are
ignored). The file is read line by line and never held whole: consecutive messages of the same session
go to ``Memory.add`` together, at most ``batch_size`` at a time (as a conversation arrives, so the write
pipeline groups turns the way it does for a live session), and nothing per message is kept afterwards
except counters. Memory use is therefore bounded by one batch, whatever the file size.

This is an interface, like the CLI and the REST API: it adapts a file format to the public API and makes
no memory decisions of its own.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.errors import InputError
from memscribe.write.normalize import normalize_messages, optional_id, parse_at, parse_message_at

if TYPE_CHECKING:
    from memscribe.memory import Memory

__all__ = ["IngestProgress", "IngestReport", "ingest_jsonl", "iter_jsonl"]

_MESSAGE_KEYS = ("role", "content", "id", "at", "name")


@dataclass
class IngestProgress:
    lines: int  # lines read so far
    messages: int  # messages handed to add()
    bytes_read: int
    bytes_total: int
    elapsed_s: float


@dataclass
class IngestReport:
    lines: int = 0
    messages: int = 0  # messages ingested
    skipped: int = 0  # lines that were not a valid message (see errors)
    batches: int = 0
    actions: Counter[str] = field(default_factory=Counter)  # what add() did: add, merge, drop, ...
    errors: list[str] = field(default_factory=list)  # the first few, "line N: why"
    elapsed_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "messages": self.messages,
            "skipped": self.skipped,
            "batches": self.batches,
            "actions": dict(self.actions),
            "errors": self.errors,
            "elapsed_s": round(self.elapsed_s, 3),
            "messages_per_s": round(self.messages / self.elapsed_s, 1) if self.elapsed_s else None,
        }


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, int, Any]]:
    """(line number, bytes read so far, parsed object or the InputError) for each non-blank line, streamed."""
    read = 0
    with Path(path).open("rb") as fh:
        for n, raw in enumerate(fh, 1):
            read += len(raw)
            if not raw.strip():
                continue
            try:
                yield n, read, json.loads(raw)
            except (ValueError, UnicodeDecodeError) as exc:
                yield n, read, InputError(f"not JSON: {exc}")


def _message(obj: Any, max_bytes: int) -> tuple[dict[str, Any], str | None]:
    """The message dict for add() and its session id; raises InputError for an invalid line."""
    if isinstance(obj, InputError):
        raise obj
    if not isinstance(obj, dict):
        raise InputError("a line must be a JSON object with 'role' and 'content'")
    if "content" not in obj:
        raise InputError("no 'content'")
    msg = {k: obj[k] for k in _MESSAGE_KEYS if obj.get(k) is not None}
    if "at" in msg:
        msg["at"] = parse_message_at(msg["at"]).isoformat()
    session = obj.get("session_id")
    if session is not None and (not isinstance(session, str | int) or isinstance(session, bool)):
        raise InputError("session_id must be a string")
    session = optional_id(str(session) if session is not None else None, "session_id")
    # validated here, one message at a time, by the rules add() applies, so a bad line never fails the
    # batch it would have joined
    normalize_messages([msg], max_bytes=max_bytes, at=parse_at(None))
    return msg, session


def ingest_jsonl(
    mem: Memory,
    path: str | Path,
    *,
    user_id: str,
    agent_id: str | None = None,
    batch_size: int = 16,
    strict: bool = False,
    progress: Callable[[IngestProgress], None] | None = None,
    progress_every: int = 500,
) -> IngestReport:
    """Stream ``path`` into ``user_id``'s memory. Invalid lines are skipped and counted (the first 20
    reasons kept), or with ``strict`` stop the ingest with an InputError naming the line; what was
    ingested before stays. ``progress`` is called every ``progress_every`` messages and at the end."""
    if not isinstance(batch_size, int) or batch_size < 1:
        raise InputError("batch_size must be a positive integer")
    path = Path(path)
    if not path.is_file():
        raise InputError(f"no file {path}")
    total = path.stat().st_size
    max_bytes = mem.settings.write.max_message_bytes
    rep = IngestReport()
    start = time.monotonic()
    batch: list[dict[str, Any]] = []
    batch_session: str | None = None
    next_report = progress_every
    read = 0

    def report() -> None:
        if progress is not None:
            progress(IngestProgress(rep.lines, rep.messages, read, total, time.monotonic() - start))

    def flush() -> None:
        nonlocal batch, next_report
        if not batch:
            return
        out = mem.add(batch, user_id=user_id, agent_id=agent_id, session_id=batch_session)
        rep.actions.update(item.action for item in out.items)
        rep.messages += len(batch)
        rep.batches += 1
        batch = []
        if rep.messages >= next_report:
            report()
            while next_report <= rep.messages:
                next_report += progress_every

    for lineno, nread, obj in iter_jsonl(path):
        read = nread  # for report()
        rep.lines += 1
        try:
            msg, session = _message(obj, max_bytes)
        except InputError as exc:
            if strict:
                flush()
                raise InputError(f"line {lineno}: {exc}") from exc
            rep.skipped += 1
            if len(rep.errors) < 20:
                rep.errors.append(f"line {lineno}: {exc}")
            continue
        if batch and (session != batch_session or len(batch) >= batch_size):
            flush()
        batch_session = session
        batch.append(msg)
    flush()
    rep.elapsed_s = time.monotonic() - start
    report()  # the final count
    return rep
