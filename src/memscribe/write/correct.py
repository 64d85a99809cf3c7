"""A correction of what was just said: "我说错了，是周四不是周二", "sorry, I meant Thursday not Tuesday", "oops,
it's Karin, with an i", "不对不对，是1028，刚才记反了". Stored as said, the correction is a sentence that means nothing
alone ("用户说错了，是2026-07-02不是2026-06-30") and the mistaken memory stays active beside it. Instead the newest
memory of the speaker that holds the mistaken value is written again with the right one, and the mistaken version
is superseded (kept in its history, never in recall).

Ruled, like the other extraction of values: a correction cue, then the right value and, when said, the wrong one
("是 A 不是 B", "A, not B", "not B but A"). Without the wrong one, the right one replaces the value of the same
form in the memory (a number a number, a date a date, a name a name). Pure: the caller passes the candidate and
the speaker's recent memories.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from difflib import SequenceMatcher

from memscribe.decisions import Candidate
from memscribe.facts import Facts
from memscribe.models import MemoryRecord

__all__ = ["CORRECTION", "Correction", "corrected"]

CORRECTION = re.compile(
    r"说错了|记错了|写错了|搞错了|打错了|说反了|记反了|写反了|不对不对|口误|更正一下|纠正一下|我是说"
    r"|\b(?:I meant|sorry,? it'?s|sorry,? that'?s|oops|my bad|scratch that|I misspoke|typo|correction)\b",
    re.IGNORECASE,
)
# the longest message whose lone value is read as a correction (with "not B" said, any length)
_SHORT = 60
# how recent the mistaken memory is: a correction answers what was just said
RECENT = timedelta(hours=48)

_VALUE = r"[^，,。.;；!！?？()（）]{1,24}?"
_PAIRS = (
    re.compile(rf"是(?P<right>{_VALUE})[，,]?(?:而)?不是(?P<wrong>{_VALUE})(?=[，,。.;；!！?？]|$)"),
    re.compile(rf"不是(?P<wrong>{_VALUE})[，,]?(?:而)?是(?P<right>{_VALUE})(?=[，,。.;；!！?？]|$)"),
    re.compile(rf"(?P<wrong>{_VALUE})应该是(?P<right>{_VALUE})(?=[，,。.;；!！?？]|$)"),
    re.compile(rf"\bnot (?P<wrong>{_VALUE}),? but (?P<right>{_VALUE})(?=[,.;!?]|$)", re.IGNORECASE),
    re.compile(
        rf"(?:\bmeant|\bmeans?|'s|\bis)\s+(?P<right>{_VALUE}),?\s+not\s+(?P<wrong>{_VALUE})(?=[,.;!?]|$)",
        re.IGNORECASE,
    ),
)
_RIGHT_ONLY = (
    re.compile(rf"(?:是|应该是)(?P<right>{_VALUE})(?=[，,。.;；!！?？]|$)"),
    re.compile(
        rf"(?:\bmeant|\bmeans?|\bit'?s|\bit is|\bthat'?s)\s+(?P<right>{_VALUE})(?=[,.;!?]|-(?!\d)|\s+-|$)",
        re.I,
    ),
)
_PREPOSITION = re.compile(r"^(?:on|at|in|the|a|an)\s+", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[.:]\d+)?")
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2})?")
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
_CODE = re.compile(r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,6}\b")


@dataclass(frozen=True, slots=True)
class Correction:
    target: str  # the id of the mistaken memory
    text: str  # its sentence with the right value
    raw: str
    time_start: datetime | None
    time_end: datetime | None
    facts: Facts  # the mistaken memory's facts with the right value wherever they held the wrong one
    entities: tuple[str, ...]
    why: str


def _clean(v: str) -> str:
    return _PREPOSITION.sub("", v.strip(" ，,。.\"'“”")).strip()


def _values(text: str) -> tuple[str | None, str | None]:
    """(right, wrong) as the correction says them; wrong is None when only the right value is said."""
    for rx in _PAIRS:
        m = rx.search(text)
        if m:
            return _clean(m.group("right")), _clean(m.group("wrong"))
    for rx in _RIGHT_ONLY:
        m = rx.search(text)
        if m:
            return _clean(m.group("right")), None
    return None, None


def _wrong_in(right: str, wrong: str, text: str) -> str | None:
    """The mistaken value as the memory holds it: as said, or — for a day named by its weekday ("I meant
    Thursday, not Tuesday", read against the message's own date) — the memory's ISO day of the same weekday."""
    if wrong in text:
        return wrong
    if not (_ISO.match(wrong) and _ISO.match(right)):
        return None
    day = date.fromisoformat(wrong[:10]).weekday()
    same = [
        d
        for d in dict.fromkeys(re.findall(r"\d{4}-\d{2}-\d{2}", text))
        if date.fromisoformat(d).weekday() == day
    ]
    return same[0] if len(same) == 1 else None


def _shifted(right: str, wrong: str, found: str) -> str:
    """The right day moved as far from the memory's day as the correction's right day is from its wrong one."""
    shift = date.fromisoformat(right[:10]) - date.fromisoformat(wrong[:10])
    return (date.fromisoformat(found[:10]) + shift).isoformat()


def _same_form(right: str, text: str) -> str | None:
    """The value of ``text`` of the same form as ``right`` — an ISO date, a number, a capitalised name — that it
    most resembles (a misspelt name, digits swapped: Karen / Karin, 1208 / 1028), or the only one it holds."""
    if _CODE.fullmatch(right):
        # a code of letters and digits ("4D", "B12") for a code: not the number inside it for any number
        theirs = [v for v in dict.fromkeys(_CODE.findall(text)) if v != right]
        return theirs[0] if len(theirs) == 1 else None
    for rx in (_ISO, _NUMBER, _NAME):
        mine = rx.findall(right)
        if len(mine) != 1:
            continue
        theirs = [v for v in dict.fromkeys(rx.findall(text)) if v != mine[0]]
        if len(theirs) == 1 and rx is not _NAME:
            return theirs[0]
        scored = sorted(((SequenceMatcher(None, mine[0], v).ratio(), v) for v in theirs), reverse=True)
        if scored and scored[0][0] >= 0.6 and (len(scored) == 1 or scored[1][0] < scored[0][0]):
            return scored[0][1]
        return None
    return None


def corrected(
    c: Candidate, recent: Sequence[MemoryRecord], at: datetime | None, speaker: str | None = None
) -> Correction | None:
    """The mistaken memory and its corrected sentence, or None when the candidate corrects nothing it can find.

    ``recent`` are the memories the write looked at (its neighbours); only those the same speaker said (a user's
    message, with the speaker's ``name`` when given) within :data:`RECENT` before ``at`` are candidates, newest
    first, whatever their subject ("My new manager's name is Karen Liu" is about the manager)."""
    if not CORRECTION.search(c.raw):
        return None
    right, wrong = _values(c.text)
    if not right:
        return None
    fresh = [
        r
        for r in recent
        if any(src.role == "user" and (speaker is None or src.name == speaker) for src in r.sources)
        and (at is None or (r.created_at <= at and at - r.created_at <= RECENT))
        # (its own sentence: "X is on Tuesday - sorry, I meant Thursday" corrects the first statement of its
        # own message, whose raw turn holds the cue too)
        and not CORRECTION.search(r.text)
    ]
    if wrong is None and len(c.raw) > _SHORT:
        # a value said alone corrects only in a short reply ("oops, it's 5 pm already, gotta run …"), or the
        # statement said just before it in the same message
        fresh = [r for r in fresh if r.raw == c.raw]
    for r in sorted(fresh, key=lambda r: r.created_at, reverse=True):
        old = _wrong_in(right, wrong, r.text) if wrong else _same_form(right, r.text)
        if old and _ISO.fullmatch(right) and len(right) == 10 and _ISO.fullmatch(old) and len(old) > 10:
            old = old[:10]  # a day said for a day and a time: the day changes, the time of day stays
        if old and wrong and old != wrong:
            right = _shifted(right, wrong, old)
            wrong = old
        if not old or old == right:
            continue
        text = r.text.replace(old, right)
        start, end = r.time_start, r.time_end
        if _ISO.match(right) and start is not None:
            # the day moves, the time of day and the span stay ("下午", "08:00")
            shift = date.fromisoformat(right[:10]) - start.date()
            start, end = start + shift, (end + shift if end is not None else None)
        return Correction(
            target=r.id,
            text=text,
            facts=_replaced(r.facts, old, right),
            entities=tuple(e.replace(old, right) for e in r.entities),
            raw=c.raw,  # what was said to correct it (the mistaken words stay in the old version's history)
            time_start=start,
            time_end=end,
            why=f"corrected: {old} -> {right}",
        )
    return None


def _replaced(facts: Facts, old: str, new: str) -> Facts:
    """The facts with ``old`` replaced by ``new`` in every text field and list that holds it (the primary time,
    the slot's value, the people named …)."""
    update: dict[str, object] = {}
    for name, value in facts:
        if isinstance(value, str) and old in value:
            update[name] = value.replace(old, new)
        elif isinstance(value, tuple) and any(isinstance(v, str) and old in v for v in value):
            update[name] = tuple(v.replace(old, new) if isinstance(v, str) else v for v in value)
    return facts.model_copy(update=update) if update else facts
