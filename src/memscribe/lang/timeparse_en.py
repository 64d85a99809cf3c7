"""Calendar helpers and English rules for :mod:`memscribe.lang.timeparse` (internal module).

Everything here is pure and deterministic (no dateparser, no I/O). Conventions:

* Weeks run Monday..Sunday.
* ``next <weekday>`` is that weekday in the following Mon..Sun week, ``last <weekday>`` that weekday in the previous
  week, ``this <weekday>`` that weekday in the current week (same as zh 下周X/上周X/这周X);
  ``coming <weekday>`` is the first one strictly after ``at``, ``past <weekday>`` the last one strictly before it.
* A bare weekday ("on Friday", "Friday night") is the next one on or after ``at``'s date, unless its sentence is in
  the past tense (and has no future marker): then it is the most recent one strictly before ``at``'s date.
* ``last/this/next week|month|year`` are calendar periods; ``this weekend`` is the current-or-coming Sat..Sun,
  ``next/last weekend`` the Sat..Sun of the next/previous week.
* A month/day without a year takes ``at``'s year, minus one if the sentence is past tense and the date would be after
  ``at``, plus one if it is future tense and the date would be before ``at``.
* A clock without am/pm (``at 5``, ``三点``) at hours 1-7 is read as pm unless the part of day says morning.
"""

from __future__ import annotations

import bisect
import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from typing import Literal

Granularity = Literal["minute", "hour", "day", "week", "month", "year"]

_MAXORD = date.max.toordinal()
POD_HOURS = {"morning": (6, 12), "afternoon": (12, 18), "evening": (18, 24), "night": (18, 24)}
POD_KEY = {"早": "morning", "早上": "morning", "晨": "morning", "晚": "night", "晚上": "night", "夜": "night"}
AM_WORDS = frozenset({"morning", "早", "早上", "早晨", "清晨", "上午", "凌晨", "晨"})
PM_WORDS = frozenset(
    {"afternoon", "evening", "night", "tonight", "下午", "傍晚", "晚", "晚上", "夜", "夜里", "夜间"}
)


@dataclass(frozen=True, slots=True)
class Span:
    """A resolved candidate before overlap resolution / clock attachment."""

    start: int
    end: int
    t0: datetime
    t1: datetime
    gran: Granularity
    relative: bool
    tod: bool = False  # time of day only (clock / part of day): its date is provisional (at's date)
    known: bool = True  # am/pm is known; False for "at 5", "三点"
    pod: str | None = None  # part-of-day word as written ("morning", "下午")
    weak: int = 0  # 1: kept only if attached to a date (adjacent or earlier in text); 2: only if adjacent
    prio: int = 0  # tie-break between equally long overlapping candidates


# ---------------------------------------------------------------- calendar helpers (None when out of range)
def shift(d: date | None, days: int) -> date | None:
    if d is None:
        return None
    o = d.toordinal() + days
    return date.fromordinal(o) if 1 <= o <= _MAXORD else None


def mkdate(y: int, m: int, d: int) -> date | None:
    if 1 <= y <= 9999 and 1 <= m <= 12 and 1 <= d <= monthrange(y, m)[1]:
        return date(y, m, d)
    return None


def ym_shift(y: int, m: int, k: int) -> tuple[int, int] | None:
    y2, m0 = divmod(y * 12 + m - 1 + k, 12)
    return (y2, m0 + 1) if 1 <= y2 <= 9999 else None


def add(dt: datetime, delta: timedelta) -> datetime | None:
    naive = dt.replace(tzinfo=None)
    if (delta >= timedelta(0) and naive > datetime.max - delta) or (
        delta < timedelta(0) and naive < datetime.min - delta
    ):
        return None
    return dt + delta


def wall(d: date, tz: tzinfo, h: int = 0, mi: int = 0, s: int = 0) -> datetime:
    return datetime(d.year, d.month, d.day, h, mi, s, tzinfo=tz)


Range = tuple[datetime, datetime] | None


def days_range(d0: date | None, d1: date | None, tz: tzinfo) -> Range:
    return None if d0 is None or d1 is None else (wall(d0, tz), wall(d1, tz, 23, 59, 59))


def week_range(d: date | None, tz: tzinfo) -> Range:
    mon = shift(d, -d.weekday()) if d is not None else None
    return days_range(mon, shift(mon, 6), tz)


def month_range(ym: tuple[int, int] | None, tz: tzinfo) -> Range:
    if ym is None:
        return None
    y, m = ym
    return days_range(date(y, m, 1), date(y, m, monthrange(y, m)[1]), tz)


def year_range(y: int, tz: tzinfo) -> Range:
    return days_range(date(y, 1, 1), date(y, 12, 31), tz) if 1 <= y <= 9999 else None


def pod_range(d: date | None, pod: str, tz: tzinfo) -> Range:
    a, b = POD_HOURS[pod]
    return None if d is None else (wall(d, tz, a), wall(d, tz, b - 1, 59, 59))


def unit_range(base: date, unit: str, n: int, tz: tzinfo) -> tuple[Range, Granularity]:
    """The day/week/month/year that is ``n`` units away from ``base``."""
    if unit == "day":
        d = shift(base, n)
        return days_range(d, d, tz), "day"
    if unit == "week":
        return week_range(shift(base, 7 * n), tz), "week"
    if unit == "month":
        return month_range(ym_shift(base.year, base.month, n), tz), "month"
    return year_range(base.year + n, tz), "year"


# ---------------------------------------------------------------- tense / sentence context
_SENT_END = re.compile(r"[.!?\n。！？；;]")
_PAST = re.compile(
    r"\b(?:was|were|went|did|didn't|had|got|came|saw|met|made|took|ate|spent|told|said|bought|left|gave|found|felt|"
    r"thought|ran|wrote|began|brought|heard|kept|knew|lost|paid|sent|slept|spoke|taught|won|drove|flew|rode|swam|"
    r"sang|drank|fell|forgot|became|built|caught|chose|held|meant|sold|stood|woke|wore|"
    r"(?!(?:need|feed|seed|speed|bleed|breed|proceed|succeed|exceed|indeed|embed|hundred|sacred|naked|wicked|kindred|"
    r"excited|interested|tired|bored|scared|worried|pleased|thrilled|stressed|supposed|scheduled|used)\b)[a-z]{2,}ed)\b"
    r"|了|过|刚|昨",
    re.I,
)
_FUTURE = re.compile(
    r"\b(?:will|won't|shall|going\s+to|gonna|plan(?:ning)?\s+to|about\s+to|remind|upcoming|can't\s+wait)\b|'ll\b"
    # "got moved to Friday", "postponed until Monday": past verbs, but the date they name is ahead
    r"|\b(?:moved|pushed(?:\s+back)?|postponed|rescheduled|delayed|bumped|shifted|changed)\s+(?:it\s+)?(?:to|until|till|for)"
    r"\s+(?:next\s+|this\s+|the\s+)?(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|\d)"
    r"|要|会|将|打算|准备|计划",
    re.I,
)
HABIT = re.compile(
    r"\b(?:every|each|usually|always|often|normally|generally|typically)\b|每|平时|一般|通常|经常|总是", re.I
)


class Ctx:
    """Per-call context: the text, `at`'s date and tz, and lazily computed sentence tense."""

    __slots__ = ("_ends", "_tense", "at", "base", "text", "tz")

    def __init__(self, text: str, at: datetime) -> None:
        self.text, self.at, self.base = text, at, at.date()
        self.tz: tzinfo = at.tzinfo  # type: ignore[assignment]  # aware by contract
        self._ends: list[int] | None = None
        self._tense: dict[int, int] = {}

    def sentence(self, pos: int) -> tuple[int, int]:
        if self._ends is None:
            self._ends = [m.start() for m in _SENT_END.finditer(self.text)]
        i = bisect.bisect_left(self._ends, pos)
        lo = self._ends[i - 1] + 1 if i > 0 else 0
        return lo, self._ends[i] if i < len(self._ends) else len(self.text)

    def tense(self, pos: int) -> int:
        """-1 past, 1 future, 0 unknown for the sentence containing ``pos``."""
        lo, hi = self.sentence(pos)
        if lo not in self._tense:
            s = self.text[lo:hi]
            self._tense[lo] = 1 if _FUTURE.search(s) else (-1 if _PAST.search(s) else 0)
        return self._tense[lo]

    def habitual(self, pos: int) -> bool:
        lo, hi = self.sentence(pos)
        return HABIT.search(self.text, lo, hi) is not None

    def weekday(self, idx: int, pos: int) -> date | None:
        """Bare weekday: on/after base, or strictly before it in a past-tense sentence."""
        wd = self.base.weekday()
        if self.tense(pos) < 0:
            return shift(self.base, -((wd - idx - 1) % 7 + 1))
        return shift(self.base, (idx - wd) % 7)

    def weekend(self, k: int) -> Range:
        sat = shift(self.base, 5 - self.base.weekday() + 7 * k)
        return days_range(sat, shift(sat, 1), self.tz)

    def span(
        self, a: int, b: int, rng: Range, gran: Granularity, relative: bool = True, **kw: object
    ) -> Span | None:
        return None if rng is None else Span(a, b, rng[0], rng[1], gran, relative, **kw)  # type: ignore[arg-type]

    def day(
        self, a: int, b: int, d: date | None, pod: str | None = None, relative: bool = True
    ) -> Span | None:
        if pod:
            return self.span(
                a, b, pod_range(d, POD_KEY.get(pod, pod.lower()), self.tz), "hour", relative, pod=pod
            )
        return self.span(a, b, days_range(d, d, self.tz), "day", relative)


# ---------------------------------------------------------------- English rules
_F = re.I | re.A  # ASCII word boundaries: CJK characters never glue onto English words
_WDS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WD = "|".join(_WDS)
WEEKDAYS = _WDS  # public names for other modules (merge reads them as time words)
_WDA = r"mon|tues?|wed|thu(?:rs?)?|fri|sat|sun"
_MONTHS_FULL = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
MONTHS = _MONTHS_FULL
_MON = r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
_POD = r"morning|afternoon|evening|night"
_NUMS = {
    w: i
    for i, w in enumerate(
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"], 1
    )
}
_NUM = r"\d{1,3}|an?|" + "|".join(_NUMS)
_PREP = r"in|since|during|until|till|by|from|before|after|through|early|late|mid-?"
_UNIT_K = {
    "next": 1,
    "coming": 1,
    "this coming": 1,
    "last": -1,
    "previous": -1,
    "past": -1,
    "this past": -1,
    "this": 0,
}

_R_DAY = re.compile(
    rf"\b(?:(?P<dby>(?:the\s+)?day\s+before\s+yesterday)|(?P<dat>(?:the\s+)?day\s+after\s+tomorrow)"
    rf"|(?P<w>today|tonight|tomorrow|tmrw|yesterday)(?:\s+(?P<p1>{_POD}))?|this\s+(?P<p2>morning|afternoon|evening)"
    rf"|(?P<ln>last\s+night))\b",
    _F,
)
_R_REL = re.compile(
    rf"\b(?P<q>next|last|this\s+coming|this\s+past|this|coming|past|previous)\s+(?:(?:(?P<wd>{_WD})|(?P<wa>{_WDA}))\b"
    rf"(?:\s+(?P<p>{_POD})\b)?|(?P<u>week|month|year|weekend)\b)",
    _F,
)
_R_WD = re.compile(rf"\b(?P<on>on\s+)?(?:(?P<wd>{_WD})|(?P<wa>{_WDA}))\b(?:\s+(?P<p>{_POD})\b)?", _F)
_R_WEEKEND = re.compile(r"\b(?:over|on|during|for|at)\s+the\s+weekend\b", _F)
_R_AGO = re.compile(
    rf"\b(?P<n>{_NUM})\s+(?P<u>minute|hour|day|week|month|year)s?\s+(?P<dir>ago|from\s+now)\b", _F
)
_R_IN = re.compile(rf"\bin\s+(?P<n>{_NUM})\s+(?P<u>minute|hour|day|week|month|year)s?\b", _F)
_R_CLOCK = re.compile(
    rf"(?:(?<![\w:.])|(?<=[0-9]T))(?:(?:at|@|around|by)\s+)?(?:(?P<h>\d{{1,2}})(?::(?P<mi>[0-5]\d))?\s*(?P<ap>[ap])\.?m\b"
    rf"|(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)(?![\d:])|(?P<nm>noon|midday|midnight)\b"
    rf"|(?P<hoc>\d{{1,2}}|{'|'.join(_NUMS)})\s+o'?clock\b)",
    _F,
)
_R_WEAK = re.compile(r"\bat\s+(?P<h>\d{1,2})\b(?![:.,]?\d|\s*(?:%|percent|[ap]\.?m\b))", _F)
_R_ISO = re.compile(
    r"(?<![\w/.-])(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?!\d|[-/.]\d)", _F
)
_R_NUM = re.compile(r"(?<![\w/.-])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4}|\d{2})(?![\d/])", _F)
_R_MD = re.compile(
    rf"\b(?P<mon>{_MON})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!:\d)(?:,?\s+(?P<y>\d{{4}})\b)?", _F
)
_R_DM = re.compile(
    rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{_MON})\b(?:\.?,?\s+(?P<y>\d{{4}})\b)?", _F
)
_R_MY = re.compile(rf"\b(?P<mon>{_MON})\.?,?\s+(?:of\s+)?(?P<y>\d{{4}})\b", _F)
_R_PM = re.compile(rf"\b(?P<pre>{_PREP}|last|next|this|coming)\s+(?P<mon>{'|'.join(_MONTHS_FULL)})\b", _F)
_R_YEAR = re.compile(rf"\b(?:{_PREP}|of|year)\s+(?P<y>(?:19|20)\d{{2}})\b(?![.,:/-]?\d)", _F)
_EVERY = re.compile(r"\b(?:every|each)\s+$", _F)
_TRIGGER = re.compile(
    rf"\d|day|night|tomorrow|tmrw|week|month|year|noon|midnight|\b(?:{_WDA}|{_MON})", _F
)  # cheap pre-filter


def _num(s: str) -> int:
    s = s.lower()
    return int(s) if s.isdigit() else _NUMS.get(s, 1)  # a / an -> 1


def _month(word: str) -> int | None:
    """Month number; abbreviations and the ambiguous words May/March/August must be capitalised."""
    low = word.lower()
    if not word[0].isupper() and (low not in _MONTHS_FULL or low in ("may", "march", "august")):
        return None
    return ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec").index(
        low[:3]
    ) + 1


def _wd_index(m: re.Match[str]) -> int | None:
    if m["wa"] is not None and not m["wa"][0].isupper():
        return None  # "sat", "wed" lower-case are ordinary words
    return _WDS.index(next(w for w in _WDS if w.startswith((m["wd"] or m["wa"]).lower()[:3])))


def _h_day(c: Ctx, m: re.Match[str]) -> Span | None:
    if m["dby"] or m["dat"]:
        return c.day(m.start(), m.end(), shift(c.base, -2 if m["dby"] else 2))
    if m["ln"]:
        return c.day(m.start(), m.end(), shift(c.base, -1), "night")
    if m["p2"]:
        return c.day(m.start(), m.end(), c.base, m["p2"])
    w = m["w"].lower()
    off = {"today": 0, "tonight": 0, "tomorrow": 1, "tmrw": 1, "yesterday": -1}[w]
    return c.day(m.start(), m.end(), shift(c.base, off), m["p1"] or ("night" if w == "tonight" else None))


def _h_rel(c: Ctx, m: re.Match[str]) -> Span | None:
    q = " ".join(m["q"].lower().split())
    k = _UNIT_K[q]
    if m["u"] is None:
        idx = _wd_index(m)
        if idx is None:
            return None
        wd = c.base.weekday()
        if q in ("coming", "this coming"):
            d = shift(c.base, (idx - wd - 1) % 7 + 1)
        elif q in ("past", "this past"):
            d = shift(c.base, -((wd - idx - 1) % 7 + 1))
        else:
            d = shift(c.base, idx - wd + 7 * k)
        return c.day(m.start(), m.end(), d, m["p"])
    u = m["u"].lower()
    if u == "weekend":
        return c.span(m.start(), m.end(), c.weekend(k), "day")
    if q in ("past", "this past"):
        return None  # "the past week" is a rolling window, not a calendar period
    rng, gran = unit_range(c.base, u, k, c.tz)
    return c.span(m.start(), m.end(), rng, gran)


def _h_wd(c: Ctx, m: re.Match[str]) -> Span | None:
    idx = _wd_index(m)
    if idx is None or (m["wa"] and not m["on"]) or _EVERY.search(c.text, max(0, m.start() - 8), m.start()):
        return None
    return c.day(m.start(), m.end(), c.weekday(idx, m.start()), m["p"])


def _h_weekend(c: Ctx, m: re.Match[str]) -> Span | None:
    # past tense: the weekend that ended most recently (the current one only when said on its Sunday)
    k = (0 if c.base.weekday() == 6 else -1) if c.tense(m.start()) < 0 else 0
    return c.span(m.start(), m.end(), c.weekend(k), "day")


def _h_ago(c: Ctx, m: re.Match[str], sign: int | None = None) -> Span | None:
    if sign is None:
        sign = -1 if m["dir"].lower() == "ago" else 1
    elif c.tense(m.start()) < 0:
        return None  # "finished it in 3 days" is a duration
    n, u = sign * _num(m["n"]), m["u"].lower()
    if u == "minute" and not m["n"][0].isdigit():
        return None  # "in a minute" is a figure of speech
    if u in ("minute", "hour"):
        t = add(c.at, timedelta(minutes=n) if u == "minute" else timedelta(hours=n))
        if t is None:
            return None
        t0 = (
            t.replace(second=0, microsecond=0)
            if u == "minute"
            else t.replace(minute=0, second=0, microsecond=0)
        )
        t1 = t0.replace(second=59) if u == "minute" else t0.replace(minute=59, second=59)
        return Span(m.start(), m.end(), t0, t1, "minute" if u == "minute" else "hour", True)
    rng, gran = unit_range(c.base, u, n, c.tz)
    return c.span(m.start(), m.end(), rng, gran)


def _clock(c: Ctx, a: int, b: int, h: int, mi: int, known: bool, weak: int = 0) -> Span:
    t0 = wall(c.base, c.tz, h, mi)
    t1 = t0.replace(second=59) if mi else t0.replace(minute=59, second=59)
    return Span(a, b, t0, t1, "minute" if mi else "hour", True, tod=True, known=known, weak=weak)


def _h_clock(c: Ctx, m: re.Match[str]) -> Span | None:
    if m["nm"]:
        return _clock(c, m.start(), m.end(), 0 if m["nm"].lower() == "midnight" else 12, 0, True)
    if m["ap"]:
        h = int(m["h"])
        if not 1 <= h <= 12:
            return None
        return _clock(
            c, m.start(), m.end(), h % 12 + (12 if m["ap"].lower() == "p" else 0), int(m["mi"] or 0), True
        )
    if m["h24"]:
        h = int(m["h24"])
        return _clock(c, m.start(), m.end(), h, int(m["m24"]), h == 0 or h >= 13 or m["h24"].startswith("0"))
    h = _num(m["hoc"])
    return _clock(c, m.start(), m.end(), h, 0, False) if 1 <= h <= 12 else None


def _h_weak(c: Ctx, m: re.Match[str]) -> Span | None:
    h = int(m["h"])
    return _clock(c, m.start(), m.end(), h, 0, h == 0 or h >= 13, weak=2) if h <= 23 else None


def _explicit(c: Ctx, a: int, b: int, y: int | None, mo: int | None, d: int, pos: int) -> Span | None:
    if mo is None:
        return None
    if y is None:
        y = c.base.year
        cand, tense = mkdate(y, mo, d), c.tense(pos)
        # A past-tense sentence about a date a few weeks ahead is usually a change of plan
        # ("was rescheduled to May 14"), not last year: only a date far ahead flips the year.
        if cand is not None and tense < 0 and cand > c.base + timedelta(days=60):
            y -= 1
        elif cand is not None and tense > 0 and cand < c.base:
            y += 1
    return c.day(a, b, mkdate(y, mo, d), relative=False)


def _h_iso(c: Ctx, m: re.Match[str]) -> Span | None:
    return _explicit(c, m.start(), m.end(), int(m["y"]), int(m["m"]), int(m["d"]), m.start())


def _h_num(c: Ctx, m: re.Match[str]) -> Span | None:
    a, b, y = int(m["a"]), int(m["b"]), int(m["y"])
    mo, d = (b, a) if a > 12 else (a, b)  # US month/day unless the first number cannot be a month
    return _explicit(c, m.start(), m.end(), y + 2000 if len(m["y"]) == 2 else y, mo, d, m.start())


def _h_md(c: Ctx, m: re.Match[str]) -> Span | None:
    y = int(m["y"]) if m["y"] else None
    return _explicit(c, m.start(), m.end(), y, _month(m["mon"]), int(m["d"]), m.start())


def _h_my(c: Ctx, m: re.Match[str]) -> Span | None:
    mo = _month(m["mon"])
    ym = (int(m["y"]), mo) if mo is not None and 1 <= int(m["y"]) <= 9999 else None
    return c.span(m.start(), m.end(), month_range(ym, c.tz), "month", False)


def _h_pm(c: Ctx, m: re.Match[str]) -> Span | None:
    mo, pre, y, cur = _month(m["mon"]), m["pre"].lower(), c.base.year, c.base.month
    if mo is None:
        return None
    if pre in ("last", "next", "this", "coming"):
        y += {"last": -(mo >= cur), "next": mo <= cur, "coming": mo <= cur, "this": 0}[pre]
        return c.span(m.start(), m.end(), month_range((y, mo), c.tz) if 1 <= y <= 9999 else None, "month")
    tense = c.tense(m.start())
    y += -1 if tense < 0 and mo > cur else (1 if tense > 0 and mo < cur else 0)
    rng = month_range((y, mo), c.tz) if 1 <= y <= 9999 else None
    return c.span(m.start("mon"), m.end(), rng, "month", False)


def _h_year(c: Ctx, m: re.Match[str]) -> Span | None:
    return c.span(m.start("y"), m.end(), year_range(int(m["y"]), c.tz), "year", False)


_RULES = (
    (_R_DAY, _h_day),
    (_R_REL, _h_rel),
    (_R_WD, _h_wd),
    (_R_WEEKEND, _h_weekend),
    (_R_AGO, _h_ago),
    (_R_IN, lambda c, m: _h_ago(c, m, 1)),
    (_R_CLOCK, _h_clock),
    (_R_WEAK, _h_weak),
    (_R_ISO, _h_iso),
    (_R_NUM, _h_num),
    (_R_MD, _h_md),
    (_R_DM, _h_md),
    (_R_MY, _h_my),
    (_R_PM, _h_pm),
    (_R_YEAR, _h_year),
)


def en_spans(ctx: Ctx) -> list[Span]:
    """Candidate spans from the English rules (they only fire on ASCII words, so they are safe on mixed text)."""
    if _TRIGGER.search(ctx.text) is None:
        return []
    out = []
    for rx, fn in _RULES:
        for m in rx.finditer(ctx.text):
            sp = fn(ctx, m)
            if sp is not None:
                out.append(sp)
    return out
