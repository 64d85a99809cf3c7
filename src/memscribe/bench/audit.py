"""`memscribe bench audit`: N memories of one ingested conversation, chosen with a fixed seed, each beside
the speaker and text of its source turns, as Markdown with a blank grade column — grading by eye (#14).

Two input formats:

* LoCoMo (a list of ``{"sample_id", "conversation", "qa"}``; also convbench's user–assistant chats): ingested
  as ``bench locomo`` and the judge ingest it, session by session with the real session times;
* MemoryBank (``{user name: {"history": {"YYYY-MM-DD": [{"query", "response"}, …]}}}``): one session per day
  at 12:00 UTC (the data gives the day only), the user's query as a ``user`` message and the companion's
  response as an ``assistant`` message. A one-to-one chat: the user is "the user", so no name is passed.
  Turn ids are ``D<day>:<k>`` (day 1 is the first date, k counts the day's messages from 1).

The sample is reproducible: memories are put in conversation order (by their earliest source turn, then
text; store ids are random) and ``random.Random(seed)`` picks N of them, so the same data, conversation and
seed give the same memories on every run and machine (the write path is deterministic).
"""

from __future__ import annotations

import json
import random
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from memscribe.bench.locomo import conversation_sessions
from memscribe.errors import InputError

__all__ = [
    "RUBRIC",
    "AuditConversation",
    "AuditRow",
    "AuditSample",
    "Turn",
    "choose",
    "load_conversation",
    "render_markdown",
    "run_audit",
]

RUBRIC = (
    "one subject, one statement, third person, grammatical, no filler, absolute time where the raw had one"
)
MEMORYBANK_HOUR = "12:00:00+00:00"  # the data gives days only; midday keeps "today" on the day in every zone
ASSISTANT = "assistant"


@dataclass(frozen=True)
class Turn:
    id: str
    speaker: str
    text: str
    position: int  # order in the conversation (sorting key of the sample)


@dataclass(frozen=True)
class AuditConversation:
    data_format: str  # "locomo" | "memorybank"
    conv_id: str
    sessions: tuple[dict[str, Any], ...]  # {"n", "at", "messages"} as add() takes them
    turns: Mapping[str, Turn]


@dataclass(frozen=True)
class AuditRow:
    memory_id: str
    kind: str
    text: str
    sources: tuple[Turn, ...]  # the source turns found in the conversation, in conversation order
    unknown_sources: tuple[str, ...]  # source ids that name no turn of the conversation


@dataclass(frozen=True)
class AuditSample:
    data: str
    conv: AuditConversation
    seed: int
    memories: int  # active memories in the store
    rows: tuple[AuditRow, ...]


# ---------------------------------------------------------------------------------------------------
# loading


def load_conversation(path: Path, conv_id: str) -> AuditConversation:
    """The conversation ``conv_id`` of a LoCoMo or MemoryBank file; a typed error for anything else."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: cannot read a JSON dataset ({exc})") from exc
    if isinstance(data, list) and data and all(isinstance(c, dict) and "conversation" in c for c in data):
        return _locomo_conversation(data, conv_id, path)
    if isinstance(data, dict) and data and all(isinstance(u, dict) and "history" in u for u in data.values()):
        return _memorybank_user(data, conv_id, path)
    raise InputError(
        f"{path}: neither LoCoMo (a list of conversations) nor MemoryBank (users with a history)"
    )


def _locomo_conversation(data: list[dict[str, Any]], conv_id: str, path: Path) -> AuditConversation:
    by_id = {str(c.get("sample_id")): c for c in data}
    if conv_id not in by_id:
        raise InputError(f"{path}: no conversation {conv_id!r}; it has {', '.join(by_id)}")
    conv = by_id[conv_id]
    try:
        sessions, _ = conversation_sessions(conv)
        raw = [t for k, v in conv["conversation"].items() if re.fullmatch(r"session_\d+", k) for t in v]
        speaker = {t["dia_id"]: t["speaker"] for t in raw}
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{path}: conversation {conv_id!r} is not in LoCoMo format ({exc})") from exc
    msgs = [m for s in sessions for m in s["messages"]]
    turns = {m["id"]: Turn(m["id"], speaker[m["id"]], m["content"], i) for i, m in enumerate(msgs)}
    return AuditConversation("locomo", conv_id, tuple(sessions), turns)


def _memorybank_user(data: dict[str, Any], conv_id: str, path: Path) -> AuditConversation:
    by_id = {name.strip(): user for name, user in data.items()}  # some names carry stray spaces
    if conv_id.strip() not in by_id:
        raise InputError(f"{path}: no MemoryBank user {conv_id!r}; it has {', '.join(by_id)}")
    name = conv_id.strip()
    sessions, turns = [], {}
    for n, (day, pairs) in enumerate(sorted(by_id[name]["history"].items()), 1):
        try:
            date.fromisoformat(day)
        except ValueError as exc:
            raise InputError(
                f"{path}: user {name!r} has a history day {day!r} that is not YYYY-MM-DD"
            ) from exc
        msgs = []
        for pair in pairs:
            for role, key, speaker in (("user", "query", name), (ASSISTANT, "response", ASSISTANT)):
                text = str(pair.get(key) or "").strip()
                if not text:
                    raise InputError(f"{path}: user {name!r}, day {day}: an empty {key!r}")
                mid = f"D{n}:{len(msgs) + 1}"
                msgs.append({"role": role, "content": text, "id": mid})
                turns[mid] = Turn(mid, speaker, text, len(turns))
        sessions.append({"n": n, "at": f"{day}T{MEMORYBANK_HOUR}", "messages": msgs})
    return AuditConversation("memorybank", name, tuple(sessions), turns)


# ---------------------------------------------------------------------------------------------------
# choosing (pure)


def _row(rec: Any, turns: Mapping[str, Turn]) -> AuditRow:
    ids = [str(s.message_id) for s in rec.sources if getattr(s, "message_id", None)]
    known = sorted({turns[i] for i in ids if i in turns}, key=lambda t: t.position)
    unknown = tuple(dict.fromkeys(i for i in ids if i not in turns))
    kind = getattr(rec.kind, "value", rec.kind)
    return AuditRow(rec.id, str(kind), rec.text, tuple(known), unknown)


def choose(records: Sequence[Any], turns: Mapping[str, Turn], n: int, seed: int) -> tuple[AuditRow, ...]:
    """``n`` memories picked by ``random.Random(seed)`` from the records in conversation order.

    The order does not depend on store ids (random): earliest source turn, then text, then kind; a memory
    without a known source comes last. The picked rows are returned in conversation order.
    """
    if n < 1:
        raise InputError("the audit needs n >= 1 memories")
    rows = [_row(r, turns) for r in records]
    rows.sort(key=lambda r: (r.sources[0].position if r.sources else len(turns), r.text, r.kind))
    picked = sorted(random.Random(seed).sample(range(len(rows)), min(n, len(rows))))
    return tuple(rows[i] for i in picked)


# ---------------------------------------------------------------------------------------------------
# Markdown


def _cell(s: str) -> str:
    """Text safe inside a Markdown table cell."""
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\r", "").replace("\n", "<br>")


def source_cell(row: AuditRow) -> str:
    parts = [f"`{t.id}` **{_cell(t.speaker)}**: {_cell(t.text)}" for t in row.sources]
    parts += [f"`{i}` *(names no turn of this conversation)*" for i in row.unknown_sources]
    return "<br>".join(parts) or "*(no sources)*"


def render_markdown(sample: AuditSample) -> str:
    c = sample.conv
    lines = [
        f"# Memory audit: {c.conv_id} ({c.data_format})",
        "",
        f"Data `{sample.data}`, conversation `{c.conv_id}`: {len(c.turns)} turns in {len(c.sessions)} sessions "
        f"-> {sample.memories} active memories; {len(sample.rows)} chosen with seed {sample.seed} "
        "(`memscribe bench audit`).",
        "",
        f"Rubric — a memory passes (grade 1) only if it is all of: {RUBRIC}. Otherwise grade 0 and note "
        "the criterion it fails.",
        "",
        "| # | memory (kind) | source turns | grade | note |",
        "|---:|---|---|:---:|---|",
    ]
    for i, r in enumerate(sample.rows, 1):
        lines.append(f"| {i} | {_cell(r.text)} *({r.kind})* | {source_cell(r)} |  |  |")
    lines += ["", f"Passed: __ / {len(sample.rows)}", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# the run


def run_audit(data: Path, conv_id: str, n: int = 40, seed: int = 0, home: Path | None = None) -> AuditSample:
    """Ingest one conversation into a fresh store (``home``, else a temporary one) and choose the sample."""
    from memscribe import Memory

    conv = load_conversation(data, conv_id)
    uid = conv.conv_id  # the judge's user id (LoCoMo sample_id)
    with (
        tempfile.TemporaryDirectory(prefix="ms-audit-") as tmp,
        Memory(home=home or Path(tmp) / "store") as mem,
    ):
        for s in conv.sessions:
            mem.add(list(s["messages"]), user_id=uid, session_id=f"{uid}-s{s['n']}", at=s["at"])
        mem.flush()
        records = mem.list(user_id=uid)
    return AuditSample(str(data), conv, seed, len(records), choose(records, conv.turns, n, seed))
