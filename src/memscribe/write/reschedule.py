"""A plan moved by an amount — "Sarah's baby shower got pushed back a week", "聚餐提前一天了", "the flight is delayed
by two hours" — or to a new day at the same time — "The vet bumped Miso's checkup to March 24, same time",
"改到周五，时间不变". Stored as said, the first is a sentence with no time beside a plan that keeps its old day,
and the second a plan at midnight. Instead the plan is written again at its new time (the old day plus the
amount; the new day at the old time of day) and the plan it moves is superseded, kept in its history.

Which plan: a pending, dated plan among the write's neighbours that the statement names (an object word, a
place, an organisation or an id both hold) and that holds every name the statement says, not yet past, and no guard against replacing it (a negation, a
hypothetical, another number). Pure: the caller passes the candidate and its neighbours.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from memscribe.decisions import Candidate
from memscribe.facts import Facts
from memscribe.lang.timeparse import iso
from memscribe.lang.timeshift import SAME_TIME, shift_of
from memscribe.models import MemoryRecord
from memscribe.write.merge import Neighbour, pending_open, shared_things
from memscribe.write.supersede_guard import supersede_blockers

__all__ = ["Reschedule", "moves_a_plan", "rescheduled"]

# a plan whose day is this far behind the message is over, not moved
_PAST = timedelta(days=1)
_CLOCK_GRAINS = ("hour", "minute")
_CAPITALISED = re.compile(r"\b[A-Z][a-z][\w'-]*")


@dataclass(frozen=True, slots=True)
class Reschedule:
    target: str  # the id of the plan moved
    text: str  # the plan's sentence at its new time
    raw: str
    time_start: datetime
    time_end: datetime | None
    facts: Facts
    entities: tuple[str, ...]
    why: str


def _rendered(dt: datetime, grain: str | None, lang: str) -> str:
    """The time as the canonical sentence of ``lang`` writes it (lang/timeparse.rewrite_with_absolute)."""
    if grain in _CLOCK_GRAINS:
        return iso(dt, "minute") if lang == "zh" else f"{iso(dt, 'day')} {dt.hour:02d}:{dt.minute:02d}"
    return iso(dt, "day")


def _forms(dt: datetime) -> list[str]:
    """How a canonical sentence may hold ``dt``, most specific first."""
    d = iso(dt, "day")
    return [iso(dt, "minute"), f"{d} {dt.hour:02d}:{dt.minute:02d}", d]


def _said_at_new_time(text: str, old: datetime, new: datetime, grain: str | None, lang: str) -> str | None:
    """``text`` with its one mention of ``old`` replaced by ``new``; None when it holds none, or another time
    too (a range: its end would be left behind)."""
    if len(re.findall(r"\d{4}-\d{2}-\d{2}", text)) != 1:
        return None
    for form in _forms(old):
        if text.count(form) == 1:
            return text.replace(form, _rendered(new, grain if form != iso(old, "day") else "day", lang))
    return None


def _plan_of(
    c: Candidate, neighbours: Sequence[Neighbour], at: datetime | None, lang: str
) -> MemoryRecord | None:
    """The pending dated plan the candidate names: the most things shared, then the nearest embedding."""
    best: tuple[int, float, MemoryRecord] | None = None
    for n in neighbours:
        r = n.record
        if not (pending_open(r) and r.kind.value == "plan" and r.time_start is not None):
            continue
        if at is not None and r.time_start < at - _PAST:
            continue
        things = shared_things(c, r)
        if not things or _names_another(c, r) or supersede_blockers(c.raw, r.raw, lang, people=False):
            continue
        key = (len(things), n.similarity, r)
        if best is None or key[:2] > best[:2]:
            best = key
    return best[2] if best else None


def _names_another(c: Candidate, r: MemoryRecord) -> bool:
    """The candidate names a person, place, organisation or id the plan does not: "the Globex meeting got pushed
    back a day" does not move the meeting with Acme."""
    said = f"{r.text} {r.raw}".lower()
    names = {a for a in c.facts.anchors() if a}
    # (English names the entity finder missed: a capitalised word inside the sentence, "Globex")
    names |= {w.removesuffix("'s") for w in _CAPITALISED.findall(c.text.split(" ", 1)[-1]) if w != "I"}
    return any(a.lower() not in said for a in names)


def _shift(c: Candidate) -> timedelta | None:
    return shift_of(c.text) if c.time_start is None else None


def _same_time(c: Candidate) -> bool:
    return c.time_start is not None and c.facts.grain == "day" and SAME_TIME.search(c.text) is not None


def moves_a_plan(c: Candidate) -> bool:
    """The candidate says a plan moved by an amount or to a day at the same time (a plan is yet to be found):
    such a short remark ("聚餐提前一天了") is routed to working memory, but the plan it moves is not."""
    return _shift(c) is not None or _same_time(c)


def rescheduled(c: Candidate, neighbours: Sequence[Neighbour], at: datetime | None) -> Reschedule | None:
    """The plan the candidate moves and the plan at its new time, or None when it moves none by an amount or
    to a day at the same time."""
    lang = c.facts.lang or "en"
    shift = _shift(c)
    same_time = shift is None and _same_time(c)
    if shift is None and not same_time:
        return None
    plan = _plan_of(c, neighbours, at, lang)
    if plan is None or plan.time_start is None:
        return None
    old = plan.time_start
    grain = plan.facts.grain
    if shift is not None:
        start = old + shift
        text = _said_at_new_time(plan.text, old, start, grain, lang)
        if text is None:
            text = _with_time(c.text, start, grain, lang)
        why = f"moved by {_said(shift)}: {_rendered(old, grain, lang)} -> {_rendered(start, grain, lang)}"
    else:
        if grain not in _CLOCK_GRAINS or c.time_start is None:
            return None
        start = c.time_start.replace(hour=old.hour, minute=old.minute, second=0, microsecond=0)
        shift = start - old
        day = iso(c.time_start, "day")
        new = _rendered(start, grain, lang)
        text = (
            c.text.replace(day, new, 1) if c.text.count(day) == 1 else _with_time(c.text, start, grain, lang)
        )
        why = f"moved to another day at the same time: {_rendered(old, grain, lang)} -> {new}"
    end = plan.time_end + shift if plan.time_end is not None else None
    facts = plan.facts.model_copy(update={"time": iso(start, grain or "day")})
    return Reschedule(
        target=plan.id,
        text=text,
        raw=c.raw,
        time_start=start,
        time_end=end,
        facts=facts,
        entities=plan.entities,
        why=why,
    )


def _with_time(text: str, start: datetime, grain: str | None, lang: str) -> str:
    """The statement as said, with where the plan now is: "…got pushed back a week, to 2026-05-23 12:00."."""
    body = text.rstrip("。.!！ ")
    if lang == "zh":
        return f"{body}，改到{_rendered(start, grain, lang)}。"
    return f"{body}, to {_rendered(start, grain, lang)}."


def _said(shift: timedelta) -> str:
    sign = "-" if shift < timedelta(0) else "+"
    return f"{sign}{abs(shift)}"
