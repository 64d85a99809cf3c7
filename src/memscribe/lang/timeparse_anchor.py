"""Times counted from another time: an offset from an anchor day, and the same day of another period.

The span rules resolve each expression against the message's own time. Some expressions name a second time
and count from it instead, and read span by span they come out wrong — "two weeks from this Thursday" as this
Thursday, "6月20日的三天后" as 6月20日 plus a separate "three days from now", "下个月的今天" as the whole of next
month. This pass runs after the span rules and joins an anchor day with the offset written next to it:

* ``<n> <unit> from|after|before <day>`` (en) and ``the day|week after|before <day>``;
* ``<day>的<n><unit>后|前``, ``<day>之后的第<n>天``, ``<day>再过<n>天``, ``<day>往后推<n>周`` (zh);
* ``<n>周后的周四`` / ``一周后的周五``: the weekday inside the week that the offset names;
* ``the Sunday before Easter``, ``the Monday after Thanksgiving``: the nearest such weekday on that side;
* ``下周的今天``, ``三个月后的今天``, ``明年这个时候``, ``this time next year``: the day with ``at``'s place in
  that week, month or year.

A duration that starts at a day is not an offset ("for two weeks from Monday", "2 weeks from March 20 to
April 3"): the anchor is left as it is.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from memscribe.lang.timeparse_en import NUM_RE, WEEKDAYS, Ctx, Span, mkdate, num_value, shift, wall, ym_shift
from memscribe.lang.timeparse_zh import N as ZH_N
from memscribe.lang.timeparse_zh import zh_int
from memscribe.lang.timeparse_zh_month import ZH_WEEKDAY_INDEX

__all__ = ["anchored"]

_EN_BEFORE = re.compile(
    rf"(?:\b(?P<n>{NUM_RE})\s+(?P<u>day|week|month|year)s?|\bthe\s+(?P<u1>day|week))\s+"
    r"(?P<dir>from|after|before)\s+$",
    re.I | re.A,
)
_EN_WD_AROUND = re.compile(
    rf"\bthe\s+(?P<wd>{'|'.join(WEEKDAYS)})\s+(?P<dir>before|after)\s+$",
    re.I | re.A,
)
_EN_DURATION = re.compile(r"\b(?:for|lasts?|lasting|spend|spent|spending|takes?|took)\s+$", re.I)
_EN_RANGE_AFTER = re.compile(r"\s*(?:to|until|till|through|thru|-|–)\s", re.I)

_ZH_UNIT = r"天|日|周|星期|礼拜|个星期|个礼拜|个月|月|年"
_ZH_AFTER = re.compile(
    rf"(?:的|之|以)?(?:(?P<n>{ZH_N})(?P<u>{_ZH_UNIT})(?P<dir>之后|以后|后|之前|以前|前)"
    rf"|(?:之后|以后|后)的?第(?P<n2>{ZH_N})(?P<u2>天|日)"
    rf"|(?:再过|过|往后推|往后延|顺延)(?P<n3>{ZH_N})(?P<u3>{_ZH_UNIT})"
    rf"|的?(?P<dir4>前|后)(?P<n4>{ZH_N})(?P<u4>天|日|周|个星期|个礼拜))"
)
_ZH_WEEKDAY = re.compile(r"的?(?:周|星期|礼拜)(?P<d>[一二三四五六日天])")
# 下周的今天, 明年这个时候, 三个月后的今天 (after the span) / this time next week, this time last year (before it)
_ZH_SAME_DAY = re.compile(r"的?(?:今天|这个时候|这时候|这一天)")
_EN_SAME_DAY = re.compile(r"\bthis\s+(?:time|day)\s+$", re.I)
_ZH_UNITS = {
    "天": "day",
    "日": "day",
    "周": "week",
    "星期": "week",
    "礼拜": "week",
    "个星期": "week",
    "个礼拜": "week",
    "个月": "month",
    "月": "month",
    "年": "year",
}


def _one_day(s: Span) -> bool:
    return not s.tod and s.rec is None and s.gran == "day" and s.t0.date() == s.t1.date()


def _moved(d: date, unit: str, n: int) -> date | None:
    """``d`` moved by ``n`` units; a month or a year keeps the day number (31 Jan + 1 month = 28/29 Feb)."""
    if unit == "day":
        return shift(d, n)
    if unit == "week":
        return shift(d, 7 * n)
    ym = ym_shift(d.year, d.month, n if unit == "month" else 12 * n)
    if ym is None:
        return None
    day = d.day
    while day > 28 and mkdate(ym[0], ym[1], day) is None:
        day -= 1
    return mkdate(ym[0], ym[1], day)


def _day_span(c: Ctx, a: int, b: int, d: date | None, like: Span) -> Span | None:
    if d is None:
        return None
    return replace(
        like,
        start=a,
        end=b,
        t0=wall(d, c.tz),
        t1=wall(d, c.tz, 23, 59, 59),
        gran="day",
        relative=True,  # counted, not written: the stored sentence gets the date
        bare=False,
        wd=(),
    )


def _en_weekday_around(c: Ctx, s: Span) -> Span | None:
    """the Sunday before Easter, the Monday after Thanksgiving: the nearest such weekday strictly on that side."""
    if s.bare:
        return None  # "the Friday after Monday" is no way to say a date
    m = _EN_WD_AROUND.search(c.text, max(0, s.start - 24), s.start)
    if m is None:
        return None
    wd, d = WEEKDAYS.index(m["wd"].lower()), s.t0.date()
    if m["dir"].lower() == "before":
        day = shift(d, -((d.weekday() - wd - 1) % 7 + 1))
    else:
        day = shift(d, (wd - d.weekday() - 1) % 7 + 1)
    return _day_span(c, m.start(), s.end, day, s)


def _en_offset(c: Ctx, s: Span) -> Span | None:
    m = _EN_BEFORE.search(c.text, max(0, s.start - 40), s.start)
    if m is None or _EN_DURATION.search(c.text, max(0, m.start() - 12), m.start()):
        return None
    if _EN_RANGE_AFTER.match(c.text, s.end):
        return None
    unit = (m["u"] or m["u1"]).lower()
    n = num_value(m["n"]) if m["n"] else 1
    sign = -1 if m["dir"].lower() == "before" else 1
    return _day_span(c, m.start(), s.end, _moved(s.t0.date(), unit, sign * n), s)


def _zh_offset(c: Ctx, s: Span) -> Span | None:
    m = _ZH_AFTER.match(c.text, s.end)
    if m is None:
        return None
    if m["n"] is not None:
        raw, unit, sign = m["n"], m["u"], -1 if "前" in m["dir"] else 1
    elif m["n2"] is not None:
        raw, unit, sign = m["n2"], m["u2"], 1
    elif m["n3"] is not None:
        raw, unit, sign = m["n3"], m["u3"], 1
    else:  # 端午节前一天, 中秋节后两天: said right after its day, 前N天 counts back from it
        raw, unit, sign = m["n4"], m["u4"], -1 if m["dir4"] == "前" else 1
    n = zh_int(raw)
    if n is None or n == 0:
        return None
    return _day_span(c, s.start, m.end(), _moved(s.t0.date(), _ZH_UNITS[unit], sign * n), s)


def _weekday_in_week(c: Ctx, s: Span) -> Span | None:
    """一周后的周五: the weekday inside the week an offset names."""
    if s.gran != "week" or s.rec is not None or s.tod:
        return None
    m = _ZH_WEEKDAY.match(c.text, s.end)
    if m is None:
        return None
    monday = s.t0.date()
    return _day_span(c, s.start, m.end(), shift(monday, ZH_WEEKDAY_INDEX[m["d"]] - monday.weekday()), s)


def _same_day_of(c: Ctx, s: Span) -> Span | None:
    """The day with ``at``'s place in a week, month or year that a relative span names: 下周的今天, 明年这个时候,
    三个月后的今天, this time next year."""
    if not s.relative or s.rec is not None or s.tod or s.gran not in ("week", "month", "year"):
        return None
    after = _ZH_SAME_DAY.match(c.text, s.end)
    before = None if after else _EN_SAME_DAY.search(c.text, max(0, s.start - 16), s.start)
    if after is None and before is None:
        return None
    first, base = s.t0.date(), c.base
    if s.gran == "week":
        d = shift(first, base.weekday())
    elif s.gran == "month":
        d = _moved(base, "month", (first.year - base.year) * 12 + first.month - base.month)
    else:
        d = _moved(base, "year", first.year - base.year)
    start = before.start() if before else s.start
    return _day_span(c, start, after.end() if after else s.end, d, s)


def anchored(c: Ctx, spans: list[Span]) -> list[Span]:
    """The spans with every anchor + offset joined into one day (see the module docstring)."""
    out: list[Span] = []
    for s in spans:
        if out and s.start < out[-1].end:
            continue  # consumed by the joined span before it (the "三天后" of 6月20日的三天后)
        joined = None
        joined = _same_day_of(c, s)
        if joined is None and _one_day(s):
            joined = _zh_offset(c, s) or _en_offset(c, s) or _en_weekday_around(c, s)
        if joined is None:
            joined = _weekday_in_week(c, s)
        if joined is not None:
            while out and out[-1].end > joined.start:
                out.pop()  # an English offset starts before the anchor: nothing earlier may overlap it
            out.append(joined)
            continue
        out.append(s)
    return out
