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
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Literal

from memscribe.lang.lexicon import TITLES

Granularity = Literal["minute", "hour", "day", "week", "month", "quarter", "year"]

_MAXORD = date.max.toordinal()
POD_HOURS = {
    "morning": (6, 12),
    "afternoon": (12, 18),
    "evening": (18, 24),
    "night": (18, 24),
    "noon": (12, 14),
    "dusk": (17, 19),
    "small": (0, 6),
}
POD_KEY = {
    "早": "morning",
    "早上": "morning",
    "晨": "morning",
    "晚": "night",
    "晚上": "night",
    "夜": "night",
    "早晨": "morning",
    "上午": "morning",
    "下午": "afternoon",
    "中午": "noon",
    "傍晚": "dusk",
    "凌晨": "small",
}
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
    rec: str | None = None  # RRULE of a recurrence (the span is then its first occurrence)
    bare: bool = False  # a bare weekday / weekend (no this/next/last): may turn out to be a standing rule
    wd: tuple[int, ...] = ()  # the weekdays of a bare weekday / weekend
    part: str | None = None  # "dom": only a day of the month was said (5日); "mon": only a month (5月)
    dayoff: int = 0  # a clock that belongs to the next day of the date it attaches to (midnight, 晚上12点)
    ruled: bool = False  # a clock said in a standing rule ("I never take calls after 10pm"): becomes BYHOUR


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


def quarter_range(d: date | None, k: int, tz: tzinfo) -> Range:
    """The quarter ``k`` quarters away from the one containing ``d``."""
    if d is None:
        return None
    ym = ym_shift(d.year, 3 * ((d.month - 1) // 3) + 1, 3 * k)
    if ym is None:
        return None
    last = ym_shift(ym[0], ym[1], 2)
    return (
        days_range(date(ym[0], ym[1], 1), date(last[0], last[1], monthrange(*last)[1]), tz) if last else None
    )


def two_digit_year(yy: int, base_year: int) -> int:
    """'68' -> 1968, '30' -> 2030 when said in 2026: at most 10 years ahead, otherwise the past century."""
    y = base_year // 100 * 100 + yy
    if y > base_year + 10:
        y -= 100
    elif y < base_year - 89:
        y += 100
    return y


_SEASON_MONTHS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


def season_range(year: int, season: str, tz: tzinfo) -> Range:
    """Meteorological seasons (northern hemisphere): spring Mar..May, summer Jun..Aug, autumn Sep..Nov, winter
    Dec..Feb (the winter of ``year`` starts in its December)."""
    m0 = _SEASON_MONTHS[season]
    end = ym_shift(year, m0, 2)
    if end is None or not 1 <= year <= 9999:
        return None
    return days_range(date(year, m0, 1), date(end[0], end[1], monthrange(*end)[1]), tz)


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
# a title's period ends no sentence ("met Mr. Smith at St. Mary's on Tuesday" is one past-tense sentence)
_SENT_END = re.compile("".join(rf"(?<!\b{t})" for t in TITLES) + r"\.|[!?\n。！？；;]")
_PAST = re.compile(
    r"\b(?:was|were|went|did|didn't|had|got|came|saw|met|made|took|ate|spent|told|said|bought|left|gave|found|felt|"
    r"thought|ran|wrote|began|brought|heard|kept|knew|lost|paid|sent|slept|spoke|taught|won|drove|flew|rode|swam|"
    # ("I meant Thursday" says which day was meant, not that it is past)
    r"sang|drank|fell|forgot|became|built|caught|chose|held|(?<!\bI )meant|sold|stood|woke|wore|"
    r"(?!(?:need|feed|seed|speed|bleed|breed|proceed|succeed|exceed|indeed|embed|hundred|sacred|naked|wicked|kindred|"
    r"excited|interested|tired|bored|scared|worried|pleased|thrilled|stressed|supposed|scheduled|used)\b)[a-z]{2,}ed)\b"
    # (not the 了 of "来不了" / "去不了": cannot come, ahead)
    r"|(?<!不)了|过|刚|昨",
    re.I,
)
# the past said by a verb of its own (was, went, told …), not only by a participle ("getting married", "getting
# the car inspected"): a present progressive weighs against the latter only
_PAST_WORD = re.compile(
    r"\b(?:was|were|went|did|didn't|had|came|saw|met|made|took|ate|spent|told|said|bought|left|gave|found|felt|"
    r"thought|ran|wrote|began|brought|heard|kept|knew|lost|paid|sent|slept|spoke|taught|won|drove|flew|rode|swam|"
    r"sang|drank|fell|forgot|became|built|caught|chose|held|(?<!\bI )meant|sold|stood|woke|wore|yesterday|ago|last)\b",
    re.I,
)
# a present progressive of an arrangement ("I'm getting the car inspected on Tuesday", "Dana is getting married
# on Oct 17", "I'm flying to Dublin on the 28th"): English says a scheduled event ahead this way
_FUTURATE = re.compile(
    r"(?:\b(?:am|is|are)|['’](?:m|re|s))\s+(?:also\s+|still\s+|finally\s+)?"
    r"(?!(?:amazing|interesting|exciting|boring|annoying|relaxing|charming|stunning|surprising|tiring|confusing|"
    r"disappointing|frustrating|inspiring|refreshing|overwhelming|rewarding|thinking|feeling|loving|enjoying|"
    r"missing|wondering|hoping|trying|recovering|dealing|struggling|working|learning|reading|watching|doing|being)\b)"
    r"[a-z]{2,}ing\b",
    re.I,
)
_FUTURE = re.compile(
    r"\b(?:will|won't|shall|going\s+to|gonna|plan(?:ning)?\s+to|about\s+to|remind|upcoming|can't\s+wait)\b|'ll\b"
    # "got moved to Friday", "postponed until Monday": past verbs, but the date they name is ahead
    # ("Priya pushed our 1:1 to Thursday", "united moved my boston flight to march 5": the thing moved in between)
    r"|\b(?:moved|pushed(?:\s+back)?|postponed|rescheduled|delayed|bumped|shifted|changed)\s+(?:[\w'’:-]+\s+){0,5}?"
    r"(?:to|until|till|for)"
    r"\s+(?:next\s+|this\s+|the\s+)?(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|\d)"
    # "Booked for 6-7 am on Wednesday", "I reserved a table for Friday": what was booked FOR is ahead of the booking
    # ("booked it on Monday" says when the booking was made, and stays past)
    r"|\b(?:booked|reserved|scheduled|arranged|confirmed)\s+(?:[\w'’:-]+\s+){0,5}?for"
    r"\s+(?:next\s+|this\s+|the\s+)?(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|\d)"
    # "客户把见面改到周五了", "推迟到下周三": the day a plan was moved to is ahead, whatever the 了
    r"|(?:改|挪|推迟|延期|延|顺延|推|调|换|提前|定)到了?(?=周|星期|礼拜|下|明|后|本|这|\d|[一二三四五六七八九十])"
    r"|要|(?<![个开有聚约例晚宴舞])会(?!议|员|计|场)|将|打算|准备|计划"
    # "周六晚上约了老王吃饭", "周六的饭局取消了": a day arranged or called off is ahead, whatever the 了
    r"|约了|约好|取消|不去了"
    # "周五晚上《雷雨》的票买好了", "机票订好了": what is got ready is for a day ahead; "得在周日前退掉": a deadline
    r"|(?:买|订|定|办|准备|安排|预约|挂|抢)好了|得在|必须|务必",
    re.I,
)
_CJK_CHAR = re.compile(r"[\u4e00-\u9fff]")
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
        """-1 past, 1 future, 0 unknown for the sentence containing ``pos``. In Chinese a past marker counts only
        after the time word (我3月5日去了医院; but 记下了：12月中旬前补上 is not past)."""
        lo, hi = self.sentence(pos)
        if _CJK_CHAR.search(self.text, lo, hi):
            if _FUTURE.search(self.text, lo, hi):
                return 1
            return -1 if _PAST.search(self.text, pos, hi) else 0
        if lo not in self._tense:
            s = self.text[lo:hi]
            if _FUTURE.search(s) or (_FUTURATE.search(s) and not _PAST_WORD.search(s)):
                self._tense[lo] = 1
            else:
                self._tense[lo] = -1 if _PAST.search(s) else 0
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

    def instant(self, a: int, b: int, minutes: int) -> Span | None:
        """``at`` plus/minus elapsed minutes (in UTC, so DST-safe), to the minute; hour grain when on the hour."""
        utc = self.at.astimezone(UTC)
        t = add(utc, timedelta(minutes=minutes))
        if t is None:
            return None
        t0 = t.astimezone(self.tz).replace(second=0, microsecond=0)
        t1 = t0.replace(second=59) if t0.minute else t0.replace(minute=59, second=59)
        return Span(a, b, t0, t1, "minute" if t0.minute else "hour", True, prio=3)

    def clock(
        self, a: int, b: int, h: int, mi: int, known: bool, pod: str | None = None, day: date | None = None,
        dayoff: int = 0,
    ) -> Span | None:  # fmt: skip
        d = shift(day or self.base, dayoff)
        if d is None or not (0 <= h < 24 and 0 <= mi < 60):
            return None
        t0 = wall(d, self.tz, h, mi)
        t1 = t0.replace(second=59) if mi else t0.replace(minute=59, second=59)
        return Span(
            a, b, t0, t1, "minute" if mi else "hour", True, tod=True, known=known, pod=pod, dayoff=dayoff
        )

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
} | {
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "forty-five": 45,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
}
_NUM = r"\d{1,3}|an?|a\s+couple\s+of|" + "|".join(_NUMS)
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

_TOMORROW = r"tomorrow|tomorow|tommorow|tommorrow|tmrw|tmr|2morrow|2moro|2mrw"
_R_DAY = re.compile(
    rf"\b(?:(?P<dby>(?:the\s+)?day\s+before\s+yesterday)|(?P<dat>(?:the\s+)?day\s+after\s+tomorrow)"
    rf"|(?P<w>today|tonight|tonite|2nite|{_TOMORROW}|yesterday|yday)(?:\s+(?P<p1>{_POD}))?|this\s+(?P<p2>morning|afternoon|evening)"
    rf"|(?P<ln>last\s+night))\b",
    _F,
)
_R_REL = re.compile(
    rf"\b(?P<q>next|last|this\s+coming|this\s+past|this|coming|past|previous)\s+(?:(?:(?P<wd>{_WD})|(?P<wa>{_WDA}))\b"
    rf"(?:\s+(?P<p>{_POD})\b)?|(?P<u>week|month|year|weekend)\b)"
    r"|\bthe\s+(?P<u2>week|month|year)\s+(?P<q2>after\s+next|before\s+last)\b",
    _F,
)
_R_WD = re.compile(rf"\b(?P<on>on\s+)?(?:(?P<wd>{_WD})|(?P<wa>{_WDA}))\b(?:\s+(?P<p>{_POD})\b)?", _F)
_R_WEEKEND = re.compile(r"\b(?:over|on|during|for|at)\s+the\s+weekend\b", _F)
_UNITS = r"minute|min|hour|hr|day|week|fortnight|month|year"
_R_AGO = re.compile(
    rf"\b(?P<n>{_NUM}|half\s+an?)\s+(?P<u>{_UNITS})s?\s+(?P<dir>ago|from\s+now|later|earlier)\b", _F
)
_R_IN = re.compile(rf"\bin\s+(?P<n>{_NUM}|half\s+an?)\s+(?P<u>{_UNITS})s?\b", _F)
_HW = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_R_CLOCK = re.compile(
    rf"(?:(?<![\w:.])|(?<=[0-9]T))(?:(?:at|@|around|by)\s*)?(?:(?P<h>\d{{1,2}})(?:[:.](?P<mi>[0-5]\d))?\s*(?P<ap>[ap])(?:\.m\b\.?|m\b)"
    rf"|(?P<ha>\d{{1,2}}):(?P<ma>[0-5]\d)\s?(?P<ap1>[ap])\b(?![.\w])"
    rf"|(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)(?![\d:])(?:\s+in\s+the\s+(?P<ip24>morning|afternoon|evening))?"
    rf"|(?P<nm>noon|midday|midnight)\b"
    rf"|(?P<hoc>\d{{1,2}}|{_HW})\s*o'?clock\b(?:\s*(?P<ap2>[ap])(?:\.m\b\.?|m\b)|\s+in\s+the\s+(?P<ip>morning|afternoon|evening)|\s+at\s+(?P<ipn>night))?"
    rf"|(?P<hin>\d{{1,2}}|{_HW})\s+in\s+the\s+(?P<ip2>morning|afternoon|evening)|(?P<hn>\d{{1,2}}|{_HW})\s+at\s+night"
    rf"|(?P<qp>quarter|half|twenty-five|twenty|ten|five|\d{{1,2}}\s+minutes?)\s+(?P<qd>past|after|to|till|before)\s+(?P<qh>\d{{1,2}}|{_HW})\b(?!:))",
    _F,
)
_R_WEAK = re.compile(
    # "at 5" / "@ 5"; "before 9" / "after 3" / "until 6" keep their preposition out of the mention (it is part of the
    # sentence's meaning, never rewritten); "after 3 years", "before 2 people" are no clocks
    r"(?:(?:\bat\s+|@\s*)|(?<=\bbefore\s)|(?<=\bafter\s)|(?<=\buntil\s)|(?<=\btill\s))(?P<h>\d{1,2})\b"
    r"(?![:.,]?\d|\s*(?:%|percent|[ap]\.?m\b|-|(?:st|nd|rd|th)\b|(?:years?|months?|weeks?|days?|hours?|hrs?|"
    r"minutes?|mins?|seconds?|times?|people|pm|am|of\b|o['’]clock)\b))",
    _F,
)
_R_ISO = re.compile(
    r"(?<![\w/.-])(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?!\d|[-/.]\d)", _F
)
_R_NUM = re.compile(r"(?<![\w/.-])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4}|\d{2})(?![\d/])", _F)
_R_MDNUM = re.compile(
    r"(?:(?<=\bon\s)|(?<=\bby\s)|(?<=\buntil\s)|(?<=\bdue\s)|(?<=\bbefore\s)|(?<=\bafter\s)|(?<=\bsince\s)"
    r"|(?<![\w/.$-]))(?P<a>\d{1,2})/(?P<b>\d{1,2})(?![\d/])(?=\s*(?:$|[.,;:!?)]|at\b|@|\d|-|to\b|through\b))",
    _F,
)
_R_MD = re.compile(
    rf"\b(?:(?P<wdp>{_WD}|{_WDA})\.?,?\s+)?(?P<mon>{_MON})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!:\d)(?:,?\s+(?P<y>\d{{4}})\b)?",
    _F,
)
_R_DM = re.compile(
    rf"\b(?:(?P<wdp>{_WD}|{_WDA})\.?,?\s+)?(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{_MON})\b"
    rf"(?:\.?,?\s+(?P<y>\d{{4}})\b)?",
    _F,
)
# "on the 15th", "by the 3rd", "Friday the 13th": a day of the month said without its month. Only after a
# preposition or a weekday and before a break, so "the 15th floor", "the 3rd time", "the 19th century" stay text
_R_THE_NTH = re.compile(
    rf"\b(?:(?P<wd>{_WD})\s+|(?:on|by|until|till|before|after|since|from|through|thru|to|and|of)\s+)"
    r"(?P<the>the\s+(?P<d>[12][0-9]|3[01]|0?[1-9])(?:st|nd|rd|th))\b"
    r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:at|in|and|or|to|through|until|for|when|so|but|because|then|we|i|you)\b"
    r"|\s+of\s+(?:this|next|the)\s+month\b|\s*[-–])",
    _F,
)
_R_NTH_OF_MONTH = re.compile(
    r"\bthe\s+(?P<d>[12][0-9]|3[01]|0?[1-9])(?:st|nd|rd|th)\s+of\s+(?P<rel>this|next|last|the)\s+month\b", _F
)
_R_MY = re.compile(rf"\b(?P<mon>{_MON})\.?,?\s+(?:of\s+)?(?P<y>\d{{4}})\b", _F)
_R_PM = re.compile(
    rf"\b(?P<pre>{_PREP}|last|next|this|coming|to|and)\s+(?P<mon>{'|'.join(_MONTHS_FULL)})\b", _F
)
_R_YEAR = re.compile(rf"\b(?:{_PREP}|of|year)\s+(?P<y>(?:19|20)\d{{2}})\b(?![.,:/-]?\d)", _F)
_EVERY = re.compile(r"\b(?:every|each)\s+$", _F)
_TRIGGER = re.compile(
    rf"\d|day|night|nite|tom|tmr|2mo|yday|week|month|year|noon|midnight|hour|hr|min|ago|quarter|eve|easter|christmas"
    rf"|morning|afternoon|evening|every|each|daily|spring|summer|fall|autumn|winter|fortnight"
    rf"|xmas|halloween|thanksgiving|juneteenth|festival|valentine|\b(?:{_WDA}|{_MON})",
    _F,
)  # cheap pre-filter


def _num(s: str) -> int:
    s = s.lower()
    if s.endswith("couple of"):
        return 2
    return int(s) if s.isdigit() else _NUMS.get(s, 1)  # a / an -> 1


NUM_RE, num_value = _NUM, _num  # for the anchored-offset pass (timeparse_anchor.py)


def _month(word: str) -> int | None:
    """Month number; abbreviations and the ambiguous words May/March/August must be capitalised."""
    low = word.lower()
    if not word[0].isupper() and (low not in _MONTHS_FULL or low in ("may", "march", "august")):
        return None
    return ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec").index(
        low[:3]
    ) + 1


def _wd_of(word: str) -> int:
    return _WDS.index(next(w for w in _WDS if w.startswith(word.lower()[:3])))


def _wd_index(m: re.Match[str], lower_ok: bool = False) -> int | None:
    if m["wa"] is not None and not m["wa"][0].isupper() and not lower_ok:
        return None  # "sat", "wed" lower-case are ordinary words
    return _wd_of(m["wd"] or m["wa"])


def pick_year(c: Ctx, pos: int, make: Callable[[int], date | None], grace_days: int = 30) -> date | None:
    """The year of a calendar day said without one (its last day for a month): past tense -> the latest on or
    before today (a day up to 60 days ahead stays: "was moved to May 14"); future tense -> the first on or after
    today; no tense -> the first on or after today minus ``grace_days`` (a date a few days past is talked about in
    retrospect; one further back is next year's)."""
    y0, today, tense = c.base.year, c.base, c.tense(pos)
    cands = [d for d in (make(y) for y in (y0 - 1, y0, y0 + 1) if 1 <= y <= 9999) if d is not None]
    if tense < 0:
        ok = [d for d in cands if d <= today + timedelta(days=60)]
        return max(ok) if ok else None
    lo = today if tense > 0 else (shift(today, -grace_days) or date.min)
    ok = [d for d in cands if d >= lo]
    return min(ok) if ok else None


def month_last(y: int, m: int) -> date | None:
    return mkdate(y, m, monthrange(y, m)[1]) if 1 <= y <= 9999 and 1 <= m <= 12 else None


def _h_day(c: Ctx, m: re.Match[str]) -> Span | None:
    if m["dby"] or m["dat"]:
        return c.day(m.start(), m.end(), shift(c.base, -2 if m["dby"] else 2))
    if m["ln"]:
        return c.day(m.start(), m.end(), shift(c.base, -1), "night")
    if m["p2"]:
        return c.day(m.start(), m.end(), c.base, m["p2"])
    w = m["w"].lower()
    off = 0 if w in ("today", "tonight", "tonite", "2nite") else -1 if w in ("yesterday", "yday") else 1
    night = w in ("tonight", "tonite", "2nite")
    return c.day(m.start(), m.end(), shift(c.base, off), m["p1"] or ("night" if night else None))


def _h_rel(c: Ctx, m: re.Match[str]) -> Span | None:
    if m["u2"]:
        k = 2 if m["q2"].lower().startswith("after") else -2
        rng, gran = unit_range(c.base, m["u2"].lower(), k, c.tz)
        return c.span(m.start(), m.end(), rng, gran)
    q = " ".join(m["q"].lower().split())
    k = _UNIT_K[q]
    if m["u"] is None:
        idx = _wd_index(m, lower_ok=True)
        if idx is None:
            return None
        wd = c.base.weekday()
        if q in ("coming", "this coming"):
            d = shift(c.base, (idx - wd - 1) % 7 + 1)
        elif q in ("past", "this past", "last", "previous"):
            d = shift(c.base, -((wd - idx - 1) % 7 + 1))  # the latest one strictly before today
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
    idx = _wd_index(m, lower_ok=bool(m["on"]))
    if idx is None or (m["wa"] and not m["on"]) or _EVERY.search(c.text, max(0, m.start() - 8), m.start()):
        return None
    sp = c.day(m.start(), m.end(), c.weekday(idx, m.start()), m["p"])
    return None if sp is None else replace(sp, bare=True, wd=(idx,))


def _h_weekend(c: Ctx, m: re.Match[str]) -> Span | None:
    # past tense: the weekend that ended most recently (the current one only when said on its Sunday)
    k = (0 if c.base.weekday() == 6 else -1) if c.tense(m.start()) < 0 else 0
    return c.span(m.start(), m.end(), c.weekend(k), "day")


def _h_ago(c: Ctx, m: re.Match[str], sign: int | None = None) -> Span | None:
    if sign is None:
        sign = -1 if m["dir"].lower() in ("ago", "earlier") else 1
    elif c.tense(m.start()) < 0:
        return None  # "finished it in 3 days" is a duration
    raw, u = m["n"].lower(), m["u"].lower()
    u = {"min": "minute", "hr": "hour"}.get(u, u)
    if u == "fortnight":  # a fortnight = two weeks
        if raw.startswith("half"):
            return None
        u, raw = "week", str(2 * _num(raw))
    if u == "minute" and not raw[0].isdigit() and raw not in _NUMS:
        return None  # "in a minute" is a figure of speech
    n = 0.5 if raw.startswith("half") else _num(raw)
    if u in ("minute", "hour"):
        return c.instant(m.start(), m.end(), round(sign * n * (60 if u == "hour" else 1)))
    if n != int(n):
        return None
    rng, gran = unit_range(c.base, u, sign * int(n), c.tz)
    return c.span(m.start(), m.end(), rng, gran)


def _clock(c: Ctx, a: int, b: int, h: int, mi: int, known: bool, weak: int = 0) -> Span:
    t0 = wall(c.base, c.tz, h, mi)
    t1 = t0.replace(second=59) if mi else t0.replace(minute=59, second=59)
    return Span(a, b, t0, t1, "minute" if mi else "hour", True, tod=True, known=known, weak=weak)


def _ampm(h: int, ap: str) -> int | None:
    return h % 12 + (12 if ap.lower() == "p" else 0) if 1 <= h <= 12 else None


def _pod_hour(h: int, pod: str) -> int | None:
    if not 0 <= h <= 12:
        return None
    return h % 12 + (12 if pod.lower() in ("afternoon", "evening", "night") else 0)


def _h_clock(c: Ctx, m: re.Match[str]) -> Span | None:
    a, b = m.start(), m.end()
    if m["nm"]:
        if m["nm"].lower() == "midnight":
            return c.clock(a, b, 0, 0, True, dayoff=1)  # the midnight that ends the day
        return _clock(c, a, b, 12, 0, True)
    if m["ap"] or m["ap1"]:
        h = _ampm(int(m["h"] or m["ha"]), m["ap"] or m["ap1"])
        return None if h is None else _clock(c, a, b, h, int(m["mi"] or m["ma"] or 0), True)
    if m["h24"]:
        h = int(m["h24"])
        if m["ip24"]:
            hp = _pod_hour(h, m["ip24"])
            return None if hp is None else _clock(c, a, b, hp, int(m["m24"]), True)
        return _clock(c, a, b, h, int(m["m24"]), h == 0 or h >= 13 or m["h24"].startswith("0"))
    if m["hoc"]:
        h = _num(m["hoc"])
        if not 1 <= h <= 12:
            return None
        if m["ap2"]:
            return _clock(c, a, b, _ampm(h, m["ap2"]) or 0, 0, True)
        pod = m["ip"] or m["ipn"]
        if pod:
            return _clock(c, a, b, _pod_hour(h, pod) or 0, 0, True)
        return _clock(c, a, b, h, 0, False)
    if m["hin"] or m["hn"]:
        h = _num(m["hin"] or m["hn"])
        hp = _pod_hour(h, m["ip2"] or "night") if 1 <= h <= 12 else None
        return None if hp is None else _clock(c, a, b, hp, 0, True)
    q, qh = m["qp"].lower(), _num(m["qh"])
    if not 1 <= qh <= 12:
        return None
    mins = 15 if q == "quarter" else 30 if q == "half" else 25 if q == "twenty-five" else _num(q.split()[0])
    if q == "half" and m["qd"].lower() not in ("past", "after"):
        return None
    if m["qd"].lower() in ("past", "after"):
        return _clock(c, a, b, qh, mins, False)
    return _clock(c, a, b, (qh - 1) % 12 or 12, 60 - mins, False)


def _h_weak(c: Ctx, m: re.Match[str]) -> Span | None:
    h = int(m["h"])
    return _clock(c, m.start(), m.end(), h, 0, h == 0 or h >= 13, weak=2) if h <= 23 else None


def _explicit(c: Ctx, a: int, b: int, y: int | None, mo: int | None, d: int, pos: int) -> Span | None:
    if mo is None:
        return None
    day = mkdate(y, mo, d) if y is not None else pick_year(c, pos, lambda yy: mkdate(yy, mo, d))
    sp = c.day(a, b, day, relative=False)
    return None if sp is None else replace(sp, part=None if y is not None else "md")


def _h_iso(c: Ctx, m: re.Match[str]) -> Span | None:
    return _explicit(c, m.start(), m.end(), int(m["y"]), int(m["m"]), int(m["d"]), m.start())


def _h_num(c: Ctx, m: re.Match[str]) -> Span | None:
    a, b, y = int(m["a"]), int(m["b"]), int(m["y"])
    mo, d = (b, a) if a > 12 else (a, b)  # US month/day unless the first number cannot be a month
    return _explicit(
        c, m.start(), m.end(), two_digit_year(y, c.base.year) if len(m["y"]) == 2 else y, mo, d, m.start()
    )


def _h_mdnum(c: Ctx, m: re.Match[str]) -> Span | None:
    a, b = int(m["a"]), int(m["b"])
    mo, d = (b, a) if a > 12 else (a, b)
    return _explicit(c, m.start(), m.end(), None, mo, d, m.start()) if 1 <= mo <= 12 and d >= 1 else None


# casual typing lowercases months: "moved my flight to march 5" is a date after a preposition, with its day
_DATE_PREP = re.compile(r"\b(?:on|to|by|until|till|from|since|for|before|after)\s+$", re.I)


def _h_md(c: Ctx, m: re.Match[str]) -> Span | None:
    if m.groupdict().get("wdp") and m["wdp"][0].islower() and len(m["wdp"]) <= 4:
        return None
    y = int(m["y"]) if m["y"] else None
    mo = _month(m["mon"])
    if (
        mo is None
        and m["mon"].lower() in ("may", "march", "august")
        and _DATE_PREP.search(c.text, 0, m.start())
    ):
        mo = _month(m["mon"].capitalize())
    return _explicit(c, m.start(), m.end(), y, mo, int(m["d"]), m.start())


def _h_nth_of_month(c: Ctx, m: re.Match[str]) -> Span | None:
    k = {"this": 0, "the": 0, "next": 1, "last": -1}[m["rel"].lower()]
    ym = ym_shift(c.base.year, c.base.month, k)
    return None if ym is None else c.day(m.start(), m.end(), mkdate(ym[0], ym[1], int(m["d"])))


def _h_the_nth(c: Ctx, m: re.Match[str]) -> Span | None:
    """A day number alone, read as ``12号`` is (docs/time-conventions.md): this month's unless more than 10 days
    past; the latest one in a past-tense sentence; the next one after a deadline word (by / until / before) or
    in a future one. With a weekday, the nearest such date that falls on it (Friday the 13th)."""
    dd, tense = int(m["d"]), c.tense(m.start())
    deadline = re.match(r"(?:by|until|till|before)\b", m.group(), re.I) is not None
    past = tense < 0 and not deadline
    lo = c.base if (tense > 0 or deadline) else shift(c.base, -10)
    months = range(0, -13, -1) if past else range(-1, 13)
    days = [
        d
        for k in months
        if (ym := ym_shift(c.base.year, c.base.month, k)) is not None
        and (d := mkdate(ym[0], ym[1], dd)) is not None
        and (d <= c.base if past else lo is not None and d >= lo)
    ]
    if m["wd"]:
        idx = _wd_of(m["wd"])
        days = [d for d in days if d.weekday() == idx] or days
    if not days:
        return None
    return c.day(m.start() if m["wd"] else m.start("the"), m.end(), days[0], relative=True)


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
    last = pick_year(c, m.start(), lambda yy: month_last(yy, mo))
    rng = month_range((last.year, mo), c.tz) if last else None
    sp = c.span(m.start("mon"), m.end(), rng, "month", False)
    return None if sp is None else replace(sp, part="mon")


def _h_year(c: Ctx, m: re.Match[str]) -> Span | None:
    return c.span(m.start("y"), m.end(), year_range(int(m["y"]), c.tz), "year", False)


# ---------------------------------------------------------------- ranges, period edges, quarters, offsets
_THRU = r"\s*(?:-|–|—|to|through|thru|until|till)\s*"
_ORD = r"(?:st|nd|rd|th)?"
_R_DRANGE = re.compile(
    rf"\b(?:from\s+|between\s+)?(?P<d1>\d{{1,2}}){_ORD}(?:{_THRU}|\s+and\s+)(?P<d2>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mon>{_MON})\b"
    rf"|\b(?:from\s+|between\s+)?(?P<mon2>{_MON})\.?\s+(?P<e1>\d{{1,2}}){_ORD}(?:{_THRU}|\s+and\s+)(?P<e2>\d{{1,2}}){_ORD}\b(?![:/]|\s*(?:[ap]\.?m|o'?clock)\b)",
    _F,
)
_AP = r"(?:\s*(?P<{}>[ap])(?:\.m\b\.?|m\b))?"
_R_CRANGE = re.compile(
    rf"(?<![\w:.])(?P<from>from\s+|between\s+)?(?P<h1>\d{{1,2}})(?::(?P<m1>[0-5]\d))?{_AP.format('a1')}"
    rf"(?:{_THRU}|\s+and\s+)(?:(?P<noon>noon|midday)\b|(?P<h2>\d{{1,2}})(?::(?P<m2>[0-5]\d))?{_AP.format('a2')})",
    _F,
)
_R_EDGE = re.compile(
    rf"\b(?:the\s+)?(?P<e>end|beginning|start)\s+of\s+(?:the\s+)?(?:(?:(?P<q>this|next|last)\s+)?(?P<u>month|quarter|year|week)\b"
    rf"|(?P<mon>{'|'.join(_MONTHS_FULL)})\b(?:\s+(?P<y>\d{{4}})\b)?|Q(?P<qq>[1-4])\b)",
    _F,
)
_R_QUARTER = re.compile(
    r"\b(?P<q>this|next|last)\s+quarter\b|\bQ(?P<n>[1-4])\b(?:\s+(?P<y>(?:19|20)\d{2})\b)?", re.A
)
_R_AFTERNEXT = re.compile(rf"\b(?:the\s+)?(?P<wd>{_WD})\s+after\s+next\b", _F)
_R_WEEKSFROM = re.compile(
    rf"\b(?P<n>{_NUM})\s+weeks?\s+from\s+(?:(?P<t>today|tomorrow|{_TOMORROW})|(?:next\s+)?(?P<wd>{_WD}))\b",
    _F,
)
_R_NTH = re.compile(
    rf"\b(?:the\s+)?(?P<nth>first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+(?P<wd>{_WD})\s+(?:of|in)\s+"
    rf"(?:(?P<mon>{'|'.join(_MONTHS_FULL)})\b|(?P<rel>the|this|next|last)\s+month\b)",
    _F,
)
_R_SEASON = re.compile(
    r"\b(?:(?P<q>this|last|next|this\s+past|this\s+coming)\s+(?P<s>spring|summer|fall|autumn|winter)"
    r"|(?:the\s+)?(?P<s2>spring|summer|fall|autumn|winter)\s+(?:of\s+)?(?P<y>(?:19|20)\d{2}))\b",
    _F,
)
_R_LASTN = re.compile(
    rf"\b(?:the\s+)?(?P<d>past|last|next|coming|previous|following)\s+(?P<n>\d{{1,3}}|{'|'.join(_NUMS)}|couple\s+of|few)\s+"
    r"(?P<u>day|week|month|year)s\b",
    _F,
)
_NTH = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
    "5th": 5,
}


def _h_drange(c: Ctx, m: re.Match[str]) -> Span | None:
    mo = _month(m["mon"] or m["mon2"])
    d1, d2 = (int(m["d1"]), int(m["d2"])) if m["d1"] else (int(m["e1"]), int(m["e2"]))
    if mo is None or d2 < d1:
        return None
    end = pick_year(c, m.start(), lambda yy: mkdate(yy, mo, d2))
    if end is None:
        return None
    rng = days_range(mkdate(end.year, mo, d1), end, c.tz)
    return c.span(m.start(), m.end(), rng, "day", False, prio=2)


def _h_crange(c: Ctx, m: re.Match[str]) -> Span | None:
    if not (m["a1"] or m["a2"] or m["noon"] or m["from"]):
        return None  # "3-5" alone is a score, not a time
    h1, h2 = int(m["h1"]), 12 if m["noon"] else int(m["h2"])
    m1, m2 = int(m["m1"] or 0), int(m["m2"] or 0)
    a1, a2 = m["a1"], m["a2"] or ("p" if m["noon"] else None)
    if a2:
        h2 = _ampm(h2, a2) if not m["noon"] else 12
    if h2 is None or h1 > 12:
        return None
    if a1:
        h1 = _ampm(h1, a1)
    elif (
        a2
    ):  # "2-4pm": the first takes the second's half of the day unless that would put it after the second
        h1p = _ampm(h1, a2)
        h1 = h1p if h1p is not None and h1p <= h2 else _ampm(h1, "a")
    elif 1 <= h1 <= 7:
        h1, h2 = h1 + 12, h2 + 12 if h2 < 12 else h2
    elif h2 < h1 <= 12:  # "from 11 to 1": the end is after noon
        h2 += 12
    if h1 is None or not 0 <= h2 < 24 or (h1, m1) >= (h2, m2):
        return None
    t0 = wall(c.base, c.tz, h1, m1)
    t1 = wall(c.base, c.tz, h2, m2)
    return Span(m.start(), m.end(), t0, t1, "minute" if m1 else "hour", True, tod=True, prio=2)


def _h_edge(c: Ctx, m: re.Match[str]) -> Span | None:
    end = m["e"].lower() == "end"
    if m["mon"]:
        mo = _MONTHS_FULL.index(m["mon"].lower()) + 1
        if m["y"]:
            y = int(m["y"])
        else:
            last = pick_year(c, m.start(), lambda yy: month_last(yy, mo))
            if last is None:
                return None
            y = last.year
        d = month_last(y, mo) if end else mkdate(y, mo, 1)
        return c.day(m.start(), m.end(), d, relative=not m["y"])
    if m["qq"]:
        q = int(m["qq"])
        rng = quarter_range(date(c.base.year, 3 * q - 2, 1), 0, c.tz)
    else:
        k = {"this": 0, "next": 1, "last": -1, None: 0}[m["q"].lower() if m["q"] else None]
        u = m["u"].lower()
        rng = quarter_range(c.base, k, c.tz) if u == "quarter" else unit_range(c.base, u, k, c.tz)[0]
    if rng is None:
        return None
    return c.day(m.start(), m.end(), rng[1].date() if end else rng[0].date())


def _h_quarter(c: Ctx, m: re.Match[str]) -> Span | None:
    if m["q"]:
        rng = quarter_range(c.base, {"this": 0, "next": 1, "last": -1}[m["q"].lower()], c.tz)
        return c.span(m.start(), m.end(), rng, "quarter")
    y = int(m["y"]) if m["y"] else c.base.year
    rng = quarter_range(date(y, 3 * int(m["n"]) - 2, 1), 0, c.tz)
    return c.span(m.start(), m.end(), rng, "quarter", not m["y"])


def _h_afternext(c: Ctx, m: re.Match[str]) -> Span | None:
    idx = _wd_of(m["wd"])
    return c.day(m.start(), m.end(), shift(c.base, idx - c.base.weekday() + 14), relative=True)


def _h_weeksfrom(c: Ctx, m: re.Match[str]) -> Span | None:
    n = _num(m["n"])
    if m["t"]:
        anchor = shift(c.base, 0 if m["t"].lower() == "today" else 1)
    else:
        anchor = c.weekday(_wd_of(m["wd"]), m.start())
        if "next" in m.group().lower():
            anchor = shift(c.base, _wd_of(m["wd"]) - c.base.weekday() + 7)
    return c.day(m.start(), m.end(), shift(anchor, 7 * n))


def _h_nth(c: Ctx, m: re.Match[str]) -> Span | None:
    idx, nth = _wd_of(m["wd"]), m["nth"].lower()
    if m["mon"]:
        mo = _MONTHS_FULL.index(m["mon"].lower()) + 1
        last = pick_year(c, m.start(), lambda yy: month_last(yy, mo))
        if last is None:
            return None
        y = last.year
    else:
        k = {"the": 0, "this": 0, "next": 1, "last": -1}[m["rel"].lower()]
        ym = ym_shift(c.base.year, c.base.month, k)
        if ym is None:
            return None
        y, mo = ym
    if nth == "last":
        end = month_last(y, mo)
        d = shift(end, -((end.weekday() - idx) % 7)) if end else None
    else:
        first = mkdate(y, mo, 1)
        d = shift(first, (idx - first.weekday()) % 7 + 7 * (_NTH[nth] - 1)) if first else None
        if d is not None and d.month != mo:
            return None
    return c.day(m.start(), m.end(), d)


def _h_season(c: Ctx, m: re.Match[str]) -> Span | None:
    """'this summer' is this year's (a winter said in Jan/Feb is the one under way), last/next one year off."""
    if m["y"]:
        return c.span(m.start(), m.end(), season_range(int(m["y"]), m["s2"].lower(), c.tz), "month", False)
    s, q = m["s"].lower(), " ".join(m["q"].lower().split())
    y = c.base.year - (1 if s == "winter" and c.base.month <= 2 else 0)
    y += {"this": 0, "last": -1, "this past": -1, "next": 1, "this coming": 0}[q]
    return c.span(m.start(), m.end(), season_range(y, s, c.tz), "month")


def _h_lastn(c: Ctx, m: re.Match[str]) -> Span | None:
    raw = m["n"].lower()
    n = 2 if raw.startswith("couple") else 3 if raw == "few" else _num(raw)
    if n < 2 or n > 100:
        return None
    back = m["d"].lower() in ("past", "last", "previous")
    u = m["u"].lower()
    first, last = (-n, -1) if back else (1, n)
    r0, g = unit_range(c.base, u, first, c.tz)
    r1, _ = unit_range(c.base, u, last, c.tz)
    if r0 is None or r1 is None:
        return None
    return Span(m.start(), m.end(), r0[0], r1[1], g, True, prio=3)


def _h_holiday(c: Ctx, m: re.Match[str]) -> Span | None:
    from memscribe.lang.timeparse_holidays import holiday_span

    sp = holiday_span(c, m, "en")
    return None if sp is None else replace(sp, prio=3)


def _h_rec(c: Ctx, m: re.Match[str]) -> Span | None:
    from memscribe.lang.timeparse_rec import en_recurrence

    sp = en_recurrence(c, m)
    return None if sp is None else replace(sp, prio=4)


def _rules() -> tuple[tuple[re.Pattern[str], Callable[[Ctx, re.Match[str]], Span | None]], ...]:
    from memscribe.lang.timeparse_holidays import EN_HOLIDAY
    from memscribe.lang.timeparse_rec import EN_REC

    return (
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
        (_R_MDNUM, _h_mdnum),
        (_R_MD, _h_md),
        (_R_DM, _h_md),
        (_R_THE_NTH, _h_the_nth),
        (_R_NTH_OF_MONTH, _h_nth_of_month),
        (_R_MY, _h_my),
        (_R_PM, _h_pm),
        (_R_YEAR, _h_year),
        (_R_DRANGE, _h_drange),
        (_R_CRANGE, _h_crange),
        (_R_EDGE, _h_edge),
        (_R_QUARTER, _h_quarter),
        (_R_AFTERNEXT, _h_afternext),
        (_R_WEEKSFROM, _h_weeksfrom),
        (_R_NTH, _h_nth),
        (_R_LASTN, _h_lastn),
        (_R_SEASON, _h_season),
        (EN_HOLIDAY, _h_holiday),
        (EN_REC, _h_rec),
    )


_RULES_CACHE: list[tuple[re.Pattern[str], Callable[[Ctx, re.Match[str]], Span | None]]] = []


def en_spans(ctx: Ctx) -> list[Span]:
    """Candidate spans from the English rules (they only fire on ASCII words, so they are safe on mixed text)."""
    if _TRIGGER.search(ctx.text) is None:
        return []
    if not _RULES_CACHE:
        _RULES_CACHE.extend(_rules())
    out = []
    for rx, fn in _RULES_CACHE:
        for m in rx.finditer(ctx.text):
            sp = fn(ctx, m)
            if sp is not None:
                out.append(sp)
    return out
