"""Context assembly: one dated, labelled line per memory, most relevant first, never over budget."""

from __future__ import annotations

import re
from datetime import datetime

from memscribe.lang.text import count_tokens, truncate_to_tokens
from memscribe.models import MemoryRecord, Status

__all__ = ["CONTEXT_LINE", "format_line", "label_for", "pack_lines"]

_LABELS_ZH = {
    "preference": "偏好",
    "constraint": "约束",
    "profile": "档案",
    "fact": "事实",
    "event": "事件",
    "plan": "计划",
    "task": "任务",
    "complaint": "投诉",
    "relation": "关系",
    "instruction": "指令",
    "suggestion": "建议",
}


# the statuses that end a plan or task, with their zh labels
_ENDED_ZH = {"done": "已完成", "cancelled": "已取消"}
_OPEN_KINDS = frozenset({"plan", "task"})


def label_for(rec: MemoryRecord) -> str:
    """The kind, and for a plan or task that has ended its status: a done plan stays in recall (it is what took
    place) and must not read as still to come."""
    zh = rec.facts.lang == "zh"
    label = _LABELS_ZH.get(rec.kind.value, rec.kind.value) if zh else rec.kind.value
    status = rec.facts.status
    if rec.kind.value in _OPEN_KINDS and status in _ENDED_ZH:
        label = f"{label} · {_ENDED_ZH[status] if zh else status}"
    if rec.status == Status.superseded:  # shown only beside what replaced it (read/history.py)
        label = f"{label} · {'已被取代' if zh else 'superseded'}"
    return label


def _date(rec: MemoryRecord) -> str:
    dt: datetime = rec.time_start or rec.created_at
    gran_time = rec.time_start is not None and "T" in (rec.facts.time or "")
    return dt.strftime("%Y-%m-%d %H:%M") if gran_time else dt.strftime("%Y-%m-%d")


# A line as format_line writes it, label and date in brackets, up to the line's end (or a "|" an agent joined
# lines with): "[profile · superseded · 2025-01-10] The user lives in Berlin."
CONTEXT_LINE = re.compile(r"\[[^\[\]\n]{1,60}? · \d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?\][^\[\]|\n]*")


def format_line(rec: MemoryRecord, *said_with: str) -> str:
    """One context line: the memory labelled and dated, then the statements said with it (its siblings)."""
    return " ".join((f"[{label_for(rec)} · {_date(rec)}] {rec.text}", *said_with))


def pack_lines(lines: list[str], budget: int, *, max_items: int | None = None) -> tuple[list[int], int]:
    """Indices of the lines that fit the budget in order (skipping any that alone would overflow)."""
    used, chosen = 0, []
    for i, line in enumerate(lines):
        if max_items is not None and len(chosen) >= max_items:
            break
        cost = count_tokens(line) + (1 if chosen else 0)  # the newline between lines
        if used + cost > budget:
            continue
        chosen.append(i)
        used += cost
    return chosen, used


def fit_block(title: str, body: str, budget: int) -> str:
    if budget <= 0 or not body.strip():
        return ""
    text = f"{title}\n{body}"
    return text if count_tokens(text) <= budget else truncate_to_tokens(text, budget)
